"""Plausible wrong micro_compact answers, each with the words its report must say.

    seeds_micro        the seed: hasattr(block, "id") on a dict, str(content), results[:-0], O(n²)
    names_by_scan      right names, found by a scan of the history per result
    minus_zero         results[:-keep_recent], which is empty for keep_recent=0
    measures_str       len(str(content)): a list of blocks measured with its brackets and keys
    characters_only    characters counted, tokens not
    rebuilds_blocks    right placeholders, each block rebuilt without is_error
    returns_a_copy     right placeholders, on a copy
    two_passes         right placeholders, a pass for the names and another for the results

Example: exercise.check(minus_zero) -> ✗ micro_compact: 8/9 cases pass
  ✗ keep_recent=0: result 1 of 3 (read_file) was kept (2,250 characters), expected '[Previous: used
    read_file]': with keep_recent=0 every result is old (note that results[:-0] is an empty list)
"""

from __future__ import annotations

import copy

from lessonkit.tokens import count_content
from s06_compact import micro_compact

from .. import Mistake
from .micro_verdicts import _text, placeholder


def _uses(messages) -> dict:
    return {b["id"]: b["name"] for m in messages if m["role"] == "assistant" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_use"}


def _result_blocks(messages) -> list:
    return [b for m in messages if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_result"]


def _worth_it(block) -> bool:
    text = _text(block["content"])
    return len(text) > 100 and count_content(block["content"]) > count_content(placeholder("read_file"))


def seeds_micro(messages, keep_recent=3):
    """The seed (seed 000): hasattr(block, "id") on a dict, str(content), results[:-0], O(n²)."""
    results = _result_blocks(messages)
    if len(results) <= keep_recent:
        return messages
    for block in results[:-keep_recent]:
        if len(str(block.get("content", ""))) > 100:
            name = next((b.name for m in messages if m["role"] == "assistant" for b in m["content"]
                         if hasattr(b, "id") and b.id == block["tool_use_id"]), "tool")
            block["content"] = placeholder(name)
    return messages


def names_by_scan(messages, keep_recent=3):
    """The names fixed by a scan per result: right placeholders, O(n²) walks."""
    results = _result_blocks(messages)
    for block in (results[:-keep_recent] if keep_recent else results):
        if _worth_it(block):
            name = next((b["name"] for m in messages if m["role"] == "assistant" for b in m["content"]
                         if b.get("type") == "tool_use" and b["id"] == block["tool_use_id"]), "tool")
            block["content"] = placeholder(name)
    return messages


def minus_zero(messages, keep_recent=3):
    """results[:-keep_recent]: with keep_recent=0 that is results[:0], nothing."""
    names = _uses(messages)
    for block in _result_blocks(messages)[:-keep_recent]:
        if _worth_it(block):
            block["content"] = placeholder(names.get(block["tool_use_id"], "tool"))
    return messages


def measures_str(messages, keep_recent=3):
    """len(str(content)): a list of blocks is measured with its brackets and keys."""
    names, results = _uses(messages), _result_blocks(messages)
    for block in (results[:-keep_recent] if keep_recent else results):
        if len(str(block["content"])) > 100:
            block["content"] = placeholder(names.get(block["tool_use_id"], "tool"))
    return messages


def characters_only(messages, keep_recent=3):
    """Counts characters only: a result that is long but cheap in tokens is replaced anyway."""
    names, results = _uses(messages), _result_blocks(messages)
    for block in (results[:-keep_recent] if keep_recent else results):
        if len(_text(block["content"])) > 100:
            block["content"] = placeholder(names.get(block["tool_use_id"], "tool"))
    return messages


def rebuilds_blocks(messages, keep_recent=3):
    """Right placeholders, but each block is rebuilt without its other fields (is_error)."""
    micro_compact(messages, keep_recent)
    for m in messages:
        if isinstance(m["content"], list):
            m["content"] = [{"type": "tool_result", "tool_use_id": b["tool_use_id"], "content": b["content"]}
                            if b.get("type") == "tool_result" else b for b in m["content"]]
    return messages


def returns_a_copy(messages, keep_recent=3):
    """Right placeholders, on a copy."""
    return micro_compact(copy.deepcopy(list(messages)), keep_recent)


def two_passes(messages, keep_recent=3):
    """Right in every way but one: a first pass for the names, a second for the results."""
    names = _uses(messages)
    results = _result_blocks(messages)
    for block in results[:max(0, len(results) - keep_recent)]:
        name = names.get(block["tool_use_id"], "tool")
        if _worth_it(block):
            block["content"] = placeholder(name)
    return messages


MISTAKES = (
    Mistake("the seed: every placeholder says 'used tool'", seeds_micro,
            "became '[Previous: used tool]', expected '[Previous: used bash]': the name comes from"),
    Mistake("a scan of the history per result", names_by_scan, "walked the history 5 times for 6 results"),
    Mistake("results[:-keep_recent] with keep_recent=0", minus_zero, "result 1 of 3 (read_file) was kept"),
    Mistake("str() of a list of blocks", measures_str, "(80 characters of text, in a list of blocks)"),
    Mistake("characters counted, tokens not", characters_only,
            "result 1 of 4 (read_file) became '[Previous: used read_file]', expected it kept as it was "
            "(152 characters)"),
    Mistake("blocks rebuilt without is_error", rebuilds_blocks, "its other fields became"),
    Mistake("two passes: the names, then the results", two_passes, "walked the history 2 times: the task asks"),
    Mistake("works on a copy", returns_a_copy, "returned a list, not the history it was given"),
)
