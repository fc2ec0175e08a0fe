"""The compaction arena: accounting equals the offline cache, every strategy sends valid requests,
cost arithmetic, recall facts, trace loading, the report and the command; the real traces if present."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import exercise, overhead
from arena.__main__ import DEFAULT_TRACES, main
from arena.bills.accounting import BlockMemo, ReplayCache
from arena.bills.breakpoints import mark_last
from arena.bills.prices import SONNET, Prices
from arena.chart import figure
from arena.measures import probes
from arena.measures.goal import goal_check, verdicts
from arena.measures.metrics import Row, command_paths, extract_facts, file_name, recall, row
from arena.replay import replay
from arena.report import markdown_table, overall, text_table
from arena.sessions.codebase import build_codebase
from arena.sessions.folders import load_trace, load_traces
from arena.sessions.generated import generate, scenarios
from arena.sessions.session import SessionError, session_from
from arena.strategies import baselines, summarizers
from arena.strategies import kit_layers as kit
from arena.strategies.recommended import Recommended
from arena.strategies.registry import strategies
from lessonkit import tokens
from lessonkit.exercises import exercise_cells
from offline.api.cache import PromptCache
from tests.strategies import assert_api_valid, histories

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "arena.ipynb"

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

@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
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
        body = {"model": "offline", "max_tokens": 5, "system": "be brief", "messages": mark_last(current)}
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
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}}]},
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


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@settings(max_examples=8)
@given(histories(min_turns=2, max_turns=16))
def test_every_strategy_sends_only_valid_requests(tmp_path_factory, history):
    session = session_from("h", history)
    before = copy.deepcopy(history)
    facts = extract_facts(session.messages)
    for name, make in SMALL.items():
        for policy in ("last", "sticky"):   # sticky: up to 3 breakpoints on any block, never 5
            result = replay(session, make, window=1_500, workdir=tmp_path_factory.mktemp(name), breakpoints=policy)
            assert row(result, facts).invalid == 0, (name, policy, [r.error for r in result.records if r.error])
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

def fake_row(name, cost, recall_, over=0, out=1.0):
    return Row("s", name, 10, cost, 100, 0, 0, 0, 0, 0, 10, 200_000, over, 0, recall_, {"all": (1, 1)}, 0.1, out)


def test_goal_is_checked_part_by_part_against_both_recalls():
    rows = [fake_row("none", 5.0, 1.0, over=3), fake_row("ctx-edit", 2.0, 0.9, out=0.8),
            fake_row("recommended", 1.5, 0.95, out=0.5)]
    (v,) = verdicts(rows)           # 'none' is over the window: not a contender
    assert (v.cheapest, v.key_facts, v.output) == (True, True, False) and v.best_output == (0.8, "ctx-edit")
    assert goal_check(rows) == [("s: met with key-fact recall, NOT MET with output recall · $1.50, cheapest · "
                                 "key-fact recall 0.95 (best other 0.90, ctx-edit) · output recall 0.50 "
                                 "(best other 0.80, ctx-edit)")]
    rows[1] = fake_row("ctx-edit", 1.0, 0.99)
    assert goal_check(rows)[0].startswith("s: NOT MET with key-fact recall, NOT MET with output recall · "
                                          "$1.50, cheaper: ctx-edit · key-fact recall 0.95 (best other 0.99")
    rows[2] = fake_row("recommended", 1.5, 1.0, over=1)
    assert goal_check(rows) == ["s: NOT MET: recommended exceeds the window or sends an invalid request"]
    assert "| recommended | 1.50 |" in markdown_table(rows) and overall(rows)[0].session == "overall"
    assert "ms/turn" in text_table(rows) and "ms/turn" not in text_table(rows, timing=False)
    # Bug: the results table (128 characters) wrapped its headers in a notebook at 1280 px.
    narrow = text_table(rows, timing=False, width=100)
    assert max(map(len, narrow.splitlines())) <= 100 and narrow.count("strategy") == 2
    assert [line.split()[0] for line in narrow.splitlines() if line and line[0].isalpha()] == \
        ["strategy"] + [r.strategy for r in rows] + ["strategy"] + [r.strategy for r in rows]
    assert text_table(rows, timing=False) == text_table(rows, timing=False, width=1000)


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


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_the_kit_agent_generates_a_valid_session(tiny):
    session, messages = tiny, tiny.messages
    tasks = [m for m in messages if m["role"] == "user" and isinstance(m["content"], str)]
    assert session.tool_calls >= 25 and len(tasks) == 6
    results = [b for m in messages for b in (m["content"] if isinstance(m["content"], list) else [])
               if b.get("type") == "tool_result"]
    assert any(r.get("is_error") for r in results)                  # failing tests and a missing file
    assert any("passed" in r["content"] for r in results)
    assert not any(r["content"] == "(no output)" and not r.get("is_error") for r in results[:3])


# ---------------------------------------------------------------- the real traces

needs_traces = pytest.mark.skipif(not DEFAULT_TRACES.is_dir(),
                                  reason=f"the recorded traces are not here ({DEFAULT_TRACES}): a clean clone")


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
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

@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
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
    results = [b for m in live if isinstance(m["content"], list) for b in m["content"]
               if b.get("type") == "tool_result"]
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


# ---------------------------------------------------------------- the second recall: output lines

def lines_session(turns: int = 30) -> list:
    """A task, then `turns` bash calls, each printing 4 distinct long lines (and a short one)."""
    messages = [{"role": "user", "content": "Read every module and summarise it"}]
    for k in range(turns):
        tid = f"toolu_{k:03d}"
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": tid, "name": "bash", "input": {"command": f"cat src/m{k}.py"}}]})
        text = "\n".join([f"def function_{k}_{j}(items):  # module {k}" for j in range(4)] + ["}"])
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": text}]})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    return messages


def test_output_recall_counts_the_recent_lines_each_request_still_shows(tmp_path):
    printed = ["def load_config(path):\n}\n", "def   load_config(path):"]
    assert probes.output_lines(printed) == ["def load_config(path):"]
    assert probes.sample(list(range(10)), 3) == [0, 3, 6] and probes.probe_turns(20, 4) == [4, 9, 14, 19]
    session = session_from("s", lines_session(30))
    probe = probes.Probes(session)
    assert sorted(probe.lines) == probes.probe_turns(len(session.turns))
    everything = replay(session, baselines.NoCompaction, workdir=tmp_path / "n", probe=probe)
    masked = replay(session, lambda: baselines.ObservationMasking(2), workdir=tmp_path / "m", probe=probe)
    final = len(session.turns) - 1
    assert everything.probes[final]["output"] == (80, 80)      # the last 20 results, 4 long lines each
    assert masked.probes[final]["output"] == (8, 80)           # masking keeps the last 2 results
    facts = extract_facts(session.messages)
    assert row(everything, facts).output_recall == 1.0 and row(masked, facts).output_recall < 0.5
    assert row(masked, facts).recall == 1.0     # ...while every key fact survives: the two measure different things


def test_the_probe_at_a_recorded_compaction_compares_the_summary_with_each_strategy(tmp_path):
    messages = lines_session(8)
    summary = ("This session is being continued from a previous conversation. Summary: I read m0.py, m1.py, "
               "m2.py, m3.py, m4.py and m5.py.")
    messages[12] = {"role": "user", "content": messages[12]["content"] + [{"type": "text", "text": summary}]}
    session = session_from("cc", messages, {"markers": [{"message_index": 12}]})
    probe = probes.Probes(session)
    facts = extract_facts(session.messages)
    mine = row(replay(session, baselines.Recorded, workdir=tmp_path / "r", probe=probe), facts)
    none = row(replay(session, baselines.NoCompaction, workdir=tmp_path / "n", probe=probe), facts)
    assert mine.at_compaction["output"] == (0, 24)          # the summary alone: no line of the 6 results
    assert mine.at_compaction["facts"] == (6, 7)            # the 6 files, by name; the task is paraphrased
    assert none.at_compaction["facts"] == (7, 7) and none.at_compaction["output"] == (24, 24)


def test_a_path_counts_when_its_file_name_is_named():
    assert file_name("/repo/src/phases/base-phase.ts") == "base-phase.ts" and file_name("tests/unit/core/") == ""
    facts = extract_facts([{"role": "assistant", "content": [
        {"type": "tool_use", "id": "a", "name": "Read", "input": {"file_path": "/repo/src/phases/base-phase.ts"}},
        {"type": "tool_use", "id": "b", "name": "Read", "input": {"file_path": "/repo/src/a.py"}}]}])
    said = [{"role": "user", "content": "I changed base-phase.ts and data.py."}]
    assert recall(facts, said)["paths"] == (1, 2)          # a.py is not named: data.py only contains it


# ---------------------------------------------------------------- breakpoint policies

def test_sticky_breakpoints_let_a_strategy_that_rewrites_far_back_read_the_cache(tmp_path):
    messages = tool_session(turns=40, size=300)
    messages[0]["content"] += "\n" + BIG     # a long task: the prefix before the rewrites is worth caching
    session = session_from("s", messages)
    make = lambda: baselines.ObservationMasking(10)     # rewrites a result ~30 blocks back, every turn
    last = replay(session, make, workdir=tmp_path / "l")
    sticky = replay(session, make, workdir=tmp_path / "s", breakpoints="sticky")
    late = lambda result: [r for r in result.records if r.turn >= 20]
    task = tokens.count_request({"tools": session.tools, "messages": messages[:1]})
    assert all(r.cache_read == 0 for r in late(last))         # the task is more than 20 blocks back: not read
    assert all(r.cache_read > task for r in late(sticky))     # the task and the masked results before this rewrite
    assert sticky.cost() < last.cost()
    marks = [b for m in sticky.final_body["messages"] if isinstance(m["content"], list) for b in m["content"]
             if b.get("cache_control")]
    assert len(marks) == 3     # the last block, this rewrite's end, the one before it
    # the recommended pipeline's own marks are the sticky ones: the same bill either way
    mine = [replay(session, Recommended, workdir=tmp_path / p, breakpoints=p).cost() for p in ("last", "sticky")]
    assert mine[0] == pytest.approx(mine[1], rel=0.02)
    with pytest.raises(ValueError, match="unknown breakpoint policy"):
        replay(session, make, breakpoints="every")


def test_token_thresholds_scale_with_the_window():
    small = strategies(window=20_000)
    assert small["ctx-edit"]().trigger == 10_000 and small["ctx-edit+5k"]().clear_at_least == 500
    assert strategies()["ctx-edit"]().trigger == 100_000
    assert small["s06"]().options == {"threshold": 5_000}


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_recommended_ablations_show_what_batches_and_marks_are_worth(tmp_path):
    messages = tool_session(turns=60, size=300)
    messages[0]["content"] += "\n" + BIG
    session = session_from("s", messages)
    full = replay(session, Recommended, workdir=tmp_path / "a")
    every = replay(session, lambda: Recommended(batches=False), workdir=tmp_path / "b")
    unmarked = replay(session, lambda: Recommended(marks=False), workdir=tmp_path / "c")
    assert len(every.compactions) > 3 * len(full.compactions) and every.cost() > full.cost()
    assert not any(b.get("cache_control") for m in unmarked.final_request if isinstance(m["content"], list)
                   for b in m["content"])
    assert unmarked.cost() > full.cost()


# ---------------------------------------------------------------- any valid trace folder works

def odd_traces(folder: Path) -> None:
    """Valid but unusual traces: string and list results, parallel calls, errors, CJK, a summary, no tools."""
    text = lambda k, n=60: "\n".join(f"行 {k}.{j}: 値 = {j * k} ✓ résumé" for j in range(n))
    parallel = [{"role": "user", "content": [{"type": "text", "text": "テストを実行して、失敗を直してください"}]}]
    for k in range(6):
        ids = [f"p{k}a", f"p{k}b", f"p{k}c"]
        parallel.append({"role": "assistant", "content": [{"type": "text", "text": f"三つ並行で {k}"}] + [
            {"type": "tool_use", "id": i, "name": n, "input": {"file_path": f"src/模块_{k}.py"} if n == "Read"
             else {"command": f"pytest tests/test_{k}.py"}} for i, n in zip(ids, ("Read", "Bash", "Read"))]})
        parallel.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": ids[0], "content": text(k)},
            {"type": "tool_result", "tool_use_id": ids[1], "is_error": True,
             "content": [{"type": "text", "text": f"FAILED tests/test_{k}.py - AssertionError: 期待 {k}"}]},
            {"type": "tool_result", "tool_use_id": ids[2], "content": [
                {"type": "text", "text": text(k + 10)}, {"type": "text", "text": "末尾"}]}]})
    parallel.append({"role": "assistant", "content": "完了しました。"})
    (folder / "parallel-cjk.json").write_text(json.dumps(parallel, ensure_ascii=False), encoding="utf-8")
    summarised = tool_session(turns=10, size=80)
    summarised[10]["content"] = summarised[10]["content"] + [{"type": "text", "text": (
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below: fixed m1 and m2.")}]
    (folder / "summarised.json").write_text(json.dumps(summarised))      # no meta: found by its wording
    shaped = {"messages": tool_session(turns=8, size=60), "system": [{"type": "text", "text": "Be brief."}],
              "tools": [{"name": "bash", "description": "run", "input_schema": {"type": "object"}}]}
    (folder / "object-form.json").write_text(json.dumps(shaped))
    (folder / "bad-meta.json").write_text(json.dumps(tool_session(turns=4, size=60)))
    bad = {"tools": [{"name": "bash"}, {"name": "bash"}], "system": [{"type": "image"}]}   # the API would refuse
    talk = [{"role": "user", "content": "hello " * 300},
            {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
            {"role": "user", "content": "again " * 300}, {"role": "assistant", "content": "ok"}]
    (folder / "no-tools.json").write_text(json.dumps(talk))
    (folder / "meta").mkdir()
    (folder / "meta" / "no-tools.meta.json").write_text(json.dumps({"source": "hand-made", "markers": []}))
    (folder / "meta" / "bad-meta.meta.json").write_text(json.dumps(bad))


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_any_valid_trace_folder_replays_under_every_strategy_and_both_policies(tmp_path, capsys):
    traces, out = tmp_path / "traces", tmp_path / "out"
    traces.mkdir()
    odd_traces(traces)
    assert main(["--no-generated", "--traces", str(traces), "--out", str(out), "--quiet", "--no-overhead",
                 "--window", "3000"]) == 0
    printed = capsys.readouterr().out
    import csv
    rows = list(csv.DictReader((out / "results.csv").open(encoding="utf-8")))
    sessions = {r["session"] for r in rows} - {"overall"}
    assert sessions == {"parallel-cjk", "summarised", "object-form", "no-tools", "bad-meta"}
    assert all(r["invalid"] == "0" for r in rows), [(r["session"], r["strategy"]) for r in rows if r["invalid"] != "0"]
    assert {r["session"] for r in rows if r["strategy"] == "recorded"} == {"summarised", "overall"}
    report = (out / "results.md").read_text(encoding="utf-8")
    assert "## The same breakpoint policy for every strategy" in report and "goal under it" in printed
    assert "At the recording agent's own compaction" in report


# ---------------------------------------------------------------- the notebook's exercise and chart

@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The kit's agent on a 2-module code base: the smallest generated session (about 2 s)."""
    return session_from("tiny", generate(tmp_path_factory.mktemp("gen"), files=2, lines=30, bugs=1))


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_the_exercise_check_names_what_is_wrong(tiny):
    window = 5_000
    first = exercise.check(exercise.starter_function(), tiny, window=window)
    assert not first and [name for name, _ in first.failures] == [
        "the prompt cache reads more than it writes", "costs no more than sending everything",
        "within the budget (80% of sending everything)"]
    assert "more than sending everything" in first.report() and "cache writes" in first.report()
    assert exercise.check(exercise.batched_clearing, tiny, window=window, budget=0.95)

    def edits_in_place(history, ctx):
        for b in history[2]["content"] if len(history) > 2 else ():
            b["content"] = "[cleared]"
        return history

    def drops_calls(history, ctx):
        return history[:1] + history[2:] if len(history) > 2 else history

    assert "the recorded history is untouched" in dict(exercise.check(edits_in_place, tiny, window=window).failures)
    assert "refused" in dict(exercise.check(drops_calls, tiny, window=window).failures)["every request is valid"]
    assert tiny.messages[2]["content"][0]["content"] != "[cleared]"     # the caller's session is untouched
    if LESSON.is_file():
        assert exercise_cells(LESSON) == [exercise.STARTER.rstrip("\n")]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("mistake", exercise.MISTAKES, ids=[m.slip for m in exercise.MISTAKES])
def test_each_wrong_strategy_is_rejected_with_its_own_message(tiny, mistake):
    result = exercise.check(mistake.fn, tiny, window=5_000)
    assert not result and mistake.says in result.report(), result.report()


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_the_exercise_explains_the_failure_found_not_the_case(tiny):
    """Over budget by cache misses (the starter) and over budget by sending everything hear different
    reasons; a strategy that raised hears its own error only, on every case."""
    budget = "within the budget (80% of sending everything)"
    misses = dict(exercise.check(exercise.starter_function(), tiny, window=5_000).failures)[budget]
    everything = dict(exercise.check(exercise.sends_everything, tiny, window=5_000).failures)[budget]
    assert "read only" in misses and "of what sending everything sends" not in misses
    assert "100% of what sending everything sends" in everything
    assert "cache miss" not in everything and "read only" not in everything
    raised = exercise.check(exercise.as_tuple, tiny, window=5_000)
    assert {reason for _, reason in raised.failures} == {"raised TypeError: as_tuple returned tuple, not a list "
                                                         "of messages"} and len(raised.failures) == 9


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_the_exercise_names_the_cause_of_a_cheap_strategy_that_is_wrong(tiny):
    """Held out: results rebuilt without is_error and results cleared to "" passed on cost alone, and
    results cut to 200 characters (the newest too) heard the cause of another strategy ("clearing every
    result ... once the request is large"). Each now hears what it did to which result."""
    for wrong, case, says in [
        (exercise.cuts_every_result, "the newest results reach the model whole",
         "cuts it to its first 200 of 1,027 characters, the result of the bash call the agent has just made"),
        (exercise.clears_all_late, "the newest results reach the model whole", "replaces it with '[cleared]'"),
        (exercise.rebuilds_blocks, "failed calls stay marked as failed", "call's result without is_error"),
        (exercise.clears_to_nothing, "a cleared result says it was cleared",
         "the model cannot tell a cleared result from a command that printed nothing"),
    ]:
        failures = dict(exercise.check(wrong, tiny, window=5_000, budget=0.95).failures)
        assert case in failures and says in failures[case], failures
        assert "once the request is large" not in str(failures)


def test_the_exercise_has_five_distinct_mistakes_and_a_hint_ladder(monkeypatch):
    assert len(exercise.MISTAKES) >= 5 and len({m.says for m in exercise.MISTAKES}) == len(exercise.MISTAKES)
    monkeypatch.setattr(exercise, "_asked", [0])
    assert [str(exercise.hint()) for _ in exercise.HINTS] == [
        f"Hint {i}/3: {text}" for i, text in enumerate(exercise.HINTS, 1)]
    assert "def batched_clearing" in str(exercise.hint())


def test_the_chart_has_a_panel_per_session(tmp_path):
    one, two = session_from("a", tool_session(5, 20)), session_from("b", tool_session(7, 20))
    replays = [replay(s, baselines.NoCompaction, workdir=tmp_path / s.name) for s in (one, two)]
    for r in replays:
        r.strategy = "none"
    fig = figure(replays)
    assert [ax.get_title() for ax in fig.axes] == ["a", "b"] and fig.png()[:4] == b"\x89PNG"


def test_the_generated_sessions_cache_key_reads_only_sources_that_exist():
    """Its key hashed lessonkit/demo.py, gone since lessonkit moved into parts: FileNotFoundError."""
    from arena.sessions.generated import _key

    assert len(_key()) == 12 and _key() == _key()


def test_the_package_docstring_lists_the_real_modules_one_line_each():
    """It named modules by their old layout and left out context.py, edits.py, goal.py, plot.py, run.py ..."""
    import re
    from pathlib import Path

    import arena as arena
    from lessonkit.i18n import tr_lines

    here = Path(arena.__file__).parent
    real = {p.name for p in here.glob("*.py") if p.name != "__init__.py"} | {
        f"{p.parent.name}/" for p in here.glob("*/__init__.py")}  # its modules and its rooms
    listed = re.findall(r"^    (\S+\.py|\S+/) ", arena.__doc__, re.M)
    assert sorted(listed) == sorted(real) and len(listed) == len(set(listed))
    zh = tr_lines(arena.__doc__, language="zh")
    assert all(re.search(r"[\u4e00-\u9fff]", line) for line in zh.splitlines() if re.match(r"^    \S+(\.py|/) ", line))
