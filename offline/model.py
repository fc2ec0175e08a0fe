"""The offline model: a deterministic stand-in for Claude that speaks the Messages API.

    request ─> faults? ─> merge ─> validate ─> too long? ─> summary or policy ─> tool_choice ─> fit to room ─> usage
              429/529/500 same-role   400      400 prompt    summarize.py      forced.py    max_tokens     cache.py
              or a delay  messages             is too long   policy.py                      stop reason

It answers `POST /v1/messages` (plain or SSE) and `POST /v1/messages/count_tokens`,
with the API's own JSON shapes, for the SDK's mock transport (transport.py) and for
a real HTTP server on 127.0.0.1 (server.py). Same request, same answer; each message
gets a fresh `msg_` id, as from the API (tool_use ids stay a hash of the request, so
recorded sessions replay). The model name, max_tokens and thinking type are checked
per model (models.py); with thinking on, a `thinking` block comes first (thinking.py).

The output may use what room the context window leaves: with `max_tokens` or the
room left too small for the answer, the answer is cut and `stop_reason` is
"max_tokens" (a tool_use that does not fit whole is dropped).

Example: OfflineModel(context_window=1_000).create({... 2,000 tokens ...})
  -> ApiError(400, "invalid_request_error", "prompt is too long: 2000 tokens > 1000 maximum")

Faults (inject_fault) come first: the next N requests answer 429 / 529 / 500 ...
with a `retry-after-ms` header (so the SDK's retries are quick), or wait first.

Consecutive messages of the same role are merged first, as the API does
(validate.merge_roles), and `tool_choice` is honoured (forced.py). A crash inside
the model is not hidden: http.py answers it as the API's 500 `api_error`, naming it.
`stream_delay` (seconds) spaces out the SSE events, to show streaming arrive.

Not modeled: server tools, images' content, real rate limits (the headers are the API's), the API's check
that input + max_tokens fits the window (here the answer is cut to the room left
instead), per-model context windows.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass

from lessonkit import tokens

from .agent import cite, forced, policy, structured
from .agent.scenarios import load_scenarios
from .agent.thinking import check_signatures, thinking_block, wants_thinking
from .answers import summarize
from .api import context_edits
from .api.cache import PromptCache
from .api.errors import invalid
from .api.models import check_model, tool_prompt_tokens
from .api.threads import ThreadStore
from .api.validate import ApiError, cache_marks, merge_roles, require_tools, validate_request, with_automatic_breakpoint
from .api.versions import Api

DEFAULT_CONTEXT_WINDOW = 200_000
FAULTS = {  # status -> the API's error type and message for it
    400: ("invalid_request_error", "Injected bad request"),
    401: ("authentication_error", "invalid x-api-key"),
    403: ("permission_error", "Your API key does not have permission to use the specified resource."),
    404: ("not_found_error", "Not found"),
    408: ("timeout_error", "Request timed out"),
    413: ("request_too_large", "Request exceeds the maximum allowed number of bytes."),
    429: ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit."),
    500: ("api_error", "Internal server error"),
    503: ("api_error", "Service unavailable"),
    504: ("timeout_error", "Gateway timeout"),
    529: ("overloaded_error", "Overloaded"),
}
RETRY_AFTER_MS = "20"
MAX_FAULTS = 10_000       # faults one call may schedule (each is held until a request takes it)
MAX_FAULT_DELAY = 3_600   # seconds one fault may wait
RATE_LIMITS = {"requests": 50, "tokens": 80_000, "input-tokens": 50_000, "output-tokens": 30_000}  # per minute
UNMODELED = {  # fields a beta enables that the offline model cannot honour: refused, never ignored
    "mcp_servers": "the offline model makes no network connections, so it cannot reach MCP servers",
    "compaction": "server-side compaction is not modeled offline (the lessons compact on the client: s05-s08)",
    "fallbacks": "server-side model fallbacks are not modeled offline (there is one model)",
    "fallback_credit_token": "fallback credit is not modeled offline",
}


def rate_limit_headers(status: int | None = None, retry_after: int = 1) -> dict:
    """The API's anthropic-ratelimit-* headers (limits, remaining, reset); on a 429 nothing is left, and retry-after.

    Example: rate_limit_headers(429)["anthropic-ratelimit-requests-remaining"] -> "0"
    """
    reset = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + retry_after))
    headers = {}
    for kind, limit in RATE_LIMITS.items():
        headers[f"anthropic-ratelimit-{kind}-limit"] = str(limit)
        headers[f"anthropic-ratelimit-{kind}-remaining"] = "0" if status == 429 and kind in ("requests", "tokens",
                                                                                              "input-tokens") \
            else str(limit - 1 if kind == "requests" else limit)
        headers[f"anthropic-ratelimit-{kind}-reset"] = reset
    if status == 429:
        headers["retry-after"] = str(retry_after)
    return headers
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _b62(digest: bytes, n: int) -> str:
    value = int.from_bytes(digest, "big")
    out = []
    for _ in range(n):
        value, r = divmod(value, 62)
        out.append(_B62[r])
    return "".join(out)


def stable_id(prefix: str, *parts) -> str:
    """A deterministic API-style id. Example: stable_id('msg', 'x') -> 'msg_01…' (28 chars)"""
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).digest()
    return f"{prefix}_01{_b62(digest, 22)}"


def unique_id(prefix: str) -> str:
    """A fresh API-style id, different on every call. Example: unique_id('msg') -> 'msg_01…' (28 chars, as the API's)"""
    return f"{prefix}_01{_b62(secrets.token_bytes(32), 22)}"


@dataclass
class Fault:
    """A scheduled failure: an HTTP status to answer with, or a delay before answering."""
    status: int | None = None
    delay: float = 0.0
    message: str | None = None


class ClientTimeout(TimeoutError):
    """A fault's delay outlasted the caller's timeout (the transport turns it into a read timeout)."""


class OfflineModel:
    """The model behind the kit's offline backend. Thread-safe; state is cache + faults."""

    def __init__(self, context_window: int = DEFAULT_CONTEXT_WINDOW, *, scenarios=None,
                 cache: PromptCache | None = None, stream_delay: float = 0.0, tool_prompt: bool = False):
        if not isinstance(context_window, int) or context_window < 1:
            raise ValueError(f"context_window must be a positive int, got {context_window!r}")
        if not isinstance(stream_delay, (int, float)) or not 0 <= stream_delay <= 10:
            raise ValueError(f"stream_delay must be 0-10 seconds, got {stream_delay!r}")
        self.context_window = context_window
        # tool_prompt: count the tool-use system prompt the API adds when tools are offered (346 tokens or so,
        # `serve` and the parity tests). The lessons' backend counts tools as their JSON alone, the counts its
        # windows were written in (docs/offline-api.md lists the difference).
        self.tool_prompt = bool(tool_prompt)
        self.stream_delay = float(stream_delay)
        self.cache = cache or PromptCache()
        self._extra_scenarios = list(scenarios or [])
        self._scenarios = None
        self._faults: list[Fault] = []
        self._lock = threading.Lock()
        self.threads = ThreadStore()  # histories held for `thread` requests (threads.py)
        self.batches: dict = {}  # Message Batches by id (batches.py)
        self.calls = 0  # requests answered (any outcome), for lessons and tests

    def _tool_prompt(self, body: dict) -> int:
        """The tool-use system prompt the API adds for the model (models.TOOL_PROMPT), counted as uncached input."""
        return tool_prompt_tokens(body) if self.tool_prompt else 0

    # ------------------------------------------------------------ faults
    def inject_fault(self, status: int | None = None, *, count: int = 1, delay: float = 0.0,
                     message: str | None = None) -> None:
        """Make the next `count` requests wait `delay` seconds, then answer `status` if given.

        Example: inject_fault(529, count=2) -> two 529 overloaded_error answers, then normal ones;
                 inject_fault(delay=5) -> the next request answers after 5 s (or times out).
        """
        if status is not None and (isinstance(status, bool) or not isinstance(status, int)
                                   or not 400 <= status <= 599):
            raise ValueError(f"status must be an HTTP error status (400-599), got {status!r}")
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_FAULTS or not delay >= 0 \
                or delay > MAX_FAULT_DELAY:
            raise ValueError(f"count must be an int from 1 to {MAX_FAULTS} and delay 0-{MAX_FAULT_DELAY} seconds, "
                             f"got count={count!r}, delay={delay!r}")
        if status is None and not delay:
            raise ValueError("a fault needs a status, a delay, or both")
        with self._lock:
            self._faults.extend(Fault(status, float(delay), message) for _ in range(count))

    def clear_faults(self) -> None:
        """Drop every fault still pending."""
        with self._lock:
            self._faults.clear()

    @property
    def pending_faults(self) -> int:
        return len(self._faults)

    def _next_fault(self) -> Fault | None:
        with self._lock:
            self.calls += 1
            return self._faults.pop(0) if self._faults else None

    def _apply_fault(self, timeout: float | None) -> None:
        fault = self._next_fault()
        if fault is None:
            return
        if fault.delay:
            if timeout is not None and fault.delay > timeout:
                time.sleep(timeout)  # the caller stops waiting here
                raise ClientTimeout(f"no answer within {timeout:g} s (injected delay {fault.delay:g} s)")
            time.sleep(fault.delay)
        if fault.status is not None:
            default = ("invalid_request_error", "Injected error") if fault.status < 500 \
                else ("api_error", "Injected error")
            kind, message = FAULTS.get(fault.status, default)
            headers = {"retry-after-ms": RETRY_AFTER_MS}  # the kit's own: the SDK retries after 20 ms
            if fault.status == 429:
                headers.update(rate_limit_headers(429))
            raise ApiError(fault.status, kind, fault.message or message, headers=headers)

    # ------------------------------------------------------------ endpoints
    def scenarios(self) -> list[dict]:
        """The scripted scenarios the policy tries first: the given ones, then the data files."""
        if self._scenarios is None:  # read the data files on first use, never at import
            self._scenarios = load_scenarios(self._extra_scenarios)
        return self._scenarios

    def count_tokens(self, body: dict, *, timeout: float | None = None, api: Api | None = None) -> dict:
        """POST /v1/messages/count_tokens. Example: {"messages": [user "hi"], ...} -> {"input_tokens": 7}"""
        self._apply_fault(timeout)
        body = _merged(body)
        validate_request(body, count_only=True, api=api)
        _refuse_unmodeled(body)
        check_model(body, count_only=True)
        require_tools(body)
        body, _ = context_edits.apply(body)
        return {"input_tokens": tokens.count_request(body) + self._tool_prompt(body)}

    def create(self, body: dict, *, timeout: float | None = None, api: Api | None = None) -> dict:
        """POST /v1/messages: the complete message as a dict (http.py streams it as SSE).

        `timeout` (seconds) is how long the caller waits: an injected delay longer
        than that raises ClientTimeout after `timeout` seconds. `api` is the version
        and betas the request's headers ask for (versions.Api; none: the default version).
        """
        self._apply_fault(timeout)
        body = _merged(self.threads.expand(body))  # a `continue` thread: the held history, then the new turn
        validate_request(body, api=api)
        _refuse_unmodeled(body)
        info = check_model(body)
        require_tools(body)
        check_signatures(body["messages"])
        sent = body
        body, applied_edits = context_edits.apply(body)  # context_management: applied, and reported
        input_tokens = tokens.count_request(body) + self._tool_prompt(body)
        if input_tokens > self.context_window:
            raise ApiError(400, "invalid_request_error",
                           f"prompt is too long: {input_tokens} tokens > {self.context_window} maximum")
        if body["max_tokens"] == 0:  # pre-warming: the prompt is written to the cache, nothing is generated
            return self._answer(sent, body, info, [], "max_tokens", None, 0, applied_edits)
        seed = stable_id("msg", body.get("model"), body.get("system"), body.get("tools"), body["messages"])
        if summarize.is_summary_request(body):
            reply = policy.Reply(summarize.summarize(body["messages"], body["max_tokens"]))
        else:
            reply = policy.decide(body, self.scenarios())
            if not reply.calls:  # a question about the request's documents: their best passage, cited
                reply = cite.answer(body) or reply
        reply = forced.apply(reply, body, redo=lambda b: policy.decide(b, self.scenarios()))
        reply = structured.apply(reply, body)  # output_config.format: JSON of the user's values, or a refusal
        room = min(body["max_tokens"], self.context_window - input_tokens)
        thought = [thinking_block(body, reply)] if wants_thinking(body) else []
        thought_tokens = sum(tokens.count_text(b["thinking"]) for b in thought)
        content, stop_reason, output_tokens = _fit(reply, seed, max(1, room - thought_tokens))
        stop_sequence = None
        if stop_reason == "end_turn" and body.get("stop_sequences"):
            content, stop_reason, stop_sequence = _stop_at(content, body["stop_sequences"])
        return self._answer(sent, body, info, thought + content, stop_reason, stop_sequence,
                            output_tokens + thought_tokens, applied_edits)

    def _answer(self, sent, body, info, content, stop_reason, stop_sequence, output_tokens, applied_edits) -> dict:
        """The message: its content, and `usage` from the prompt cache (a top-level cache_control marks the last
        block); the thread, if any, holds it."""
        marked = with_automatic_breakpoint(body)
        usage = self.cache.account(marked)
        usage.update(input_tokens=usage["input_tokens"] + self._tool_prompt(body), output_tokens=output_tokens)
        usage = _full_usage(usage, marked)
        message = {"id": unique_id("msg"), "type": "message", "role": "assistant", "model": info.id,
                   "content": content, "stop_reason": stop_reason, "stop_sequence": stop_sequence, "usage": usage}
        if applied_edits is not None:
            message["context_management"] = {"applied_edits": applied_edits}
        self.threads.keep(sent, message)
        return message


def _refuse_unmodeled(body: dict) -> None:
    """A field the offline model cannot honour is a 400 naming it (never silently ignored)."""
    for field, why in UNMODELED.items():
        if body.get(field):
            raise invalid(f"{field}: {why}. See docs/offline-api.md.")


def _full_usage(usage: dict, body: dict) -> dict:
    """`usage` with the fields the API returns: the cache write by TTL and the service tier.

    The write counts as 1-hour when the request's breakpoints are all 1-hour, else as 5-minute.
    """
    marks = list(cache_marks(body))
    one_hour = bool(marks) and all(m.get("ttl") == "1h" for m in marks)
    created = usage["cache_creation_input_tokens"]
    usage["cache_creation"] = {"ephemeral_5m_input_tokens": 0 if one_hour else created,
                               "ephemeral_1h_input_tokens": created if one_hour else 0}
    usage["service_tier"] = "standard"
    return usage



def _merged(body):
    """The request with consecutive same-role messages joined (what the API reads)."""
    if isinstance(body, dict) and isinstance(body.get("messages"), list):
        return dict(body, messages=merge_roles(body["messages"]))
    return body


def _fit(reply: policy.Reply, msg_id: str, room: int) -> tuple[list, str, int]:
    """Content blocks that fit in `room` output tokens, the stop reason, and the tokens used."""
    blocks, used = [], 0
    if reply.text:
        need = tokens.count_text(reply.text)
        if need > room:
            return _cut_text(reply.text, room)
        blocks += reply.blocks if reply.blocks and not reply.calls else [{"type": "text", "text": reply.text}]
        used += need
    if not reply.text and not reply.calls:  # never an empty turn: the next request would be a 400
        reply = policy.Reply("(nothing to add)")
        blocks.append({"type": "text", "text": reply.text})
        used += tokens.count_text(reply.text)
    for k, (name, tool_input) in enumerate(reply.calls):
        need = tokens.count_text(name) + tokens.count_text(json.dumps(tool_input, ensure_ascii=False))
        if used + need > room:
            return blocks or [{"type": "text", "text": "…"}], "max_tokens", max(used, 1)
        blocks.append({"type": "tool_use", "id": stable_id("toolu", msg_id, k), "name": name,
                       "input": tool_input})
        used += need
    return blocks, reply.stop_reason, max(used, 1)


def _cut_text(text: str, room: int) -> tuple[list, str, int]:
    """The longest prefix of `text` within `room` tokens (at least one character, no trailing space)."""
    lo, hi = 0, len(text)
    while lo < hi:  # binary search on the prefix length
        mid = (lo + hi + 1) // 2
        if tokens.count_text(text[:mid]) <= room:
            lo = mid
        else:
            hi = mid - 1
    cut = text[:lo].rstrip() or text[:1]
    return [{"type": "text", "text": cut}], "max_tokens", tokens.count_text(cut)


def _stop_at(content: list, stop_sequences: list) -> tuple[list, str, str | None]:
    """Cut the answer at the first stop sequence in it, if any."""
    text = content[0]["text"] if content and content[0]["type"] == "text" else ""
    hits = [(text.find(s), s) for s in stop_sequences if s and s in text]
    if not hits:
        return content, "end_turn", None
    at, seq = min(hits)
    return [{"type": "text", "text": text[:at] or "…"}], "stop_sequence", seq
