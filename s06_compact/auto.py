"""s06 · Layer 3, auto-compact: over a token threshold, replace the history with its summary.

Motto: compact before the context is full, and stop trying when compacting keeps failing.

    before every request:
    estimate_tokens(history) >= THRESHOLD ?
       no ──> send as is
       yes ─> breaker open (MAX_FAILURES failures in a row)? ── yes ──> send as is (uncompacted)
                 │ no
                 v
              summarize (1 API call) ── fails ──> breaker.failure(), send as is
                 │ ok
                 v
              history on disk (session transcript, or a new snapshot file)
              history := [ "[Compacted] ... summary ... Continue ..." ]   (one user message)

Example: 60 messages, ~55,000 tokens, threshold 50,000
  -> [{"role": "user", "content": "[Compacted] 60 earlier messages were summarized ..."}]

Fixed from the seed: the failure counter was a module global, shared by every
agent in the process (one broken session would switch compaction off for all);
here it is a `CircuitBreaker` the caller owns (the s06 Agent keeps one).

`auto_compact` never changes its argument: it returns either the same list
(nothing to do, or it failed) or a new one-message list.

Not modeled: a threshold relative to the model's window (it is absolute here;
s08 derives it), retry with backoff (the SDK already retries 429/5xx).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from lessonkit import tokens
from s01_loop import check_history, short_repr

from .summary import SUMMARY_MAX_TOKENS, summarize, summary_message
from .transcript import Transcript, new_session_path

THRESHOLD = 50_000   # estimated tokens that trigger a compaction
MAX_FAILURES = 3     # consecutive failed summary calls that open the breaker
MIN_MESSAGES = 2     # a shorter history has nothing to summarize
BYTES_PER_TOKEN = 4


def estimate_tokens(messages: list) -> int:
    """Rough tokens: the history's JSON in UTF-8 bytes, divided by 4.

    The seed's `len(str(messages)) // 4`, on UTF-8 bytes so that CJK text (3
    bytes a character, about 1 token) is not undercounted fourfold. Cheap and
    blind: within about 25% of lessonkit.tokens (what the offline model bills)
    on English and code. s08 replaces it with a calibrated estimator.
    Example: estimate_tokens([{"role": "user", "content": "hello"}]) -> 10
    """
    check_history(messages)  # refuses a value nested deeper than any history: no RecursionError below
    data = json.dumps(messages, ensure_ascii=False, default=str).encode("utf-8")
    return math.ceil(len(data) / BYTES_PER_TOKEN)


@dataclass
class CircuitBreaker:
    """Counts consecutive failures; `open` after `max_failures` of them. A success closes it."""
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
    """The summary of `messages` as a new one-message history (seed: full_compact).

    Where the dropped messages stay: `transcript`, the session's append-only log
    (it already holds them all), or else a snapshot written to a new file in
    `transcript_dir` once the summary is in hand. Raises if the summary call
    fails. A summary no smaller (in tokens) than the history is not worth the
    history it replaces: then `messages` itself comes back, and no file is written.
    `where`: how the summary names `transcript` (the agent: relative to its workspace,
    as read_file takes it); by default its path.
    """
    check_history(messages)  # a malformed history: one ValueError naming the message
    if transcript is None and transcript_dir is None:
        raise ValueError("compaction needs a transcript or a transcript_dir to keep what it drops")
    where = (where or str(transcript.path)) if transcript is not None else None
    summary = summarize(messages, client=client, model=model, focus=focus, where=where, max_tokens=max_tokens)
    snapshot = Transcript(new_session_path(transcript_dir)) if transcript is None else None
    compacted = [summary_message(summary, where or str(snapshot.path), len(messages))]
    if tokens.count_messages(compacted) >= tokens.count_messages(messages):
        if snapshot is not None:
            snapshot.path.unlink()  # claimed empty, never used
        return messages
    if snapshot is not None:
        snapshot.extend(messages)
    return compacted


def auto_compact(messages: list, *, client, model: str, threshold: int = THRESHOLD, transcript_dir=None,
                 transcript=None, breaker: CircuitBreaker | None = None, focus: str | None = None,
                 force: bool = False, max_tokens: int = SUMMARY_MAX_TOKENS, where: str | None = None) -> list:
    """Compact when the estimate reaches `threshold` (or `force`); else return `messages` itself.

    With a `breaker`, a failed summary call is counted and the history comes back
    unchanged; once the breaker is open, automatic compaction is not tried again
    (a forced one, the model's own request, still is). Without a breaker the
    error is raised. `where`: see compact_history.
    """
    check_history(messages)  # a malformed history: one ValueError naming the message
    check_threshold(threshold)
    if transcript is None and transcript_dir is None:
        raise ValueError("auto_compact needs transcript_dir (or a session transcript) to keep what it drops")
    if len(messages) < MIN_MESSAGES or not (force or needs_compaction(messages, threshold, breaker)):
        return messages
    try:
        compacted = compact_history(messages, client=client, model=model, transcript_dir=transcript_dir,
                                    transcript=transcript, focus=focus, max_tokens=max_tokens, where=where)
    except Exception as exc:  # an API error, a timeout, an empty summary: the loop goes on uncompacted
        if breaker is None:
            raise
        breaker.failure(exc)
        return messages
    if breaker is not None:
        breaker.success()
    return compacted
