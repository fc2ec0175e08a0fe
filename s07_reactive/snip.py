"""Snip compaction: a long history keeps its head and its tail; the middle becomes one marker.

Example: snip_compact([m0 .. m59], a task and then tool turns, max_messages=50, keep_head=3)
  -> [m0, m1, m2 + "[snipped 10 messages]", m13, ..., m59]   (50: the tail moved back off m14, a tool_result)
"""

from __future__ import annotations

import re

from lessonkit.tokens import count_messages
from s01_loop import check_history, check_int, check_message

from .pairs import blocks, join, safe_cut

MAX_MESSAGES = 50
KEEP_HEAD = 3
_MARKER = re.compile(r"^\[snipped (\d+) messages?\]")


def marker(n: int) -> str:
    """The text that stands for `n` snipped messages. Example: marker(12) -> '[snipped 12 messages]';
    marker(1) -> '[snipped 1 message]'"""
    check_int(n, "n", 0)  # a count: anything else is one ValueError
    return f"[snipped {n} message{'' if n == 1 else 's'}]"


def snip_compact_raw(messages: list, max_messages: int = MAX_MESSAGES, keep_head: int = KEEP_HEAD) -> list:
    """The seed's snip_compact, verbatim, bug included (for the lesson: the API refuses its output).

    Example: [u0, a1(tool_use), u1(tool_result), a2, ...] -> [u0, a1, u1, "[snipped …]", ...]:
    two user messages in a row, and the tail may start with an orphan tool_result.
    """
    check_history(messages)  # a malformed history: one ValueError naming the message
    check_snip_args(max_messages, keep_head)
    if len(messages) <= max_messages:
        return messages
    keep_tail = max_messages - keep_head
    snipped = len(messages) - keep_head - keep_tail
    return (messages[:keep_head]
            + [{"role": "user", "content": marker(snipped)}]
            + messages[-keep_tail:])


def snipped_count(message: dict) -> int:
    """How many messages the snip markers inside a message stand for. Example: '[snipped 4 messages]' -> 4"""
    check_message(message)
    return sum(int(m.group(1)) for b in blocks(message) if b.get("type") == "text"
               for m in [_MARKER.match(b.get("text", ""))] if m)


def _one_marker(message: dict, note: str) -> dict:
    """Fold several snip markers in one message into a single one that counts them all."""
    total = snipped_count(message)
    out, placed = [], False
    for b in message["content"]:
        if b.get("type") == "text" and _MARKER.match(b.get("text", "")):
            if not placed:
                out.append({"type": "text", "text": marker(total) + note})
                placed = True
            continue
        out.append(b)
    return {"role": "user", "content": out}


def check_snip_args(max_messages: int, keep_head: int) -> None:
    """Raise ValueError for sizes that cannot work (the marker and a tail need 2 places)."""
    check_int(max_messages, "max_messages")
    check_int(keep_head, "keep_head")
    if keep_head < 0:
        raise ValueError(f"keep_head must be >= 0, got {keep_head}")
    if max_messages < keep_head + 2:
        raise ValueError(f"max_messages ({max_messages}) must be at least keep_head + 2 "
                         f"({keep_head + 2}): room for the head, the marker and a tail")


def snip_compact(messages: list, max_messages: int = MAX_MESSAGES, keep_head: int = KEEP_HEAD, *,
                 where: str | None = None) -> list:
    """A new list: the middle of a history longer than `max_messages` replaced by "[snipped N messages]"."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    check_snip_args(max_messages, keep_head)
    if len(messages) <= max_messages:
        return messages  # nothing worth snipping: the list itself (not modeled: snipping by relevance)
    # 1. The head: the first keep_head messages, moved back if it would end on a tool_use.
    head = safe_cut(messages, keep_head)
    # 2. The tail: room for max_messages - head - marker, moved back (one more message)
    #    if it would start on a tool_result; the seed slices here and orphans the result.
    tail = safe_cut(messages, len(messages) - (max_messages - keep_head - 1))
    if tail <= head:
        return messages
    middle = messages[head:tail]
    n = len(middle) + sum(snipped_count(m) for m in middle)
    note = f" Full text in the session transcript: {where}" if where else ""  # nothing is lost
    # 3. The marker goes between; `join` merges it into a user neighbour so roles alternate,
    #    then markers that meet (an earlier snip's and this one's) become one.
    out = join(messages[:head], marker(n) + note, messages[tail:])
    at = head - 1 if head and messages[head - 1]["role"] == "user" else head
    out[at] = _one_marker(out[at], note)
    # 4. A snip that saves nothing (a few tiny messages for a marker) is not worth making.
    if count_messages(out) >= count_messages(messages):
        return messages
    return out
