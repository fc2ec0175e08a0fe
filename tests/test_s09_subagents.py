"""s09: the `task` tool runs a child in a fresh context; the parent keeps one result block."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from strategies import assert_api_valid, histories

from lessonkit.show.demo import make_workspace
from offline import OfflineModel, offline_client
from s03_permissions import always_approve
from s06_compact import read_transcript
from s08_compact4 import Agent as CompactAgent
from s09_subagents import CHILD_TOOLS, Agent, ChildAgent, ChildRun, TaskBudget

JOB = "Use a subagent to read every Python file in this folder, one at a time"


@pytest.fixture
def ws(tmp_path):
    return make_workspace(tmp_path / "ws", files=6, lines=20)


def tool_ids(messages: list) -> set:
    return {b["id"] for m in messages if isinstance(m["content"], list) for b in m["content"]
            if b.get("type") == "tool_use"}


def test_the_parent_keeps_the_call_and_one_result_never_the_childs_turns(client, ws):
    agent = Agent(client, workspace=ws, approve=always_approve)
    history = []
    answer = agent.ask(JOB, history)
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    assert_api_valid(history)
    call = [b for b in history[1]["content"] if b["type"] == "tool_use"]
    assert [c["name"] for c in call] == ["task"]
    results = history[2]["content"]
    assert len(results) == 1 and results[0]["type"] == "tool_result" and not results[0].get("is_error")
    run = agent.subagents[0]
    assert run.requests == 8 and len(run.messages) == 16  # prompt, list, 6 reads (each a call and a result), answer
    assert not tool_ids(run.messages) & tool_ids(history)
    assert all(m not in history for m in run.messages[1:])
    assert "Read 6 .py files." in answer and all(f"app_{i:02d}.py" in answer for i in range(1, 7))
    assert f"[subagent: 8 requests, {run.tokens:,} tokens" in results[0]["content"]


def test_the_childs_turns_go_to_its_own_transcript_file(client, ws):
    agent = Agent(client, workspace=ws, approve=always_approve)
    history = []
    agent.ask(JOB, history)
    run = agent.subagents[0]
    child_log = read_transcript(ws / run.transcript)
    parent_log = read_transcript(agent.transcript.path)
    assert child_log[0] == run.messages[0] and len(child_log) == len(run.messages)
    assert tool_ids(child_log) == tool_ids(run.messages)  # every child call, its results as first produced
    assert not tool_ids(child_log) & tool_ids(parent_log)
    assert ws / run.transcript != agent.transcript.path


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(before=histories(max_turns=3, end_with_answer=True))
def test_any_history_stays_valid_and_the_child_sees_none_of_it(tmp_path_factory, before):
    ws = make_workspace(tmp_path_factory.mktemp("w") / "ws", files=2, lines=5)
    agent = Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws, approve=always_approve,
                  keep_recent=100)  # no micro-compaction: the history before the call stays as it was
    history = json.loads(json.dumps(before))
    agent.ask("Use a subagent to count the lines of app_01.py", history)
    assert_api_valid(history)
    assert history[:len(before)] == before  # nothing before the call was touched
    new = history[len(before):]
    assert [m["role"] for m in new] == ["user", "assistant", "user", "assistant"]
    child = agent.subagents[0].messages
    assert child[0] == {"role": "user", "content": "count the lines of app_01.py"}
    seen = json.dumps(child)
    assert not any(isinstance(m["content"], str) and len(m["content"]) > 12 and m["content"] in seen
                   for m in before)
    assert not tool_ids(child) & tool_ids(history)


def test_a_task_without_the_facts_it_needs_fails_where_inline_works(client, ws):
    agent = Agent(client, workspace=ws, approve=always_approve)
    history = []
    agent.ask("Read app_04.py", history)
    delegated = agent.ask("Use a subagent to count the lines of it", history)
    inline = agent.ask("Count the lines of it", history)
    assert "Which file do you mean" in delegated and "app_04.py" not in delegated.split("[subagent")[0]
    assert "app_04.py has 21 lines" in inline


def test_the_child_has_read_only_tools_and_s03s_rules(client, ws):
    run = ChildRun("t", "p")
    child = ChildAgent(client, run=run, budget=TaskBudget(), workspace=ws, approve=lambda call: False)
    assert child.registry.names() == list(CHILD_TOOLS)
    assert "task" not in child.registry and "write_file" not in child.registry
    write = {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "touch made.txt"}}
    read = {"type": "tool_use", "id": "t2", "name": "bash", "input": {"command": "ls"}}
    assert child.permission(write) is not None and child.permission(read) is None
    result = child.run_tool(write)
    assert result.get("is_error") and not (ws / "made.txt").exists()


def test_the_child_stops_at_its_token_budget_and_the_parent_is_told(client, ws):
    agent = Agent(client, workspace=ws, approve=always_approve, task_budget=TaskBudget(max_tokens=1_500))
    history = []
    agent.ask(JOB, history)
    run = agent.subagents[0]
    assert run.stopped.startswith("token budget spent") and run.tokens >= 1_500
    assert run.requests < 8
    assert "stopped: token budget spent" in history[2]["content"][0]["content"]
    assert_api_valid(history)


def test_the_child_stops_at_its_turn_budget(client, ws):
    agent = Agent(client, workspace=ws, approve=always_approve, task_budget=TaskBudget(max_turns=2))
    agent.ask(JOB, [])
    run = agent.subagents[0]
    assert run.requests == 2 and run.stopped == "turn budget spent: 2 requests"


def test_an_empty_task_prompt_is_an_error_result(client, ws):
    agent = Agent(client, workspace=ws)
    out = agent.run_tool({"type": "tool_use", "id": "t", "name": "task", "input": {"description": "x", "prompt": " "}})
    assert out["is_error"] and "`prompt` is empty" in out["content"] and agent.subagents == []


def test_asked_to_delegate_without_a_task_tool_the_model_says_so(client, ws):
    agent = CompactAgent(client, workspace=ws, approve=always_approve)
    history = []
    answer = agent.ask("Use a subagent to count the lines of app_01.py", history)
    assert "no `task` tool is offered" in answer and len(history) == 2


def test_not_asked_the_model_does_the_job_itself(client, ws):
    agent = Agent(client, workspace=ws, approve=always_approve)
    agent.ask("Count the lines of app_01.py", [])
    assert agent.subagents == []


@pytest.mark.parametrize("bad, problem", [({"max_turns": 0}, "max_turns"), ({"max_tokens": True}, "max_tokens"),
                                          ({"tools": ["bash"]}, "tuple"), ({"tools": ("task",)}, "never offered")])
def test_a_bad_budget_is_one_clear_error(bad, problem):
    with pytest.raises(ValueError, match=problem):
        TaskBudget(**bad)


def test_the_exercise_rejects_held_out_answers_each_told_why():
    """Held out: a deny list of the four tools the cases had (s10's `memory` then reached a child), a deep
    copy of the registry, and a registry rebuilt from s02's tools (its bash runs outside s03's sandbox: the
    parent's is its agent's bash_tool) all passed 4/4."""
    import copy

    from lessonkit.exercises.s09_subagents import exercise
    from s02_tools import BASH, FILE_TOOLS, ToolRegistry

    def each(registry):
        tools = []
        for name in registry.names():
            tools.append(registry.remove(name))
            registry.add(tools[-1])
        return tools

    def deny_list(registry):
        return ToolRegistry(t for t in each(registry) if t.name not in ("write_file", "edit_file", "compact", "task"))

    def deep_copy(registry):
        child = copy.deepcopy(registry)
        for name in child.names():
            if name not in CHILD_TOOLS:
                child.remove(name)
        return child

    def rebuilt(registry):
        s02 = {t.name: t for t in (BASH, *FILE_TOOLS)}
        return ToolRegistry(s02[n] for n in registry.names() if n in CHILD_TOOLS)

    for wrong, case, says in [
        (deny_list, "the s10 tools (memory too)", "kept `memory`: a child gets only tools that read"),
        (deep_copy, "the tools of a running s10 agent", "raised TypeError: cannot pickle '_thread.RLock' object: "
                                                       "copy.deepcopy copies each tool's handler"),
        (rebuilt, "the tools of a running s10 agent", "`bash` is not the parent's tool: its handler is another one"),
    ]:
        failures = dict(exercise.check(wrong).failures)
        assert case in failures and says in failures[case], failures


TRIES = ["Use a subagent to create a file hello.py that prints hi", "Use a subagent to run `echo x > app_01.py`",
         "Use a subagent to run `find . -name '*.py' -delete`", "Use a subagent to run `ln -s / escape`",
         "Use a subagent to run `cp app_01.py ../copied.py`", "Use a subagent to run `touch ../made.txt`",
         "Use a subagent to read ../outside.txt", "Use a subagent to use a subagent to read app_01.py",
         "用一个子代理运行 `tee new.txt < app_02.py`"]


@pytest.mark.parametrize("prompt", TRIES)
def test_a_task_that_tries_to_write_or_get_out_changes_nothing(client, tmp_path, prompt):
    """Held-out tries through the task tool, with a parent that approves everything: the child never
    inherits the parent's approval (never_approve unless child_approve is given), its bash runs under s03's
    rules and sandbox, its file tools stay in the workspace, and it starts no child of its own."""
    ws = make_workspace(tmp_path / "ws", files=2, lines=5)
    (tmp_path / "outside.txt").write_text("outside\n")

    def files():
        return {p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in tmp_path.rglob("*")
                if p.is_file() and not {".transcripts", ".tool_results"} & set(p.parts)}

    before = files()
    agent = Agent(client, workspace=ws, approve=always_approve)
    history = []
    answer = agent.ask(prompt, history)
    assert files() == before, answer
    assert len(agent.subagents) == 1 and not any(m.get("role") == "assistant" and any(
        b.get("name") == "task" for b in m["content"] if isinstance(b, dict)) for m in agent.subagents[0].messages)
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]  # one call, one result
