"""The compaction arena: accounting equals the offline cache, every strategy sends valid requests,
cost arithmetic, recall facts, trace loading, the report and the command; the real traces if present."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lessonkit import tokens
from lessonkit.arena import baselines, kit, overhead, summarizers
from lessonkit.arena.__main__ import DEFAULT_TRACES, main
from lessonkit.arena.accounting import BlockMemo, ReplayCache
from lessonkit.arena.codebase import build_codebase
from lessonkit.arena.generate import generate, scenarios
from lessonkit.arena.metrics import Row, command_paths, extract_facts, recall, row
from lessonkit.arena.prices import SONNET, Prices
from lessonkit.arena.recommended import Recommended
from lessonkit.arena.registry import strategies
from lessonkit.arena.replay import mark_last, replay
from lessonkit.arena.report import goal_check, markdown_table, overall
from lessonkit.arena.sessions import SessionError, load_trace, load_traces, session_from
from lessonkit.offline.cache import PromptCache
from tests.strategies import assert_api_valid, histories

BIG = "x = 1\n" * 2_000   # about 3,000 tokens: enough for the cache's 1,024-token minimum


def tool_session(turns: int = 12, size: int = 400) -> list:
    """A task, then `turns` bash calls with results of `size` lines, some failing, and an answer."""
    messages = [{"role": "user", "content": "Fix the failing tests in src/app.py please"}]
    for k in range(turns):
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": f"Step {k}"},
            {"type": "tool_use", "id": f"toolu_{k:03d}", "name": "bash", "input": {"command": f"cat src/m{k}.py"}}]})
        result = {"type": "tool_result", "tool_use_id": f"toolu_{k:03d}", "content": f"line {k}\n" * size}
        if k % 5 == 2:
            result.update(content=f"Traceback\nValueError: bad value {k}\n[exit code 1]", is_error=True)
        messages.append({"role": "user", "content": [result]})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    return messages


# ---------------------------------------------------------------- accounting

@settings(max_examples=20)
@given(histories(min_turns=1, max_turns=8), st.lists(st.integers(0, 20), max_size=4))
def test_replay_cache_gives_the_offline_cache_numbers(history, rewrites):
    """Request by request (growing, with old results rewritten), usage equals PromptCache's."""
    mine, theirs = ReplayCache(), PromptCache(min_tokens=16)
    mine.min_tokens = 16
    current = []
    for k, msg in enumerate(history):
        current = current + [msg]
        if k in rewrites and current[-1]["role"] == "user" and isinstance(current[-1]["content"], list):
            current[-1] = {"role": "user", "content": [dict(b, content="[cleared]") if b.get("type") == "tool_result"
                                                       else b for b in current[-1]["content"]]}
        if current[-1]["role"] != "user":
            continue
        body = {"model": "m", "max_tokens": 5, "system": "be brief", "messages": mark_last(current)}
        assert mine.account(body) == theirs.account(body)
        assert mine.memo.request_tokens(body) == tokens.count_request(body)


def test_memo_counts_each_block_once_and_sees_in_place_edits():
    memo = BlockMemo()
    msg = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": BIG}]}
    first = memo.message_tokens(msg)
    assert first == tokens.count_message(msg) and len(memo) == 1
    assert memo.message_tokens(copy.deepcopy(msg)) == first and len(memo) == 1
    msg["content"][0]["content"] = "[Previous: used bash]"          # a layer that edits in place
    assert memo.message_tokens(msg) == tokens.count_message(msg) < first


# ---------------------------------------------------------------- cost

def test_cost_of_a_hand_computed_replay():
    """Two requests: 1st writes its prefix, 2nd reads it and writes only the new turn."""
    session = session_from("hand", [
        {"role": "user", "content": BIG},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.py"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}])
    result = replay(session, baselines.NoCompaction)
    first, second = result.records
    n1 = tokens.count_request({"tools": session.tools, "messages": session.messages[:1]})
    n2 = tokens.count_request({"tools": session.tools, "messages": session.messages[:3]})
    assert (first.cache_write, first.cache_read, first.uncached) == (n1, 0, 0)
    assert (second.cache_write, second.cache_read, second.uncached) == (n2 - n1, n1, 0)
    out1 = tokens.count_content(session.messages[1]["content"])
    out2 = tokens.count_content(session.messages[3]["content"])
    assert (first.output, second.output) == (out1, out2)
    expected = ((n1 + n2 - n1) * 3.75 + n1 * 0.30 + (out1 + out2) * 15.0) / 1e6
    assert result.cost() == pytest.approx(expected)
    assert Prices(input=1, cache_write=2, cache_read=3, output=4).cost(
        {"input_tokens": 1, "cache_creation_input_tokens": 1, "cache_read_input_tokens": 1, "output_tokens": 1}
    ) == pytest.approx(10e-6)


# ---------------------------------------------------------------- strategies

SMALL = {
    "none": baselines.NoCompaction,
    "ctx-edit": lambda: baselines.ContextEditing(trigger=300, keep=2),
    "ctx-edit+": lambda: baselines.ContextEditing(trigger=300, keep=2, clear_at_least=200),
    "masking": lambda: baselines.ObservationMasking(2),
    "openhands": lambda: summarizers.OpenHandsCondenser(max_size=12, keep_first=1, max_event_length=2_000),
    "langchain": lambda: summarizers.LangChainSummarization(fraction=0.5, keep=4, trim_tokens=400),
    "s06": lambda: kit.StageAgent("s06", "s06_compact", threshold=600, keep_recent=2),
    "s07": lambda: kit.StageAgent("s07", "s07_reactive", threshold=600, snip_max_messages=8),
    "s08": lambda: kit.Compactor("s08"),
    "recommended": lambda: Recommended(min_batch=50),
}


@settings(max_examples=12)
@given(histories(min_turns=2, max_turns=16))
def test_every_strategy_sends_only_valid_requests(tmp_path_factory, history):
    session = session_from("h", history)
    before = copy.deepcopy(history)
    facts = extract_facts(session.messages)
    for name, make in SMALL.items():
        result = replay(session, make, window=1_500, workdir=tmp_path_factory.mktemp(name))
        assert row(result, facts).invalid == 0, (name, [r.error for r in result.records if r.error])
        assert len(result.turn_tokens) == len(session.turns)
        if session.turns:
            assert_api_valid(result.final_request)
    assert history == before  # no strategy touched the recorded history


def test_context_editing_clears_in_batches_and_keeps_the_last_tool_uses(tmp_path):
    session = session_from("s", tool_session(turns=12, size=300))
    result = replay(session, lambda: baselines.ContextEditing(trigger=2_000, keep=3), workdir=tmp_path)
    results = [b for m in result.final_request for b in m["content"] if isinstance(m["content"], list)
               and b.get("type") == "tool_result"]
    assert [r["content"] == "[cleared]" for r in results][-3:] == [False] * 3
    assert any(r["content"] == "[cleared]" for r in results)
    assert result.compactions and all(t > 0 for t, _ in result.compactions)
    between = [t for t in range(1, len(result.turn_tokens)) if result.turn_tokens[t] >= result.turn_tokens[t - 1]]
    assert len(between) > len(result.compactions)  # it grows between clearings: batches, not every turn


def test_clear_at_least_that_cannot_be_met_clears_nothing(tmp_path):
    session = session_from("s", tool_session(turns=6, size=50))
    result = replay(session, lambda: baselines.ContextEditing(trigger=100, keep=3, clear_at_least=10 ** 6),
                    workdir=tmp_path)
    assert result.final_request == session.messages[:-1] and not result.compactions


def test_masking_keeps_the_last_n_results(tmp_path):
    session = session_from("s", tool_session(turns=8, size=20))
    result = replay(session, lambda: baselines.ObservationMasking(3), workdir=tmp_path)
    contents = [b["content"] for m in result.final_request if isinstance(m["content"], list)
                for b in m["content"] if b.get("type") == "tool_result"]
    assert all(c.startswith("Old environment output: (") for c in contents[:-3])
    assert contents[0] == "Old environment output: (20 lines omitted)"
    assert not any(c.startswith("Old environment") for c in contents[-3:])


def test_openhands_summarises_the_middle_and_keeps_the_task(tmp_path):
    session = session_from("s", tool_session(turns=20, size=30))
    result = replay(session, lambda: summarizers.OpenHandsCondenser(max_size=10, keep_first=1), workdir=tmp_path)
    assert any(r.kind == "summary" for r in result.records)
    first = result.final_request[0]
    assert first["content"][0]["text"] == session.messages[0]["content"]
    assert "User requests" in first["content"][-1]["text"]            # the offline summary
    assert sum(summarizers.events_in(m) for m in result.final_request[1:]) <= 10
    summary_calls = [r for r in result.records if r.kind == "summary"]
    assert all(r.cache_read == 0 and r.uncached == r.tokens for r in summary_calls)  # caching off


def test_langchain_without_a_human_message_to_keep_writes_the_too_long_summary(tmp_path):
    session = session_from("s", tool_session(turns=20, size=60))
    make = lambda: summarizers.LangChainSummarization(fraction=0.5, keep=6, trim_tokens=300)
    result = replay(session, make, window=3_000, workdir=tmp_path)
    text = json.dumps(result.final_request)
    assert summarizers.TOO_LONG in text and not any(r.kind == "summary" for r in result.records)
    assert summarizers.trim_last([{"role": "user", "content": "a\nb"}], 100) == [{"role": "user", "content": "a\nb"}]


def test_recorded_replays_the_agents_own_summary_and_accounts_its_call(tmp_path):
    messages = tool_session(turns=6, size=20)
    summary = "This session is being continued from a previous conversation. Summary: fixed m1."
    messages[6] = {"role": "user", "content": messages[6]["content"] + [{"type": "text", "text": summary}]}
    session = session_from("cc", messages, {"markers": [{"message_index": 6}]})
    assert session.recorded == [(6, summary)] and summary not in json.dumps(session.messages)
    result = replay(session, baselines.Recorded, workdir=tmp_path)
    assert result.final_request[0]["content"][0]["text"] == summary
    assert [r.kind for r in result.records].count("summary") == 1
    assert baselines.Recorded.applies(session) and not baselines.Recorded.applies(session_from("x", messages[:3]))


# ---------------------------------------------------------------- facts and recall

def test_facts_and_recall_on_a_tiny_session():
    messages = [
        {"role": "user", "content": "Please fix   the\nparser"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "a", "name": "Read", "input": {"file_path": "/repo/src/parser.py"}},
            {"type": "tool_use", "id": "b", "name": "bash", "input": {"command": "pytest tests/test_p.py -x 2>&1"}},
            {"type": "tool_use", "id": "c", "name": "apply_patch", "input": {"changes": [{"path": "docs/x.md"}]}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "def parse(): ..."},
            {"type": "tool_result", "tool_use_id": "b", "content": "collected 3\nE   KeyError: 'x'\n[exit code 1]"},
            {"type": "tool_result", "tool_use_id": "c", "content": "ok", "is_error": False}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Fixed."}]}]
    facts = extract_facts(messages)
    assert facts.requests == ["Please fix the parser"]
    assert facts.paths == ["/repo/src/parser.py", "tests/test_p.py", "docs/x.md"]
    assert facts.errors == ["E KeyError: 'x'"]
    assert recall(facts, messages[:3])["all"] == (5, 5)
    cleared = copy.deepcopy(messages[:3])
    cleared[2]["content"][1]["content"] = "[cleared]"
    assert recall(facts, cleared) == {"requests": (1, 1), "paths": (3, 3), "errors": (0, 1), "all": (4, 5)}
    assert command_paths("cat src/a.py | grep -n x > /dev/null; curl https://x.io/a.json -o out.json") == \
        ["src/a.py", "out.json"]


# ---------------------------------------------------------------- sessions

def test_loading_a_folder_skips_bad_files_with_a_reason(tmp_path):
    (tmp_path / "good.json").write_text(json.dumps(tool_session(3, 2)))
    (tmp_path / "orphan.json").write_text(json.dumps([{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "nope", "content": "x"}]}]))
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "words.json").write_text(json.dumps([{"role": "user", "content": "hi"}]))
    sessions, skipped = load_traces(tmp_path)
    assert [s.name for s in sessions] == ["good"]
    reasons = dict(skipped)
    assert "not valid JSON" in reasons["broken.json"] and "tool_use_id" in reasons["orphan.json"]
    assert "no assistant turn" in reasons["words.json"]
    assert all("\n" not in r for r in reasons.values())
    assert sessions[0].tools[0]["name"] == "bash"  # a schema for each tool used
    with pytest.raises(SessionError, match="not a directory"):
        load_traces(tmp_path / "missing")
    with pytest.raises(SessionError, match="broken.json: not valid JSON"):
        load_trace(tmp_path / "broken.json")


# ---------------------------------------------------------------- report and command

def fake_row(name, cost, recall_, over=0):
    return Row("s", name, 10, cost, 100, 0, 0, 0, 0, 0, 10, 200_000, over, 0, recall_, {"all": (1, 1)}, 0.1)


def test_goal_check_and_tables():
    rows = [fake_row("none", 5.0, 1.0, over=3), fake_row("ctx-edit", 2.0, 0.9), fake_row("recommended", 1.5, 0.95)]
    assert goal_check(rows) == ["s: met: $1.50, recall 0.95"]   # 'none' is over the window: not a contender
    rows[1] = fake_row("ctx-edit", 1.0, 0.99)
    assert goal_check(rows) == ["s: NOT MET: $1.50, recall 0.95 (cheaper: ctx-edit; recall 0.95 < best other 0.99)"]
    assert "| recommended | 1.50 |" in markdown_table(rows) and overall(rows)[0].session == "overall"


def test_command_writes_the_table_the_csv_and_the_chart(tmp_path, capsys):
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "small.json").write_text(json.dumps(tool_session(6, 40)))
    out = tmp_path / "out"
    assert main(["--no-generated", "--traces", str(traces), "--out", str(out), "--quiet", "--no-overhead",
                 "--strategies", "none,ctx-edit,masking-10"]) == 0
    printed = capsys.readouterr().out
    assert "small" in printed and "overall" in printed and "ctx-edit" in printed
    assert (out / "arena.png").stat().st_size > 1000
    assert "| none |" in (out / "results.md").read_text()
    assert (out / "results.csv").read_text().count("\n") == 1 + 3 + 3
    with pytest.raises(SystemExit, match="unknown strategy nope"):
        main(["--no-generated", "--traces", str(traces), "--strategies", "nope"])
    with pytest.raises(SystemExit, match="not a directory"):
        main(["--no-generated", "--traces", str(tmp_path / "none")])


# ---------------------------------------------------------------- the generated session

def test_generated_code_base_and_scenarios_are_deterministic(tmp_path):
    bugs = build_codebase(tmp_path / "a", files=4, lines=40, bugs=2, seed=3)
    again = build_codebase(tmp_path / "b", files=4, lines=40, bugs=2, seed=3)
    assert bugs == again and len(bugs) == 2
    assert [p.read_bytes() for p in sorted((tmp_path / "a").rglob("*.py"))] == \
        [p.read_bytes() for p in sorted((tmp_path / "b").rglob("*.py"))]
    tasks = scenarios(bugs, 4)
    assert len(tasks) == 6 and all(t["steps"] for t in tasks)
    assert any(b.fix == step["calls"][0]["input"]["command"] for b in bugs for step in tasks[1]["steps"])


def test_the_kit_agent_generates_a_valid_session(tmp_path):
    messages = generate(tmp_path, files=2, lines=30, bugs=1)
    session = session_from("g", messages)
    assert session.tool_calls >= 25 and len([m for m in messages if m["role"] == "user" and isinstance(m["content"], str)]) == 6
    results = [b for m in messages for b in (m["content"] if isinstance(m["content"], list) else [])
               if b.get("type") == "tool_result"]
    assert any(r.get("is_error") for r in results)                  # failing tests and a missing file
    assert any("passed" in r["content"] for r in results)
    assert not any("(no output)" == r["content"] and not r.get("is_error") for r in results[:3])


# ---------------------------------------------------------------- the real traces

needs_traces = pytest.mark.skipif(not DEFAULT_TRACES.is_dir(),
                                  reason=f"the recorded traces are not here ({DEFAULT_TRACES}): a clean clone")


@needs_traces
def test_the_real_traces_load_and_every_strategy_is_valid_on_the_smallest():
    sessions, skipped = load_traces(DEFAULT_TRACES)
    assert not skipped and len(sessions) >= 4
    assert sum(1 for s in sessions if s.recorded) >= 2   # the two Claude Code compactions
    small = min(sessions, key=lambda s: sum(len(json.dumps(m)) for m in s.messages))
    facts = extract_facts(small.messages)
    for name, make in strategies().items():
        if getattr(make, "applies", lambda s: True)(small):
            result = replay(small, make)
            assert row(result, facts, SONNET).invalid == 0, name


# ---------------------------------------------------------------- the kit's layers and the recommended pipeline

@pytest.mark.parametrize("name", ["s06", "s07", "s08", "recommended"])
def test_kit_strategies_compact_a_long_session_validly(tmp_path, name):
    session = session_from("s", tool_session(turns=40, size=150))
    result = replay(session, SMALL[name], window=8_000, workdir=tmp_path)
    assert result.compactions, name
    assert row(result, extract_facts(session.messages)).invalid == 0
    assert max(result.turn_tokens[-10:]) < max(tokens.count_messages(session.messages[:-1]), 8_000)


def test_recommended_keeps_every_fact_and_beats_no_compaction(tmp_path):
    session = session_from("s", tool_session(turns=60, size=300))
    facts = extract_facts(session.messages)
    mine = row(replay(session, Recommended, workdir=tmp_path / "r"), facts)
    none = row(replay(session, baselines.NoCompaction, workdir=tmp_path / "n"), facts)
    assert mine.recall == 1.0 and facts.errors      # cleared failures keep their first error line
    assert mine.cost < none.cost and mine.cumulative_input < none.cumulative_input
    assert mine.invalid == 0 and mine.summary_calls == 0


def test_recommended_clears_in_batches_behind_a_stable_breakpoint(tmp_path):
    messages = tool_session(turns=60, size=300)
    messages[0]["content"] += "\n" + BIG      # a long task: the stable prefix is worth caching (>= 1,024)
    session = session_from("s", messages)
    result = replay(session, Recommended, workdir=tmp_path)
    clears = [t for t, layer in result.compactions if layer == "clear"]
    assert 2 <= len(clears) <= 15                                     # batches, not every turn
    marked = [b for m in result.final_request if isinstance(m["content"], list) for b in m["content"]
              if b.get("cache_control")]
    assert len(marked) == 2 and all(b["content"].startswith("[Previous: used bash]") for b in marked)
    turns = [r for r in result.records if r.kind == "turn"]
    after = [turns[t] for t in clears[1:]]
    assert all(r.cache_read > 0 for r in after)   # the prefix before the breakpoint is still read


def test_recommended_persists_big_outputs_with_their_error_line(tmp_path):
    messages = tool_session(turns=4, size=10)
    messages[4]["content"][0].update(content="ok\n" * 20_000 + "FAILED test_x - AssertionError: boom\n[exit code 1]",
                                     is_error=True)
    result = replay(session_from("s", messages), Recommended, workdir=tmp_path)
    text = json.dumps(result.final_request)
    assert "<persisted-output>" in text and "It failed: FAILED test_x - AssertionError: boom" in text
    assert (tmp_path / "results").is_dir() and str(tmp_path) not in text   # the text names a relative path


# ---------------------------------------------------------------- the overhead benchmark's pieces

def test_overhead_history_and_seed_turn():
    history = overhead.synthetic_history(41)
    assert len(history) == 41 and overhead.synthetic_history(41) == history
    assert_api_valid(history)
    live = copy.deepcopy(history)
    estimate = overhead.seed_turn(live)
    assert estimate == len(json.dumps(live)) // 4
    results = [b for m in live if isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"]
    assert all(r["content"] == "[Previous: used bash]" for r in results[:-3])
    assert all(r["content"] != "[Previous: used bash]" for r in results[-3:])
    rows = overhead.measure((11, 21), turns=3)
    assert [r.messages for r in rows] == [11, 21] and all(r.kit[0] > 0 and r.seed[0] > 0 for r in rows)
    assert "seed / kit" in overhead.table(rows)


def test_s07_recovers_from_prompt_too_long_and_the_refused_attempt_is_free(tmp_path):
    session = session_from("s", tool_session(turns=12, size=1_000))
    make = lambda: kit.StageAgent("s07", "s07_reactive", threshold=10 ** 9, keep_recent=10)
    result = replay(session, make, window=9_000, workdir=tmp_path)
    refused = [r for r in result.records if r.kind == "refused"]
    assert refused and all(r.tokens > 9_000 and r.usage == {"input_tokens": 0, "cache_creation_input_tokens": 0,
                                                             "cache_read_input_tokens": 0, "output_tokens": 0}
                           for r in refused)
    assert any(layer == "reactive" for _, layer in result.compactions)
    assert max(result.turn_tokens) <= 9_000 and row(result, extract_facts(session.messages)).invalid == 0
