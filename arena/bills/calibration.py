"""The kit's token counter against what the API logged: the ratio per trace, the prefix, the scale.

Motto: a bill is only as good as its token count: measure the counter where the log allows.

    a log with usage per request (Claude Code, read by readers/claude.py)
        request t: logged input = input + cache write + cache read tokens
        clean step t-1 -> t (no compaction between, the logged input grew):
            counted growth = kit's tokens of the messages added between the two requests
        ratio = sum(counted growth) / sum(logged growth)            (under 1: the counter under-counts)
        missing = logged input of request 0 - counted request 0     (system prompt, tools, attached files)
          fixed    = its cache read (read from an earlier session: the system prompt and tools), sent
                     with every agent request (accounting.BlockMemo(prefix=...))
          attached = the rest, a stand-in block in the first message (accounting.UNRECORDED_TEXT):
                     gone when a strategy (or Claude Code's own compaction) summarises that message
    a log with totals only (Codex's turn usage)
        ratio = sum over requests of the counted 'none' request / logged input_tokens
    --calibrate: every count of that trace is scaled by 1 / ratio (accounting.BlockMemo(scale=...));
                 the measured prefix and attachment, logged tokens already, are not scaled

Growth, not totals, for the per-request ratio: the first request holds what the log
does not (the prefix), so a ratio of totals would measure the missing prefix, not
the counter. A totals-only ratio does include any unrecorded prefix (Codex's system
prompt and tools are not in its log) and a different tokenizer (gpt-5's): it says
how far the replay's requests are from the bill, not how good the counter is.

Example: calibrate(session) -> Calibration(ratio=0.76, kind="growth", steps=37, ...)
         split_prefix(session) -> (12_592, 72_760)

Not modeled: per-request thinking tokens (not resent by the API, not in the logs).
"""

from __future__ import annotations

from dataclasses import dataclass

from lessonkit.i18n import tr, trn

from .accounting import UNRECORDED, UNRECORDED_TEXT, BlockMemo
from .prices import SONNET, Prices, for_model


def logged_input(usage) -> int | None:
    """Input tokens of one logged request, cached or not.
    Example: {"input_tokens": 2, "cache_read_input_tokens": 10} -> 12"""
    if not isinstance(usage, dict):
        return None
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return sum(int(usage.get(k) or 0) for k in keys)


@dataclass(frozen=True)
class Calibration:
    """How the counter compares with the log on one trace."""
    ratio: float | None          # counted / logged; None when the trace logs no usage
    kind: str                    # "growth" (per request), "total" (totals only), or "none"
    steps: int = 0               # requests (or clean steps) compared
    counted: int = 0
    logged: int = 0
    input_cost: float | None = None   # dollars: the logged input-side usage at the arena's prices


    @property
    def scale(self) -> float:
        return 1.0 / self.ratio if self.ratio else 1.0

    def line(self) -> str:
        """Example: '0.54 (per-request growth, 1 requests, 486 counted / 900 logged; logged input-side bill $0.03)'"""
        if self.ratio is None:
            return tr("no usage logged")
        what = tr("per-request growth") if self.kind == "growth" else tr("logged total input")
        bill = (tr("; logged input-side bill ${cost}", cost=f"{self.input_cost:.2f}")
                if self.input_cost is not None else "")
        return trn("{ratio} ({what}, {steps} request, {counted} counted / {logged} logged{bill})",
                   "{ratio} ({what}, {steps} requests, {counted} counted / {logged} logged{bill})", self.steps,
                   ratio=f"{self.ratio:.2f}", what=what, steps=self.steps, counted=f"{self.counted:,}",
                   logged=f"{self.logged:,}", bill=bill)


def _compactions(session) -> set:
    return {i for i, _ in session.recorded}


def first_request_tokens(session, memo: BlockMemo) -> int:
    """What the kit counts for the session's first request (tools, system, messages before it)."""
    turns = session.turns
    return memo.request_tokens({"tools": session.tools, "system": session.system,
                                "messages": session.messages[:turns[0]] if turns else []})


def _logged_only(messages: list) -> list:
    """The messages without stand-in blocks (tokens the log does not hold, not the counter's count).
    Example: [user: "hi" + "[not in the log: 900 tokens of ...]"] -> [user: "hi"]"""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            m = {**m, "content": [b for b in content if not (isinstance(b, dict) and UNRECORDED.match(
                str(b.get("text", ""))))] or [{"type": "text", "text": ""}]}
        out.append(m)
    return out


def calibrate(session, scale: float = 1.0, prices: Prices = SONNET) -> Calibration:
    """The counter against the session's logged usage (see the module docstring)."""
    memo, turns = BlockMemo(scale=scale), session.turns
    logged = [logged_input(u) for u in session.usage] if session.usage else []
    if logged and logged[0] is not None:
        cut, counted, grown, steps = _compactions(session), 0, 0, 0
        for t in range(1, len(turns)):
            a, b = logged[t - 1], logged[t]
            if a is None or b is None or b <= a or any(turns[t - 1] < i <= turns[t] for i in cut):
                continue
            counted += memo.messages_tokens(_logged_only(session.messages[turns[t - 1]:turns[t]]))
            grown, steps = grown + (b - a), steps + 1
        bill = sum(for_model(u.get("model"), prices).cost({**u, "output_tokens": 0})
                   for u in session.usage if isinstance(u, dict))
        return Calibration(counted / grown if grown else None, "growth" if grown else "none", steps,
                           counted, grown, bill)
    total = session.logged.get("input_tokens")
    if isinstance(total, (int, float)) and total > 0 and turns:
        fixed = memo.request_tokens({"tools": session.tools, "system": session.system, "messages": []})
        counted, running, k = 0, 0, 0
        for index in turns:
            while k < index:
                running += memo.message_tokens(session.messages[k])
                k += 1
            counted += fixed + running
        return Calibration(counted / total, "total", len(turns), counted, int(total))
    return Calibration(None, "none")


def split_prefix(session) -> tuple[int, int]:
    """(fixed, attached): tokens of the first logged request the kit does not count, split as above."""
    first = session.usage[0] if session.usage else None
    logged = logged_input(first)
    if logged is None:
        return 0, 0
    missing = max(0, logged - first_request_tokens(session, BlockMemo()))
    fixed = min(missing, int(first.get("cache_read_input_tokens") or 0)) or missing
    return fixed, missing - fixed


def with_prefix(session):
    """The session with its measured prefix: `prefix_tokens` set, the attachment stand-in placed."""
    fixed, attached = split_prefix(session)
    session.prefix_tokens = fixed
    if attached:
        first = session.messages[0]
        content = first["content"]
        content = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        block = {"type": "text", "text": UNRECORDED_TEXT.format(n=attached)}
        session.messages = [{**first, "content": content + [block]}, *session.messages[1:]]
        session.notes.append(tr("first request: {fixed} tokens of system prompt and tools, {attached} attached, "
                                "measured from its logged usage", fixed=f"{fixed:,}", attached=f"{attached:,}"))
    return session


def memo_for(session, calibrated: bool = False, scale: float | None = None) -> tuple[BlockMemo, Calibration]:
    """The BlockMemo a replay of `session` counts with: its prefix, and with `calibrated` its own
    scale (or `scale`, the same for every session: the spread's what-if runs)."""
    found = calibrate(session)
    if scale is None:
        scale = found.scale if calibrated else 1.0
    return BlockMemo(prefix=session.prefix_tokens, scale=scale), found


def ratio_range(calibrations: dict) -> tuple[float, float] | None:
    """(lowest, highest) counted/logged ratio over the traces that log usage, or None."""
    found = [c.ratio for c in calibrations.values() if c.ratio]
    return (min(found), max(found)) if found else None
