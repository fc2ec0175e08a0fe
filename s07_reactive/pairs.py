"""Where a Messages-API history may be cut without the API refusing what is left: between turns.

Example: safe_cut([user, asst+tool_use(a), user+tool_result(a), asst], 2) -> 1
    0 user  "read every file"      always kept in front (or replaced by a summary)
    1 asst  text + tool_use(a)     <- a safe cut: the kept part may start here
    2 user  tool_result(a)         <- NOT here: its tool_use would be left behind
    3 asst  "done"
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
    # In a valid history, messages[k] answers tool calls exactly when messages[k-1] has a tool_use waiting.
    # Not modeled: `thinking` blocks (the API wants them kept with their tool_use turn; the kit's models have none).
    return k <= 0 or k >= len(messages) or not _answers_tools(messages[k])


def safe_cut(messages: list, k: int) -> int:
    """The nearest safe cut at or before `k` (0 if there is none).

    Example: safe_cut([user, asst+tool_use(a), user+tool_result(a), asst], 2) -> 1
    """
    check_history(messages)
    check_int(k, "k")
    k = max(0, min(k, len(messages)))
    while not _cut_ok(messages, k):  # on a tool_result: step back onto the assistant that called the tool
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
    results, others = [], []  # tool_results first, then any text: the API wants them in that order
    for part in parts:
        for b in ([text_block(part)] if isinstance(part, str) else _blocks(part)):
            (results if b.get("type") == "tool_result" else others).append(b)
    return {"role": "user", "content": results + others}


def join(head: list, middle: str | dict, tail: list) -> list:
    """`head + [middle] + tail` with `middle` merged into user neighbours, so roles still alternate.

    Example: join([user], '[snipped 2 messages]', [asst, ...]) -> [user + marker, asst, ...]
    """
    check_history(head)
    check_history(tail)
    if not isinstance(middle, str):
        check_message(middle)
    out = list(head)
    parts = [middle]
    if out and out[-1]["role"] == "user":  # head ends on user: the middle joins that message
        parts.insert(0, out.pop())
    rest = list(tail)
    if rest and rest[0]["role"] == "user":  # tail starts on user: that message joins the middle
        parts.append(rest.pop(0))
    return out + [merge_user(*parts)] + rest  # valid as long as head ends and tail starts at safe cuts


def oldest_turn(messages: list, start: int = 1) -> int:
    """How many messages the oldest whole turn at `start` spans (2), or 0 if there is none.

    Example: oldest_turn([user, asst, user, asst]) -> 2;  oldest_turn([user, asst]) -> 0
    """
    check_history(messages)
    check_int(start, "start", 0)
    return _turn_at(messages, start)


def _turn_at(messages: list, start: int) -> int:
    # A turn: an assistant message and the user message answering it. Dropping both orphans no tool_result,
    # leaves no tool_use unanswered, and the message before is still followed by an assistant message.
    if start + 1 < len(messages) and messages[start]["role"] == "assistant" \
            and messages[start + 1]["role"] == "user":
        return 2
    return 0
