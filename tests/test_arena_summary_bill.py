"""Every summary call of every strategy is billed by one function, context.bill_summary (issue 25).

Claude Code makes its compaction call as the conversation so far (the prefix its last request cached)
plus an instruction: a cache read of the prefix, a small write, the summary as output. The arena bills
the recommended pipeline's summary call the same way (its modelling choice, docs/arena.md), and
`recorded`'s from the conversation before the boundary, without the summary itself as input.
"""

from __future__ import annotations

import json

from test_arena_summary import WINDOW, attached_session

from arena import context
from arena.bills.accounting import BlockMemo
from arena.bills.model import KINDS, KindMemo
from arena.replay import replay
from arena.sessions.folders import load_trace
from arena.sessions.session import session_from
from arena.strategies.baselines import COMPACT_INSTRUCTION, Recorded
from arena.strategies.recommended import Recommended

CODE = "".join(f"def handler_{i}(request):\n    return respond(request, {i})\n" for i in range(60))
SUMMARY = "This session is being continued. Summary: the handlers were read, nothing was changed yet."


def _compacted_log(tmp_path):
    """A Claude Code log: a task, six Reads of ~1K tokens each, Claude Code's compaction, one more turn."""
    def line(kind, content, **extra):
        return {"type": kind, "uuid": "u", "sessionId": "s",
                "message": {"role": kind, "content": content, **extra.pop("m", {})}, **extra}
    out = [line("user", "Read every handler module")]
    for k in range(6):
        out.append(line("assistant", [{"type": "tool_use", "id": f"r{k}", "name": "Read",
                                       "input": {"file_path": f"h{k}.py"}}], m={"id": f"m{k}"}))
        out.append(line("user", [{"type": "tool_result", "tool_use_id": f"r{k}", "content": CODE + str(k)}]))
    out += [{"type": "system", "subtype": "compact_boundary", "compactMetadata": {"trigger": "auto"}},
            line("user", SUMMARY, isCompactSummary=True),
            line("assistant", [{"type": "text", "text": "Going on."}], m={"id": "mz"})]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in out) + "\n", encoding="utf-8")
    return load_trace(path)


def _spy(monkeypatch) -> list:
    calls, real = [], context.bill_summary

    def spy(ctx, body, summary):
        record = real(ctx, body, summary)
        calls.append((body, summary, record))
        return record
    monkeypatch.setattr(context, "bill_summary", spy)
    return calls


def test_recorded_pays_for_its_compaction_call_as_a_write_of_the_conversation(tmp_path, monkeypatch):
    """Before: its call was priced as a cached read of its prefix ($0.10 where the logs that hold the call
    show a cache write of the whole prefix, no read: $0.59). Now bill_summary: the conversation up to the
    boundary and the instruction written whole, the summary in the session's counted tokens."""
    session = _compacted_log(tmp_path)
    calls, memo = _spy(monkeypatch), KindMemo(0, dict.fromkeys(KINDS, 2.0))   # a calibrated counter
    result = replay(session, Recorded, memo=memo, workdir=tmp_path / "w")
    ((body, summary, record),) = calls
    assert summary.startswith("This session is being continued") and record in result.records
    sent = [json.dumps(m) for m in body["messages"]]
    assert not any(SUMMARY in m for m in sent) and COMPACT_INSTRUCTION in sent[-1]
    last_turn = [r for r in result.records if r.kind == "turn" and r.turn < record.turn][-1]
    assert record.cache_read == 0 and record.uncached == 0 and record.cache_write == record.tokens
    assert last_turn.tokens < record.tokens < last_turn.tokens + memo.message_tokens(
        session.messages[session.recorded[0][0]]) + 200                      # what it sent, and the instruction
    assert record.output == memo.message_tokens({"role": "assistant", "content": summary}) - 3
    assert record.cost() > 0


def test_the_pipelines_summary_call_is_billed_as_claude_codes_call(tmp_path, monkeypatch):
    """Bug: the recommended pipeline's summary call was billed its own way; now as Claude Code's is
    logged: its whole body (the 14,000-token stand-in among it) written to the cache, nothing read."""
    calls = _spy(monkeypatch)
    session = session_from("attached", attached_session())
    result = replay(session, Recommended, window=WINDOW, memo=BlockMemo(), workdir=tmp_path)
    summaries = [r for r in result.records if r.kind == "summary"]
    assert summaries and [c[2] for c in calls] == summaries          # every one through bill_summary
    first = summaries[0]
    assert first.uncached == 0 == first.cache_read and first.cache_write == first.tokens > 14_000
    turns = [r for r in result.records if r.kind == "turn"]
    assert first.tokens > turns[first.turn - 1].tokens - 1_000


def test_langchain_and_openhands_calls_go_through_the_same_function(tmp_path, monkeypatch):
    """Their frameworks send a fresh prompt (no cached prefix): the same function bills it, uncached."""
    from arena.strategies.summarizers import LangChainSummarization

    calls = _spy(monkeypatch)
    session = session_from("attached", attached_session(turns=30))
    result = replay(session, lambda: LangChainSummarization(keep=4), window=WINDOW, memo=BlockMemo(),
                    workdir=tmp_path)
    summaries = [r for r in result.records if r.kind == "summary"]
    assert summaries and [c[2] for c in calls] == summaries and all(r.cache_read == 0 for r in summaries)
