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

Every request is checked with lessonkit.offline.validate (the API's 400s), counted
with lessonkit.tokens (memoized, see accounting.py) and split by the simulated
prompt cache into cache read / cache write / uncached. Where the client puts cache
breakpoints is a policy (breakpoints.py): 'last' (one on the last block, plus a
strategy's own: only the recommended pipeline places any) or 'sticky' (the same
marks for every strategy, its own removed). Summary calls a strategy makes go
through the real `anthropic` SDK to the offline model, sharing the same cache, and
are recorded as requests of their own (input and output charged). A request over the window is
priced as if it had been accepted and flagged; a strategy with a `recover` method
(reactive compaction) is given the chance to shrink it, as on a real 400.

Example: replay(session, NoCompaction) -> Replay(records=[...one per request...], final_request=[...])

Not modeled: the agent changing course because it saw less (the trajectory is fixed),
latency, rate limits.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from ..offline import OfflineModel, offline_client
from ..offline.validate import ApiError, validate_request
from .accounting import BlockMemo, ReplayCache
from .breakpoints import BREAKPOINT, BREAKPOINT_POLICIES, Sticky, mark_last, unmarked  # noqa: F401
from .prices import SONNET, Prices, for_model

WINDOW = 200_000          # tokens: Claude Sonnet 4.5's context window
MODEL = "arena-replay"      # a label for the cache key: the replayed requests go to no real API
MAX_TOKENS = 8_192        # max_tokens of the replayed requests (the output is the recorded turn)
SUMMARY_WINDOW = 10 ** 9  # the summary model never refuses for length: the arena checks WINDOW itself


@dataclass
class RequestRecord:
    """One request the strategy made: its size, its usage, and whether the API would take it."""
    turn: int
    kind: str                  # "turn" (the agent's request), "summary" (a compaction call),
                               # or "refused" (over the window: a free 400 the strategy recovered from)
    tokens: int
    uncached: int = 0
    cache_write: int = 0
    cache_read: int = 0
    output: int = 0
    error: str | None = None   # the API's 400 message, if the request is invalid
    model: str | None = None   # the logged model of the turn (bill.py): priced at its own list price
    hour: bool = False         # the cache writes are 1-hour writes (the log's TTL)

    @property
    def usage(self) -> dict:
        usage = {"input_tokens": self.uncached, "cache_creation_input_tokens": self.cache_write,
                 "cache_read_input_tokens": self.cache_read, "output_tokens": self.output}
        if self.hour:
            usage["cache_creation"] = {"ephemeral_1h_input_tokens": self.cache_write}
        return usage

    def cost(self, prices: Prices = SONNET) -> float:
        """Dollars: at the record's own model's price when it has one, else at `prices`."""
        return for_model(self.model, prices).cost(self.usage)


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


def scratch_dir(parent=None) -> Path:
    """A new folder arena-<12 hex digits>: its path always weighs the same number of tokens.

    Stage layers write paths into the history (persisted outputs, transcripts); a
    random name of fixed length and alphabet keeps every run's figures identical.
    """
    parent = Path(parent) if parent else Path(tempfile.gettempdir())
    while True:
        path = parent / f"arena-{uuid.uuid4().hex[:12]}"
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            continue


class _RecordingModel(OfflineModel):
    """The offline model, recording each summary call as a request of the current turn."""

    def __init__(self, ctx: Context, cache: ReplayCache):
        super().__init__(SUMMARY_WINDOW, cache=cache)
        self.ctx = ctx

    def create(self, body: dict, **options) -> dict:
        ctx, start = self.ctx, time.perf_counter()
        record = RequestRecord(ctx.turn, "summary", ctx.memo.request_tokens(body))
        try:
            response = super().create(body, **options)
        except ApiError as exc:
            record.error = exc.message
            raise
        finally:
            ctx.records.append(record)
            ctx.model_seconds += time.perf_counter() - start
        usage = response["usage"]
        record.uncached, record.output = usage["input_tokens"], usage["output_tokens"]
        record.cache_write = usage["cache_creation_input_tokens"]
        record.cache_read = usage["cache_read_input_tokens"]
        return response


class Context:
    """What a strategy may use: token counts, the window, a scratch folder, summary calls."""

    def __init__(self, session, *, window: int = WINDOW, memo: BlockMemo | None = None,
                 cache: ReplayCache | None = None, workdir=None):
        self.session, self.window = session, window
        self.memo = memo if memo is not None else BlockMemo()
        self.cache = cache if cache is not None else ReplayCache(self.memo)
        self.workdir = Path(workdir) if workdir else scratch_dir()
        self.records: list[RequestRecord] = []
        self.notes: list[str] = []
        self.turn = 0
        self.model_seconds = 0.0
        self._client = None
        self.fixed_tokens = self.memo.request_tokens({"tools": session.tools, "system": session.system,
                                                      "messages": []})

    @property
    def client(self):
        """An anthropic.Anthropic client on the recording offline model (made on first use)."""
        if self._client is None:
            self._client = offline_client(_RecordingModel(self, self.cache), max_retries=0)
        return self._client

    def message_tokens(self, message: dict) -> int:
        return self.memo.message_tokens(message)

    def tokens(self, messages: list) -> int:
        """Input tokens of a request with these messages (plus the session's tools and system)."""
        return self.fixed_tokens + self.memo.messages_tokens(messages)

    def note(self, layer: str) -> None:
        """Mark that the strategy compacted this turn (shown on the chart)."""
        self.notes.append(layer)

    def summarize(self, text: str, *, max_tokens: int = 4_096) -> str:
        """One summary call: a single user message `text` (no tools, no cache breakpoint)."""
        response = self.client.messages.create(model=MODEL, max_tokens=max_tokens,
                                               messages=[{"role": "user", "content": text}])
        return "".join(b.text for b in response.content if b.type == "text")

    def too_long_error(self, messages: list):
        """The API's own 400 for a request over the window: the SDK's BadRequestError, from an
        offline model with this window (what a stage's reactive layer expects to be handed)."""
        import anthropic

        client = offline_client(OfflineModel(self.window), max_retries=0)
        try:
            client.messages.create(**body_for(self.session, messages))
        except anthropic.BadRequestError as exc:
            return exc
        raise ValueError(f"the request fits the {self.window:,}-token window: it is not too long")

    def account(self, messages: list, output_text: str) -> None:
        """Record a summary request made outside the offline model (a recorded one, or the API's
        compaction pass): the agent's request with these messages, cached, and this output."""
        from .. import tokens

        body = body_for(self.session, messages)     # the agent's request: its system prompt and tools too
        self.records.append(measure(self, body, "summary", tokens.count_text(output_text)))


def body_for(session, messages: list) -> dict:
    """The request body the agent would send with these messages."""
    body = {"model": MODEL, "max_tokens": MAX_TOKENS, "messages": mark_last(messages)}
    if session.system:
        body["system"] = session.system
    if session.tools:
        body["tools"] = session.tools
    return body


def _attempt(ctx: Context, session, messages: list, output: int,
             policy: Sticky | None = None) -> tuple[RequestRecord, dict]:
    if policy is not None:
        messages = policy.apply(unmarked(messages))
    body = body_for(session, messages)
    return measure(ctx, body, "turn", output), body


def measure(ctx: Context, body: dict, kind: str, output: int) -> RequestRecord:
    """One request body counted, checked against the API's rules, and split by the cache."""
    record = RequestRecord(ctx.turn, kind, ctx.memo.request_tokens(body), output=output)
    try:
        validate_request(body)
    except ApiError as exc:
        record.error = exc.message
    usage = ctx.cache.account(body)
    record.uncached, record.cache_write = usage["input_tokens"], usage["cache_creation_input_tokens"]
    record.cache_read = usage["cache_read_input_tokens"]
    return record


def replay(session, make_strategy, *, window: int = WINDOW, memo: BlockMemo | None = None,
           workdir=None, progress=None, probe=None, breakpoints: str = "last", bill=None) -> Replay:
    """Replay `session` under a fresh strategy from `make_strategy()`; measure every request.

    The strategy's files (transcripts, persisted outputs) go to `workdir`; without one,
    to a scratch folder removed when the replay ends. `probe(turn, messages)`, if given,
    sees each request as sent (a recall probe, metrics.Probes); what it returns, unless
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
    history, turns, previous, last = session.messages, session.turns, None, None
    for t, index in enumerate(turns):
        ctx.turn, ctx.notes, ctx.model_seconds = t, [], 0.0
        if bill is not None:
            if bill.expired(t, last):
                ctx.cache.clear()           # the pause outlived the TTL: nothing cached is left
            last = bill.times[t] if t < len(bill.times) and bill.times[t] is not None else last
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
        record, body = _attempt(ctx, session, messages, output, policy)
        ctx.records.append(record)
        if bill is not None:
            for r in ctx.records:
                r.model, r.hour = r.model or bill.model(t), bill.hour
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
