"""What a strategy works with during a replay, and how each request it makes is measured.

Motto: one ruler for every strategy: the same count, the same checks, the same cache.

    Context(session, window)   what strategy.start(session, ctx) is handed:
        tokens(messages)           input tokens of a request (memoized counts, accounting.py)
        summarize(text) / client   a summary call to the offline model through the real SDK,
                                   billed as sent (bill_summary), a request of the current turn
        quiet_client               the same model, billing nothing (the strategy bills its call)
        too_long_error(messages)   the API's own 400 for a request over the window
        account(messages, instruction, output)   a summary call made the cache-friendly way
                                   (summary_body: the conversation as sent + an instruction)
    bill_summary(ctx, body, summary)  ──> THE bill of every summary call of every strategy
        note(layer)                "I compacted this turn" (the chart's x)
        workdir                    a scratch folder for the strategy's files
    measure(ctx, body, kind, output) ──> RequestRecord: tokens · validated (a 400?) · split by the
                                         prompt cache into cache read / cache write / uncached

The request body is the agent's (body_for): its system prompt and tools, MAX_TOKENS,
one cache breakpoint on the last block (breakpoints.mark_last). replay.py drives the
turns; this module is what each turn is measured with.

Example: session = session_from("s", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
         measure(Context(session), body_for(session, session.messages[:1]), "turn", 3)
  -> RequestRecord(turn=0, kind="turn", tokens=7, uncached=7, cache_write=0, cache_read=0, output=3)
"""

from __future__ import annotations

import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from offline import OfflineModel, offline_client
from offline.api.validate import ApiError, validate_request

from .bills.accounting import BlockMemo, ReplayCache
from .bills.breakpoints import mark_last
from .bills.prices import SONNET, Prices, for_model

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
    model: str | None = None   # the logged model of the turn (bills/model.py): priced at its own list price
    hour: float = 0.0          # the share of the cache writes that are 1-hour writes (the log's, per request)
    repeat: int = 0            # k > 0: the k-th further request the log made on the same history (a retry)

    @property
    def usage(self) -> dict:
        usage = {"input_tokens": self.uncached, "cache_creation_input_tokens": self.cache_write,
                 "cache_read_input_tokens": self.cache_read, "output_tokens": self.output}
        if self.hour:
            hour = round(self.cache_write * self.hour)
            usage["cache_creation"] = {"ephemeral_1h_input_tokens": hour,
                                       "ephemeral_5m_input_tokens": self.cache_write - hour}
        return usage

    def cost(self, prices: Prices = SONNET) -> float:
        """Dollars: at the record's own model's price when it has one, else at `prices`."""
        return for_model(self.model, prices).cost(self.usage)


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
    """The offline model, each summary call billed as a request of the current turn (bill_summary).
    Its own cache answers the call; the bill is the session's cache's (bill_summary)."""

    def __init__(self, ctx: Context):
        super().__init__(SUMMARY_WINDOW)
        self.ctx = ctx

    def create(self, body: dict, **options) -> dict:
        ctx, start = self.ctx, time.perf_counter()
        try:
            response = super().create(body, **options)
        except ApiError as exc:
            record = RequestRecord(ctx.turn, "summary", ctx.memo.request_tokens(body), error=exc.message)
            ctx.records.append(record)
            raise
        finally:
            ctx.model_seconds += time.perf_counter() - start
        text = "".join(b.get("text", "") for b in response.get("content") or [] if b.get("type") == "text")
        bill_summary(ctx, body, text)
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
            self._client = offline_client(_RecordingModel(self), max_retries=0)
        return self._client

    @property
    def quiet_client(self):
        """A client on the offline model that bills nothing: for a strategy that bills its summary call
        itself, as the call it models (bill_summary with summary_body)."""
        return offline_client(OfflineModel(SUMMARY_WINDOW), max_retries=0)

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

    def stated_summary(self, usage: dict, summary: str = "") -> RequestRecord:
        """Bill a summary call as the log states it (a usage dict); an output the log does not state
        (None) is the `summary` in the session's counted tokens."""
        output = usage.get("output_tokens")
        if output is None:
            output = max(0, self.memo.message_tokens({"role": "assistant", "content": summary}) - 3) if summary else 0
        record = RequestRecord(self.turn, "summary", sum(int(usage.get(k) or 0) for k in (
            "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")),
            uncached=int(usage.get("input_tokens") or 0),
            cache_write=int(usage.get("cache_creation_input_tokens") or 0),
            cache_read=int(usage.get("cache_read_input_tokens") or 0), output=int(output))
        self.records.append(record)
        return record

    def account(self, messages: list, instruction: str, output_text: str) -> RequestRecord:
        """Bill a compaction call made the cache-friendly way: these messages (the conversation as the
        last request sent it, and what arrived since) plus `instruction`, answered by `output_text`."""
        return bill_summary(self, summary_body(self.session, messages, instruction), output_text)


def body_for(session, messages: list) -> dict:
    """The request body the agent would send with these messages."""
    body = {"model": MODEL, "max_tokens": MAX_TOKENS, "messages": mark_last(messages)}
    if session.system:
        body["system"] = session.system
    if session.tools:
        body["tools"] = session.tools
    return body


def summary_body(session, prefix: list, instruction: str) -> dict:
    """The body of a summary call made the cache-friendly way: the agent's request with `prefix` (its
    system prompt, tools, messages), `instruction` a text block at the end (a user message of its own
    after an assistant one), the breakpoint on it. Example: summary_body(s, [user "hi"], "Summarize.")
    -> messages [user ["hi", "Summarize."]]"""
    messages = list(prefix)
    last = messages[-1] if messages else None
    if last is not None and last.get("role") == "user":
        content = last.get("content")
        content = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        messages[-1] = {**last, "content": content + [{"type": "text", "text": instruction}]}
    else:
        messages.append({"role": "user", "content": [{"type": "text", "text": instruction}]})
    return body_for(session, messages)


def bill_summary(ctx: Context, body: dict, summary: str) -> RequestRecord:
    """THE bill of every summary call of every strategy, by the session's one calibrated model: `body`
    written to the cache up to its last breakpoint, the rest uncached (as Claude Code's compaction call is
    logged wherever a log holds it: a cache write of its prefix, no read: the call's system prompt and tools
    are not the agent's, so nothing the agent cached matches; a body with no breakpoint, caching off, is all
    uncached input), the `summary` as output in the session's counted tokens, at the turn's model
    price (replay.py sets it). The session's cache is not touched: no agent request reads that entry.
    The call's shape is the strategy's: summary_body (the last request's prefix + an instruction: Claude
    Code's compaction, the API's, the recommended pipeline's) or a fresh prompt (LangChain's, OpenHands').
    Example: bill_summary(ctx, summary_body(s, sent, "Summarize."), "the summary")
             -> RequestRecord(kind="summary", cache_write=<the whole body>, cache_read=0, ...)"""
    output = max(0, ctx.memo.message_tokens({"role": "assistant", "content": summary}) - 3) if summary else 0
    record = RequestRecord(ctx.turn, "summary", ctx.memo.request_tokens(body), output=output)
    try:
        validate_request(body)
    except ApiError as exc:
        record.error = exc.message
    segs = ctx.memo.segments(body)
    marked = [k for k, (_, _, bp) in enumerate(segs) if bp]
    written = sum(n for n, _, _ in segs[:marked[-1] + 1]) if marked else 0
    record.cache_write, record.uncached = written, record.tokens - written   # no breakpoint: caching off
    ctx.records.append(record)
    return record


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
