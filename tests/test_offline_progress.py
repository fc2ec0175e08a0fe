"""Progress from the request alone: plans resume from the history's tool calls, not the model's own text.

A client that keeps only the tool_use blocks of each assistant turn (it drops the text)
still finishes; a history that never shows the plan moving on stops after a bounded
number of calls, with an answer saying so.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lessonkit.show.demo import make_workspace
from offline import OfflineModel, offline_client
from offline.agent.policy import MAX_STALL
from tests.strategies import assert_api_valid
from tests.test_offline_policy import TOOLSETS, Box, reads


def drop_text_loop(client, box, prompt, tools, *, keep_input=True, max_turns=30):
    """An agent loop whose history keeps only tool_use blocks (and, if keep_input=False, not even their input)."""
    messages = [{"role": "user", "content": prompt}]
    for turn in range(1, max_turns + 1):
        assert_api_valid(messages)
        response = client.messages.create(model="offline", max_tokens=4096, messages=messages, tools=tools)
        blocks = [b.model_dump(mode="json", exclude_none=True) for b in response.content]
        if response.stop_reason != "tool_use":
            return "\n".join(b["text"] for b in blocks if b["type"] == "text"), turn
        uses = [b for b in blocks if b["type"] == "tool_use"]
        kept = [dict(b, input=b["input"] if keep_input else {}) for b in uses]
        messages.append({"role": "assistant", "content": kept})
        results = []
        for b in uses:
            text, failed = box.run(b["name"], b["input"])
            results.append({"type": "tool_result", "tool_use_id": b["id"], "content": text or "(empty)",
                            **({"is_error": True} if failed else {})})
        messages.append({"role": "user", "content": results})
    return None, None


@pytest.fixture
def ws(tmp_path):
    return make_workspace(tmp_path / "ws", files=4, lines=10)


@pytest.mark.parametrize("toolset", ["simple", "claude", "bash"])
def test_a_client_that_drops_text_blocks_still_finishes_each_kind_of_plan(client, ws, toolset):
    tools = TOOLSETS[toolset]
    box = Box(ws)
    answer, turns = drop_text_loop(client, box, "Run `echo one` and then `echo two` and then `echo one`", tools)
    commands = [inp.get("command") for name, inp in box.log]
    assert turns == 4 and commands == ["echo one", "echo two", "echo one"] and "two" in answer
    box = Box(ws)
    answer, turns = drop_text_loop(client, box, "Read every Python file in this folder, one at a time", tools)
    assert reads(box) == [f"app_{i:02d}.py" for i in range(1, 5)] and turns == 6
    box = Box(ws)
    answer, turns = drop_text_loop(client, box, "create hello.py that prints hi and then count the lines in app_01.py",
                                   tools)
    assert turns == 3 and (ws / "hello.py").read_text().strip() == 'print("hi")'
    assert "app_01.py has " in answer


def test_the_s02_agent_with_a_text_dropping_history_finishes(tmp_path):
    """The issue's case: a history of tool_use blocks only made the model repeat `echo hi` 25 times."""
    import s02_tools as s2

    class DropText(s2.Agent):
        def append(self, messages, message):  # keep only the tool_use blocks of a turn that has some
            content = message["content"]
            if message["role"] == "assistant" and any(b.get("type") == "tool_use" for b in content):
                message = dict(message, content=[b for b in content if b.get("type") == "tool_use"])
            super().append(messages, message)

    agent = DropText(offline_client(OfflineModel(), max_retries=0), workspace=tmp_path)
    messages = []
    answer = agent.ask("Run `echo hi` then `echo bye`", messages)
    calls = [b["input"]["command"] for m in messages if m["role"] == "assistant"
             for b in m["content"] if b["type"] == "tool_use"]
    assert calls == ["echo hi", "echo bye"] and "bye" in answer
    assert not any(b.get("type") == "text" for m in messages[:-1] if m["role"] == "assistant" for b in m["content"])


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("prompt, steps", [("Run `echo a` then `echo b`", 2), ("Create a directory called out", 1),
                                           ("Read every Python file in this folder, one at a time", 4)])
def test_a_plan_that_makes_no_progress_stops_and_says_so(client, ws, prompt, steps):
    box = Box(ws)
    answer, turns = drop_text_loop(client, box, prompt, TOOLSETS["simple"], keep_input=False, max_turns=60)
    assert turns is not None, "it never stopped"
    assert answer.startswith("Stopped:") and "does not show the plan moving on" in answer
    assert len(box.log) <= steps + 1 + MAX_STALL + (3 * 8 + 1 if "every" in prompt else 0)


def test_a_snip_that_removed_earlier_steps_resumes_after_the_latest_call_it_kept(client):
    history = [{"role": "user", "content": [{"type": "text", "text": "Run `echo 1` then `echo 2` then `echo 3`"},
                                            {"type": "text", "text": "[snipped 2 messages]"}]},
               {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "bash",
                                                  "input": {"command": "echo 2"}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "2"}]}]
    tools = TOOLSETS["bash"]
    r = client.messages.create(model="offline", max_tokens=500, messages=history, tools=tools)
    assert [b.input for b in r.content if b.type == "tool_use"] == [{"command": "echo 3"}]


def test_the_step_counter_in_text_is_not_what_moves_the_plan(client):
    """An assistant text claiming (2/2) does not skip a step no call shows was made."""
    history = [{"role": "user", "content": "Run `echo 1` then `echo 2`"},
               {"role": "assistant", "content": [{"type": "text", "text": "Running `echo 2` (2/2)."},
                                                 {"type": "tool_use", "id": "toolu_1", "name": "bash",
                                                  "input": {"command": "echo 1"}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "1"}]}]
    r = client.messages.create(model="offline", max_tokens=500, messages=history, tools=TOOLSETS["bash"])
    assert [b.input for b in r.content if b.type == "tool_use"] == [{"command": "echo 2"}]
    assert re.search(r"\(2/2\)", r.content[0].text)  # it says where it is; it does not believe it


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("compactor", ["micro", "snip", "summary", "reactive", "rolling", "every_turn"])
def test_a_grammar_chain_resumes_after_every_compaction_layer(client, ws, compactor):
    from tests.test_offline_policy import COMPACTORS, loop

    box = Box(ws)
    prompt = "create hello.py that prints hi, then run it, then count the lines in app_01.py, then run `echo end`"
    _, answer, turns = loop(client, box, prompt, TOOLSETS["simple"], compactor=COMPACTORS[compactor])
    assert turns is not None, "the loop never ended"
    assert [name for name, _ in box.log] == ["write_file", "bash", "bash", "bash"]  # each step once, in order
    assert (ws / "hello.py").read_text() == 'print("hi")\n' and answer.startswith("Done: 4 steps.")


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 6), shown=st.lists(st.integers(0, 5), max_size=8))
def test_steps_done_is_one_past_the_last_step_the_calls_show(n, shown):
    """Any in-order subset of a plan's calls (a snip may drop any of them): done = last shown + 1."""
    from offline.agent.progress import steps_done
    from offline.agent.scenarios import Step
    from offline.conversation.reading import from_messages
    from offline.conversation.roles import tool_roles

    tools = TOOLSETS["bash"]
    steps = [Step(f"step {k}", [("bash", {"command": f"echo {k}"})]) for k in range(n)]
    kept = sorted({k for k in shown if k < n})
    messages = [{"role": "user", "content": "the task"}]
    for k in kept:
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{k}", "name": "bash",
                                                        "input": {"command": f"echo {k}"}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k}",
                                                   "content": str(k)}]}]
    done = steps_done(steps, from_messages(messages), 0, tool_roles(tools), tools)
    assert done == (kept[-1] + 1 if kept else 0) and 0 <= done <= n


def test_a_step_of_several_calls_is_done_only_when_all_of_them_are_made():
    """disable_parallel_tool_use makes a two-read step one read per turn. Bug: the first read
    counted as the whole step, so the second file was never read."""
    from offline.agent.progress import steps_done
    from offline.agent.scenarios import Step
    from offline.conversation.reading import from_messages
    from offline.conversation.roles import tool_roles

    tools = TOOLSETS["simple"]
    steps = [Step("both", [("read", {"path": "a.py"}), ("read", {"path": "b.py"})]),
             Step("then", [("bash", {"command": "echo done"})])]

    def done(*paths):
        messages = [{"role": "user", "content": "the task"}]
        for k, path in enumerate(paths):
            messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{k}",
                                                            "name": "read_file", "input": {"path": path}}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k}",
                                                       "content": "x = 1"}]}]
        return steps_done(steps, from_messages(messages), 0, tool_roles(tools), tools)

    assert [done(), done("a.py"), done("b.py"), done("a.py", "b.py"), done("b.py", "a.py")] == [0, 0, 0, 1, 1]


@settings(deadline=None)
@given(text=st.text(max_size=120))
def test_the_grammar_parser_takes_any_text(text):
    from offline.grammar.table import parse

    found = parse(text, {"bash": {}, "read": {}, "write": {}, "edit": {}, "list": {}})
    assert found is None or all(a.calls and a.say for a in found)
