"""s07: pair-safe snip, reactive compaction on prompt-too-long, and the s07 agent's pipeline."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import anthropic
import pytest
from hypothesis import given
from strategies import api_error, assert_api_valid, histories

from lessonkit.exercises import exercise_cells
from lessonkit.exercises.s07_reactive import by_role, exercise, forward, last_block_only, lists_only
from lessonkit.show.demo import make_workspace
from lessonkit.tokens import count_messages, count_tools
from offline import OfflineModel, offline_client
from s01_loop import BASH_TOOL
from s03_permissions import always_approve
from s06_compact import Agent as CompactAgent
from s06_compact import Transcript, read_transcript
from s07_reactive import (
    Agent,
    ReactiveCompactError,
    drop_oldest_turns,
    join,
    merge_user,
    oldest_turn,
    prompt_too_long,
    reactive_compact,
    safe_cut,
    snip_compact,
    snip_compact_raw,
)
from s07_reactive.pairs import blocks
from s07_reactive.reactive import tail_start

# ---------------------------------------------------------------- histories to cut

def tool_history(turns: int, size: int = 40, *, final: bool = False, parallel: int = 1) -> list:
    """A task, then `turns` tool turns (each `parallel` calls), like an agent's history."""
    messages = [{"role": "user", "content": "Read every Python file in this folder, one at a time"}]
    for t in range(turns):
        uses = [{"type": "tool_use", "id": f"toolu_{t:03d}_{k}", "name": "bash",
                 "input": {"command": f"cat app_{t:02d}_{k}.py"}} for k in range(parallel)]
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"Reading ({t + 1}/{turns})."},
                                                          *uses]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": u["id"], "content": f"def f_{t}():\n" + "x = 1\n" * size}
            for u in uses]})
    if final:
        messages.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    return messages


def text(message: dict) -> str:
    content = message["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


# ---------------------------------------------------------------- pairs

def test_safe_cut_steps_back_off_a_tool_result():
    h = tool_history(3)  # u0 a1 u1 a2 u2 a3 u3
    assert safe_cut(h, 2) == 1 and safe_cut(h, 3) == 3 and safe_cut(h, 0) == 0 and safe_cut(h, 99) == len(h)


def test_merge_user_puts_tool_results_first():
    h = tool_history(1)
    merged = merge_user("[snipped 2 messages]", h[2])
    assert [b["type"] for b in merged["content"]] == ["tool_result", "text"]


@pytest.mark.parametrize("tail_first, expect_roles", [
    ("assistant", ["user", "assistant", "user", "assistant"]),
    ("user", ["user", "assistant", "user"]),
])
def test_join_merges_the_middle_into_user_neighbours(tail_first, expect_roles):
    head = tool_history(1)  # ends with a user message
    tail = ([{"role": "assistant", "content": [{"type": "text", "text": "ok"}]}] if tail_first == "assistant"
            else [{"role": "user", "content": "next task"}])
    out = join(head, "[snipped 4 messages]", tail)
    assert [m["role"] for m in out] == expect_roles[:len(out)]
    assert_api_valid(out)


def test_oldest_turn_is_an_assistant_and_its_answer():
    h = tool_history(2)
    assert oldest_turn(h) == 2 and oldest_turn(h[:2]) == 0 and oldest_turn([h[0]]) == 0


# ---------------------------------------------------------------- snip

def test_the_seeds_snip_breaks_the_api_and_the_pair_safe_one_does_not(client):
    h = tool_history(30)  # 61 messages
    raw = snip_compact_raw(h)
    assert "roles must alternate" in api_error(raw)  # head ends on u1, then the marker: user, user
    with pytest.raises(anthropic.BadRequestError, match="roles must alternate|tool_use_id"):
        client.messages.create(model="offline", max_tokens=50, messages=raw, tools=[BASH_TOOL])
    out = snip_compact(h)
    assert_api_valid(out)
    client.messages.create(model="offline", max_tokens=50, messages=out, tools=[BASH_TOOL])  # the API takes it


def test_the_seeds_tail_orphans_a_tool_result():
    h = tool_history(30)  # 61 messages: messages[-47:] starts on a tool_result
    raw = snip_compact_raw(h)
    orphan = raw[4]["content"][0]
    assert orphan["type"] == "tool_result"
    assert orphan["tool_use_id"] not in json.dumps(raw[:4])  # its tool_use was snipped
    assert_api_valid(snip_compact(h))


def test_snip_keeps_head_and_tail_and_counts_the_middle():
    h = tool_history(30)  # 61 messages: u0, (a, u) x 30
    out = snip_compact(h, max_messages=50, keep_head=3)
    assert out[:2] == h[:2] and out[-1] is h[-1]
    assert out[2]["content"][0] == h[2]["content"][0]  # u1's result, then the marker merged in
    marker = out[2]["content"][-1]["text"]
    assert marker.startswith("[snipped ") and marker.endswith(" messages]")
    n = int(marker.split()[1])
    assert len(out) == len(h) - n and len(out) <= 50
    assert h[3 + n:] == out[3:]  # the tail is the newest messages, untouched


def test_snip_moves_the_head_back_off_a_tool_use():
    h = tool_history(30)
    out = snip_compact(h, max_messages=20, keep_head=2)  # messages[2] is a tool_result: head = [u0]
    assert out[0]["content"][0]["text"] == h[0]["content"] and out[0]["content"][1]["text"].startswith("[snipped")
    assert out[1]["role"] == "assistant"
    assert_api_valid(out)


def test_short_histories_are_returned_as_they_are():
    h = tool_history(5)
    assert snip_compact(h, max_messages=50) is h


def test_snip_does_not_change_its_argument():
    h = tool_history(30)
    before = copy.deepcopy(h)
    snip_compact(h, max_messages=10)
    assert h == before


def test_snipping_twice_keeps_one_marker_that_counts_everything():
    h = tool_history(30)
    once = snip_compact(h, max_messages=20)
    grown = once + tool_history(20)[1:]  # the session goes on
    twice = snip_compact(grown, max_messages=20)
    markers = [b["text"] for m in twice for b in (m["content"] if isinstance(m["content"], list) else [])
               if b.get("type") == "text" and b["text"].startswith("[snipped")]
    assert len(markers) == 1
    assert int(markers[0].split()[1]) == len(h) + 40 - len(twice)  # every original message not in twice
    assert_api_valid(twice)


def test_the_marker_names_the_transcript():
    out = snip_compact(tool_history(30), max_messages=10, where="t/session-001.jsonl")
    assert "t/session-001.jsonl" in json.dumps(out)


def test_a_snip_that_saves_nothing_is_not_made():
    # max_messages=4, keep_head=2: the tail would start on the tool_result, so it moves back onto
    # its tool_use, and the middle is one tiny message: its marker would cost more than it saves.
    tiny = [{"role": "user", "content": "go"}, {"role": "assistant", "content": "x"},
            {"role": "user", "content": "x"}, *tool_history(1)[1:]]
    assert snip_compact(tiny, max_messages=4, keep_head=2) is tiny
    assert len(snip_compact(tiny + tool_history(2)[3:], max_messages=4, keep_head=2)) < 7  # more: worth it


@pytest.mark.parametrize("kwargs, message", [
    ({"keep_head": -1}, "keep_head must be >= 0"),
    ({"max_messages": 4, "keep_head": 3}, "at least keep_head \\+ 2"),
])
def test_bad_sizes_are_a_clear_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        snip_compact(tool_history(2), **kwargs)


# examples: the profile's (conftest.py: 50 in make test, 200 in make test-slow)
@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@given(histories(min_turns=3, max_turns=20))
def test_snip_property_valid_smaller_and_nothing_lost(h):
    before = copy.deepcopy(h)
    for max_messages, keep_head in ((8, 3), (5, 0), (12, 1)):
        out = snip_compact(h, max_messages, keep_head)
        assert_api_valid(out)
        assert count_messages(out) <= count_messages(before)
        assert h == before  # the argument is untouched, so the transcript copy is all there is to lose
        if out is h:
            continue
        kept = {id(m) for m in out}
        gone = [i for i, m in enumerate(h) if id(m) not in kept]
        assert gone == list(range(gone[0], gone[-1] + 1))  # one run: the middle (and merged neighbours)
        [new] = [m for m in out if id(m) not in {id(x) for x in h}]  # the message holding the marker
        markers = [b["text"] for b in new["content"] if b.get("text", "").startswith("[snipped")]
        assert len(markers) == 1
        # Every message is kept as it was, merged with the marker (its blocks are the rest of the
        # marker's message), or counted in the marker.
        rest = Counter(json.dumps(b, sort_keys=True) for b in new["content"] if b.get("text") not in markers)
        ends = [[], [gone[0]], [gone[-1]], [gone[0], gone[-1]] if len(gone) > 1 else [gone[0]]]
        merged = next(m for m in ends if Counter(json.dumps(b, sort_keys=True) for i in m for b in blocks(h[i])) == rest)
        snipped = [i for i in gone if i not in merged]
        assert len(snipped) == int(markers[0].split()[1])


# ---------------------------------------------------------------- reactive

def too_long(client, messages) -> anthropic.BadRequestError:
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(model="offline", max_tokens=100, messages=messages, tools=[BASH_TOOL])
    return info.value


def test_prompt_too_long_reads_the_numbers_from_the_real_sdk_error():
    client = offline_client(OfflineModel(context_window=200), max_retries=0)
    error = too_long(client, tool_history(4))
    assert prompt_too_long(error) == (count_messages(tool_history(4)) + count_tools([BASH_TOOL]), 200)
    assert prompt_too_long(ValueError("prompt is too long: 3 tokens > 2 maximum")) is None


@pytest.mark.parametrize("keep_tail, expect", [(1, 5), (2, 5), (3, 3), (4, 3), (5, 1), (99, 1)])
def test_the_tail_starts_at_a_safe_cut(keep_tail, expect):
    h = tool_history(3)  # 7 messages: the seed's messages[-keep_tail:] may start on a tool_result
    assert tail_start(h, keep_tail) == expect


def test_the_seeds_last_five_orphan_a_result_and_ours_do_not(tmp_path):
    h = tool_history(8)
    seed_tail = [{"role": "user", "content": "[Reactive compact]\n\nsummary"}, *h[-5:]]
    assert h[-5]["content"][0]["type"] == "tool_result" and api_error(seed_tail)
    model = OfflineModel(context_window=count_messages(h) - 50)
    client = offline_client(model, max_retries=0)
    out = reactive_compact(h, client=client, model="offline", transcript_dir=tmp_path)
    assert_api_valid(out)
    assert out[-6:] == h[-6:] and text(out[0]).startswith("[Reactive compact]")
    client.messages.create(model="offline", max_tokens=50, messages=out, tools=[BASH_TOOL])  # now it fits


def test_reactive_keeps_everything_in_a_snapshot_and_leaves_its_argument(tmp_path, client):
    h = tool_history(8)
    before = copy.deepcopy(h)
    out = reactive_compact(h, client=client, model="offline", transcript_dir=tmp_path / "t")
    assert h == before and count_messages(out) < count_messages(h)
    [snapshot] = (tmp_path / "t").glob("*.jsonl")
    assert read_transcript(snapshot) == before and str(snapshot) in text(out[0])


def test_with_the_session_transcript_no_snapshot_is_written(tmp_path, client):
    session = Transcript(tmp_path / "session.jsonl")
    session.extend(tool_history(8))
    out = reactive_compact(tool_history(8), client=client, model="offline", transcript=session)
    assert str(session.path) in text(out[0]) and list(tmp_path.iterdir()) == [session.path]


def test_a_summary_request_too_long_itself_drops_old_turns_and_retries(tmp_path):
    h = tool_history(12, size=60)
    model = OfflineModel(context_window=count_messages(h) // 2)
    client = offline_client(model, max_retries=0)
    out = reactive_compact(h, client=client, model="offline", transcript_dir=tmp_path)
    assert model.calls == 2  # one too long, one that fit
    assert "of the oldest did not fit" in text(out[0])
    assert_api_valid(out)


def test_three_too_long_summary_requests_end_in_one_clear_error(tmp_path):
    model = OfflineModel()
    model.inject_fault(400, count=5, message="prompt is too long: 101 tokens > 100 maximum")
    client = offline_client(model, max_retries=0)
    with pytest.raises(ReactiveCompactError, match="after 3 attempts \\(101 tokens > 100 maximum\\)") as info:
        reactive_compact(tool_history(10), client=client, model="offline", transcript_dir=tmp_path)
    assert model.calls == 3 and "\n" not in str(info.value)


def test_nothing_left_to_drop_is_a_clear_error(tmp_path):
    model = OfflineModel(context_window=60)  # even the task alone does not fit
    h = [{"role": "user", "content": "word " * 300}, *tool_history(3)[1:]]
    with pytest.raises(ReactiveCompactError, match="no older turn left to drop"):
        reactive_compact(h, client=offline_client(model, max_retries=0), model="offline",
                         transcript_dir=tmp_path, keep_tail=1)


def test_other_bad_requests_are_not_swallowed(tmp_path):
    model = OfflineModel()
    model.inject_fault(400, message="messages.0.content: Input should be a valid list")
    with pytest.raises(anthropic.BadRequestError, match="valid list"):
        reactive_compact(tool_history(6), client=offline_client(model, max_retries=0), model="offline",
                         transcript_dir=tmp_path)


def test_drop_oldest_turns_drops_whole_turns_only():
    h = tool_history(5)
    kept, dropped = drop_oldest_turns(h, 1)
    assert dropped == 2 and kept == [h[0], *h[3:]]
    kept, dropped = drop_oldest_turns(h, 10**9)
    assert kept == [h[0]] and dropped == 10


@pytest.mark.parametrize("kwargs, message", [({"keep_tail": 0}, "keep_tail"), ({}, "transcript_dir")])
def test_reactive_arguments_are_checked(client, kwargs, message):
    with pytest.raises(ValueError, match=message):
        reactive_compact(tool_history(3), client=client, model="offline", **kwargs)


def test_too_short_to_compact(tmp_path, client):
    with pytest.raises(ReactiveCompactError, match="nothing to compact"):
        reactive_compact([{"role": "user", "content": "hi"}], client=client, model="offline", transcript_dir=tmp_path)


# ---------------------------------------------------------------- the s07 agent

TASK = "Read every Python file in this folder, one at a time"


def recorder(store):
    def on_event(kind, data):
        if kind == "request":
            assert_api_valid(data["messages"])
            store.append(("request", count_messages(data["messages"])))
        elif kind in ("compact", "error"):
            store.append((kind, data))
    return on_event


def test_end_to_end_prompt_too_long_is_recovered_by_reactive_compaction(tmp_path):
    ws = make_workspace(tmp_path / "ws", files=8, lines=40)
    model = OfflineModel(context_window=3_000)
    client = offline_client(model, max_retries=0)
    quiet = {"keep_recent": 50, "threshold": 10**9, "approve": always_approve}  # micro and auto stay out
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):  # s06 alone dies here
        CompactAgent(client, workspace=ws, transcript_dir=ws / ".t6", **quiet).ask(TASK)
    events, history, hooks = [], [], []
    agent = Agent(client, workspace=ws, transcript_dir=ws / ".t7", on_event=recorder(events), **quiet)
    agent.register_hook("PreCompact", lambda layer, messages: hooks.append(layer))
    model.calls = 0
    answer = agent.ask(TASK, history)
    assert answer.startswith("Read 8 .py files") and all(f"app_{i:02d}.py" in answer for i in range(1, 9))
    kinds = [k for k, _ in events]
    at = kinds.index("error")
    error, compact = events[at][1]["error"], events[at + 1][1]
    assert prompt_too_long(error)[1] == 3_000 and kinds[at + 1] == "compact" and compact["layer"] == "reactive"
    assert kinds.count("error") == 1 and hooks == ["reactive"]
    assert compact["tokens_after"] < compact["tokens_before"] and compact["messages_after"] < compact["messages_before"]
    assert text(history[0]).startswith("[Reactive compact]") and events[at + 2][0] == "request"
    requests = [n for k, n in events if k == "request"]
    assert model.calls == len(requests) + 1  # every request the loop made, and one summary
    on_disk = read_transcript(agent.transcript.path)
    for i in range(1, 9):  # every file the agent read is on disk, whole
        source = (ws / f"app_{i:02d}.py").read_text(encoding="utf-8")
        assert any(b.get("content") == source for m in on_disk if isinstance(m["content"], list)
                   for b in m["content"])


def test_the_reactive_summary_names_the_transcript_as_read_file_takes_it(tmp_path):
    """Relative to the workspace (as s06's summary): the same text on every machine, a path the model can read."""
    ws = make_workspace(tmp_path / "ws", files=8, lines=40)
    agent, history = Agent(offline_client(OfflineModel(context_window=3_000), max_retries=0), workspace=ws,
                           keep_recent=50, threshold=10**9, approve=always_approve), []
    agent.ask(TASK, history)
    first = text(history[0])
    assert first.startswith("[Reactive compact]") and "in .transcripts/session-001.jsonl." in first
    assert str(tmp_path) not in json.dumps(history)
    line = agent.execute("read_file", {"path": ".transcripts/session-001.jsonl", "limit": 1})
    assert json.loads(line.splitlines()[0]) == {"role": "user", "content": TASK}


def test_end_to_end_snip_keeps_a_long_session_short(tmp_path):
    ws = make_workspace(tmp_path / "ws", files=12, lines=20)
    events, history = [], []
    agent = Agent(offline_client(OfflineModel(context_window=4_000), max_retries=0), workspace=ws,
                  snip_max_messages=10, keep_recent=50, threshold=10**9, transcript_dir=ws / ".t",
                  approve=always_approve, on_event=recorder(events))
    answer = agent.ask(TASK, history)
    assert answer.startswith("Read 12 .py files")
    snips = [d for k, d in events if k == "compact" and d["layer"] == "snip"]
    assert len(snips) >= 5 and all(d["messages_after"] <= 10 < d["messages_before"] for d in snips)
    assert max(n for k, n in events if k == "request") < 4_000
    assert len(read_transcript(agent.transcript.path)) >= 2 * 13  # every turn is still on disk


def test_the_pipeline_runs_in_the_seeds_order(tmp_path, client):
    history = tool_history(12, size=30)
    history[-1]["content"][0]["content"] = "line of output\n" * 400  # 6,000 characters: over the budget
    events = []
    agent = Agent(client, workspace=tmp_path, transcript_dir=tmp_path / "t", results_dir=tmp_path / "r",
                  persist_threshold=2_000, preview_chars=200, snip_max_messages=12, keep_recent=2,
                  threshold=100, on_event=recorder(events))
    agent.prepare(history)
    assert [d["layer"] for k, d in events if k == "compact"] == ["budget", "snip", "micro", "auto"]
    assert_api_valid(history)


def test_still_too_long_after_reactive_is_one_clear_error_not_a_loop(tmp_path):
    ws = make_workspace(tmp_path / "ws", files=4, lines=40)
    (ws / "app_05.py").write_text("x = 1  # a long line of code\n" * 300, encoding="utf-8")  # ~3,000 tokens
    model = OfflineModel(context_window=2_500)
    events = []
    agent = Agent(offline_client(model, max_retries=0), workspace=ws, transcript_dir=ws / ".t",
                  keep_recent=50, threshold=10**9, approve=always_approve, on_event=recorder(events))
    with pytest.raises(ReactiveCompactError, match="still too long after reactive compaction") as info:
        agent.ask(TASK)
    requests = [n for k, n in events if k == "request"]
    assert "\n" not in str(info.value) and model.calls == len(requests) + 1  # one summary, one retry, stop
    assert [d["layer"] for k, d in events if k == "compact"] == ["reactive"]
    assert [k for k, _ in events].count("error") == 2  # the first 400 and the one after the retry


def test_other_bad_requests_pass_through_untouched(tmp_path, model, client):
    events = []
    agent = Agent(client, workspace=tmp_path, transcript_dir=tmp_path / "t", on_event=recorder(events))
    model.inject_fault(400, message="messages.0.content: Input should be a valid list")
    with pytest.raises(anthropic.BadRequestError, match="valid list"):
        agent.ask("hello")
    assert not [k for k, _ in events if k in ("compact", "error")]


@pytest.mark.parametrize("kwargs, message", [
    ({"snip_max_messages": 4, "snip_keep_head": 3}, "max_messages"), ({"snip_keep_head": -1}, "keep_head"),
    ({"reactive_keep_tail": 0}, "reactive_keep_tail"), ({"reactive_attempts": 0}, "reactive_attempts"),
])
def test_agent_invalid_values_fail_at_construction(client, workspace, kwargs, message):
    with pytest.raises(ValueError, match=message):
        Agent(client, workspace=workspace, **kwargs)


# ---------------------------------------------------------------- the lesson's exercise

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "s07_reactive.ipynb"


def test_exercise_reference_is_the_module_function_and_passes():
    assert exercise.reference is safe_cut
    result = exercise.check(safe_cut)
    assert result and result.report() == "✓ safe_cut: 13/13 cases pass"


def test_exercise_starter_is_the_notebook_cell_and_fails_saying_why():
    from lessonkit.exercises.s07_reactive import too_long

    assert exercise_cells(LESSON) == [exercise.starter.rstrip("\n"), too_long.starter.rstrip("\n")]
    result = exercise.check(exercise.starter_function())
    failures = dict(result.failures)
    assert set(failures) == {"a cut on a tool_result", "a cut on the first result", "a cut on two parallel results",
                             "a cut on a result with a note beside it", "a cut on an error result (a list of blocks)",
                             "a cut on the last result", "k past the end", "k below 0"}
    assert failures["a cut on a tool_result"] == (
        "returned 4, expected 3: the kept part would start at messages[4] (the user message with toolu_02's "
        "result), and the API answers 400: messages.0.content.0: unexpected `tool_use_id` found in `tool_result` "
        "blocks: toolu_02; step back to messages[3], the assistant turn that made the call")
    assert failures["k below 0"].startswith("returned -3, expected 0: a cut is an index from 0 to len(messages) = 7")


@pytest.mark.parametrize("solution, failing, message", [
    (by_role, {"a cut on a new prompt", "a cut on a new prompt given as text blocks"},
     "returned 3, expected 4: messages[4] (a new user prompt, a plain string) is already safe (a plain user prompt "
     "answers no call: the best place to cut); stepping back"),
    (last_block_only, {"a cut on a result with a note beside it"},
     ("returned 4, expected 3: the kept part would start at messages[4] (the user message with toolu_02's "
      "result), and the API answers 400")),
    (forward, {"a cut on a tool_result", "a cut on the first result", "a cut on two parallel results",
               "a cut on a result with a note beside it", "a cut on an error result (a list of blocks)",
               "a cut on the last result"},
     "returned 5, expected 3: a cut after k=4 drops messages the caller asked to keep"),
    (lists_only, {"a cut on a new prompt", "k = len(messages)", "k past the end"},
     "raised TypeError: string indices must be integers"),
])
def test_exercise_names_what_a_wrong_answer_gets_wrong(solution, failing, message):
    result = exercise.check(solution)
    assert {name for name, _ in result.failures} == failing
    assert any(reason.startswith(message) for _, reason in result.failures)


def test_exercise_rejects_a_cut_that_takes_any_list_content_for_results():
    """Held out: stepping back off every user message whose content is a list passed 12/12 (every new
    prompt in the cases was a plain string); a prompt with an attachment is a list of text blocks."""
    def lists_are_results(messages, k):
        k = max(0, min(k, len(messages)))
        while 0 < k < len(messages) and messages[k]["role"] == "user" and isinstance(messages[k]["content"], list):
            k -= 1
        return k

    failures = dict(exercise.check(lists_are_results).failures)
    assert failures == {"a cut on a new prompt given as text blocks": (
        "returned 3, expected 4: messages[4] (a new user prompt, as a list of text blocks) is already safe (a user "
        "message without a tool_result answers no call, a list of text blocks too: only a tool_result block makes "
        "a cut unsafe); stepping back to 3 keeps a turn the layer was asked to drop")}
