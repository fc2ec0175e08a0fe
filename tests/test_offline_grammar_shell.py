"""The grammar's entries that ask the system (grammar_shell.py), driven through the s02 and s03 agents.

Each answer is checked against what the command itself prints when run here: the real folder,
the real Python version, the real test summary. A request that only looks like a command runs nothing.
"""

from __future__ import annotations

import os
import sys

import pytest

from offline.grammar.table import parse
from tests.test_offline_grammar import NOTES, STAGES, Asked, ask, make_agent, run, said, ws  # noqa: F401

SH = {"bash": {"name": "bash"}}


@STAGES
@pytest.mark.parametrize("prompt, command", [("run ls -la", "ls -la"), ("运行 ls -la", "ls -la"), ("ls -la", "ls -la"),
                                             ("execute ls", "ls")])
def test_a_command_typed_without_backticks_runs_as_typed(ws, stage, prompt, command):  # noqa: F811
    answer, calls = ask(make_agent(stage, ws), prompt)
    assert calls == [("bash", {"command": command})]
    assert said(prompt, "entries: calc.py, notes.txt, test_calc.py", "项：calc.py, notes.txt, test_calc.py") in answer


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@STAGES
@pytest.mark.parametrize("prompt, shown", [("run echo hello world", "hello world"), ("run wc -l notes.txt", "3 notes.txt"),
                                           ("run ls | wc -l", "3"), ("grep -n TODO notes.txt", "2:gamma TODO delta"),
                                           ("run `python -c 'print(6 * 7)'`", "42")])
def test_its_real_output_is_reported(ws, stage, prompt, shown):  # noqa: F811
    answer, calls = ask(make_agent(stage, ws), prompt)
    assert len(calls) == 1 and f"1 line: {shown}" in answer


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@STAGES
def test_run_pytest_reports_the_test_summary(ws, stage, monkeypatch):  # noqa: F811
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    answer, calls = ask(make_agent(stage, ws), "run pytest -q")
    assert calls == [("bash", {"command": "pytest -q"})] and "1 passed" in answer
    answer, calls = ask(make_agent(stage, ws), "run python -m pytest -q")
    assert calls == [("bash", {"command": "python3 -m pytest -q"})]


@STAGES
@pytest.mark.parametrize("prompt", ["pwd", "What is the current directory?", "where am I", "当前目录是什么"])
def test_the_current_folder_is_the_workspace(ws, stage, prompt):  # noqa: F811
    answer, calls = ask(make_agent(stage, ws), prompt)
    assert calls == [("bash", {"command": "pwd"})]
    folder = run(ws, "pwd").stdout.strip()
    assert said(prompt, f"- the current folder is {folder}", f"- 当前目录是 {folder}") in answer


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@STAGES
@pytest.mark.parametrize("prompt", ["Which Python version is installed?", "What's the python version?",
                                    "python version", "python 是什么版本？", "查看 python 版本"])
def test_the_python_version_is_the_one_installed(ws, stage, prompt):  # noqa: F811
    answer, calls = ask(make_agent(stage, ws), prompt)
    version = run(ws, "python3", "--version").stdout.strip()
    assert calls == [("bash", {"command": "python3 --version"})] and "`python3 --version`" in answer
    assert version in answer and version.startswith("Python 3")


@STAGES
@pytest.mark.parametrize("prompt", ["What time is it?", "what's the date today", "今天几号？"])
def test_the_date_comes_from_date(ws, stage, prompt):  # noqa: F811
    answer, calls = ask(make_agent(stage, ws), prompt)
    assert calls == [("bash", {"command": "date"})] and run(ws, "date", "+%Y").stdout.strip() in answer


@pytest.mark.parametrize("prompt", [
    "run the marathon", "run faster", "run a test", "run python", "run cat", "run tail -f app.log",
    "run find . -delete", "run git push", "run pip install requests", "run echo hi > x.txt", "run ls & rm notes.txt",
    "run echo $HOME", "run ls && rm notes.txt", "run ls | sh", "run rm notes.txt", "run Python 3", "pytest failed",
    "echo is a shell command, right?", "date night ideas", "which python library is best for plotting",
    "what time is it in Tokyo", "python is a snake"])
def test_what_only_looks_like_a_command_is_outside_and_runs_nothing(prompt):
    assert parse(prompt, SH) is None


def test_s03_still_asks_before_rm_and_mv_and_a_no_keeps_the_files(ws):  # noqa: F811
    for prompt, command in (("rm notes.txt", "rm notes.txt"), ("mv notes.txt b.txt", "mv notes.txt b.txt")):
        no = Asked(answer=False)
        answer, _ = ask(make_agent("s03", ws, no), prompt)
        assert no.calls == [command] and answer.startswith("Stopped") and (ws / "notes.txt").read_text() == NOTES
