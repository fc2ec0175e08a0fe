"""Incremental token counting and prompt-cache accounting for long replays.

Motto: count each block once, however many requests repeat it.

    request k:   [b1 b2 b3 ... b900]          every block -> memo -> (tokens, digest)
    request k+1: [b1 b2 b3 ... b900 b901 b902]       only b901, b902 are new work
                   │
                   └─ the hash chain runs over 32-byte digests, not over the megabytes

A 300-turn session re-sends the whole history every turn: counting and hashing
it afresh is quadratic (the Codex trace would re-read 2.6 MB x 160 turns). The
`BlockMemo` keys each block by its current values (the strings themselves: Python
caches a string's hash, so a repeated block costs a dict lookup), so a block that a
strategy rewrites is simply a new key. `ReplayCache` is `offline.api.cache.
PromptCache` with that memo: the same read/write/lookback rules, the same usage
numbers (tests/test_arena.py checks them against PromptCache request by request),
and it can be handed to an `OfflineModel(cache=...)` so summary calls share it.

Example: memo.request_tokens({"messages": [{"role": "user", "content": "hi"}]}) -> 7

Not modeled: anything PromptCache does not model (TTL, isolation).
"""

from __future__ import annotations

import hashlib
import json
import re
from itertools import islice

from lessonkit import tokens
from offline.api.cache import PromptCache, block_segment, fixed_segments

_TEXT_KEYS = ("type", "text", "cache_control")
UNRECORDED = re.compile(r"^\[not in the log: ([\d,]+) tokens (?:of|attached)[^\]]*\]$")
UNRECORDED_TEXT = "[not in the log: {n:,} tokens attached to the first request (files, reminders)]"
_ABSENT = object()


def _freeze(value):
    """A hashable stand-in for a JSON value (dicts -> sorted item tuples)."""
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def block_key(block):
    """A hashable key made of the block's current values, without `cache_control`."""
    kind = block.get("type")
    if kind == "text" and all(k in _TEXT_KEYS for k in block):
        return ("text", block.get("text"))
    if kind == "tool_result":
        content = block.get("content", "")
        inner = content if isinstance(content, str) else tuple(
            block_key(b) if isinstance(b, dict) else b for b in content or ())
        extra = tuple(sorted((k, _freeze(v)) for k, v in block.items()
                             if k not in ("type", "tool_use_id", "content", "is_error", "cache_control")))
        return ("tool_result", block.get("tool_use_id"), repr(block.get("is_error", _ABSENT)), inner, extra)
    return ("other", _freeze({k: v for k, v in block.items() if k != "cache_control"}))


class BlockMemo:
    """Tokens and cache identity of message blocks, computed once per distinct block.

    The figures are offline.api.cache's own (block_segment, fixed_segments):
    this class only remembers them, keyed by the block's current values.

    Two corrections for a recorded session (calibration.py): `scale` multiplies every
    count (the counter against the logged usage, with --calibrate), and `prefix` is a
    segment of that many tokens after the tools and system prompt of every request that
    carries tools (an agent request): the system prompt and tools the log does not hold.
    A text block reading UNRECORDED_TEXT counts as the tokens it states: what the first
    request carried that the log does not (files Claude Code attached), in the message it
    was attached to, so that a strategy that summarises that message drops it.
    """

    def __init__(self, prefix: int = 0, scale: float = 1.0):
        if prefix < 0 or scale <= 0:
            raise ValueError("BlockMemo: prefix must be >= 0 tokens and scale > 0")
        self._blocks: dict = {}
        self._fixed: dict = {}
        self.prefix, self.scale = int(prefix), float(scale)

    def _scaled(self, n: int) -> int:
        return n if self.scale == 1.0 else round(n * self.scale)

    def __len__(self) -> int:
        return len(self._blocks)

    def segment(self, role: str, block, first: bool) -> tuple[int, bytes, bool]:
        """(tokens, digest, is_breakpoint) of one block, as PromptCache.segments sees it."""
        if not block:
            n, ident, marked = block_segment(role, block, first)
            return self._scaled(n), hashlib.sha256(ident).digest(), marked
        key = (role, first, ("text", block) if isinstance(block, str) else block_key(block))
        hit = self._blocks.get(key)
        if hit is None:
            n, ident, _ = block_segment(role, block, first)
            n = self._scaled(n)
            stated = UNRECORDED.match(block.get("text", "")) if isinstance(block, dict) and \
                block.get("type") == "text" else None
            if stated:                     # a stand-in for logged tokens the log does not hold
                n = int(stated.group(1).replace(",", "")) + tokens.PER_MESSAGE * first
            hit = self._blocks[key] = (n, hashlib.sha256(ident).digest())
        marked = not isinstance(block, str) and (bool(block.get("cache_control")) or any(
            isinstance(b, dict) and b.get("cache_control") for b in
            (block.get("content") if isinstance(block.get("content"), list) else ())))
        return hit[0], hit[1], marked

    def message_tokens(self, message: dict) -> int:
        """tokens.count_message(message), memoized per block."""
        content, role = message.get("content"), message.get("role")
        if isinstance(content, str) or not content:
            return self.segment(role, content, True)[0]
        return sum(self.segment(role, b, k == 0)[0] for k, b in enumerate(content))

    def messages_tokens(self, messages) -> int:
        return sum(self.message_tokens(m) for m in messages)

    def fixed_segments(self, request: dict) -> list[tuple[int, bytes, bool]]:
        """Tools and system prompt as (tokens, digest, marked), memoized per distinct value."""
        tools, system = request.get("tools") or [], request.get("system")
        key = (_freeze(tools), _freeze(system))
        hit = self._fixed.get(key)
        if hit is None:
            hit = self._fixed[key] = [(self._scaled(n), hashlib.sha256(ident).digest(), marked)
                                      for n, ident, marked in fixed_segments(tools, system)]
            if tools and self.prefix:
                hit.append((self.prefix, hashlib.sha256(b"unrecorded prefix %d" % self.prefix).digest(), False))
        return hit

    def segments(self, request: dict) -> list[tuple[int, bytes, bool]]:
        """PromptCache's segments(request) with digests for bytes: the same tokens and order."""
        out = list(self.fixed_segments(request))
        for msg in request.get("messages") or []:
            role, content = msg.get("role"), msg.get("content")
            if isinstance(content, str) or not content:
                out.append(self.segment(role, content, True))
            else:
                out += [self.segment(role, block, k == 0) for k, block in enumerate(content)]
        return out

    def request_tokens(self, request: dict) -> int:
        """tokens.count_request(request), memoized."""
        return (sum(n for n, _, _ in self.fixed_segments(request))
                + self.messages_tokens(request.get("messages") or []))


class ReplayCache(PromptCache):
    """PromptCache whose per-request work is proportional to the number of blocks, not bytes.

    Only `digests` differs: each block's digest is memoized instead of re-hashed on every
    request; the chain and the read/write rules are PromptCache's own. It also remembers the
    request (`turn`, set by the replay) that wrote each entry, so that the log's cache events
    (unlogged.cache_events) can be applied: `evict(after)` drops what was written after a request.
    """

    def __init__(self, memo: BlockMemo | None = None, **options):
        super().__init__(**options)
        self.memo = memo if memo is not None else BlockMemo()
        self.turn = -1                     # entries written before the first request: the warmed prefix
        self._written: dict = {}

    def digests(self, request: dict) -> list[tuple[int, bytes, bool]]:
        """PromptCache.digests(request), memoized per block."""
        return self.memo.segments(request)

    def account_digests(self, model, segs, *, write: bool = True) -> dict:
        usage = super().account_digests(model, segs, write=write)
        if write:                          # what this request wrote is at the end of the entries
            marks = sum(1 for _, _, marked in segs if marked) + 1
            for key in islice(reversed(self._entries), marks):
                self._written.setdefault(key, self.turn)
        return usage

    def evict(self, after: int) -> None:
        """Drop every entry written after request `after` (-1: keep only what was there before the first)."""
        with self._lock:
            for key in [k for k in self._entries if self._written.get(k, -1) > after]:
                del self._entries[key]
                self._written.pop(key, None)

    def clear(self) -> None:
        super().clear()
        self._written.clear()


def canonical_json(value) -> str:
    """Compact, key-sorted JSON (the form the token counter reads tool inputs in)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
