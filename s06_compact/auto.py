"""Layer 3, auto-compact: over a token threshold, the history becomes one message holding its summary.

Example: 60 messages, ~55,000 tokens, threshold 50,000
  -> [{"role": "user", "content": "[Compacted] 60 earlier messages were summarized ..."}]
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from lessonkit import tokens
from s01_loop import check_history, short_repr

from .summary import SUMMARY_MAX_TOKENS, summarize, summary_message
from .transcript import Transcript, new_session_path

THRESHOLD = 50_000   # estimated tokens that trigger a compaction (absolute here; s08 makes it a share of the window)
MAX_FAILURES = 3     # consecutive failed summary calls that open the breaker
MIN_MESSAGES = 2     # a shorter history has nothing to summarize
BYTES_PER_TOKEN = 4


def estimate_tokens(messages: list) -> int:
    """Rough tokens: the history's JSON in UTF-8 bytes, divided by 4 (within about 25% on English and code).

    Example: estimate_tokens([{"role": "user", "content": "hello"}]) -> 10
    """
    check_history(messages)  # refuses a value nested deeper than any history: no RecursionError below
    # The seed's len(str(messages)) // 4, but in UTF-8 bytes: a CJK character (about 1 token) is 3 of them,
    # so Chinese text is not undercounted fourfold.
    data = json.dumps(messages, ensure_ascii=False, default=str).encode("utf-8")
    return math.ceil(len(data) / BYTES_PER_TOKEN)


@dataclass
class CircuitBreaker:
    """Counts consecutive failures; `open` after `max_failures` of them. A success closes it."""
    # Fixed from the seed: its counter was a module global, shared by every agent in the process (one broken
    # session switched compaction off for all); a breaker belongs to its caller (each s06 Agent has one).
    max_failures: int = MAX_FAILURES
    failures: int = 0
    last_error: BaseException | None = None

    def __post_init__(self):
        if not isinstance(self.max_failures, int) or self.max_failures < 1:
            raise ValueError(f"max_failures must be a whole number >= 1, got {self.max_failures!r}")

    @property
    def open(self) -> bool:
        return self.failures >= self.max_failures

    def failure(self, error: BaseException) -> None:
        self.failures += 1
        self.last_error = error

    def success(self) -> None:
        self.failures, self.last_error = 0, None


def check_threshold(threshold: int) -> None:
    if not isinstance(threshold, int) or isinstance(threshold, bool) or threshold < 0:
        raise ValueError(f"threshold must be a whole number of tokens >= 0, got {short_repr(threshold)}")


def needs_compaction(messages: list, threshold: int = THRESHOLD, breaker: CircuitBreaker | None = None) -> bool:
    """Is an automatic compaction due? Long enough, estimated at `threshold` or more, breaker closed."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    check_threshold(threshold)
    if breaker is not None and not isinstance(breaker, CircuitBreaker):
        raise ValueError(f"breaker must be a CircuitBreaker, got {short_repr(breaker)}")
    return (len(messages) >= MIN_MESSAGES and estimate_tokens(messages) >= threshold
            and not (breaker is not None and breaker.open))


def compact_history(messages: list, *, client, model: str, transcript_dir=None, transcript=None,
                    focus: str | None = None, max_tokens: int = SUMMARY_MAX_TOKENS,
                    where: str | None = None) -> list:
    """The summary of `messages` as a new one-message history (the seed's full_compact); raises if it fails."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    if transcript is None and transcript_dir is None:
        raise ValueError("compaction needs a transcript or a transcript_dir to keep what it drops")
    # Where the dropped messages stay: the session transcript (it holds them all already), or else a snapshot
    # in a new file of transcript_dir. `where` names it in the summary (the agent: as read_file takes it).
    where = (where or str(transcript.path)) if transcript is not None else None
    summary = summarize(messages, client=client, model=model, focus=focus, where=where, max_tokens=max_tokens)
    snapshot = Transcript(new_session_path(transcript_dir)) if transcript is None else None
    compacted = [summary_message(summary, where or str(snapshot.path), len(messages))]
    if tokens.count_messages(compacted) >= tokens.count_messages(messages):  # no smaller: not worth it
        if snapshot is not None:
            snapshot.path.unlink()  # claimed empty, never used
        return messages
    if snapshot is not None:
        snapshot.extend(messages)
    return compacted


def auto_compact(messages: list, *, client, model: str, threshold: int = THRESHOLD, transcript_dir=None,
                 transcript=None, breaker: CircuitBreaker | None = None, focus: str | None = None,
                 force: bool = False, max_tokens: int = SUMMARY_MAX_TOKENS, where: str | None = None) -> list:
    """Compact when the estimate reaches `threshold` (or `force`); else `messages` itself (never changed)."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    check_threshold(threshold)
    if transcript is None and transcript_dir is None:
        raise ValueError("auto_compact needs transcript_dir (or a session transcript) to keep what it drops")
    # 1. Under the threshold, or the breaker open: send as is (`force`, the model's own request, still runs).
    if len(messages) < MIN_MESSAGES or not (force or needs_compaction(messages, threshold, breaker)):
        return messages
    try:  # 2. One API call: the summary; the new history is one user message
        compacted = compact_history(messages, client=client, model=model, transcript_dir=transcript_dir,
                                    transcript=transcript, focus=focus, max_tokens=max_tokens, where=where)
    except Exception as exc:  # an API error, a timeout, an empty summary: the loop goes on uncompacted
        if breaker is None:
            raise
        breaker.failure(exc)  # 3. counted: MAX_FAILURES in a row open the breaker (the SDK did the retries)
        return messages
    if breaker is not None:
        breaker.success()  # a success closes it again
    return compacted
