"""Reactive compaction: when the API says "prompt is too long", summarise the head, keep a safe tail, retry.

Example: reactive_compact([u0, a1, u1, …, a11, u11], client=c, model=m, transcript=t, keep_tail=5)
  -> [user "[Reactive compact] 17 earlier messages were summarized … Continue …", a9, u9, a10, u10, a11, u11]
     (the newest 5, moved back to a safe cut: the tail starts at a9, never at u9's lone tool_result)
"""

from __future__ import annotations

import json
import re
import sys

import anthropic

from lessonkit.tokens import count_messages, count_text
from s01_loop import check_history, check_int
from s06_compact import Transcript, new_session_path, summarize
from s06_compact.summary import CONTINUE

from .pairs import join, oldest_turn, safe_cut

KEEP_TAIL = 5          # newest messages kept verbatim (moved back to a safe cut)
MAX_ATTEMPTS = 3       # summary requests, in all, before giving up
MARGIN_RATIO = 0.1     # of the maximum: room left for the summary itself
TAG = "[Reactive compact]"
_TOO_LONG = re.compile(r"prompt is too long: (\d+) tokens > (\d+) maximum")


class ReactiveCompactError(RuntimeError):
    """Reactive compaction could not bring the request under the context window."""


def prompt_too_long(error) -> tuple[int, int] | None:
    """(tokens sent, maximum) from a prompt-too-long error, else None.

    Example: BadRequestError("... prompt is too long: 9120 tokens > 8000 maximum ...") -> (9120, 8000)
    """
    if not isinstance(error, anthropic.BadRequestError):
        return None
    m = _TOO_LONG.search(str(getattr(error, "message", "")) + " " + str(error))
    return (int(m.group(1)), int(m.group(2))) if m else None


def drop_oldest_turns(messages: list, need_tokens: int) -> tuple[list, int]:
    """Whole turns after the first message dropped, oldest first, until they weigh `need_tokens`.

    Example: drop_oldest_turns([u0, a1, u1, a2, u2], 10) -> ([u0, a2, u2], 2)   (if a1+u1 weigh >= 10)
    """
    check_history(messages)  # a malformed history: one ValueError naming the message
    check_int(need_tokens, "need_tokens", 0)
    kept, freed, dropped = list(messages), 0, 0
    while freed < need_tokens and (span := oldest_turn(kept, 1)):
        # weighed as the JSON text the summary request carries
        freed += sum(count_text(json.dumps(m, ensure_ascii=False, default=str)) for m in kept[1:1 + span])
        del kept[1:1 + span]
        dropped += span
    return kept, dropped


def tail_start(messages: list, keep_tail: int, budget: int | None = None) -> int:
    """Where the kept tail starts: up to keep_tail newest messages, at a safe cut, leaving a head.

    Example: [u0, a1, u1, a2, u2, a3, u3], keep_tail=3 -> 3   (index 4 is a tool_result: step back)
    """
    check_history(messages)
    check_int(keep_tail, "keep_tail", 0)
    if budget is not None:
        check_int(budget, "budget", 0)
    cuts = [c for keep in range(keep_tail, 0, -1) if (c := safe_cut(messages, len(messages) - keep)) > 0]
    for cut in cuts:  # the longest tail first, shortened (never below one turn) until it fits the budget
        if budget is None or count_messages(messages[cut:]) <= budget:
            return cut
    return cuts[-1] if cuts else 0


def reactive_compact(messages: list, *, client, model: str, transcript_dir=None, transcript=None,
                     keep_tail: int = KEEP_TAIL, max_attempts: int = MAX_ATTEMPTS,
                     too_long: tuple[int, int] | None = None, where: str | None = None) -> list:
    """A new history: everything before a pair-safe tail replaced by one summary message (or ReactiveCompactError)."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    if keep_tail < 1 or max_attempts < 1:
        raise ValueError(f"keep_tail and max_attempts must be >= 1, got {keep_tail} and {max_attempts}")
    if transcript is None and transcript_dir is None:
        raise ValueError("reactive_compact needs transcript_dir (or the session transcript) to keep what it drops")
    # 1. The tail: at most half the room the messages have (the maximum minus system prompt and tools, which
    #    stay the same), the rest for the summary. `too_long` is the failed request's (tokens, maximum).
    budget = None
    if too_long:
        sent, maximum = too_long
        budget = max(0, maximum - (sent - count_messages(messages))) // 2
    # Fixed from the seed: its [summary, *messages[-5:]] cut by position, so the tail could start on a
    # tool_result whose tool_use was summarised away, or on a user message after the summary's: two 400s.
    cut = tail_start(messages, keep_tail, budget)
    if cut <= 0:
        raise ReactiveCompactError(f"nothing to compact: the history has {len(messages)} message(s) "
                                   "and no earlier turn to summarise")
    head, tail = messages[:cut], messages[cut:]
    if transcript is None:  # no session transcript (which holds every message already): a snapshot of our own
        transcript = Transcript(new_session_path(transcript_dir))
        transcript.extend(messages)
        where = None  # a snapshot of our own: named by its path
    where, left_out = where or str(transcript.path), 0  # `where`: the transcript as the summary names it
    for attempt in range(1, max_attempts + 1):  # 2. the summary of the head (s06's summarize)
        try:  # the whole head as JSON (no character cap: dropping turns must shrink the request)
            summary = summarize(head, client=client, model=model, where=where, max_chars=sys.maxsize)
            break
        except anthropic.BadRequestError as exc:
            limits = prompt_too_long(exc)
            if limits is None:
                raise
            sent, maximum = limits
            if attempt == max_attempts:
                raise ReactiveCompactError(
                    f"reactive compaction gave up: the summary request was still too long after "
                    f"{max_attempts} attempt{'' if max_attempts == 1 else 's'} ({sent} tokens > {maximum} "
                    "maximum)") from None
            # Fixed from the seed: the summary request can be too long itself (it carries what could not be
            # sent); the error's own numbers say how much to drop: (sent - maximum) + 10% of the maximum.
            head, dropped = drop_oldest_turns(head, sent - maximum + int(maximum * MARGIN_RATIO))
            if not dropped:
                raise ReactiveCompactError(
                    f"reactive compaction gave up: the summary request is too long ({sent} tokens > "
                    f"{maximum} maximum) and has no older turn left to drop") from None
            left_out += dropped
    skipped = f" ({left_out} of the oldest did not fit in the summary request.)" if left_out else ""
    what = "1 earlier message was" if cut == 1 else f"{cut} earlier messages were"
    text = (f"{TAG} {what} summarized after the API answered prompt-too-long. "
            f"All of them are kept, one JSON line each, in {where}.{skipped}\n\n{summary}\n\n{CONTINUE}")
    compacted = join([], text, tail)  # 3. merged into the tail's first message when that is a user message
    if count_messages(compacted) >= count_messages(messages):
        raise ReactiveCompactError(f"reactive compaction gave up: the summary of {cut} message"
                                   f"{'' if cut == 1 else 's'} is no smaller than what it replaces")
    return compacted
