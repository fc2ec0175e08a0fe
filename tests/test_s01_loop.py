"""s01: the loop's stop conditions, tool errors and the bash tool, against the offline model."""

from __future__ import annotations

import functools
import json
import os
import re
import signal
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lessonkit.exercises import exercise_cells
from lessonkit.exercises.s01_loop import drops_every_call, exercise, keeps_cut_calls, may_leave_nothing
from offline import OfflineModel, offline_client
from s01_loop import (
    Agent,
    ToolError,
    agent_loop,
    assistant_message,
    bash,
    cap_output,
    check_history,
    final_text,
    run_bash,
    to_dict,
)
from tests.strategies import api_error, histories


def ended(answer, messages):
    """The loop stopped on a final answer: the last message is the assistant's text, with no tool call."""
    last = messages[-1]
    return (last["role"] == "assistant" and answer == final_text(last) != ""
            and all(b["type"] == "text" for b in last["content"]))

TWO_AT_ONCE = {"match": r"^both please$", "steps": [
    {"say": "Two commands at once", "calls": [{"tool": "bash", "input": {"command": "echo one"}},
                                             {"tool": "bash", "input": {"command": "exit 4"}}]}]}


def roles(messages):
    return [m["role"] for m in messages]


def test_runs_a_command_and_stops_on_end_turn(client, workspace):
    messages = []
    answer = Agent(client, workspace=workspace).ask("Run `echo hello`", messages)
    assert roles(messages) == ["user", "assistant", "user", "assistant"]
    assert messages[2]["content"][0]["content"] == "hello\n"
    assert messages[1]["content"][1]["type"] == "tool_use"
    assert ended(answer, messages)
    assert json.loads(json.dumps(messages)) == messages  # plain JSON all the way
    assert api_error(messages) is None


def test_no_tool_call_means_one_request(client, model, workspace):
    messages = []
    answer = Agent(client, workspace=workspace).ask("hello there", messages)
    assert roles(messages) == ["user", "assistant"] and model.calls == 1
    assert answer == messages[-1]["content"][0]["text"]


@pytest.mark.parametrize("commands, turns", [(["echo a"], 1), (["echo a", "echo b", "echo c"], 3)])
def test_one_turn_per_command_then_stop(client, model, workspace, commands, turns):
    messages = []
    Agent(client, workspace=workspace).ask("Run " + " and ".join(f"`{c}`" for c in commands), messages)
    assert model.calls == turns + 1
    assert len(messages) == 2 * turns + 2
    assert all(m["content"][0]["type"] == "tool_result" for m in messages[2:-1:2])


def test_all_results_of_a_turn_go_in_one_user_message(workspace):
    client = offline_client(OfflineModel(scenarios=[TWO_AT_ONCE]), max_retries=0)
    messages = []
    Agent(client, workspace=workspace).ask("both please", messages)
    results = messages[2]["content"]
    uses = [b for b in messages[1]["content"] if b["type"] == "tool_use"]
    assert [r["tool_use_id"] for r in results] == [u["id"] for u in uses]
    assert results[0] == {"type": "tool_result", "tool_use_id": uses[0]["id"], "content": "one\n"}
    assert results[1]["is_error"] is True and results[1]["content"] == "[exit code 4]"
    assert roles(messages) == ["user", "assistant", "user", "assistant"]


def test_max_turns_stops_the_loop_and_the_next_prompt_still_fits(client, workspace):
    agent = Agent(client, workspace=workspace, max_turns=2)
    messages = []
    answer = agent.ask("Run `echo 1` and `echo 2` and `echo 3`", messages)
    assert answer == "(stopped after 2 turns without a final answer)"
    assert roles(messages) == ["user", "assistant", "user", "assistant", "user"]
    agent.ask("hello", messages)  # merged into the dangling user turn: roles still alternate
    assert messages[4]["content"][-1] == {"type": "text", "text": "hello"}
    assert messages[4]["content"][0]["type"] == "tool_result"
    assert api_error(messages) is None and messages[-1]["role"] == "assistant"


def test_max_tokens_cut_drops_the_unfinished_tool_call(client, model, workspace):
    messages = []
    answer = Agent(client, workspace=workspace, max_tokens=3).ask("Run `echo a long command here`", messages)
    assert model.calls == 1 and roles(messages) == ["user", "assistant"]
    assert all(b["type"] == "text" for b in messages[1]["content"]) and answer
    assert api_error(messages) is None


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("command, expect", [
    ("exit 3", "[exit code 3]"),
    ("echo partial; sleep 5", "partial\n[timed out after 0.5 s]"),
    ("sleep 5 | cat", "[timed out after 0.5 s]"),          # a child holding the pipe is killed too
    ("no_such_command_xyz", "command not found"),
    ("", "the command is empty"),
])
def test_failures_are_results_not_exceptions(workspace, command, expect):
    start = time.monotonic()
    output, failed = run_bash(command, cwd=workspace, timeout=0.5)
    assert failed and expect in output
    assert time.monotonic() - start < 4


def test_bash_runs_in_the_workspace_with_stdout_and_stderr_in_order(workspace):
    output, failed = run_bash("pwd; echo out; echo err >&2; echo out2", cwd=workspace)
    assert not failed
    assert output.splitlines() == [str(workspace), "out", "err", "out2"]


def test_background_jobs_do_not_hold_the_call(workspace):
    start = time.monotonic()
    output, failed = run_bash("echo a; sleep 30 & echo b", cwd=workspace, timeout=10)
    assert (output, failed) == ("a\nb\n", False)
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("size", [10, 1000, 300_000])
def test_output_cap(workspace, size):
    output, failed = run_bash(f"head -c {size} /dev/zero | tr '\\0' x", cwd=workspace, cap=100)
    assert not failed and output.startswith("x" * min(size, 100))
    if size <= 100:
        assert output == "x" * size
    else:
        assert output[100:].startswith("\n[... ") and "cut]" in output
        assert len(output) < 200


def test_cap_output_says_how_much_was_cut():
    assert cap_output("abcdef", 3) == "abc\n[... 3 more characters cut]"
    assert cap_output("abc", 3) == "abc" and cap_output("abcdef", None) == "abcdef"


def test_bash_handler_raises_tool_error_with_the_output(workspace):
    assert bash("echo ok", cwd=workspace) == "ok\n"
    assert bash("echo okay", cwd=workspace, cap=2) == "ok\n[... 3 more characters cut]"
    with pytest.raises(ToolError, match=r"nope\n\[exit code 2\]"):
        bash("echo nope; exit 2", cwd=workspace)


@pytest.mark.parametrize("block, expect", [
    ({"id": "t1", "name": "python", "input": {}}, "unknown tool 'python'"),
    ({"id": "t2", "name": "bash", "input": {}}, "the command is empty"),
    ({"id": "t3", "name": "bash", "input": {"command": "exit 1"}}, "[exit code 1]"),
])
def test_run_tool_turns_errors_into_error_results(client, workspace, block, expect):
    result = Agent(client, workspace=workspace).run_tool(block)
    assert result["tool_use_id"] == block["id"] and result["is_error"] is True
    assert expect in result["content"]


def test_a_crashing_tool_is_an_error_result(client, workspace):
    class Buggy(Agent):
        def execute(self, name, tool_input):
            raise KeyError("oops")

    messages = []
    answer = Buggy(client, workspace=workspace).ask("Run `ls`", messages)
    assert messages[2]["content"][0]["is_error"] is True
    assert messages[2]["content"][0]["content"] == "KeyError: 'oops'"
    assert ended(answer, messages)


def test_events_report_each_request_response_and_tool(client, workspace):
    events = []
    Agent(client, workspace=workspace, on_event=lambda kind, data: events.append((kind, data))).ask(
        "Run `echo hi`")
    assert [k for k, _ in events] == ["request", "response", "tool", "request", "response"]
    assert events[2][1]["result"]["content"] == "hi\n"
    assert events[0][1]["tools"][0]["name"] == "bash"


def test_agent_loop_runs_a_given_history(client, workspace):
    messages = [{"role": "user", "content": "Run `echo x`"}]
    answer = agent_loop(messages, client=client, workspace=workspace)
    assert len(messages) == 4 and ended(answer, messages)


def test_system_prompt_names_the_workspace_and_keeps_braces(client, workspace):
    assert workspace.name in Agent(client, workspace=workspace).system
    agent = Agent(client, workspace=workspace, system='Answer as JSON: {"ok": true} in {workspace}')
    assert agent.system == f'Answer as JSON: {{"ok": true}} in {workspace.name}'


@pytest.mark.parametrize("options, message", [
    ({"max_turns": 0}, "max_tokens and max_turns must be >= 1"),
    ({"max_tokens": 0}, "max_tokens and max_turns must be >= 1"),
    ({"workspace": "/no/such/dir"}, "is not a directory"),
])
def test_bad_options_are_one_line_errors(client, workspace, options, message):
    with pytest.raises(ValueError, match=message):
        Agent(client, **{"workspace": workspace, **options})


@functools.cache
def shared_client():
    """One offline client for every example (making a client costs more than a request).

    Its window is far above any generated history: the property is about validity, and a history
    of huge generated results may pass the default 200,000 tokens (a 400 is not what is tested)."""
    return offline_client(OfflineModel(context_window=100_000_000), max_retries=0)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@settings(max_examples=50)
@given(history=histories(max_turns=8))
def test_ask_keeps_any_valid_history_valid(history):
    """Whatever the history ends with (an answer, or tool results left by an early stop), a new
    prompt joins it without breaking the API's rules, and the loop ends on an assistant answer."""
    client = shared_client()
    messages = json.loads(json.dumps(history))
    with tempfile.TemporaryDirectory() as ws:
        answer = Agent(client, workspace=ws, max_turns=1).ask("hello there", messages)
    assert messages[: len(history) - 1] == history[:-1]
    assert api_error(messages) is None
    prompt_turn = next(m for m in reversed(messages) if m["role"] == "user" and "hello there" in str(m))
    assert messages.index(prompt_turn) >= len(history) - 1
    assert messages[-1]["role"] == "assistant" or answer.startswith("(stopped after")


# ---------------------------------------------------------------- issue 9: hardening

def interrupt_main_after(seconds: float) -> threading.Timer:
    """Ctrl-C in `seconds`: a real SIGINT sent to the main thread (it also breaks a blocking wait)."""
    main = threading.main_thread().ident
    timer = threading.Timer(seconds, signal.pthread_kill, (main, signal.SIGINT))
    timer.start()
    return timer


THREE_AT_ONCE = {"match": r"^three please$", "steps": [
    {"say": "Three commands at once", "calls": [{"tool": "bash", "input": {"command": f"echo {k}"}}
                                               for k in (1, 2, 3)]}]}


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_interrupt_during_a_tool_call_kills_the_command_and_the_next_ask_works(client, workspace, ctrl_c):
    messages = []
    agent = Agent(client, workspace=workspace)
    timer = interrupt_main_after(0.5)
    with pytest.raises(KeyboardInterrupt):  # the interrupt still reaches the caller
        agent.ask("Run `sleep 1.5 && touch late`", messages)
    timer.join()
    time.sleep(1.5)
    assert not (workspace / "late").exists()  # the whole group was killed: the command did not go on
    assert messages[-1]["content"] == [{"type": "tool_result", "tool_use_id": messages[1]["content"][-1]["id"],
                                        "content": "interrupted by the user", "is_error": True}]
    assert api_error(messages) is None
    answer = agent.ask("hello there", messages)
    assert ended(answer, messages) and api_error(messages) is None


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@settings(max_examples=30)
@given(history=histories(max_turns=6), at=st.integers(0, 2))
def test_interrupt_at_any_tool_call_of_any_history_leaves_it_valid(history, at):
    """The property: any generated history, Ctrl-C at a random call of a parallel turn ->
    every call answered, the history API-valid, and the next ask() succeeds."""
    class InterruptAt(Agent):
        def execute(self, name, tool_input):
            self.calls = getattr(self, "calls", 0) + 1
            if self.calls == at + 1:
                raise KeyboardInterrupt
            return super().execute(name, tool_input)

    client = offline_client(OfflineModel(context_window=100_000_000, scenarios=[THREE_AT_ONCE]), max_retries=0)
    messages = json.loads(json.dumps(history))
    with tempfile.TemporaryDirectory() as ws:
        with pytest.raises(KeyboardInterrupt):
            InterruptAt(client, workspace=ws).ask("three please", messages)
        results = messages[-1]["content"]
        assert [r.get("content") for r in results[-3:]][at:] == ["interrupted by the user"] * (3 - at)
        assert api_error(messages) is None
        answer = Agent(client, workspace=ws, max_turns=2).ask("hello there", messages)
    assert api_error(messages) is None and messages[-1]["role"] == "assistant" and answer


def test_processes_that_leave_the_group_do_not_hold_the_call(workspace):
    """`setsid -f` keeps the output pipe open after bash exits: the call must not wait for it, nor
    leave a thread or a descriptor behind (before: 2 s, one thread and one descriptor per call)."""
    def fds():
        return len(os.listdir("/proc/self/fd"))

    run_bash("true", cwd=workspace)
    fds_before, threads_before, start = fds(), threading.active_count(), time.monotonic()
    for k in range(10):
        assert run_bash(f"setsid -f sleep 3; echo {k}", cwd=workspace) == (f"{k}\n", False)
    assert time.monotonic() - start < 3
    assert (fds(), threading.active_count()) == (fds_before, threads_before)


def test_processes_that_leave_the_group_and_hold_the_output_are_killed(workspace):
    """Found by the mark in their environment (Linux /proc), since no group kill reaches them."""
    output, failed = run_bash("setsid -f sh -c 'echo $$ > pid; exec sleep 30'; echo y", cwd=workspace)
    assert (output, failed) == ("y\n", False)
    time.sleep(0.2)
    if not (workspace / "pid").exists():
        return  # killed before it could even write its pid (left running, it always does)
    try:
        pid = int((workspace / "pid").read_text())
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ValueError):
        state = "gone"
    assert state in ("Z", "X", "gone")  # dead (a zombie until its new parent reaps it)


@pytest.mark.parametrize("history, problem", [
    ("hi", "the history is a str, not a list of messages"),
    ([None], "message 0 is a NoneType, not a dict"),
    ([{"role": "system", "content": "x"}], "message 0 has role 'system'"),
    ([{"role": "user", "content": 7}], "message 0 (user): content is int"),
    ([{"role": "user", "content": [1, 2]}], "message 0 (user), block 0 is a int, not a dict"),
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t",
      "name": "bash", "input": None}]}], "message 1 (assistant), block 0 (tool_use): 'input' is a NoneType"),
    ([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": 7}]}],
     "message 0 (user), block 0 (tool_result): content is a int"),
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t",
      "name": "bash", "input": {"command": {1, 2}}}]}], "message 1 (assistant): a set is not JSON at content"),
    ([{"role": "user", "content": [{"type": "text", "text": "a", "x": float("nan")}]}], "nan is not a JSON number"),
    ([{"role": "user", "content": [{"type": "text", "text": "a", "x": b"raw"}]}], "a bytes is not JSON"),
], ids=["not-a-list", "none", "role", "int-content", "int-blocks", "input-none", "result-int", "set", "nan",
        "bytes"])
def test_malformed_histories_are_one_value_error_naming_the_message(client, workspace, history, problem):
    agent = Agent(client, workspace=workspace)
    before = json.dumps(history, default=repr)
    with pytest.raises(ValueError, match=re.escape(problem)):
        agent.ask("hello there", history)
    with pytest.raises(ValueError, match=re.escape(problem)):
        agent_loop(history, client=client, workspace=workspace)
    assert json.dumps(history, default=repr) == before  # refused before anything was changed


def test_a_history_nested_too_deep_or_containing_itself_is_refused_not_a_recursion_error():
    deep = inner = {}
    for _ in range(5_000):
        inner["x"] = {}
        inner = inner["x"]
    loop = {"type": "text", "text": "a"}
    loop["self"] = loop
    for value in (deep, loop):
        with pytest.raises(ValueError, match="nested more than 64 levels"):
            check_history([{"role": "user", "content": [{"type": "text", "text": "a", "v": value}]}])


# ---------------------------------------------------------------- the lesson's exercise

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "s01_loop.ipynb"


def test_exercise_reference_is_the_module_function_and_passes():
    assert exercise.reference is assistant_message
    result = exercise.check(assistant_message)
    assert result and result.report() == "✓ assistant_message: 7/7 cases pass"


def test_exercise_starter_is_the_notebook_cell_and_fails_saying_why():
    assert exercise_cells(LESSON) == [exercise.starter.rstrip("\n")]
    result = exercise.check(exercise.starter_function())
    assert not result and result.passed == []
    failures = dict(result.failures)
    assert failures["a text answer (end_turn)"].startswith(
        "content[0] is a TextBlock, not a plain dict: convert each block with to_dict")
    assert failures["two tool calls in one turn"].startswith("content[0] is a ToolUseBlock, not a plain dict")


@pytest.mark.parametrize("solution, failing, message", [
    (keeps_cut_calls, {"cut off by max_tokens inside a tool call", "cut off by max_tokens before any text",
                      "stopped at a stop sequence inside a tool call",
                      "stopped at the context window inside a tool call"},
     "content has blocks ['text', 'tool_use']: the cut-off tool_use is still there"),
    (may_leave_nothing, {"cut off by max_tokens before any text"},
     "content is empty: the API refuses an assistant message with no content"),
    (drops_every_call, {"a tool call (tool_use)", "two tool calls in one turn"},
     "content has blocks ['text'], expected ['text', 'tool_use']"),
])
def test_exercise_names_what_a_wrong_answer_gets_wrong(solution, failing, message):
    result = exercise.check(solution)
    assert {name for name, _ in result.failures} == failing
    assert any(reason.startswith(message) for _, reason in result.failures)


def test_exercise_rejects_held_out_slips_each_named():
    """Held out: model_dump() (its 'caller': None is what the API refused: 'Extra inputs are not permitted'),
    a list of the bad stop reasons (the newest, model_context_window_exceeded, missing) and a blank text
    block as the filler all passed or were told only 'expected a non-empty text block'."""
    def convert(block_of, cut=lambda r: r.stop_reason != "tool_use", filler="(no text)"):
        def assistant_message(response):
            blocks = [block_of(b) for b in response.content]
            if cut(response):
                blocks = [b for b in blocks if b["type"] != "tool_use"]
            return {"role": "assistant", "content": blocks or [{"type": "text", "text": filler}]}
        return assistant_message

    for wrong, says in [
        (convert(lambda b: b.model_dump()), "content[0] carries 'citations' set to None: model_dump() and vars()"),
        (convert(lambda b: dict(vars(b))), "carries 'citations' set to None"),
        (convert(to_dict, cut=lambda r: r.stop_reason in ("max_tokens", "stop_sequence")),
         "this turn stopped at 'model_context_window_exceeded', and its tool call is as unfinished"),
        (convert(to_dict, filler=" "), "the API refuses a blank text block"),
    ]:
        report = str(exercise.check(wrong))
        assert report.startswith("✗") and says in report, report


def test_a_python_file_edited_within_the_same_second_runs_as_edited(tmp_path, monkeypatch):
    """The shipped fix-the-test scenario, on a machine that writes bytecode: the edit (a - b -> a + b:
    the same size, the same second) was not seen, the test run after it failed, and the agent stopped."""
    from s01_loop.bash import run_bash

    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    source = tmp_path / "calc.py"
    source.write_text("def add(a, b):\n    return a - b\n", encoding="utf-8")
    os.utime(source, (1_700_000_000, 1_700_000_000))
    run = 'python3 -c "import calc; print(calc.add(2, 1))"'
    assert run_bash(run, cwd=tmp_path) == ("1\n", False)
    source.write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    os.utime(source, (1_700_000_000, 1_700_000_000))   # what a fast edit looks like to Python
    assert run_bash(run, cwd=tmp_path) == ("3\n", False)
    assert not (tmp_path / "__pycache__").exists()
