"""A simulated prompt cache, so lessons can show what compaction does to caching.

The request is read as one sequence of blocks: tools, then system, then every
message's content blocks. A block marked with `cache_control` is a breakpoint.
As on the real API:

  * a request reads from the cache the longest prefix, ending at a block boundary
    at most LOOKBACK blocks before one of its breakpoints, that an earlier request
    wrote;
  * it writes the prefix ending at each breakpoint (if at least MIN_TOKENS long);
  * `usage` splits the input into cache_read + cache_creation + input_tokens
    (what comes after the last breakpoint, never cached).

Example: two identical requests of 5,000 tokens with a breakpoint on the last block
  -> first:  cache_creation_input_tokens=5000, cache_read_input_tokens=0
  -> second: cache_creation_input_tokens=0,    cache_read_input_tokens=5000

Rewriting an old message changes every prefix after it, so the next request
reads only up to the rewrite: that is the cost of compaction the lessons show.

Not modeled: the 5-minute / 1-hour TTL (entries live as long as the model, up to
MAX_ENTRIES, least recently used first out), per-organisation isolation.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict

from lessonkit import tokens

MIN_TOKENS = 1024
LOOKBACK = 20
MAX_ENTRIES = 20_000


def _strip(value):
    """`value` without any `cache_control` key, at any depth (moving a marker changes nothing)."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _canonical(value) -> bytes:
    """A block's identity for the cache: its JSON without `cache_control`."""
    return json.dumps(_strip(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                      default=str).encode()


def fixed_segments(tools, system) -> list[tuple[int, bytes, bool]]:
    """The tools, then the system prompt, as (tokens, identity, is_breakpoint) per block."""
    out = [(tokens.count_tools([t]), _canonical(t), bool(t.get("cache_control"))) for t in tools or []]
    if isinstance(system, str):  # the shorthand for one text block, with no breakpoint
        system = [{"type": "text", "text": system}] if system else []
    for block in system or []:
        out.append((tokens.count_block(block), _canonical({"system": block}), bool(block.get("cache_control"))))
    return out


def block_segment(role: str, block, first: bool) -> tuple[int, bytes, bool]:
    """One block of a message as (tokens, identity, is_breakpoint).

    `first` adds the message's own tokens. A string content is the same prompt as
    one text block: same tokens, same identity. Example: ("user", "hi", True) -> (7, b'...', False)
    """
    if not block:  # an empty content (allowed for a final assistant message)
        return tokens.PER_MESSAGE * first, _canonical({"role": role, "first": first, "block": None}), False
    if isinstance(block, str):
        block = {"type": "text", "text": block}
    inner = block.get("content") if isinstance(block.get("content"), list) else []
    marked = bool(block.get("cache_control")) or any(isinstance(b, dict) and b.get("cache_control") for b in inner)
    ident = _canonical({"role": role, "first": first, "block": block})
    return tokens.PER_MESSAGE * first + tokens.count_block(block), ident, marked


def segments(request: dict) -> list[tuple[int, bytes, bool]]:
    """The request as (tokens, identity bytes, is_breakpoint) per block, in cache order.

    The token figures add up to tokens.count_request(request) exactly.
    """
    out = fixed_segments(request.get("tools"), request.get("system"))
    for msg in request.get("messages") or []:
        content, role = msg.get("content"), msg.get("role")
        if isinstance(content, str) or not content:
            out.append(block_segment(role, content, True))
        else:
            out += [block_segment(role, block, k == 0) for k, block in enumerate(content)]
    return out


class PromptCache:
    """Prefix cache keyed by a hash chain over blocks. Example: see the module docstring."""

    def __init__(self, min_tokens: int = MIN_TOKENS, lookback: int = LOOKBACK,
                 max_entries: int = MAX_ENTRIES):
        if min_tokens < 0 or lookback < 0 or max_entries < 1:
            raise ValueError("PromptCache: min_tokens and lookback must be >= 0, max_entries >= 1")
        self.min_tokens, self.lookback, self.max_entries = min_tokens, lookback, max_entries
        self._entries: OrderedDict[bytes, int] = OrderedDict()  # prefix hash -> its tokens
        self._lock = threading.Lock()  # the HTTP server answers from several threads

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def account(self, request: dict, *, write: bool = True) -> dict:
        """Split a request's input tokens into cache read / creation / uncached.

        Returns {"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}.
        """
        return self.account_digests(request.get("model", ""), self.digests(request), write=write)

    def digests(self, request: dict) -> list[tuple[int, bytes, bool]]:
        """The request's segments with each block's bytes replaced by their SHA-256 digest.
        (A subclass may memoize this: the arena's replay does.)"""
        return [(n, hashlib.sha256(ident).digest(), marked) for n, ident, marked in segments(request)]

    def account_digests(self, model, segs, *, write: bool = True) -> dict:
        """`account` on (tokens, block digest, is_breakpoint) segments, in cache order."""
        chain = hashlib.sha256(str(model).encode())
        hashes, prefix, total = [], [], 0
        for n, digest, _ in segs:
            chain.update(digest)  # a prefix's identity: the chain of its blocks' digests
            hashes.append(chain.copy().digest())
            total += n
            prefix.append(total)
        breakpoints = [i for i, (_, _, marked) in enumerate(segs) if marked]
        with self._lock:
            return self._account(hashes, prefix, breakpoints, total, write)

    def _account(self, hashes, prefix, breakpoints, total, write) -> dict:
        # 1. Read: the longest earlier-written prefix within LOOKBACK blocks of a breakpoint.
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
