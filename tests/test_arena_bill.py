"""Bills that match the logs: prices per model, the reader's per-request facts, the per-kind fit, the TTL,
subagents, the oracle's schedule; the two shared raw logs within 5 % (slow)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from arena.bill_check import check, table
from arena.bills.accounting import BlockMemo
from arena.bills.model import KINDS, KindMemo, fit, fit_weights, kind_of, logged_bill
from arena.bills.prices import MODELS, SONNET, for_model, unpriced_in
from arena.run import run_arena
from arena.sessions.folders import load_trace, load_traces
from arena.strategies.oracle import schedule

RAW = Path(__file__).resolve().parents[1].parent / "shared" / "traces" / "raw"
START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
CODE = "\n".join(f"    def f{i}(x):\n        return x * {i};" for i in range(30))
PROSE = " ".join(f"The service logs request {i} and answers it politely before moving on." for i in range(30))
CJK = "这是一个测试文件的内容，用来检查计数器对中文的比例。" * 25


def test_a_run_names_only_its_own_unpriced_models():
    """A model warned about earlier in the process (another run, another test) is not this run's."""
    class Logged:
        def __init__(self, *models):
            self.models = list(models)

    with pytest.warns(UserWarning):
        for_model("an-earlier-runs-model")
    assert unpriced_in([Logged("claude-opus-4-1-20250805", None, "<synthetic>")]) == {}
    with pytest.warns(UserWarning, match="mystery-1"):
        for_model("mystery-1")
    assert unpriced_in([Logged("claude-sonnet-4-5", "mystery-1")]) == {"mystery-1": SONNET}


def test_prices_per_model_from_the_table():
    assert for_model("claude-opus-4-20250514").output == 75 and for_model("claude-opus-4-1-20250805").input == 15
    assert for_model("claude-opus-4-6").input == 5 and for_model("claude-opus-4-5-20251101").output == 25
    assert for_model("claude-haiku-4-5-20251001").cache_read == pytest.approx(0.1)
    assert for_model("claude-3-5-haiku-20241022").cache_write == 1.0 and for_model("claude-sonnet-4-20250514") == SONNET
    with pytest.warns(UserWarning, match="some-other-model"):
        assert for_model("some-other-model") == SONNET and len(MODELS) >= 8
    opus = for_model("claude-opus-4-6")
    five = opus.cost({"cache_creation_input_tokens": 1_000_000})
    hour = opus.cost({"cache_creation_input_tokens": 1_000_000,
                      "cache_creation": {"ephemeral_1h_input_tokens": 1_000_000}})
    assert (five, hour) == (pytest.approx(6.25), pytest.approx(10.0))        # 1.25x and 2x of $5


def test_kind_of_blocks():
    assert kind_of({"type": "tool_use", "input": {"a": 1}}) == "json"
    assert kind_of({"type": "tool_result", "content": CODE}) == "code"
    assert kind_of({"type": "text", "text": PROSE}) == "text"
    assert kind_of({"type": "tool_result", "content": CJK}) == "cjk"
    assert kind_of({"type": "tool_result", "content": '{"ok": true, "n": [1, 2]}'}) == "json"


def test_fit_recovers_per_kind_weights():
    true = {"text": 1.2, "code": 1.5, "json": 1.1, "cjk": 2.0}
    steps = []
    for i in range(12):
        c = {"text": 100 + 37 * i, "code": 300 - 11 * i, "json": 50 + (i % 3) * 40, "cjk": 20 * (i % 4)}
        steps.append((c, round(sum(true[k] * c[k] for k in KINDS))))
    free = fit_weights(steps, pull=0.0001)
    assert all(abs(free[k] - true[k]) < 0.08 for k in KINDS), free
    found = fit_weights(steps)            # pulled towards the pooled ratio: the total is kept, not the values
    predicted = sum(sum(found[k] * c[k] for k in KINDS) for c, _ in steps)
    assert predicted == pytest.approx(sum(g for _, g in steps), rel=0.03)


def _line(kind, content, t, **extra):
    return {"type": kind, "uuid": f"u{t}", "sessionId": "s1", "timestamp": (START + t).isoformat(),
            "message": {"role": kind, "content": content, **extra.pop("m", {})}, **extra}


def synthetic_log(path: Path, weights: dict, prefix: int = 6_000, pause_at: int = 7, hour: bool = False,
                  sidechain: bool = True, hidden: dict | None = None, steps: int = 12,
                  calls: dict | None = None) -> None:
    """A Claude Code session JSONL whose usage is what a client with this counter would log: the history
    counted with `weights` per kind, cached as Claude Code caches (5-minute TTL: a pause empties it),
    Opus 4 for even requests, Haiku 4.5 for odd ones. `hidden` {request: tokens}: content added to that
    request and kept in the later ones that the log does not show (Claude Code's reminders). `calls`
    {step: (tool name, input)}: that step's tool call instead of `cat part<k>.txt`."""
    outputs = [CODE, PROSE, CJK, json.dumps({"rows": list(range(200))})]
    lines, t = [_line("user", "Tidy up the service module and check the tests", timedelta(0))], timedelta(0)
    for k in range(steps):
        t += timedelta(minutes=9 if k == pause_at else 1)
        model = "claude-opus-4-20250514" if k % 2 == 0 else "claude-haiku-4-5-20251001"
        name, given = (calls or {}).get(k, ("Bash", {"command": f"cat part{k}.txt"}))
        lines.append(_line("assistant", [{"type": "text", "text": f"Step {k}: looking."},
                                         {"type": "tool_use", "id": f"t{k}", "name": name, "input": given}], t,
                           m={"id": f"m{k}", "model": model, "usage": {}}))
        lines.append(_line("user", [{"type": "tool_result", "tool_use_id": f"t{k}",
                                     "content": outputs[k % 4] + f"\n#{k}"}], t))
    if sidechain:
        lines.append(_line("user", "Sub task: list files", t, isSidechain=True, agentId="a1"))
        lines.append(_line("assistant", [{"type": "text", "text": "Listed."}], t, isSidechain=True, agentId="a1",
                           m={"id": "sub1", "model": "claude-haiku-4-5-20251001",
                              "usage": {"input_tokens": 900, "output_tokens": 12}}))
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    session = load_trace(path)                   # the messages as the reader builds them (usage unused)
    memo = KindMemo(0, weights)
    turns, previous = session.turns, None
    usage = []
    for k, index in enumerate(turns):
        size = prefix + memo.request_tokens({"tools": session.tools, "messages": [
            {**m, "content": [b for b in m["content"] if "not in the log" not in str(b.get("text", ""))]}
            if i == 0 and isinstance(m["content"], list) else m for i, m in enumerate(session.messages[:index])]})
        size += sum(n for at, n in (hidden or {}).items() if at <= k)
        read = prefix if previous is None else previous
        if k == pause_at and not hour:
            read = 0                                 # 9 minutes idle: the 5-minute cache is gone
        u = {"input_tokens": 3, "cache_read_input_tokens": read, "cache_creation_input_tokens": size - 3 - read,
             "output_tokens": 40 + k}
        if hour:
            u["cache_creation"] = {"ephemeral_1h_input_tokens": size - 3 - read, "ephemeral_5m_input_tokens": 0}
        usage.append(u)
        previous = size - 3
    k = 0
    for ln in lines:
        if ln["type"] == "assistant" and not ln.get("isSidechain"):
            ln["message"]["usage"] = usage[k]
            k += 1
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")


def test_reader_keeps_model_timestamp_output_and_subagents(tmp_path):
    log = tmp_path / "s1.jsonl"
    synthetic_log(log, dict.fromkeys(KINDS, 1.3))
    session = load_trace(log)
    assert session.models[:2] == ["claude-opus-4-20250514", "claude-haiku-4-5-20251001"]
    assert session.times[1] - session.times[0] == 60 and session.output_logged
    assert [u["output_tokens"] for u in session.usage][:3] == [40, 41, 42]
    assert [s.name for s in session.subagents] == ["s1+a1"] and session.subagents[0].parent == "s1"
    folder = tmp_path / "s1" / "subagents"
    folder.mkdir(parents=True)
    (folder / "agent-b2.jsonl").write_text(json.dumps(_line("user", "Explore", timedelta(0))) + "\n" + json.dumps(
        _line("assistant", [{"type": "text", "text": "done"}], timedelta(0),
              m={"id": "x", "model": "claude-haiku-4-5", "usage": {"input_tokens": 50, "output_tokens": 3}})) + "\n")
    sessions, skipped = load_traces(tmp_path)
    assert not skipped and [s.name for s in sessions] == ["s1", "s1+a1", "s1+agent-b2"]
    assert logged_bill(sessions[2]) == pytest.approx((50 * 1 + 3 * 5) / 1e6)     # Haiku 4.5's own price


@pytest.mark.parametrize("hour", [False, True])
def test_replay_of_what_was_sent_matches_a_synthetic_log(tmp_path, hour):
    weights = {"text": 1.25, "code": 1.45, "json": 1.15, "cjk": 1.9}
    log = tmp_path / "s1.jsonl"
    synthetic_log(log, weights, hour=hour, sidechain=False)
    session = load_trace(log)
    found = check(session)
    assert found is not None and abs(found.error) < 0.05, found
    model = session.bill_model
    assert set(model.hour) == {1.0 if hour else 0.0} and model.fitted >= 5
    assert (7 in model.events) is not hour            # the log's own read says the cache was lost
    # the pause: the request after it writes (nothing left to read) under the 5-minute TTL only
    _, (replayed,) = run_arena([session], ["none"], calibrate=True)
    after = [r for r in replayed.records if r.kind == "turn"][7]
    assert (after.cache_read < 7_000) is not hour
    assert "| s1 |" in table([found])


def test_without_timestamps_the_pause_is_still_read_off_the_log(tmp_path):
    log = tmp_path / "s1.jsonl"
    synthetic_log(log, dict.fromkeys(KINDS, 1.3), sidechain=False)
    session = load_trace(log)
    session.usage = [{k: v for k, v in u.items() if k != "timestamp"} for u in session.usage]
    _, (replayed,) = run_arena([session], ["none"], calibrate=True)
    assert [r for r in replayed.records if r.kind == "turn"][7].cache_read == 0   # the log's read: nothing


def test_spread_moves_the_bill(tmp_path):
    log = tmp_path / "s1.jsonl"
    synthetic_log(log, {"text": 1.1, "code": 1.7, "json": 1.0, "cjk": 2.4}, sidechain=False)
    session = load_trace(log)
    session.bill_model = fit(session)
    session.bill_model.size_error = 0.1
    low, high = (run_arena([session], ["none"], calibrate=True, spread=s)[0][0].cost for s in (-1, 1))
    mid = run_arena([session], ["none"], calibrate=True)[0][0].cost
    assert low < mid < high


def test_memo_kinds_scale_only_their_blocks():
    memo, plain = KindMemo(0, {"text": 1.0, "code": 2.0, "json": 1.0, "cjk": 1.0}), BlockMemo()
    code = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": CODE}]}
    prose = {"role": "user", "content": [{"type": "text", "text": PROSE}]}
    assert memo.message_tokens(code) == pytest.approx(2 * plain.message_tokens(code), abs=2)
    assert memo.message_tokens(prose) == plain.message_tokens(prose)


def test_oracle_schedule_clears_when_it_pays_and_not_at_the_end():
    assert schedule([10_000, 20_000, 21_000], [0, 0, 9_000], [0, 0, 0, 0], 0, 0.3, 3.75) == set()
    n = 60
    full = [10_000 + 3_000 * t for t in range(n)]
    saved = [max(0, 3_000 * (t - 3)) for t in range(n)]
    first = [0] + [3_000 * max(0, t - 3) for t in range(n)]
    plan = schedule(full, saved, first, 5_000, 0.3, 3.75)
    assert plan and max(plan) < n - 3                       # no clearing in the last requests: no payback
    # it is the cheapest: any other single-clearing schedule costs at least as much (brute force)

    def cost(clears):
        total, last, prev = 0.0, -1, None
        for t in range(n):
            off = saved[last] if last >= 0 else 0
            if t in clears:
                kept = 5_000 + first[last + 1] - off
                size = 5_000 + full[t] - saved[t]
                total += 0.3 * kept + 3.75 * (size - kept)
                last = t
            else:
                size = 5_000 + full[t] - off
                total += 3.75 * size if prev is None else 0.3 * prev + 3.75 * (size - prev)
            prev = size
        return total

    best = cost({t - 1 for t in plan})
    assert all(best <= cost({k}) + 1e-6 for k in range(1, n)) and best <= cost(set())


@pytest.mark.slow
@pytest.mark.skipif(not RAW.is_dir(), reason="../shared/traces/raw (the shared Claude Code logs) is not here")
def test_the_shared_raw_logs_bill_close_to_the_log():
    """The target is 5 %; measured +1.5 % (issue113) and -2.1 % (issue174), with Claude Code's unlogged
    additions carried after the events that cause them (partial Reads, a sed on a file read before)."""
    sessions, skipped = load_traces(RAW)
    assert sessions and not skipped
    errors = {}
    for session in sessions:
        found = check(session)
        assert found is not None and found.size_error is not None, session.name
        errors[session.name] = found.error
    assert all(abs(e) < 0.05 for e in errors.values()), errors


def test_stream_json_output_is_the_result_lines_total_shared_by_visible_reply(tmp_path):
    """A stream-json log carries placeholder output per request; its result line has the session's
    total: the bill shares that total over the requests in proportion to each visible reply."""
    reply = {1: "Short.", 2: PROSE, 3: PROSE + " " + PROSE}
    lines = [{"type": "system", "subtype": "init", "tools": ["Bash"], "model": "claude-sonnet-4-5"}]
    for k in (1, 2, 3):
        lines.append({"type": "assistant", "parent_tool_use_id": None, "message": {
            "id": f"m{k}", "model": "claude-sonnet-4-5", "content": [
                {"type": "text", "text": reply[k]}, {"type": "tool_use", "id": f"t{k}", "name": "Bash",
                                                     "input": {"command": f"echo {k}"}}],
            "usage": {"input_tokens": 3, "cache_read_input_tokens": 2_000 * k, "output_tokens": 1}}})
        lines.append({"type": "user", "parent_tool_use_id": None, "message": {"content": [
            {"type": "tool_result", "tool_use_id": f"t{k}", "content": f"{k}"}]}})
    lines.append({"type": "result", "total_cost_usd": 0.1, "usage": {"output_tokens": 3_000}})
    (tmp_path / "run.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    session = load_trace(tmp_path / "run.jsonl")
    assert not session.output_logged
    outputs = fit(session).outputs
    assert sum(outputs) == pytest.approx(3_000, abs=3) and outputs[0] < outputs[1] < outputs[2]
    assert outputs[2] / outputs[1] == pytest.approx(2, rel=0.1)
    _, (replayed,) = run_arena([session], ["none"], calibrate=True)
    assert sum(r.output for r in replayed.records if r.kind == "turn") == sum(outputs)


def _read_then_compact(tmp_path) -> Path:
    """A Claude Code session: seven Reads (one failing, one file read twice, one huge), then a compaction."""
    line = lambda kind, content, **extra: {"type": kind, "uuid": "u", "sessionId": "s",  # noqa: E731
                                           "message": {"role": kind, "content": content, **extra.pop("m", {})},
                                           **extra}
    files = [("a.py", CODE), ("b.py", CODE[:300]), ("huge.py", CODE * 40), ("c.md", PROSE), ("gone.py", None),
             ("d.txt", PROSE[:200]), ("e.py", CODE[:500]), ("a.py", CODE[:100])]
    out = [line("user", "Refactor the service")]
    for k, (path, text) in enumerate(files):
        out.append(line("assistant", [{"type": "tool_use", "id": f"r{k}", "name": "Read",
                                       "input": {"file_path": path}}],
                        m={"id": f"m{k}", "usage": {"input_tokens": 3, "output_tokens": 9}}))
        result = {"type": "tool_result", "tool_use_id": f"r{k}", "content": text or "File does not exist."}
        out.append(line("user", [{**result, "is_error": True} if text is None else result]))
    out += [{"type": "system", "subtype": "compact_boundary", "compactMetadata": {"trigger": "auto"}},
            line("user", "This session is being continued. Summary: refactoring.", isCompactSummary=True),
            line("assistant", [{"type": "text", "text": "Going on."}], m={"id": "mz", "usage": {"input_tokens": 3}})]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in out) + "\n", encoding="utf-8")
    return path


def test_recorded_reattaches_the_files_read_before_claude_codes_compaction(tmp_path):
    from arena.sessions.harness import REATTACH_FILE_TOKENS, REATTACH_FILES, reattached
    from lessonkit import tokens

    session = load_trace(_read_then_compact(tmp_path))
    at = session.recorded[0][0]
    blocks = reattached(session.messages[:at + 1])
    named = [json.loads(b["text"].split("input: ", 1)[1].split("\n", 1)[0])["file_path"] for b in blocks]
    assert named == ["a.py", "e.py", "d.txt", "c.md", "huge.py"][:REATTACH_FILES]   # newest Read first
    assert CODE in blocks[0]["text"]                       # a.py: its fullest Read, not the last partial one
    assert max(tokens.count_text(b["text"]) for b in blocks) <= REATTACH_FILE_TOKENS + 100
    _, (replayed,) = run_arena([session], ["recorded"])
    first = replayed.final_request[0]["content"]
    assert first[0]["text"].startswith("This session is being continued") and first[1:] == blocks


def _edited_by_sed(steps: int = 36) -> tuple[dict, dict]:
    """(hidden, calls): step 0 Reads service.py, every third step runs `sed -i` on it, and the request
    after each sed carries 3,000 tokens the log does not show (Claude Code's change reminder)."""
    calls = {0: ("Read", {"file_path": "/repo/service.py"})}
    calls |= {k - 1: ("Bash", {"command": f"sed -i 's/a{k}/b{k}/' service.py"}) for k in range(2, steps, 3)}
    return {k: 3_000 for k in range(2, steps, 3)}, calls


def test_unexplained_growth_is_fitted_as_unlogged_content_not_as_a_higher_ratio(tmp_path):
    """Bug: steps where Claude Code added content its log does not show (3-18x what the new messages count)
    were fitted as a higher per-kind ratio: every block of the held-out requests was over-counted."""
    weights = {"text": 1.25, "code": 1.45, "json": 1.15, "cjk": 1.9}
    log = tmp_path / "s1.jsonl"
    hidden, calls = _edited_by_sed()
    synthetic_log(log, weights, sidechain=False, hidden=hidden, steps=36, calls=calls)
    session = load_trace(log)
    found = check(session)
    model = session.bill_model
    assert all(abs(model.weights[k] - weights[k]) < 0.1 for k in ("text", "code", "cjk")), model.weights
    assert "carried as stand-ins" in model.line()
    carriers = [b["text"] for m in session.messages if isinstance(m["content"], list) for b in m["content"]
                if "held beyond its new messages" in str(b.get("text", ""))]
    assert len(carriers) == len(hidden) and model.unlogged == pytest.approx(3_000 * len(hidden), rel=0.15)
    assert abs(found.error) < 0.01 and abs(found.size_error) < 0.01, found
    _, (replayed,) = run_arena([session], ["none"], calibrate=True)     # request by request, as the log says
    for t, u in enumerate(session.usage):
        logged = u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
        assert replayed.turn_tokens[t] == pytest.approx(logged, rel=0.02), t


def test_a_sed_on_a_file_read_before_carries_claude_codes_reminder_into_the_next_request(tmp_path):
    """Bug: what Claude Code attaches after a Bash command changed a file it had Read was a rate spread
    over every request (bills/log_events.py), not content in the request after the change, where the log has it."""
    calls = {0: "Read", 3: "sed -i 's/x/y/' app.py", 12: "sed -i 's/y/z/' app.py"}
    lines = [{"type": "system", "subtype": "init", "tools": ["Bash", "Read"], "model": "claude-sonnet-4-5"}]
    size = 5_000
    for k in range(15):
        use = ({"name": "Read", "input": {"file_path": "/w/app.py"}} if calls.get(k) == "Read" else
               {"name": "Bash", "input": {"command": calls.get(k, f"echo {k}")}})
        size += 60 + (2_000 if k - 1 in calls and calls[k - 1].startswith("sed") else 0)
        lines.append({"type": "assistant", "parent_tool_use_id": None, "message": {
            "id": f"m{k}", "model": "claude-sonnet-4-5", "content": [{"type": "tool_use", "id": f"t{k}", **use}],
            "usage": {"input_tokens": 3, "cache_read_input_tokens": size, "output_tokens": 1}}})
        lines.append({"type": "user", "parent_tool_use_id": None, "message": {"content": [
            {"type": "tool_result", "tool_use_id": f"t{k}", "content": f"ok {k}"}]}})
    lines.append({"type": "result", "total_cost_usd": 0.1, "usage": {"output_tokens": 300}})
    (tmp_path / "run.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    session = load_trace(tmp_path / "run.jsonl")
    check(session)
    _, (replayed,) = run_arena([session], ["none"], calibrate=True)
    sizes = replayed.turn_tokens
    assert sizes[13] - sizes[12] > 1_500 and sizes[12] - sizes[11] < 500      # the stand-in after the 2nd sed
    before = session.messages[session.turns[13] - 1]["content"]
    assert "held beyond its new messages" in before[-1]["text"]


def test_the_counter_table_does_not_count_the_unlogged_stand_ins_as_the_counters_tokens(tmp_path):
    """Bug: after the unlogged additions were carried as stand-ins, the 'counted / logged' ratio counted
    them too (1.01 on a log whose counter gives 0.76)."""
    from arena.bills.calibration import calibrate

    log = tmp_path / "s1.jsonl"
    hidden, calls = _edited_by_sed()
    synthetic_log(log, dict.fromkeys(KINDS, 1.3), sidechain=False, hidden=hidden, steps=36, calls=calls)
    session = load_trace(log)
    before = calibrate(session).counted
    check(session)                                  # fits the bill model: carries the stand-ins
    assert session.bill_model.unlogged > 0 and calibrate(session).counted == before
