"""Small history edits the arena's strategies share: copy-on-write, pair-safe, plain dicts.

Motto: never touch the recorded history; build the few new dicts a strategy needs.

    history (shared, read-only)      view (the strategy's own list)
    [m0, m1, m2, m3, ...]      ->    [m0, m1, m2', m3, ...]      m2' = m2 with one tool_result replaced

Example: replace_result({"role": "user", "content": [r0, r1]}, 1, "[cleared]")
  -> {"role": "user", "content": [r0, {**r1, "content": "[cleared]"}]}     (r0 shared, input untouched)

Not modeled: images inside results (they are replaced like text when cleared).
"""

from __future__ import annotations

import json


def blocks(message: dict) -> list:
    content = message.get("content")
    return content if isinstance(content, list) else []


def result_text(block: dict) -> str:
    """The text of a tool_result's content (string or list of text blocks)."""
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or []
                     if isinstance(b, dict) and b.get("type") == "text")


def result_positions(messages: list) -> list[tuple[int, int]]:
    """(message index, block index) of every tool_result, oldest first."""
    return [(i, k) for i, m in enumerate(messages) if m.get("role") == "user"
            for k, b in enumerate(blocks(m)) if b.get("type") == "tool_result"]


def replace_result(message: dict, k: int, content) -> dict:
    """A copy of `message` whose block `k` (a tool_result) has `content`; other blocks shared."""
    new = list(message["content"])
    new[k] = {key: value for key, value in new[k].items() if key != "cache_control"}
    new[k]["content"] = content
    return {**message, "content": new}


def tool_names(messages: list) -> dict[str, str]:
    """tool_use id -> tool name, for every call in the messages."""
    return {b.get("id"): b.get("name", "tool") for m in messages if m.get("role") == "assistant"
            for b in blocks(m) if b.get("type") == "tool_use"}


def has_text(message: dict) -> bool:
    """True for a user message that carries words (a request), not only tool results."""
    content = message.get("content")
    if isinstance(content, str):
        return bool(content.strip())
    return any(b.get("type") == "text" and b.get("text", "").strip() for b in content or [])


def is_results(message: dict) -> bool:
    """True for a user message that answers tool calls."""
    return message.get("role") == "user" and any(b.get("type") == "tool_result" for b in blocks(message))


def safe_start(messages: list, cut: int) -> int:
    """The nearest index >= cut where a kept suffix starts with an assistant message.

    A suffix that starts with tool results would orphan them; one that starts with
    a user request would follow another user message (the summary). Example:
    [u, a, r, a, r] with cut=2 -> 3
    """
    while cut < len(messages) and messages[cut].get("role") != "assistant":
        cut += 1
    return cut


def with_text_first(message: dict, text: str) -> dict:
    """A user message with `text` added as its first text block (after any tool_result)."""
    content = message.get("content")
    content = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    results = [b for b in content if b.get("type") == "tool_result"]
    rest = [b for b in content if b.get("type") != "tool_result"]
    return {"role": "user", "content": results + [{"type": "text", "text": text}] + rest}


def truncate_middle(text: str, limit: int, marker: str = "\n[... truncated ...]\n") -> str:
    """Head and tail halves of `text` if it is longer than `limit` characters."""
    if limit is None or len(text) <= limit:
        return text
    half = limit // 2
    return text[:half] + marker + text[-half:]


def render(messages: list, *, limit: int | None = None, tag: str | None = None, start: int = 0) -> str:
    """Messages as one JSON object per line (tool results cut to `limit` chars), for a summary prompt.

    With `tag` each message is wrapped as <tag id=N>...</tag>, as OpenHands writes events.
    The offline summariser reads such a dump back (offline.conversation.pasted.from_json_dump).
    """
    out = []
    for n, msg in enumerate(messages, start):
        content = msg.get("content")
        if isinstance(content, list) and limit is not None:
            content = [dict(b, content=truncate_middle(result_text(b), limit))
                       if b.get("type") == "tool_result" else b for b in content]
        content = [{k: v for k, v in b.items() if k != "cache_control"} for b in content] \
            if isinstance(content, list) else content
        line = json.dumps({"role": msg.get("role"), "content": content}, ensure_ascii=False)
        out.append(f"<{tag} id={n}>\n{line}\n</{tag}>" if tag else line)
    return "\n".join(out)
