"""The prompt-cache breakpoint: the request sent is a copy whose last block is marked for the cache.

Example: with_cache_breakpoint([{"role": "user", "content": "hi"}])
  -> [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]
"""

from __future__ import annotations

from s01_loop import check_history

# The API caches the prefix that ends at the marked block; the next request repeats it and adds a turn, so it
# reads the prefix from the cache (usage.cache_read_input_tokens) and pays in full only for what is new. A layer
# that rewrites an old message changes the prefix from there on: that is the price the s06 layers pay.
# Not modeled: the 1-hour TTL, breakpoints on tools or the system prompt (the API allows 4; we use 1), the
# minimum cacheable length (the API's own).
CACHE_CONTROL = {"type": "ephemeral"}
MARKABLE = ("text", "image", "document", "tool_use", "tool_result")  # blocks that accept cache_control


def with_cache_breakpoint(messages: list) -> list:
    """A copy of `messages` whose last markable block carries `cache_control` (`messages` is never changed)."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    if not messages:
        return list(messages)
    last = messages[-1]
    content = last.get("content")
    if isinstance(content, str):
        if not content:  # an empty final turn cannot be marked: sent as it is
            return list(messages)
        blocks = [{"type": "text", "text": content, "cache_control": dict(CACHE_CONTROL)}]
    elif isinstance(content, list):
        blocks = list(content)
        for k in range(len(blocks) - 1, -1, -1):  # the last block that can carry the mark
            block = blocks[k]
            if isinstance(block, dict) and block.get("type") in MARKABLE:
                blocks[k] = {**block, "cache_control": dict(CACHE_CONTROL)}
                break
        else:
            return list(messages)
    else:
        return list(messages)
    return [*messages[:-1], {**last, "content": blocks}]  # only the last message is copied; the rest is shared
