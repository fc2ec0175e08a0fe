"""The four-layer ContextCompactor: estimate, cut safely, summarise into a rolling summary, truncate.

Motto: summarise gently first; drop whole turns only in an emergency.

    compact(history)
      │ layer 1  TokenEstimator.estimate              (should_compact: over 80%?)
      │ layer 2  find_safe_cut(history, keep)         keep = newest messages within 50%
      │ layer 3  SummaryBuffer + 1 summary request:   history[:cut] -> "[Summary] …" message
      │              rolling: the prompt carries the previous summary
      │ still over 95%?
      └ layer 4  emergency_truncate                   drop oldest whole turns until under 50%,
                                                      "[Truncated N messages]" in the first message

Both layers change `history` in place (as the seed's MutableList) and return a
CompactEvent, or None when they changed nothing.

Where the seed would break on the Messages API, and what this module does instead:
  * The seed sends the summary as a SYSTEM message in front of the kept messages. The
    API has no system messages inside `messages`, and the kept part usually starts with
    an assistant turn (an agent's only plain user message is its first), so a request
    built that way starts with `assistant`: a 400. Here the summary is the first user
    message, "[Summary]\n…", merged with the kept part's first message when that is a
    user message, so roles alternate and the first message is user, in every case.
  * emergencyTruncate cuts at findSafeCut(history, size - 1), i.e. index 1: it drops
    the first user message (the task!), leaving a history that starts with `assistant`,
    and on the next pass the cut steps back to 0 and the loop gives up. Here it drops
    whole turns after the first message and marks the first message instead.
  * The seed returns an event from emergencyTruncate even when nothing was removed;
    the MAX_TOKENS retry then sees "compacted" forever. Here no change means None.
  * A summary longer than what it replaces is discarded (the seed would swap three
    short messages for a 2,048-token summary).

Example: 40 messages at 85% of the window -> compact() -> [Summary] + the newest ~50%,
         CompactEvent(SUMMARIZE, 40 -> 11, 6800 -> 3900 tokens, summary_text=…)

Not modeled: summarising in the background, or summarising with a cheaper model.
"""

from __future__ import annotations

import re

import anthropic

from lessonkit.tokens import count_messages
from s01_loop import check_history
from s07_reactive.pairs import blocks, join, oldest_turn, text_block

from .boundary import TokenEstimator, find_safe_cut
from .config import CompactEvent, CompactionConfig, CompactLayer
from .summary import SUMMARY_TAG, SummaryBuffer

SUMMARY_ATTEMPTS = 3
RETRYABLE = (anthropic.APIConnectionError, anthropic.RateLimitError, anthropic.InternalServerError)
TRUNCATED = "[Truncated {n} messages]"  # "[Truncated 1 message]" for one (_mark_truncated)
_TRUNCATED = re.compile(r"^\[Truncated (\d+) messages?\]")


class SummaryFailed(RuntimeError):
    """The summary request failed SUMMARY_ATTEMPTS times in a row."""


class ContextCompactor:
    """The seed's ContextCompactor, for Messages-API histories of plain dicts."""

    def __init__(self, client, config: CompactionConfig | None = None, *, model: str | None = None,
                 transcript=None):
        from lessonkit import model_id

        self.client = client
        self.config = config or CompactionConfig()
        self.model = model or model_id()
        self.transcript = transcript  # where dropped messages stay (named in the texts we write)
        self.buffer = SummaryBuffer()
        self.last_events: list[CompactEvent] = []  # every event of the last compact() call
        self.last_error: Exception | None = None   # the last summary failure (kept after successes)
        # Callbacks for the loop (s08's Agent): before_layer(layer, history) before a layer
        # changes the history, after_layer(event, history) once it has (the seed's onCompact).
        self.before_layer = self.after_layer = None

    def _before(self, layer: CompactLayer, history: list) -> None:
        if self.before_layer:
            self.before_layer(layer.value, history)

    def _after(self, event: CompactEvent, history: list) -> CompactEvent:
        if self.after_layer:
            self.after_layer(event, history)
        return event

    # ---- layer 1 ---------------------------------------------------------------
    def estimate_tokens(self, messages: list) -> int:
        return TokenEstimator.estimate(messages)

    def should_compact(self, messages: list) -> bool:
        """True when the estimate reaches compact_trigger_ratio of the window."""
        return self.estimate_tokens(messages) >= self.config.compact_threshold

    # ---- layers 2-4 ------------------------------------------------------------
    def keep_recent_count(self, history: list) -> int:
        """How many newest messages fit in keep_recent_ratio of the window (at least 1)."""
        budget, used, count = self.config.keep_recent_tokens, 0, 0
        for message in reversed(history):
            used += TokenEstimator.estimate_one(message)
            if used > budget:
                break
            count += 1
        return max(count, 1)

    def compact(self, history: list, keep_recent_count: int | None = None) -> CompactEvent | None:
        """Summarise what is before the safe cut; then, if still over 95%, truncate. The last event, or None.

        `keep_recent_count` overrides the count kept verbatim (default: what fits in 50% of the window).
        """
        check_history(history)  # a malformed history: one ValueError naming the message
        self.last_events = []
        if len(history) < self.config.min_history_to_compact:
            return None  # too short to be worth a summary
        event = self.summarize(history, keep_recent_count)
        if event:
            self.last_events.append(event)
        event = self.emergency_truncate(history)
        if event:
            self.last_events.append(event)
        return self.last_events[-1] if self.last_events else None

    def summarize(self, history: list, keep_recent_count: int | None = None) -> CompactEvent | None:
        """Layers 2-3: history[:cut] folded into the rolling summary, as the first user message."""
        check_history(history)  # a malformed history: one ValueError naming the message
        tokens_before, messages_before = self.estimate_tokens(history), len(history)
        keep = self.keep_recent_count(history) if keep_recent_count is None else keep_recent_count
        cut = find_safe_cut(history, keep)
        old = history[:cut]
        if cut <= 0 or not self.buffer.render(old):
            return None  # nothing to cut safely, or only an earlier summary before the cut
        self._before(CompactLayer.SUMMARIZE, history)
        try:
            text = self.ask_summary(self.buffer.build_summary_prompt(old))
        except SummaryFailed as exc:
            self.last_error = exc
            return None
        note = f"\n\n(Earlier messages are in the session transcript: {self.transcript})" \
            if self.transcript else ""
        compacted = join([], f"{SUMMARY_TAG}\n{text}{note}", history[cut:])
        if self.estimate_tokens(compacted) >= tokens_before or count_messages(compacted) > count_messages(history):
            return None  # the summary would cost more than what it replaces, by the estimate or the model's count
        history[:] = compacted
        self.buffer.update(text)
        return self._after(CompactEvent(CompactLayer.SUMMARIZE, messages_before, len(history), tokens_before,
                                        self.estimate_tokens(history), text), history)

    def ask_summary(self, prompt: str) -> str:
        """One summary request (no tools), tried up to SUMMARY_ATTEMPTS times.

        Only failures that may pass are retried (overloaded, rate limit, server or network
        errors); a 400 would fail the same way again, so it ends the attempts at once.
        """
        for _ in range(SUMMARY_ATTEMPTS):
            try:
                response = self.client.messages.create(
                    model=self.model, max_tokens=self.config.summary_max_tokens,
                    messages=[{"role": "user", "content": prompt}])
            except RETRYABLE as exc:
                error: Exception = exc
                continue
            except anthropic.APIError as exc:
                raise SummaryFailed(f"summary request refused: {type(exc).__name__}: {exc}") from exc
            text = "\n".join(b.text for b in response.content if b.type == "text").strip()
            if text:
                return text
            error = ValueError("the summary came back empty")
        raise SummaryFailed(f"summary request failed {SUMMARY_ATTEMPTS} times; last error: "
                            f"{type(error).__name__}: {error}") from error

    def emergency_truncate(self, history: list) -> CompactEvent | None:
        """Layer 4: at 95% or more, drop the oldest whole turns until under 50% (or min_history)."""
        check_history(history)  # a malformed history: one ValueError naming the message
        config, tokens_before = self.config, self.estimate_tokens(history)
        if tokens_before < config.emergency_threshold:
            return None  # not an emergency
        kept, removed = list(history), 0
        while len(kept) > config.min_history_to_compact and self.estimate_tokens(kept) > config.keep_recent_tokens:
            span = oldest_turn(kept, 1)  # never the first message: it is the task or the summary
            if not span or len(kept) - span < config.min_history_to_compact:
                break
            del kept[1:1 + span]
            removed += span
        if not removed:
            return None
        kept[0] = self._mark_truncated(kept[0], removed)
        if self.estimate_tokens(kept) >= tokens_before:
            return None  # the marker would cost more than the few tiny turns it replaces
        self._before(CompactLayer.TRUNCATE, history)
        messages_before = len(history)
        history[:] = kept
        return self._after(CompactEvent(CompactLayer.TRUNCATE, messages_before, len(history), tokens_before,
                                        self.estimate_tokens(history)), history)

    def _mark_truncated(self, first: dict, removed: int) -> dict:
        """The first message with its "[Truncated N messages]" block added or its count raised.

        The marker goes first: the task or summary after it stays the last thing the user said.
        """
        rest, total = [], removed
        for b in blocks(first):
            m = _TRUNCATED.match(b.get("text", "")) if b.get("type") == "text" else None
            if m:
                total += int(m.group(1))
            else:
                rest.append(b)
        note = f" Full text in the session transcript: {self.transcript}" if self.transcript else ""
        marker = TRUNCATED.format(n=total) if total != 1 else "[Truncated 1 message]"
        return {"role": "user", "content": [text_block(marker + note)] + rest}
