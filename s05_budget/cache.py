"""s05 · Prompt-cache breakpoint: mark the end of the request so the next one can reuse it.

Motto: an unchanged prefix is cheap; every rewrite of an old message makes it dear again.

    history (never changed)          the request actually sent (a copy)
    [user, assistant, ..., user]  -> [user, assistant, ..., user + cache_control]
                                                          └─ the last block of the last message:
                                                             "cache_control": {"type": "ephemeral"}

The API caches the prefix that ends at the marked block. The next request
repeats that prefix and adds a turn, so it reads the prefix from the cache
(usage.cache_read_input_tokens) and pays full price only for what is new. A
compaction layer that rewrites an old message changes the prefix from there on:
the next request reads less from the cache. That is the price the s06 layers pay.

Example: with_cache_breakpoint([{"role": "user", "content": "hi"}])
  -> [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]

Not modeled: the 1-hour TTL, breakpoints on tools or the system prompt (the API
allows 4; we use 1), the minimum cacheable length (the API's, enforced by it).
"""

from __future__ import annotations

from s01_loop import check_history

CACHE_CONTROL = {"type": "ephemeral"}
MARKABLE = ("text", "image", "document", "tool_use", "tool_result")  # blocks that accept cache_control


def with_cache_breakpoint(messages: list) -> list:
    """A copy of `messages` whose last markable block carries `cache_control`.

    Only the last message (and the block marked in it) is copied; the others are
    shared with `messages`, which is never changed. An empty string content
    (an empty final assistant turn) cannot be marked and is left as it is.
    """
    check_history(messages)  # a malformed history: one ValueError naming the message
    if not messages:
        return list(messages)
    last = messages[-1]
    content = last.get("content")
    if isinstance(content, str):
        if not content:
            return list(messages)
        blocks = [{"type": "text", "text": content, "cache_control": dict(CACHE_CONTROL)}]
    elif isinstance(content, list):
        blocks = list(content)
        for k in range(len(blocks) - 1, -1, -1):
            block = blocks[k]
            if isinstance(block, dict) and block.get("type") in MARKABLE:
                blocks[k] = {**block, "cache_control": dict(CACHE_CONTROL)}
                break
        else:
            return list(messages)
    else:
        return list(messages)
    return [*messages[:-1], {**last, "content": blocks}]
