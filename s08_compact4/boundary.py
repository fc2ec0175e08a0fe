"""Layers 1 and 2: estimate the tokens of a history, and find where it may be cut.

Example: TokenEstimator.estimate([{"role": "user", "content": "read the file"}]) -> 4
         find_safe_cut([u0, a1, u1(tool_result), a2], 2) -> 1   (2 would orphan u1's result)
"""

from __future__ import annotations

import json

from s01_loop import check_history, check_int, check_message
from s07_reactive.pairs import is_safe_cut

# The seed's heuristic on purpose, no tokenizer: 3 characters ≈ 1 token. Cheap, and it errs on the safe side
# for code and English, badly on the unsafe side for CJK (a character is about a token; it counts a third).
# The kit's real count is lessonkit.tokens; the lesson shows both numbers.
TOKEN_CHAR_RATIO = 3


def _result_chars(content) -> str:
    """The characters of a tool_result's content (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


class TokenEstimator:
    """The seed's `object TokenEstimator`: characters / 3, message by message."""
    # Not modeled: the system prompt and tool schemas (the seed estimates messages only; the 20% of the window
    # above the trigger ratio is their margin), images and documents (0 here).

    @staticmethod
    def estimate_one(message: dict) -> int:
        """Estimated tokens of one message. Example: {'role': 'user', 'content': 'hello world!'} -> 4"""
        check_message(message)  # not a message: one ValueError naming the problem
        content = message.get("content")
        if isinstance(content, str):
            return len(content) // TOKEN_CHAR_RATIO
        chars = 0
        for block in content or []:
            kind = block.get("type")
            if kind == "text":
                chars += len(block.get("text", ""))
            elif kind == "tool_use":  # tool inputs are sent as JSON: they take tokens too
                chars += len(block.get("name", ""))
                chars += len(json.dumps(block.get("input", {}), ensure_ascii=False, separators=(",", ":")))
            elif kind == "tool_result":  # and so do the results, with the id they answer
                chars += len(block.get("tool_use_id", ""))
                chars += len(_result_chars(block.get("content", "")))
        return chars // TOKEN_CHAR_RATIO

    @classmethod
    def estimate(cls, messages: list) -> int:
        """Estimated tokens of a list of messages (the sum over messages)."""
        check_history(messages)
        return sum(cls.estimate_one(m) for m in messages)


def find_safe_cut(messages: list, keep_recent_count: int) -> int:
    """Where to cut so the newest `keep_recent_count` messages (or a few more) stay: 0 = no safe cut."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    check_int(keep_recent_count, "keep_recent_count", 0)
    if keep_recent_count >= len(messages):
        return 0
    cut = len(messages) - keep_recent_count  # the seed's BoundaryDetector.findSafeCut: the ideal cut, then
    while 0 < cut < len(messages) and not is_safe_cut(messages, cut):  # step back off a tool_result
        cut -= 1
    return cut  # a kept part starting on `assistant` gets the "[Summary]" user message in front (compactor.py)
