"""Layer 1, micro-compact: every tool result but the newest few becomes a one-line placeholder.

Example: micro_compact(history with 5 read_file results of 2,000 characters, keep_recent=3, where="s.jsonl")
  -> the first 2 become "[Previous: used read_file] (full result in s.jsonl)", the last 3 are untouched
"""

from __future__ import annotations

import os

from lessonkit import tokens
from s01_loop import check_history, check_type, short_repr
from s05_budget import persisted_path, result_text

KEEP_RECENT = 3    # the newest tool results kept whole (counted in results, not turns; of every tool)
MIN_CHARS = 100    # a result this short is left as it is
PLACEHOLDER = "[Previous: used {tool_name}]"
_DONE = PLACEHOLDER.split("{")[0]  # "[Previous: used "


def placeholder(tool_name: str, where: str | None = None) -> str:
    """Example: placeholder('bash', 'log.jsonl') -> '[Previous: used bash] (full result in log.jsonl)'"""
    check_type(tool_name, str, "tool_name")
    if where is not None:
        check_type(where, (str, os.PathLike), "where")
    text = PLACEHOLDER.format(tool_name=tool_name)
    return f"{text} (full result in {where})" if where else text


def check_micro(keep_recent: int, min_chars: int) -> None:
    for name, value in (("keep_recent", keep_recent), ("min_chars", min_chars)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{name} must be a whole number >= 0, got {short_repr(value)}")


def micro_plan(messages: list, keep_recent: int = KEEP_RECENT, *, min_chars: int = MIN_CHARS,
               where: str | None = None) -> list[tuple[dict, str]]:
    """What micro_compact would do: (tool_result block, its placeholder) pairs, oldest first."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    check_micro(keep_recent, min_chars)
    # 1. One pass: remember each tool_use's name, collect every tool_result block in order.
    names, results = {}, []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":  # a tool_use always comes before its result
                # Fixed from the seed: its _find_tool_name tested hasattr(block, "id") on dicts (always
                # False: every placeholder said "used tool") and rescanned the history per result (O(n^2)).
                names[block.get("id")] = block.get("name") or "tool"
            elif block.get("type") == "tool_result" and message.get("role") == "user":
                results.append(block)
    # 2. Everything but the newest `keep_recent` results is a candidate ...
    plan = []
    for block in results[:-keep_recent] if keep_recent else results:
        content = block.get("content", "")
        text = result_text(content)  # fixed from the seed: it measured str(content), a list's repr
        if text.startswith(_DONE):
            continue  # compacted on an earlier turn
        has_other = isinstance(content, list) and any(b.get("type") != "text" for b in content)
        if len(text) <= min_chars and not has_other:
            continue  # ... if it is long
        # 3. The placeholder names the tool and where the full text is kept; it must be cheaper.
        short = placeholder(names.get(block.get("tool_use_id"), "tool"), persisted_path(content) or where)
        # Fixed from the seed: a short result of short words can be cheaper than the placeholder: keep it.
        if tokens.count_content(short) < tokens.count_content(content):
            plan.append((block, short))
    return plan


def micro_compact(messages: list, keep_recent: int = KEEP_RECENT, *, min_chars: int = MIN_CHARS,
                  where: str | None = None) -> list:
    """Replace old, long tool results with placeholders; return `messages`, changed IN PLACE (no API call)."""
    # `where`: the file with the full results (the session transcript); a persisted result (s05) names its own.
    for block, short in micro_plan(messages, keep_recent, min_chars=min_chars, where=where):
        block["content"] = short  # a rewrite of an old message: the prompt cache is read up to here only
    return messages
