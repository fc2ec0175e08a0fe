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
strategy rewrites is simply a new key. `ReplayCache` is `lessonkit.offline.cache.
PromptCache` with that memo: the same read/write/lookback rules, the same usage
numbers (tests/test_arena.py checks them against PromptCache request by request),
and it can be handed to an `OfflineModel(cache=...)` so summary calls share it.

Example: memo.request_tokens({"messages": [{"role": "user", "content": "hi"}]}) -> 4

Not modeled: anything PromptCache does not model (TTL, isolation).
"""

from __future__ import annotations

import hashlib
import json

from .. import tokens
from ..offline.cache import PromptCache, _canonical, _strip

_TEXT_KEYS = ("type", "text", "cache_control")
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
    """Tokens and cache identity of message blocks, computed once per distinct block."""

    def __init__(self):
        self._blocks: dict = {}
        self._fixed: dict = {}

    def __len__(self) -> int:
        return len(self._blocks)

    def segment(self, role: str, block, first: bool) -> tuple[int, bytes]:
        """(tokens, digest) of one block of a message, as PromptCache.segments sees it."""
        if isinstance(block, str):  # a message whose content is a plain string
            key = ("str", role, block)
        else:
            key = (role, first, block_key(block))
        hit = self._blocks.get(key)
        if hit is None:
            if isinstance(block, str):
                n = tokens.PER_MESSAGE + tokens.count_content(block)
                ident = _canonical({"role": role, "content": block})
            else:
                n = tokens.PER_MESSAGE * first + tokens.count_block(block)
                ident = _canonical({"role": role, "first": first, "block": _strip(block)})
            hit = self._blocks[key] = (n, hashlib.sha256(ident).digest())
        return hit

    def message_tokens(self, message: dict) -> int:
        """tokens.count_message(message), memoized per block."""
        content, role = message.get("content"), message.get("role")
        if isinstance(content, str) or not content:
            if not content:
                return tokens.count_message(message)
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
            out = [(tokens.count_tools([t]), hashlib.sha256(_canonical(t)).digest(), bool(t.get("cache_control")))
                   for t in tools]
            if isinstance(system, str) and system:
                out.append((tokens.count_text(system), hashlib.sha256(_canonical({"system": system})).digest(),
                            False))
            elif isinstance(system, list):
                out += [(tokens.count_block(b), hashlib.sha256(_canonical(b)).digest(),
                         bool(b.get("cache_control"))) for b in system]
            hit = self._fixed[key] = out
        return hit

    def segments(self, request: dict) -> list[tuple[int, bytes, bool]]:
        """PromptCache.segments(request) with digests for bytes: the same tokens and order."""
        out = list(self.fixed_segments(request))
        for msg in request.get("messages") or []:
            role, content = msg.get("role"), msg.get("content")
            if isinstance(content, str) or not content:
                if content:
                    n, digest = self.segment(role, content, True)
                else:
                    n = tokens.PER_MESSAGE + tokens.count_content(content)
                    digest = hashlib.sha256(_canonical({"role": role, "content": content})).digest()
                out.append((n, digest, False))
                continue
            for k, block in enumerate(content):
                n, digest = self.segment(role, block, k == 0)
                marked = bool(block.get("cache_control")) or any(
                    isinstance(b, dict) and b.get("cache_control") for b in
                    (block.get("content") if isinstance(block.get("content"), list) else ()))
                out.append((n, digest, marked))
        return out

    def request_tokens(self, request: dict) -> int:
        """tokens.count_request(request), memoized."""
        return (sum(n for n, _, _ in self.fixed_segments(request))
                + self.messages_tokens(request.get("messages") or []))


class ReplayCache(PromptCache):
    """PromptCache whose per-request work is proportional to the number of blocks, not bytes."""

    def __init__(self, memo: BlockMemo | None = None, **options):
        super().__init__(**options)
        self.memo = memo or BlockMemo()

    def account(self, request: dict, *, write: bool = True) -> dict:
        """Same contract and numbers as PromptCache.account (see lessonkit/offline/cache.py)."""
        segs = self.memo.segments(request)
        chain = hashlib.sha256(str(request.get("model", "")).encode())
        hashes, prefix, total = [], [], 0
        for n, digest, _ in segs:
            chain.update(digest)
            hashes.append(chain.copy().digest())
            total += n
            prefix.append(total)
        breakpoints = [i for i, (_, _, marked) in enumerate(segs) if marked]
        # 1. Read: the longest earlier-written prefix within `lookback` blocks of a breakpoint.
        read_at = -1
        for bp in breakpoints:
            for i in range(bp, max(-1, bp - self.lookback - 1), -1):
                if i > read_at and hashes[i] in self._entries:
                    read_at = i
                    break
        read = prefix[read_at] if read_at >= 0 else 0
        if read_at >= 0:
            self._entries.move_to_end(hashes[read_at])
        # 2. Write: the prefix at each breakpoint long enough to be cached.
        cacheable = [bp for bp in breakpoints if prefix[bp] >= self.min_tokens]
        last = cacheable[-1] if cacheable else -1
        created = prefix[last] - read if last > read_at else 0
        if write:
            for bp in cacheable:
                self._entries[hashes[bp]] = prefix[bp]
                self._entries.move_to_end(hashes[bp])
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return {"input_tokens": total - read - created,
                "cache_creation_input_tokens": created,
                "cache_read_input_tokens": read}


def canonical_json(value) -> str:
    """Compact, key-sorted JSON (the form the token counter reads tool inputs in)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
