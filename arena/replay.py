"""Replay a recorded session under a compaction strategy and account every request.

Motto: same work, different memory: only what is sent changes, so only what is sent is compared.

    session: u a u a u a u ... a          (the history as it really happened)
                 │   │   │       │
    turn k:   strategy.request(history before assistant k)  ──> request messages
                 │                                               │ + cache breakpoint on the last block
                 │  summary calls (ctx.summarize / ctx.client)   v
                 └──────────────> offline model ──> usage    validate ─> count ─> prompt cache ─> usage
                                                                 (400?)   (tokens)  (read/write/uncached)

For each assistant turn, in order, the strategy decides what history is sent;
the request is what it keeps plus the new messages. The assistant message that
follows is the one the session recorded (the strategy cannot change the agent's
path, so every strategy is measured on the same work); its tokens are the output.

Every request is checked with offline.api.validate (the API's 400s), counted
with lessonkit.tokens (memoized, see accounting.py) and split by the simulated
prompt cache into cache read / cache write / uncached. Where the client puts cache
breakpoints is a policy (breakpoints.py): 'last' (one on the last block, plus a
strategy's own: only the recommended pipeline places any) or 'sticky' (the same
marks for every strategy, its own removed). Summary calls a strategy makes go
through the real `anthropic` SDK to the offline model and are billed, all by one function
(context.bill_summary: the session's cache and counter, the turn's model price), as
requests of their own (input and output charged). A request over the window is
priced as if it had been accepted and flagged; a strategy with a `recover` method
(reactive compaction) is given the chance to shrink it, as on a real 400.

What the strategy is handed (Context) and how each request is measured (measure,
RequestRecord) live in context.py; this module drives the turns.

Example: replay(session, NoCompaction) -> Replay(records=[...one per request...], final_request=[...])

Not modeled: the agent changing course because it saw less (the trajectory is fixed),
latency, rate limits.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field

from offline.api.cache import LOOKBACK

from .bills.accounting import BlockMemo
from .bills.breakpoints import BREAKPOINT, BREAKPOINT_POLICIES, Sticky, unmarked  # noqa: F401 (recommended.py)
from .bills.prices import SONNET, Prices
from .context import MODEL, WINDOW, Context, RequestRecord, body_for, measure, scratch_dir


@dataclass
class Replay:
    """Everything measured while replaying one session under one strategy."""
    session: str
    strategy: str
    window: int
    records: list = field(default_factory=list)
    turn_tokens: list = field(default_factory=list)    # tokens of the agent's request, per turn
    compactions: list = field(default_factory=list)    # (turn, layer) where the strategy compacted
    seconds: list = field(default_factory=list)        # the strategy's own time per turn
    final_request: list = field(default_factory=list)
    final_body: dict = field(default_factory=dict)
    probes: dict = field(default_factory=dict)         # turn -> what probe(turn, request) returned
    breakpoints: str = "last"

    def cost(self, prices: Prices = SONNET) -> float:
        return sum(r.cost(prices) for r in self.records)


def _attempt(ctx: Context, session, messages: list, output: int,
             policy: Sticky | None = None) -> tuple[RequestRecord, dict]:
    if policy is not None:
        messages = policy.apply(unmarked(messages))
    body = body_for(session, messages)
    return measure(ctx, body, "turn", output), body


def _tail(record: RequestRecord, tail: int, pending: tuple) -> tuple:
    """Apply the log's uncached tail (unlogged.uncached_tails) to a request, alike for every strategy.
    `pending` = (n, end): the request before sent its newest n tokens uncached, after its cached `end`;
    what this request reads past `end` (up to n) it writes instead. Then `tail` tokens of what this
    request writes are sent uncached. Returns the new pending.
    Example: read 20_000 after (5_000, 16_000) -> 4_000 read tokens become written; then write 9_000,
             tail 8_000 -> uncached 8_000, write 1_000; returns (8_000, read + 1_000)"""
    n, end = pending
    moved = min(n, max(0, record.cache_read - end))
    record.cache_read, record.cache_write = record.cache_read - moved, record.cache_write + moved
    kept = min(tail, record.cache_write)
    record.cache_write, record.uncached = record.cache_write - kept, record.uncached + kept
    return kept, record.cache_read + record.cache_write


def replay(session, make_strategy, *, window: int = WINDOW, memo: BlockMemo | None = None,
           workdir=None, progress=None, probe=None, breakpoints: str = "last", bill=None) -> Replay:
    """Replay `session` under a fresh strategy from `make_strategy()`; measure every request.

    The strategy's files (transcripts, persisted outputs) go to `workdir`; without one,
    to a scratch folder removed when the replay ends. `probe(turn, messages)`, if given,
    sees each request as sent (a recall probe, probes.Probes); what it returns, unless
    None, is kept in `Replay.probes[turn]`. `breakpoints` is the client's breakpoint
    policy, one of BREAKPOINT_POLICIES (see the module docstring).
    """
    if breakpoints not in BREAKPOINT_POLICIES:
        raise ValueError(f"unknown breakpoint policy {breakpoints!r}: choose from {', '.join(BREAKPOINT_POLICIES)}")
    if workdir is None:
        scratch = scratch_dir()
        try:
            return replay(session, make_strategy, window=window, memo=memo, workdir=scratch,
                          progress=progress, probe=probe, breakpoints=breakpoints, bill=bill)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    ctx = Context(session, window=window, memo=memo, workdir=workdir)
    strategy = make_strategy()
    out = Replay(session.name, getattr(strategy, "name", type(strategy).__name__), window,
                 breakpoints=breakpoints)
    policy = Sticky(ctx.memo) if breakpoints == "sticky" else None
    strategy.start(session, ctx)
    if bill is not None:
        bill.warm(session, ctx.cache, MODEL)
    history, turns, previous, pending = session.messages, session.turns, None, (0, 0)
    for t, index in enumerate(turns):
        ctx.turn, ctx.notes, ctx.model_seconds = t, [], 0.0
        ctx.cache.turn = t
        if bill is not None and t in bill.events:
            ctx.cache.evict(bill.events[t])  # the log's request t found less cached: the same loss for all
        start = time.perf_counter()
        messages = strategy.request(history[:index])
        tokens = ctx.tokens(messages)
        recover = getattr(strategy, "recover", None)
        if tokens > window and recover is not None:
            # The API would answer 400 "prompt is too long" (free of charge): the strategy may
            # shrink the request and retry, as reactive compaction does.
            retried = recover(history[:index], messages)
            if retried is not None:
                ctx.records.append(RequestRecord(t, "refused", tokens))
                messages, tokens = retried, ctx.tokens(retried)
        out.seconds.append(time.perf_counter() - start - ctx.model_seconds)
        if probe is not None and (found := probe(t, messages)) is not None:
            out.probes[t] = found
        output = ctx.message_tokens(history[index]) - 3 if bill is None else bill.output(t, history[index])
        far = session.automatic_cache or (bill is not None and t in bill.found)
        ctx.cache.lookback = 10 ** 9 if far else LOOKBACK   # every prefix cached (OpenAI), or the log read the
        record, body = _attempt(ctx, session, messages, output, policy)   # entry before past LOOKBACK blocks
        if bill is not None and (pending[0] or t in bill.tails):   # the log's uncached tail: the same for all
            pending = _tail(record, bill.tails.get(t, 0), pending)
        ctx.records.append(record)
        for k, logged in enumerate(session.repeats[t] if t < len(session.repeats) else [], 1):
            again = measure(ctx, body, "turn", int(logged.get("output_tokens") or 0) if session.output_logged else 0)
            again.repeat, again.model = k, logged.get("model")   # the log sent it again: so does every strategy
            ctx.records.append(again)
        if bill is not None:
            for r in ctx.records:
                r.model, r.hour = r.model or bill.model(t), bill.hour_share(t)
        out.turn_tokens.append(tokens)
        if ctx.notes or (previous is not None and tokens < previous):
            out.compactions.append((t, ",".join(dict.fromkeys(ctx.notes)) or "shrink"))
        previous = tokens
        out.records.extend(ctx.records)
        ctx.records = []
        if progress:
            progress(t + 1, len(turns))
    out.final_request = messages if turns else []
    out.final_body = body if turns else {}
    return out
