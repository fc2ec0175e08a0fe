"""An agent script written against the plain `anthropic` SDK (tests/outside_agent.py, no lessonkit),
run in a subprocess against `python -m offline serve`, finishes grammar requests with the right files."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

AGENT = Path(__file__).with_name("outside_agent.py")
PROMPTS = ["Create a file hello.py that prints Hello, World!",
           "Create a directory called test_output",
           "create greet.py with a greet(name) function and then run hello.py"]


@pytest.fixture
def served():
    proc = subprocess.Popen([sys.executable, "-m", "offline", "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        m = re.match(r"offline model on (http://127\.0\.0\.1:\d+)", line)
        assert m, line + proc.stderr.read()
        yield m.group(1)
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_script_does_not_use_lessonkit():
    assert "lessonkit" not in AGENT.read_text().replace("no lessonkit", "")


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_a_course_style_agent_finishes_three_grammar_prompts(served, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LESSONS_"))}
    env.update(ANTHROPIC_BASE_URL=served, ANTHROPIC_API_KEY="offline", MODEL_ID="claude-sonnet-4-5")
    done = subprocess.run([sys.executable, str(AGENT), *PROMPTS], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "hello.py").read_text() == 'print("Hello, World!")\n'
    assert (tmp_path / "test_output").is_dir()
    greet = subprocess.run([sys.executable, "-c", "from greet import greet; print(greet('Bo'))"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=30, check=False)
    assert greet.stdout == "Hello, Bo!\n"
    assert "- `python3 hello.py`: 1 line: Hello, World!" in done.stdout  # the real output, read back
    assert "no answer after" not in done.stdout
