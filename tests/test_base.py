"""lessonkit/base: what every stage needs but none teaches, checked on its own (the stages' tests
check it again through s01's bash, s05's record folders and every entry point's checks)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import s01_loop
import s02_tools
from lessonkit.base.arguments import check_int, check_type, short_repr
from lessonkit.base.folders import folder_holding, read_only_in
from lessonkit.base.history_shape import check_history, history_problem
from lessonkit.base.processes import run_tree


def test_run_tree_reports_how_the_command_ended(tmp_path):
    done = run_tree(["bash", "-c", "printf 'abcdef'; exit 4"], cwd=tmp_path, timeout=10, keep=3)
    assert (done.output, done.dropped, done.timed_out, done.returncode) == (b"abc", 3, False, 4)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_run_tree_kills_what_left_the_group_and_holds_the_pipe(tmp_path):
    """`setsid sleep &` keeps the output open in a new session: the call still returns at once,
    and the sleeper is gone (found by the call's mark in its environment)."""
    pid_file = tmp_path / "pid"
    started = time.monotonic()
    done = run_tree(["bash", "-c", f"setsid bash -c 'echo $$ > {pid_file}; exec sleep 30' & sleep 0.3; echo up"],
                    cwd=tmp_path, timeout=10, keep=1000)
    assert done.output.strip().endswith(b"up") and time.monotonic() - started < 5
    pid = int(pid_file.read_text())
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the escaped sleeper {pid} is still running")


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_run_tree_times_out_and_kills(tmp_path):
    done = run_tree(["bash", "-c", "echo a; sleep 30"], cwd=tmp_path, timeout=0.5, keep=100)
    assert done.timed_out and done.output == b"a\n"


def test_run_tree_cannot_start_in_a_missing_folder(tmp_path):
    with pytest.raises(OSError):
        run_tree(["bash", "-c", "true"], cwd=tmp_path / "nope", timeout=1, keep=10)


def test_the_checks_are_one_line_and_safe_for_any_value():
    deep: list = []
    for _ in range(3_000):
        deep = [deep]
    assert short_repr(deep) == "[[[[...]]]]"
    with pytest.raises(ValueError, match="keep must be a int, got True"):
        check_int(True, "keep")
    with pytest.raises(ValueError, match=r"path must be a str, got \[\[\[\[\.\.\.\]\]\]\]"):
        check_type(deep, str, "path")
    assert "message 1 (assistant), block 0" in history_problem(
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "tool_use", "id": 1}]}])
    with pytest.raises(ValueError, match="not a valid history"):
        check_history([{"role": "user", "content": {1, 2}}])


def test_the_stages_export_the_same_objects():
    """Moved, not copied: the names s01 exported are the base's own objects."""
    assert s01_loop.check_history is check_history and s01_loop.short_repr is short_repr


STAGES = sorted(p.name for p in Path(__file__).resolve().parents[1].glob("s[0-9][0-9]_*")
                if (p / "__init__.py").exists())


def second_names(package) -> list[str]:
    """Where a stage binds a function or class it defines to a name that is not its own: an alias
    (`shown = short_repr`), one thing under two names. Looks at the package's `__all__` and at the
    attributes of every class its modules define. Example: s01 with `shown = short_repr` -> ['s01_loop.shown']"""
    import importlib
    import inspect
    import pkgutil

    def alias(owner: str, name: str, value) -> str | None:
        value = getattr(value, "__func__", value)  # a staticmethod or classmethod: the function
        if not (inspect.isfunction(value) or inspect.isclass(value)):
            return None
        return f"{owner}.{name}" if value.__name__ != name and not name.startswith("_") else None

    found = [alias(package.__name__, n, getattr(package, n)) for n in getattr(package, "__all__", ())]
    for info in pkgutil.iter_modules(package.__path__):
        if info.name == "__main__":
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for cls in vars(module).values():
            if inspect.isclass(cls) and cls.__module__ == module.__name__:
                found += [alias(f"{module.__name__}.{cls.__name__}", n, v) for n, v in vars(cls).items()]
    return sorted({f for f in found if f})


@pytest.mark.parametrize("stage", STAGES)
def test_a_stage_gives_one_thing_one_name(stage):
    import importlib

    assert second_names(importlib.import_module(stage)) == []


def test_the_second_name_check_sees_an_alias():
    """The check finds what it forbids (it cannot pass empty)."""
    import types

    package = types.ModuleType("s99_demo")
    package.__path__, package.__all__ = [], ["relative_name", "shown"]
    package.relative_name = package.shown = s02_tools.relative_name
    assert second_names(package) == ["s99_demo.shown"]


def test_read_only_in_refuses_the_record_and_runs_the_rest(tmp_path):
    record = tmp_path / ".record"
    record.mkdir()
    wrote = []

    def write(workspace, path, content):
        wrote.append(path)
        return "ok"

    def refuse(path, folder):
        raise s01_loop.ToolError(f"{path} is in {folder.name}")

    tool = read_only_in(write, lambda: [record], s02_tools.resolve_in, refuse)
    assert tool.__name__ == "write" and tool(tmp_path, "a.txt", content="x") == "ok"
    for path in (".record/x.txt", ".record", "sub/../.record/y"):
        with pytest.raises(s01_loop.ToolError, match="is in .record"):
            tool(tmp_path, path, content="x")
    assert wrote == ["a.txt"]
    assert folder_holding(Path(tmp_path / ".recordings"), [record]) is None  # a look-alike sibling
