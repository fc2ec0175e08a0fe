"""The whole request: the measured prefix and attachment, the counter's ratio to logged usage, --calibrate."""

from __future__ import annotations

import json

import pytest

from arena.bills.accounting import UNRECORDED_TEXT, BlockMemo
from arena.bills.calibration import calibrate, memo_for, split_prefix, with_prefix
from arena.replay import replay
from arena.run import run_arena
from arena.sessions.folders import load_trace
from arena.sessions.harness import codex_view, cut_codex
from arena.sessions.session import session_from
from arena.strategies.baselines import NoCompaction


def logged_session(tmp_path, *, fixed=1_000, attached=4_000, factor=2.0):
    """A Claude Code log whose usage says: the first request holds `fixed` + `attached` tokens the log
    does not, and each step grew `factor` times what the kit counts."""
    lines = [{"type": "user", "message": {"content": "Fix the bug in src/app.py"}}]
    for k in range(6):
        lines.append({"type": "assistant", "message": {"id": f"m{k}", "content": [
            {"type": "tool_use", "id": f"t{k}", "name": "Bash", "input": {"command": f"cat f{k}.py"}}]}})
        lines.append({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": f"t{k}", "content": f"line {k}\n" * (50 + 20 * k)}]}})
    lines.append({"type": "assistant", "message": {"id": "m9", "content": [{"type": "text", "text": "Done."}]}})
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    bare = load_trace(path)            # no usage yet: count what the kit sees, then write the usage
    memo, turns = BlockMemo(), bare.turns
    counted = [memo.request_tokens({"tools": bare.tools, "messages": bare.messages[:i]}) for i in turns]
    logged = [counted[0] + fixed + attached + round(factor * (c - counted[0])) for c in counted]
    k = 0
    for x in lines:
        if x["type"] == "assistant":
            x["message"]["usage"] = {"input_tokens": 3, "cache_read_input_tokens": fixed if k == 0 else 0,
                                     "cache_creation_input_tokens": logged[k] - 3 - (fixed if k == 0 else 0),
                                     "output_tokens": 1}
            k += 1
    path.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    return load_trace(path), logged


def test_the_first_request_is_sent_whole_prefix_and_attachment_measured_from_the_log(tmp_path):
    session, logged = logged_session(tmp_path)
    assert split_prefix(session) == (1_000, 0)                   # the attachment is in the first message now
    assert session.prefix_tokens == 1_000
    assert UNRECORDED_TEXT.format(n=4_000) in json.dumps(session.messages[0])
    memo, _ = memo_for(session)
    result = replay(session, NoCompaction, memo=memo)
    assert result.turn_tokens[0] == logged[0]                     # the whole first request, as logged
    assert all(r.tokens > 5_000 for r in result.records)          # prefix sent with every request


def test_the_ratio_is_counted_growth_over_logged_growth_and_calibrate_scales_by_it(tmp_path):
    session, logged = logged_session(tmp_path, factor=2.0)
    found = calibrate(session)
    assert found.kind == "growth" and found.ratio == pytest.approx(0.5, abs=0.01) and found.steps == 6
    assert found.input_cost is not None and "0.50" in found.line()
    plain = replay(session, NoCompaction, memo=memo_for(session)[0])
    scaled = replay(session, NoCompaction, memo=memo_for(session, calibrated=True)[0])
    growth = lambda r: r.turn_tokens[-1] - r.turn_tokens[0]  # noqa: E731
    assert growth(scaled) == pytest.approx(logged[-1] - logged[0], rel=0.02)
    assert growth(plain) == pytest.approx(growth(scaled) / 2, rel=0.02)
    calibrations = {}
    rows, _ = run_arena([session], ["none"], calibrate=True, calibrations=calibrations)
    assert calibrations[session.name].ratio == found.ratio and rows[0].cost > plain.cost()


def test_a_trace_without_usage_has_no_ratio_and_a_codex_total_gives_one():
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert calibrate(session_from("s", messages)).ratio is None
    codex = session_from("c", messages, {"format": "codex-exec", "usage": {"input_tokens": 100}})
    found = calibrate(codex)
    assert found.kind == "total" and found.ratio == pytest.approx(found.counted / 100)
    assert with_prefix(session_from("s", messages)).prefix_tokens == 0


def test_codex_output_cut_keeps_head_tail_and_exit_code():
    text = "".join(f"{k}\n" for k in range(1_000))
    cut = codex_view(text)
    assert cut.count("\n") <= 257 and cut.startswith("0\n1\n") and "999" in cut and "omitted 745 of 1001" in cut
    wide = "y" * 50_000
    assert len(codex_view(wide).encode()) <= 10 * 1024 + 60
    messages = [{"role": "user", "content": "t"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "shell", "input": {}},
                                                  {"type": "tool_use", "id": "b", "name": "apply_patch", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": wide + "\n[exit_code: 2]"},
                                             {"type": "tool_result", "tool_use_id": "b", "content": wide}]}]
    out, removed = cut_codex(messages)
    shell, patch = out[2]["content"]
    assert shell["content"].endswith("\n[exit_code: 2]") and len(shell["content"]) < 11_000
    assert patch["content"] == wide and removed == len(wide) + 15 - len(shell["content"])
    assert messages[2]["content"][0]["content"].startswith("y" * 100)      # the input is untouched
    flagged = session_from("c", messages, {"format": "codex-exec", "tool_output": "full aggregated_output"})
    kept = session_from("c", messages, {"format": "codex-exec", "tool_output": "full"}, truncate=False)
    assert len(json.dumps(flagged.messages)) < len(json.dumps(kept.messages)) - 30_000


def test_the_real_codex_trace_is_cut_and_compared_with_its_logged_total():
    from arena.__main__ import DEFAULT_TRACES

    path = DEFAULT_TRACES / "codex-aiworkflow-issue119-testimpl.json"
    if not path.is_file():
        pytest.skip(f"the recorded traces are not here ({DEFAULT_TRACES}): a clean clone")
    cut, full = load_trace(path), load_trace(path, truncate=False)
    assert any("Codex's own output cut" in n for n in cut.notes)
    assert len(json.dumps(cut.messages)) < len(json.dumps(full.messages)) / 3
    found = calibrate(cut)
    assert found.kind == "total" and found.logged == 16_914_443 and 0.2 < found.ratio < 2
