"""lessonkit.show.lesson.start(): an interrupt in a lesson shows one line, %tb the whole traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from lessonkit.show.lesson import start

IPYTHON_SCRIPT = textwrap.dedent("""
    import os, sys
    from IPython.testing.globalipapp import start_ipython
    ip = start_ipython()
    from lessonkit.show.lesson import start
    assert start(ip)
    ip.run_cell("def deep(n):\\n    if n == 0:\\n        raise KeyboardInterrupt\\n    deep(n - 1)")
    result = ip.run_cell("deep(30)")
    print("FAILED=" + str(not result.success))
    sys.stdout.flush()
    ip.run_line_magic("tb", "")
""")


def run(env_extra=None):
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("LESSONS_")}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", IPYTHON_SCRIPT], capture_output=True, text=True,
                          env=env, timeout=120)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_an_interrupt_shows_one_line_and_tb_shows_the_traceback():
    """Issue 34: a KeyboardInterrupt during ask() printed a 60-line traceback through the kit."""
    out = run()
    text = out.stdout + out.stderr
    head, _, tb = text.partition("FAILED=True")
    assert "FAILED=True" in text, text                       # the cell still stops
    assert "interrupted: the history is intact" in head
    assert "deep(n - 1)" not in head and "Traceback" not in head, head   # no traceback before %tb
    assert "KeyboardInterrupt" in tb and "deep" in tb        # %tb: the whole story


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_lessons_traceback_1_shows_the_whole_traceback():
    out = run({"LESSONS_TRACEBACK": "1"})
    head = (out.stdout + out.stderr).partition("FAILED=True")[0]
    assert "deep(n - 1)" in head and "interrupted: the history is intact" not in head


def test_start_outside_ipython_does_nothing_and_import_registers_nothing():
    code = ("import lessonkit.show.lesson, IPython; from lessonkit.show.lesson import start; "
            "print(IPython.get_ipython() is None, start())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["True", "False"], out.stderr


@pytest.mark.parametrize("value", ["", "0", "no"])
def test_only_a_yes_asks_for_the_traceback(monkeypatch, value):
    from lessonkit.show.lesson import wants_traceback

    monkeypatch.setenv("LESSONS_TRACEBACK", value)
    assert not wants_traceback()
    assert start is not None
