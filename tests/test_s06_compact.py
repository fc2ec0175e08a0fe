"""s06: the transcript, micro-compact, the summary, auto-compact with its breaker, and the s06 agent."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from strategies import assert_api_valid, histories

from lessonkit import tokens
from lessonkit.exercises import exercise_cells
from lessonkit.exercises.s06_compact import exercise, pick_threshold, rebuilds_blocks, returns_a_copy, thresholds
from lessonkit.show.demo import make_workspace
from offline import OfflineModel, offline_client
from s03_permissions import always_approve
from s05_budget import Agent as BudgetAgent
from s06_compact import (
    Agent,
    CircuitBreaker,
    Transcript,
    auto_compact,
    estimate_tokens,
    micro_compact,
    new_session_path,
    placeholder,
    read_transcript,
    summary_message,
)
from s06_compact.summary import dump_history, extract_summary, summary_prompt

TASK = "Read every Python file in this folder, one at a time"


def use(i, name="read_file", path=None):
    return {"type": "tool_use", "id": f"toolu_{i:03d}", "name": name, "input": {"path": path or f"f{i}.py"}}


def result(i, content, **extra):
    return {"type": "tool_result", "tool_use_id": f"toolu_{i:03d}", "content": content, **extra}


def reads(*contents, name="read_file", start=0):
    """A history: a request, then one read per content, each answered."""
    messages = [{"role": "user", "content": "read them"}]
    for i, content in enumerate(contents, start):
        messages += [{"role": "assistant", "content": [use(i, name)]},
                     {"role": "user", "content": [result(i, content)]}]
    return messages


# ---------------------------------------------------------------- transcript

def test_transcript_round_trips_one_line_per_message(tmp_path):
    t = Transcript(tmp_path / "t" / "s.jsonl")
    messages = reads("def f():\n    return '上下文压缩'", "🙂 naïve Ω")
    assert [t.append(m) for m in messages] == [1, 2, 3, 4, 5]
    raw = (tmp_path / "t" / "s.jsonl").read_bytes()
    assert raw.count(b"\n") == 5 and "上下文压缩".encode() in raw  # UTF-8 as is, not \\u-escaped
    assert read_transcript(t.path) == messages == t.read()


def test_a_torn_last_line_is_ignored_then_closed_off(tmp_path):
    path = tmp_path / "s.jsonl"
    Transcript(path).extend(reads("one"))
    with open(path, "ab") as f:  # a crash in the middle of a write
        f.write(b'{"role": "user", "content": "half a li')
    assert read_transcript(path) == reads("one")
    again = Transcript(path)  # the next session appends to the same file
    assert again.append({"role": "user", "content": "after the crash"}) == 5  # line 4 is the torn one
    assert read_transcript(path) == [*reads("one"), {"role": "user", "content": "after the crash"}]


def test_each_line_is_written_by_one_write(tmp_path, monkeypatch):
    writes, real = [], os.write
    monkeypatch.setattr(os, "write", lambda fd, data: writes.append(bytes(data)) or real(fd, data))
    Transcript(tmp_path / "s.jsonl", fsync=True).extend(reads("x" * 100_000))
    assert len(writes) == 3 and all(w.endswith(b"\n") and w.count(b"\n") == 1 for w in writes)


def test_session_files_are_claimed_not_shared(tmp_path):
    paths = [new_session_path(tmp_path) for _ in range(3)]
    assert [p.name for p in paths] == ["session-001.jsonl", "session-002.jsonl", "session-003.jsonl"]


# ---------------------------------------------------------------- micro_compact

def test_micro_reference_example_keeps_the_newest_three():
    messages = reads(*[f"file {i}\n" + "x = 1\n" * 400 for i in range(5)])
    before = copy.deepcopy(messages)
    out = micro_compact(messages)
    assert out is messages  # in place, and returned
    contents = [m["content"][0]["content"] for m in messages[2::2]]
    assert contents[:2] == ["[Previous: used read_file]"] * 2
    assert contents[2:] == [m["content"][0]["content"] for m in before[2::2]][2:]
    saved = sum(tokens.count_text(m["content"][0]["content"]) - tokens.count_text("[Previous: used read_file]")
                for m in before[2:6:2])
    assert tokens.count_messages(before) - tokens.count_messages(messages) == saved
    assert micro_compact(messages) == messages and messages == out  # a second pass changes nothing


def test_micro_names_each_tool_from_its_own_tool_use():
    # The seed's _find_tool_name used hasattr() on dicts: every placeholder said "used tool".
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "text", "text": "two at once"}, use(1, "bash"),
                                                  use(2, "list_dir")]},
                {"role": "user", "content": [result(1, "a" * 300, is_error=True),
                                             result(2, [{"type": "text", "text": "b" * 300}]),
                                             {"type": "text", "text": "and a note"}]},
                *reads("c" * 300, "d" * 300, "e" * 300, start=3)[1:]]
    micro_compact(messages, where="t.jsonl")
    first = messages[2]["content"]
    assert first[0] == {**result(1, "[Previous: used bash] (full result in t.jsonl)"), "is_error": True}
    assert first[1]["content"] == "[Previous: used list_dir] (full result in t.jsonl)"
    assert first[2] == {"type": "text", "text": "and a note"}
    assert_api_valid(messages)


@pytest.mark.parametrize("content, changed", [
    ("x" * 100, False),                               # not longer than 100 characters
    ("x" * 101, True),
    ("x" + "\t" * 120, False),                        # 121 characters, but cheaper than the placeholder
    ("[Previous: used bash]" + "x" * 200, False),     # already compacted
    ("<persisted-output>\nFull output: /r/toolu_9.txt (99 characters, 1 line)\nPreview:\n" + "y" * 90
     + "\n...\n</persisted-output>", True),
])
def test_micro_what_is_long_enough(content, changed):
    messages = reads(content, "a", "b", "c")
    micro_compact(messages, where="t.jsonl")
    after = messages[2]["content"][0]["content"]
    assert (after != content) == changed
    if content.startswith("<persisted"):
        assert after == "[Previous: used read_file] (full result in /r/toolu_9.txt)"


@pytest.mark.parametrize("keep, replaced", [(0, 4), (2, 2), (4, 0), (9, 0)])
def test_micro_keep_recent(keep, replaced):
    messages = micro_compact(reads(*["z" * 500] * 4), keep)
    assert sum(m["content"][0]["content"].startswith("[Previous") for m in messages[2::2]) == replaced


@pytest.mark.parametrize("kwargs", [{"keep_recent": -1}, {"min_chars": -1}, {"keep_recent": 1.5}])
def test_micro_invalid_values(kwargs):
    with pytest.raises(ValueError, match="must be a whole number"):
        micro_compact(reads("x"), **kwargs)


# ---------------------------------------------------------------- the summary and auto_compact

def test_estimate_tokens_is_the_documented_bytes_over_four():
    assert estimate_tokens([{"role": "user", "content": "hello"}]) == 10  # 38 bytes of JSON
    cjk = [{"role": "user", "content": "上下文" * 100}]
    assert estimate_tokens(cjk) == -(-len(json.dumps(cjk, ensure_ascii=False).encode()) // 4)
    code = reads(*[p.read_text(encoding="utf-8") for p in sorted(Path(__file__).parent.parent.glob("s06_compact/*.py"))])
    assert 0.75 < estimate_tokens(code) / tokens.count_messages(code) < 1.5


def test_the_dump_keeps_whole_messages_the_first_and_the_newest():
    # The seed's json.dumps(messages)[:80000] cut mid-message and dropped the NEWEST messages.
    messages = reads(*[f"result {i} " + "y" * 9_000 for i in range(20)])
    dump, left_out = dump_history(messages, 80_000)
    kept = json.loads(dump)  # whole messages: it parses
    assert kept[0] == messages[0] and kept[-1] == messages[-1] and kept[1:] == messages[-(len(kept) - 1):]
    assert left_out == len(messages) - len(kept) > 0 and len(dump) <= 80_000
    prompt = summary_prompt(messages, focus="the parser", where="t.jsonl")
    assert "Pay special attention to: the parser" in prompt and f"{left_out} older messages" in prompt
    assert all(s in prompt for s in ("User requests", "Errors and fixes", "Pending tasks", "<summary>"))


@pytest.mark.parametrize("reply, summary", [
    ("<analysis>think</analysis>\n<summary>\n1. User requests:\n- x\n</summary>", "1. User requests:\n- x"),
    ("<analysis>think</analysis>plain", "plain"),
    ("just text", "just text"),
    ("<summary>cut off by max_tokens", "cut off by max_tokens"),
])
def test_extract_summary(reply, summary):
    assert extract_summary(reply) == summary


def test_auto_compact_below_threshold_or_too_short_does_nothing(client, model, tmp_path):
    messages = reads("a" * 500)
    assert auto_compact(messages, client=client, model="offline", transcript_dir=tmp_path) is messages
    short = [{"role": "user", "content": "x" * 400_000}]
    assert auto_compact(short, client=client, model="offline", threshold=0, force=True, transcript_dir=tmp_path) is short
    assert model.calls == 0 and not any(tmp_path.iterdir())


def test_auto_compact_replaces_the_history_with_one_user_summary(client, model, tmp_path):
    messages = reads(*[f"def f{i}():\n" + "    x = 1\n" * 300 for i in range(8)])
    before = copy.deepcopy(messages)
    out = auto_compact(messages, client=client, model="offline", threshold=5_000, transcript_dir=tmp_path / "tr")
    assert messages == before and out is not messages  # the argument is not changed
    assert len(out) == 1 and out[0]["role"] == "user" and out[0]["content"].startswith("[Compacted]")
    (snapshot,) = (tmp_path / "tr").iterdir()
    assert str(snapshot) in out[0]["content"] and read_transcript(snapshot) == before
    assert "1. User requests:\n- read them" in out[0]["content"] and "<analysis>" not in out[0]["content"]
    assert_api_valid(out)
    assert tokens.count_messages(out) < tokens.count_messages(before) / 10 and model.calls == 1


def test_a_summary_call_that_fails_three_times_opens_the_breaker(client, model, tmp_path):
    messages = reads(*["x = 1\n" * 500] * 4)
    breaker = CircuitBreaker()
    model.inject_fault(500, count=3)
    for failures in (1, 2, 3):
        assert auto_compact(messages, client=client, model="offline", threshold=0, transcript_dir=tmp_path,
                            breaker=breaker) is messages
        assert breaker.failures == failures
    assert breaker.open and model.calls == 3 and "Internal server error" in str(breaker.last_error)
    assert auto_compact(messages, client=client, model="offline", threshold=0, transcript_dir=tmp_path,
                        breaker=breaker) is messages
    assert model.calls == 3  # open: not even tried
    forced = auto_compact(messages, client=client, model="offline", transcript_dir=tmp_path, breaker=breaker, force=True)
    assert forced[0]["content"].startswith("[Compacted]") and not breaker.open  # a success closes it
    model.inject_fault(500)
    with pytest.raises(Exception, match="Internal server error"):  # no breaker: the caller hears it
        auto_compact(messages, client=client, model="offline", threshold=0, transcript_dir=tmp_path)


def test_a_summary_no_smaller_than_the_history_is_not_used(client, tmp_path):
    messages = reads("short")
    assert auto_compact(messages, client=client, model="offline", force=True, transcript_dir=tmp_path) is messages
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("kwargs, message", [
    ({"threshold": -1}, "threshold must be"), ({}, "needs transcript_dir"),
])
def test_auto_compact_invalid_values(client, kwargs, message):
    with pytest.raises(ValueError, match=message):
        auto_compact(reads("x"), client=client, model="offline", **kwargs)
    with pytest.raises(ValueError, match="max_failures"):
        CircuitBreaker(0)


def test_the_seeds_assistant_ending_breaks_alternation_ours_does_not(client, tmp_path):
    """Why the summary is ONE user message: a history ending on an assistant turn is a prefill. Claude 4.6
    and later refuse it (a 400: the session stops); an older model continues it, and the loop appends the
    reply as a second assistant turn: the API merges the two (so does the offline model), but the history
    the agent keeps no longer alternates."""
    import anthropic

    ws = make_workspace(tmp_path / "ws", files=4, lines=12)
    agent = BudgetAgent(client, workspace=ws, approve=always_approve, max_turns=3)
    history = []
    agent.ask(TASK, history)  # stops after 3 turns: 2 of 4 files read
    summary = auto_compact(history, client=client, model=agent.model, force=True, transcript_dir=tmp_path)
    seed = [summary[0], {"role": "assistant", "content": "Understood. Continuing."}]
    with pytest.raises(anthropic.BadRequestError, match="does not support assistant message prefill"):
        BudgetAgent(client, workspace=ws, approve=always_approve).loop(list(seed))  # the kit's default model
    BudgetAgent(client, workspace=ws, approve=always_approve, model="claude-sonnet-4-5").loop(seed)  # accepted
    assert [m["role"] for m in seed[:3]] == ["user", "assistant", "assistant"]
    with pytest.raises(AssertionError, match="roles must alternate"):
        assert_api_valid(seed)
    ours = list(summary)
    answer = BudgetAgent(client, workspace=ws, approve=always_approve).loop(ours)
    assert answer.startswith("Read 4") and all(f"app_0{i}.py" in answer for i in (3, 4))
    assert sum(m["role"] == "assistant" for m in ours) <= 4  # resumed: no file read twice


# ---------------------------------------------------------------- property: every layer, varied histories

@pytest.fixture(scope="module")
def shared_client():
    """One offline client for every example (making one costs ~40 ms: more than the layers)."""
    return offline_client(OfflineModel(), max_retries=0)


def assert_nothing_lost(before: list, after: list, on_disk: list) -> None:
    """Each original message is still in the context, unchanged, or on disk (where the layer said)."""
    for message in before:
        assert message in after or message in on_disk, f"lost: {str(message)[:120]}"


# examples: the profile's (conftest.py: 50 in make test, 200 in make test-slow)
@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@given(histories(min_turns=1, max_turns=6, end_with_answer=False))
def test_property_every_layer_is_valid_smaller_and_loses_nothing(tmp_path_factory, shared_client, messages):
    """One drawn history, every layer: micro, auto (pure), then the agent's whole pipeline."""
    before = copy.deepcopy(messages)
    n = tokens.count_messages(before)
    # layer 1: in place; placeholders only where results were, named after their own tool_use
    names = {b["id"]: b["name"] for m in before if m["role"] == "assistant" for b in m["content"]
             if b.get("type") == "tool_use"}
    micro = micro_compact(copy.deepcopy(messages), where="t.jsonl")
    assert_api_valid(micro)
    assert tokens.count_messages(micro) <= n
    for new, old in zip(micro, before):
        for nb, ob in zip(new["content"], old["content"]) if isinstance(new["content"], list) else ():
            if nb != ob:
                assert nb["content"] == placeholder(names[ob["tool_use_id"]], "t.jsonl")
                assert {**nb, "content": ob["content"]} == ob
    # layers 2-3: a new one-message history, the originals in a snapshot it names, or nothing changed
    root = tmp_path_factory.mktemp("run")
    out = auto_compact(messages, client=shared_client, model="offline", threshold=0, transcript_dir=root / "snap")
    assert messages == before
    assert_api_valid(out)
    assert tokens.count_messages(out) <= n
    files = list((root / "snap").glob("*")) if (root / "snap").exists() else []
    if out is messages:
        assert not files
    else:
        assert len(out) == 1 and str(files[0]) in out[0]["content"]
        assert_nothing_lost(before, out, read_transcript(files[0]))
    # the agent: transcript first, then budget, micro and auto, on the live list
    (root / "ws").mkdir()
    agent = Agent(shared_client, workspace=root / "ws", threshold=2_000, persist_threshold=3_000,
                  preview_chars=500, transcript_dir="tr", results_dir="results")
    agent.prepare(messages)
    assert_api_valid(messages)
    assert messages[-1]["role"] == "user"  # the next request asks the model for a new turn
    assert tokens.count_messages(messages) <= n
    on_disk = read_transcript(agent.transcript.path)
    assert on_disk[:len(before)] == before  # every original, whole, in order
    assert_nothing_lost(before, messages, on_disk)


# ---------------------------------------------------------------- the s06 agent, end to end

def recorder(store):
    def on_event(kind, data):
        if kind == "request":
            assert_api_valid(data["messages"])
            store.append(("request", tokens.count_messages(data["messages"])))
        elif kind in ("compact", "error"):
            store.append((kind, data))
    return on_event


def test_end_to_end_compaction_fires_and_the_task_finishes(tmp_path):
    ws = make_workspace(tmp_path / "ws", files=12, lines=60)
    model = OfflineModel(context_window=6_000)
    client = offline_client(model, max_retries=0)
    # Without compaction (s05), the same task overflows the window:
    with pytest.raises(Exception, match="prompt is too long"):
        BudgetAgent(client, workspace=ws, approve=always_approve).ask(TASK)
    events, history, hooks = [], [], []
    agent = Agent(client, workspace=ws, threshold=3_000, transcript_dir=ws / ".tr",
                  approve=always_approve, on_event=recorder(events))
    agent.register_hook("PreCompact", lambda layer, messages: hooks.append((layer, len(messages))))
    model.calls = 0
    answer = agent.ask(TASK, history)
    assert all(f"app_{i:02d}.py" in answer for i in range(1, 13)) and answer.startswith("Read 12")
    layers = [d["layer"] for kind, d in events if kind == "compact"]
    assert "micro" in layers and "auto" in layers and [h[0] for h in hooks] == layers
    for kind, data in events:
        if kind == "compact":
            assert data["tokens_after"] < data["tokens_before"]
    requests = [n for kind, n in events if kind == "request"]
    assert max(requests) < 6_000 and model.calls == len(requests) + layers.count("auto")
    # everything the run produced is in the transcript, whole
    on_disk = read_transcript(agent.transcript.path)
    assert on_disk[0] == {"role": "user", "content": TASK}
    for i in range(1, 13):
        source = (ws / f"app_{i:02d}.py").read_text(encoding="utf-8")
        assert any(m["role"] == "user" and isinstance(m["content"], list) and
                   any(b.get("content") == source for b in m["content"]) for m in on_disk)
    assert history[-1] == on_disk[-1] and "[Compacted]" in history[0]["content"]


def test_the_compact_tool_summarizes_after_the_turn(tmp_path, client, model):
    ws = make_workspace(tmp_path / "ws", files=3, lines=40)
    events, history = [], []
    agent = Agent(client, workspace=ws, transcript_dir=ws / ".tr", approve=always_approve,
                  on_event=recorder(events))
    assert "compact" in [t["name"] for t in agent.tools]
    agent.ask(TASK, history)
    answer = agent.ask("Please compact the conversation, focus on the parser", history)
    (manual,) = [d for kind, d in events if kind == "compact" and d["layer"] == "manual"]
    assert manual["messages_after"] == 1 and manual["tokens_after"] < manual["tokens_before"]
    assert "compact" in answer.lower() and history[0]["content"].startswith("[Compacted]")
    assert_api_valid(history)
    assert agent.compact_request is None


def test_the_summary_names_the_transcript_as_read_file_takes_it(tmp_path, client):
    """Relative to the workspace: the same text on every machine, and a path the model can read."""
    ws = make_workspace(tmp_path / "ws", files=3, lines=40)
    agent, history = Agent(client, workspace=ws, approve=always_approve), []
    agent.ask(TASK, history)
    agent.ask("Compact the conversation", history)
    summary = history[0]["content"]
    assert summary.startswith("[Compacted]") and "in .transcripts/session-001.jsonl." in summary
    assert str(tmp_path) not in summary
    first = agent.execute("read_file", {"path": ".transcripts/session-001.jsonl", "limit": 1})
    assert json.loads(first.splitlines()[0]) == {"role": "user", "content": TASK}


def test_the_breaker_lets_the_agent_finish_uncompacted(tmp_path):
    ws = make_workspace(tmp_path / "ws", files=5, lines=20)
    model = OfflineModel()
    events = []
    agent = Agent(offline_client(model, max_retries=0), workspace=ws, threshold=0,
                  transcript_dir=ws / ".tr", approve=always_approve, on_event=recorder(events))

    def fail_next_summary(kind, data):  # the request after a response is the summary call
        recorder(events)(kind, data)
        if kind == "response" and agent.breaker.failures < 3:
            model.inject_fault(500)
    agent.on_event = fail_next_summary
    answer = agent.ask(TASK)
    errors = [d for kind, d in events if kind == "error"]
    assert len(errors) == 3 and agent.breaker.open
    assert not any(d["layer"] == "auto" for kind, d in events if kind == "compact")
    assert answer.startswith("Read 5")


def test_a_history_passed_in_and_a_merged_prompt_reach_the_transcript(tmp_path, client):
    ws = make_workspace(tmp_path / "ws", files=2, lines=10)
    agent = Agent(client, workspace=ws, transcript_dir=ws / ".tr", approve=always_approve, max_turns=1)
    history = reads("an old result " * 20)
    history.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})
    agent.ask(TASK, history)  # max_turns=1: ends on the tool results
    agent.max_turns = 5
    agent.ask("and then list the files", history)  # merged into the last user turn by s01's ask
    on_disk = read_transcript(agent.transcript.path)
    assert on_disk[:4] == reads("an old result " * 20) + [history[3]]
    assert any(isinstance(m["content"], list) and {"type": "text", "text": "and then list the files"}
               in m["content"] for m in on_disk)


@pytest.mark.parametrize("kwargs, message", [
    ({"keep_recent": -1}, "keep_recent"), ({"min_chars": -2}, "min_chars"), ({"threshold": -1}, "threshold"),
    ({"max_failures": 0}, "max_failures"), ({"summary_max_tokens": 0}, "summary_max_tokens"),
    ({"persist_threshold": 100, "preview_chars": 500}, "preview_chars"),
])
def test_agent_invalid_values_fail_at_construction(client, workspace, kwargs, message):
    with pytest.raises(ValueError, match=message):
        Agent(client, workspace=workspace, **kwargs)


def test_summary_message_is_one_user_text(tmp_path):
    message = summary_message("1. User requests:\n- x", "t.jsonl", 7)
    assert message["role"] == "user" and message["content"].startswith("[Compacted] 7 earlier messages")
    assert "t.jsonl" in message["content"]


def test_rewriting_old_messages_costs_the_cache(tmp_path, client):
    """The lesson of s05's breakpoint: a micro-compact rewrites an old result, so the next request
    cannot reuse the prefix the previous one wrote (only breakpoint prefixes are cached)."""
    ws = make_workspace(tmp_path / "ws", files=8, lines=60)
    runs = {}
    for name, cls in (("s05", BudgetAgent), ("s06", Agent)):
        rows = []

        def on_event(kind, data, rows=rows):
            if kind == "compact":
                rows.append(data["layer"])
            elif kind == "response":
                rows.append(data["response"].usage.cache_read_input_tokens)
        cls(client, workspace=ws, approve=always_approve, on_event=on_event).ask(TASK)
        runs[name] = rows
    assert all(read > 1_000 for read in runs["s05"][3:])  # no rewrite: each request reuses the last
    after_micro = [runs["s06"][i + 1] for i, r in enumerate(runs["s06"]) if r == "micro"]
    assert after_micro and all(read == 0 for read in after_micro)


# ---------------------------------------------------------------- the lesson's exercise

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "s06_compact.ipynb"


def test_exercise_reference_is_the_module_function_and_passes():
    assert exercise.reference is micro_compact
    result = exercise.check(micro_compact)
    assert result and result.report() == "✓ micro_compact: 10/10 cases pass"


def test_exercise_starters_are_the_notebook_cells():
    assert exercise_cells(LESSON) == [exercise.starter.rstrip("\n"), thresholds.starter.rstrip("\n")]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_exercise_starter_fails_saying_why():
    result = exercise.check(exercise.starter_function())
    failures = dict(result.failures)
    assert set(failures) == {"five long reads, keep_recent=3", "each placeholder names its own tool",
                             "a result given as a list of blocks", "long in characters, cheap in tokens",
                             "keep_recent=0", "is_error and the note beside the results stay",
                             "200 reads, in one pass", "six reads, in one pass"}
    assert failures["each placeholder names its own tool"].startswith(
        "result 1 of 5 (bash) became '[Previous: used tool]', expected '[Previous: used bash]': the name comes "
        "from the tool_use block whose id is the result's tool_use_id")
    assert failures["a result given as a list of blocks"].startswith(
        "result 1 of 5 (read_file) became '[Previous: used tool]', expected it kept as it was "
        "(80 characters of text, in a list of blocks)")
    assert failures["keep_recent=0"].startswith("result 1 of 3 (read_file) was kept")
    assert failures["200 reads, in one pass"].startswith("walked the history 198 times for 200 results")


def names_fixed(messages, keep_recent=3):
    """The seed's code with the names looked up in dicts: still a scan per result, still str()."""
    results = [b for m in messages if m["role"] == "user" and isinstance(m["content"], list)
               for b in m["content"] if b.get("type") == "tool_result"]
    for block in results[:-keep_recent] if keep_recent else results:
        if len(str(block["content"])) > 100:
            name = next((b["name"] for m in messages if m["role"] == "assistant" for b in m["content"]
                         if b.get("type") == "tool_use" and b["id"] == block["tool_use_id"]), "tool")
            block["content"] = f"[Previous: used {name}]"
    return messages


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("solution, failing, message", [
    (names_fixed, {"a result given as a list of blocks", "long in characters, cheap in tokens",
                   "200 reads, in one pass", "six reads, in one pass"}, "walked the history 198 times"),
    (rebuilds_blocks, {"each placeholder names its own tool", "is_error and the note beside the results stay",
                       "200 reads, in one pass", "six reads, in one pass"},  # it also walks twice
     "result 1 of 5 (bash): its other fields became {'type': 'tool_result', 'tool_use_id': 'toolu_000'}"),
    (returns_a_copy, {case.name for case in exercise.cases()},
     "returned a list, not the history it was given: change `messages` in place"),
])
def test_exercise_names_what_a_wrong_answer_gets_wrong(solution, failing, message):
    result = exercise.check(solution)
    assert {name for name, _ in result.failures} == failing
    assert any(reason.startswith(message) for _, reason in result.failures)


def test_exercise_rejects_two_passes_however_they_are_made():
    """Issue 34: two passes over the history passed (MAX_PASSES was 3; the text says one pass). Passes
    by for, by index, by a slice copy or reversed() all count; the kit's own history check does not."""
    from lessonkit.base.history_shape import check_history
    from lessonkit.exercises.s06_compact.micro_mistakes import _result_blocks, _uses, _worth_it, placeholder
    from s06_compact import micro_compact as reference

    def finish(messages, names, results, keep_recent):
        for block in results[:max(0, len(results) - keep_recent)]:
            if _worth_it(block):
                block["content"] = placeholder(names.get(block["tool_use_id"], "tool"))
        return messages

    def by_index(messages, keep_recent=3):
        names = {}
        for i in range(len(messages)):
            names.update(_uses([messages[i]]))
        return finish(messages, names, _result_blocks([messages[i] for i in range(len(messages))]), keep_recent)

    def copy_then_walk(messages, keep_recent=3):
        return finish(messages, _uses(messages[:]), _result_blocks(messages), keep_recent)

    def backwards_for_names(messages, keep_recent=3):
        return finish(messages, _uses(list(reversed(messages))), _result_blocks(messages), keep_recent)

    def validated_once(messages, keep_recent=3):  # the kit's check, then one pass: right
        check_history(messages)
        names, results = {}, []
        for m in messages:
            names.update(_uses([m]))
            results += _result_blocks([m])
        return finish(messages, names, results, keep_recent)

    for answer in (by_index, copy_then_walk, backwards_for_names):
        report = str(exercise.check(answer))
        assert report.startswith("✗") and "walked the history 2 times: the task asks for one pass" in report, report
    assert exercise.check(validated_once) and exercise.check(reference)



def test_exercise_counts_passes_hidden_in_list_methods_and_accepts_a_look_back():
    """Held out: a pass made by list.copy(), list.index() per result (O(n²) in C), `in`, list.count(),
    json.dumps() or str() of the history went uncounted (they never call the list's __iter__), while a
    one-pass answer that reads messages[i - 1] for the call was told it walked twice. Passes are now read
    from the messages themselves: every read writes its position, and a jump back starts a pass."""
    import json

    from lessonkit.exercises.s06_compact.micro_mistakes import _result_blocks, _uses, _worth_it, placeholder

    def one_pass(walk, messages, keep_recent):
        names, results = {}, []
        for m in walk:
            names.update(_uses([m]))
            results += _result_blocks([m])
        for block in results[:max(0, len(results) - keep_recent)]:
            if _worth_it(block):
                block["content"] = placeholder(names.get(block["tool_use_id"], "tool"))
        return messages

    def by_copy(messages, keep_recent=3):
        _uses(messages.copy())
        return one_pass(messages, messages, keep_recent)

    def by_json(messages, keep_recent=3):
        json.dumps(messages)
        return one_pass(messages, messages, keep_recent)

    def by_str(messages, keep_recent=3):
        return one_pass(messages, messages, keep_recent) if "tool_result" in str(messages) else messages

    def by_in(messages, keep_recent=3):
        return messages if {"role": "user", "content": "stop"} in messages else one_pass(messages, messages,
                                                                                       keep_recent)

    def by_count(messages, keep_recent=3):
        messages.count({"role": "user", "content": "stop"})
        return one_pass(messages, messages, keep_recent)

    def index_per_result(messages, keep_recent=3):
        where = [messages.index(m) for m in messages if m["role"] == "user"]   # a scan per message, in C
        return one_pass(messages, messages, keep_recent) if where else messages

    def looks_back(messages, keep_recent=3):  # one pass: each result's call is in the message before it
        results = []
        for i, m in enumerate(messages):
            if i and m["role"] == "user" and isinstance(m["content"], list):
                names = _uses([messages[i - 1]])
                results += [(b, names.get(b["tool_use_id"], "tool")) for b in _result_blocks([m])]
        for block, name in results[:max(0, len(results) - keep_recent)]:
            if _worth_it(block):
                block["content"] = placeholder(name)
        return messages

    for answer in (by_copy, by_json, by_str, by_in, by_count):
        report = str(exercise.check(answer))
        assert report.startswith("✗") and "walked the history 2 times: the task asks for one pass" in report, report
    report = str(exercise.check(index_per_result))
    assert "walked the history 7 times for 6 results: it runs before every request" in report, report
    assert exercise.check(looks_back).report() == "✓ micro_compact: 10/10 cases pass"


# ---------------------------------------------------------------- the second exercise: pick_threshold

@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_thresholds_reference_passes():
    assert thresholds.reference is pick_threshold and pick_threshold(4_000) == 2_600
    result = thresholds.check(pick_threshold)
    assert result and result.report() == "✓ pick_threshold: 4/4 cases pass"


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_thresholds_starter_is_refused_on_the_small_windows():
    result = thresholds.check(thresholds.starter_function())
    failures = dict(result.failures)
    assert set(failures) == {"a 4,000-token window", "a 3,500-token window"}
    assert failures["a 4,000-token window"] == (
        "request 26 was refused (prompt is too long: 4017 tokens > 4000 maximum) with threshold 50,000 on a "
        "4,000-token window: the history outgrew the window before the estimate reached the threshold "
        "(the request held 3,283 tokens of history, and 734 of system prompt and tool schemas, which the "
        "estimate does not count): lower the threshold")
    # the plausible wrong thresholds are the exercise's own table: tests/test_exercises.py checks each


# ---------------------------------------------------------------- the transcript folder

def test_tool_results_escape_a_transcript_folder_outside_the_workspace_is_refused_when_made(tmp_path, client):
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    (ws / ".transcripts").symlink_to(outside)
    with pytest.raises(ValueError, match=r"^transcript_dir: path '\.transcripts' is outside the workspace "
                                         r"\(through a symlink to .*outside\)"):
        Agent(client, workspace=ws)
    with pytest.raises(ValueError, match="transcript_dir: path .* is outside the workspace"):
        Agent(client, workspace=ws, transcript_dir=tmp_path / "elsewhere")
    assert list(outside.iterdir()) == []


def test_transcript_can_be_wiped_by_the_agent_is_refused(tmp_path, client):
    """Before: write_file or `: > .transcripts/...` emptied it without approval, and the disk held
    less than the context. Now the file tools refuse, and the command needs a yes (as any that may write)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    agent = Agent(client, workspace=ws, approve=lambda call: False)
    messages = []
    agent.ask("hello there", messages)
    path = agent.display_path(agent.transcript.path)
    assert path == ".transcripts/session-001.jsonl"
    calls = [{"type": "tool_use", "id": "t1", "name": "write_file", "input": {"path": path, "content": ""}},
             {"type": "tool_use", "id": "t2", "name": "edit_file",
              "input": {"path": path, "old_string": "hello", "new_string": "bye"}},
             {"type": "tool_use", "id": "t3", "name": "bash", "input": {"command": f": > {path}"}},
             {"type": "tool_use", "id": "t4", "name": "bash", "input": {"command": "rm -rf .transcripts"}}]
    results = [agent.run_tool(call) for call in calls]
    assert all(r["is_error"] for r in results)
    assert "the agent's own record" in results[0]["content"] and "the agent's own record" in results[1]["content"]
    assert results[2]["content"].endswith("is not known to only read (`> .transcripts/session-001.jsonl` writes "
                                          "to a file), and the user did not approve it")
    assert read_transcript(agent.transcript.path) == messages  # all still on disk
    assert agent.execute("read_file", {"path": path}).startswith('{"role":"user"')  # reading is fine


def test_a_hook_cannot_rewrite_a_call_after_the_permission_check_history_and_transcript_agree(tmp_path, client):
    ws = tmp_path / "ws"
    ws.mkdir()
    agent = Agent(client, workspace=ws, approve=lambda call: False)
    agent.register_hook("PreToolUse", lambda call: call["input"].update(command="touch pwned"))
    messages = []
    agent.ask("Run `echo hi`", messages)
    assert not (ws / "pwned").exists()
    assert read_transcript(agent.transcript.path) == messages  # the same call in both


def test_malformed_histories_non_json_values_are_refused_never_stringified(tmp_path, client):
    ws = tmp_path / "ws"
    ws.mkdir()
    agent = Agent(client, workspace=ws)
    history = [{"role": "user", "content": "a"},
               {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "bash",
                                                  "input": {"command": {1, 2}}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}]
    with pytest.raises(ValueError, match=r"message 1 \(assistant\): a set is not JSON at content\[0\]\.input\.command"):
        agent.ask("go on", history)
    assert not agent.transcript.path.exists() or agent.transcript.read() == []
    transcript = Transcript(tmp_path / "s.jsonl")
    for bad in ({1, 2}, b"raw", float("nan")):
        with pytest.raises(ValueError, match="a transcript line must be plain JSON"):
            transcript.append({"role": "user", "content": [{"type": "text", "text": "a", "x": bad}]})
    assert transcript.read() == []
