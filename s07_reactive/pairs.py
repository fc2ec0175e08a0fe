"""Where a Messages-API history may be cut without the API rejecting what is left.

Motto: cut between turns, never between a tool_use and its tool_result.

    user  "read every file"          <- index 0: always kept in front (or replaced by a summary)
    asst  text + tool_use(a, b)    ┐
    user  tool_result(a, b)        ┘ a turn: an assistant message and the user message answering it
    asst  text + tool_use(c)       <- a safe cut: the kept part may start here,
    user  tool_result(c)           <- NOT here: its tool_use would be left behind
    asst  "done"

A cut at index k splits `messages` into `messages[:k]` and `messages[k:]`. It is safe
when `messages[k]` is not a user message carrying tool_result blocks: in a valid history
that is exactly when `messages[k-1]` has no tool_use waiting for an answer. Whatever is
put in front of a kept part that starts with an assistant message must be one user
message; a kept part that starts with a user message gets that text merged into it
(`merge_user`), so roles keep alternating.

Example: safe_cut([user, asst+tool_use, user+tool_result, asst], 2) -> 1

Not modeled: `thinking` blocks (the API wants them kept with their tool_use turn; this
kit's models do not produce them).
"""

from __future__ import annotations

from s01_loop import check_history, check_int, check_message, check_type


def blocks(message: dict) -> list:
    """A message's content as a list of blocks. Example: {'content': 'hi'} -> [{'type': 'text', 'text': 'hi'}]"""
    check_message(message)
    return _blocks(message)


def _blocks(message: dict) -> list:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content or [])


def has_tool_results(message: dict) -> bool:
    """True for a user message that answers tool calls."""
    check_message(message)
    return _answers_tools(message)


def _answers_tools(message: dict) -> bool:
    return message.get("role") == "user" and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in _blocks(message))


def is_safe_cut(messages: list, k: int) -> bool:
    """True if `messages[k:]` can be kept without orphaning a tool_result (0 and len are safe)."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    check_int(k, "k")
    return _cut_ok(messages, k)


def _cut_ok(messages: list, k: int) -> bool:
    return k <= 0 or k >= len(messages) or not _answers_tools(messages[k])


def safe_cut(messages: list, k: int) -> int:
    """The nearest safe cut at or before `k` (0 if there is none).

    Example: a cut on a tool_result message moves back onto the assistant that called the tool.
    """
    check_history(messages)
    check_int(k, "k")
    k = max(0, min(k, len(messages)))
    while not _cut_ok(messages, k):
        k -= 1
    return k


def text_block(text: str) -> dict:
    """A text block. Example: text_block('hi') -> {'type': 'text', 'text': 'hi'}"""
    check_type(text, str, "text")
    return {"type": "text", "text": text}


def merge_user(*parts) -> dict:
    """One user message from user messages and/or strings, tool_results first (the API wants them first).

    Example: merge_user('[snipped 4 messages]', {'role': 'user', 'content': 'go on'})
      -> {'role': 'user', 'content': [text '[snipped 4 messages]', text 'go on']}
    """
    for part in parts:
        if not isinstance(part, str):
            check_message(part)
    results, others = [], []
    for part in parts:
        for b in ([text_block(part)] if isinstance(part, str) else _blocks(part)):
            (results if b.get("type") == "tool_result" else others).append(b)
    return {"role": "user", "content": results + others}


def join(head: list, middle: str | dict, tail: list) -> list:
    """`head + [middle] + tail` with `middle` a user text or message, merged into user neighbours.

    The result alternates roles as long as `head` ends and `tail` starts at safe cuts.
    Example: join([user], '[snipped 2 messages]', [asst, ...]) -> [user + marker, asst, ...]
    """
    check_history(head)
    check_history(tail)
    if not isinstance(middle, str):
        check_message(middle)
    out = list(head)
    parts = [middle]
    if out and out[-1]["role"] == "user":
        parts.insert(0, out.pop())
    rest = list(tail)
    if rest and rest[0]["role"] == "user":
        parts.append(rest.pop(0))
    return out + [merge_user(*parts)] + rest


def oldest_turn(messages: list, start: int = 1) -> int:
    """How many messages the oldest whole turn at `start` spans (2), or 0 if there is none.

    A turn is an assistant message and the user message answering it: dropping both
    never orphans a tool_result or leaves a tool_use unanswered, and the message
    before stays followed by an assistant message.
    Example: oldest_turn([user, asst, user, asst]) -> 2;  oldest_turn([user, asst]) -> 0
    """
    check_history(messages)
    check_int(start, "start", 0)
    return _turn_at(messages, start)


def _turn_at(messages: list, start: int) -> int:
    if start + 1 < len(messages) and messages[start]["role"] == "assistant" \
            and messages[start + 1]["role"] == "user":
        return 2
    return 0
