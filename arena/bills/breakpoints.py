"""Where the client puts cache breakpoints: the policies the arena replays with.

Motto: the cache reads only prefixes that end at a breakpoint; where you put them is money.

    last     [ ........................................ B ]     one breakpoint, on the last block
             + the strategy's own (only the recommended pipeline places any: part of its design)
    sticky   [ ...... S1 ......... S2 ................. B ]     the same for every strategy, own ones
                     │            └ end of the last rewrite: written now, read until the next one
                     └ end of the rewrite before: read by this request, dropped at the next rewrite

Why it matters. The API reads the longest prefix an earlier request wrote that ends
within 20 blocks before one of this request's breakpoints. A strategy that rewrites
a block more than 20 blocks from the end (masking the 11th-newest result, clearing a
batch) leaves only the last-block breakpoint, so the whole request is written again:
1.25x the input price instead of 0.1x. A breakpoint that stays at the end of the last
rewrite lets the next request read everything before its own rewrite. The 'sticky'
policy is the recommended pipeline's own idea given to every strategy, so that a
comparison can tell the policy's worth from the strategy's.

Example: mark_last([{"role": "user", "content": "hi"}])
  -> [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]

Not modeled: the 1-hour cache, tools or system prompt breakpoints (traces rarely need them).
"""

from __future__ import annotations

from s05_budget import with_cache_breakpoint

from .accounting import BlockMemo

BREAKPOINT = {"type": "ephemeral"}
BREAKPOINT_POLICIES = ("last", "sticky")


def mark_last(messages: list) -> list:
    """A copy of `messages` whose last block carries a cache breakpoint (others shared): s05's own."""
    return with_cache_breakpoint(messages)


def unmarked(messages: list) -> list:
    """`messages` without any cache_control a strategy put on its blocks (unmarked ones shared)."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list) and any(isinstance(b, dict) and "cache_control" in b for b in content):
            m = {**m, "content": [{k: v for k, v in b.items() if k != "cache_control"}
                                  if isinstance(b, dict) else b for b in content]}
        out.append(m)
    return out


def mark(messages: list, i: int, k: int) -> None:
    """Put a breakpoint on block k of message i (in place on a copied message)."""
    content = messages[i].get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    blocks[k] = {**blocks[k], "cache_control": dict(BREAKPOINT)}
    messages[i] = {**messages[i], "content": blocks}


class Sticky:
    """The 'sticky' client policy: a breakpoint at the end of the last rewritten region, kept.

    Each request's blocks are compared with the previous request's, position by
    position (by content: the memo's digests). When something before the end of
    the previous request changed, the last changed position becomes a mark; the
    newest older mark still inside the unchanged prefix stays for this request, so
    it reads that prefix from the cache (the API looks back only 20 blocks from a
    breakpoint). With the last block that is at most 3 breakpoints of the API's 4.

    Example: masking a result 25 blocks back every turn -> marks [previous mask, this mask]
    """

    def __init__(self, memo: BlockMemo):
        self.memo, self.previous, self.marks = memo, [], []

    def _digests(self, messages: list) -> tuple[list, list]:
        where, digests = [], []
        for i, m in enumerate(messages):
            content, role = m.get("content"), m.get("role")
            if isinstance(content, str) or not content:
                if content:
                    where.append((i, 0))
                    digests.append(self.memo.segment(role, content, True)[1])
                continue
            for k, b in enumerate(content):
                where.append((i, k))
                digests.append(self.memo.segment(role, b, k == 0)[1])
        return where, digests

    def apply(self, messages: list) -> list:
        """`messages` (unmarked) with the sticky marks on, before the last-block one is added."""
        where, digests = self._digests(messages)
        old, same = self.previous, 0
        limit = min(len(old), len(digests))
        while same < limit and old[same] == digests[same]:
            same += 1
        if same < limit:   # a rewrite: it ends at the last aligned position that differs
            end = max(j for j in range(same, limit) if old[j] != digests[j])
            self.marks = [m for m in self.marks if m < same][-1:] + [end]
        else:
            self.marks = [m for m in self.marks if m < same]
        self.previous = digests
        out = list(messages)
        for m in self.marks:
            if m < len(where) - 1:      # the last block gets its own mark anyway
                mark(out, *where[m])
        return out
