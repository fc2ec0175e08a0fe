"""The four-layer ContextCompactor: estimate, cut safely, fold the old part into a rolling summary, truncate.

Example: 40 messages at 85% of the window -> compact() -> [Summary] + the newest ~50%,
         CompactEvent(SUMMARIZE, 40 -> 11, 6800 -> 3900 tokens, summary_text=…)
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
        """Layers 2-4 on `history`, in place (as the seed's MutableList): the last CompactEvent, or None."""
        check_history(history)  # a malformed history: one ValueError naming the message
        self.last_events = []
        if len(history) < self.config.min_history_to_compact:
            return None  # too short to be worth a summary
        # Layers 2-3: cut safely, fold what is before the cut into the rolling summary (1 API call). Kept
        # verbatim: `keep_recent_count` newest messages, by default what fits in 50% of the window.
        event = self.summarize(history, keep_recent_count)
        if event:
            self.last_events.append(event)
        event = self.emergency_truncate(history)  # layer 4: still over 95%? drop the oldest whole turns
        if event:
            self.last_events.append(event)
        return self.last_events[-1] if self.last_events else None

    def summarize(self, history: list, keep_recent_count: int | None = None) -> CompactEvent | None:
        """Layers 2-3: history[:cut] folded into the rolling summary, as the first user message."""
        check_history(history)  # a malformed history: one ValueError naming the message
        tokens_before, messages_before = self.estimate_tokens(history), len(history)
        keep = self.keep_recent_count(history) if keep_recent_count is None else keep_recent_count
        cut = find_safe_cut(history, keep)  # layer 2: never between a tool_use and its result
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
        # Fixed from the seed: it sent the summary as a SYSTEM message before the kept part. `messages` holds no
        # system messages, and the kept part usually starts with `assistant`: a 400. Here the summary is the
        # first user message, merged into the kept part's first message when that is a user one.
        compacted = join([], f"{SUMMARY_TAG}\n{text}{note}", history[cut:])
        # Fixed from the seed: it would swap three short messages for a 2,048-token summary. Here a summary that
        # costs more than what it replaces (by the estimate, or the model's count) is discarded.
        if self.estimate_tokens(compacted) >= tokens_before or count_messages(compacted) > count_messages(history):
            return None
        history[:] = compacted
        self.buffer.update(text)  # rolling: the next summary starts from this one
        return self._after(CompactEvent(CompactLayer.SUMMARIZE, messages_before, len(history), tokens_before,
                                        self.estimate_tokens(history), text), history)

    def ask_summary(self, prompt: str) -> str:
        """One summary request (no tools), tried up to SUMMARY_ATTEMPTS times; SummaryFailed after that."""
        # Not modeled: summarising in the background, or with a cheaper model.
        for _ in range(SUMMARY_ATTEMPTS):
            try:
                response = self.client.messages.create(
                    model=self.model, max_tokens=self.config.summary_max_tokens,
                    messages=[{"role": "user", "content": prompt}])
            except RETRYABLE as exc:  # overloaded, rate limit, server or network: may pass, try again
                error: Exception = exc
                continue
            except anthropic.APIError as exc:  # a 400 would fail the same way again: stop at once
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
        # Fixed from the seed: its emergencyTruncate cut at findSafeCut(history, size - 1), index 1: it dropped
        # the first user message (the task), left a history starting with `assistant`, and on the next pass
        # the cut stepped back to 0 and it gave up. Here whole turns after the first message go, and the first
        # message is marked instead.
        kept, removed = list(history), 0
        while len(kept) > config.min_history_to_compact and self.estimate_tokens(kept) > config.keep_recent_tokens:
            span = oldest_turn(kept, 1)  # never the first message: it is the task or the summary
            if not span or len(kept) - span < config.min_history_to_compact:
                break
            del kept[1:1 + span]
            removed += span
        if not removed:  # fixed from the seed: it returned an event here, so the MAX_TOKENS retry looped for ever
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
        """The first message with its "[Truncated N messages]" block added or its count raised."""
        rest, total = [], removed
        for b in blocks(first):
            m = _TRUNCATED.match(b.get("text", "")) if b.get("type") == "text" else None
            if m:
                total += int(m.group(1))
            else:
                rest.append(b)
        note = f" Full text in the session transcript: {self.transcript}" if self.transcript else ""
        marker = TRUNCATED.format(n=total) if total != 1 else "[Truncated 1 message]"
        return {"role": "user", "content": [text_block(marker + note)] + rest}  # marker first: the task stays last
