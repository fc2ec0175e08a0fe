"""s08's compactor measuring in the tokens the bill counts: the recommended pipeline's summary layer.

Motto: a compactor that cuts by one ruler and is billed by another cuts in the wrong place.

    s08 ContextCompactor                    CountedCompactor (this module)
      size of a message: chars / 3            count(message): the arena's counter (Context.message_tokens),
                                              the calibrated per-kind counter on a logged session, and
                                              a stand-in block ("[not in the log: 70,000 tokens attached
                                              ...]") at the tokens it states
      keep: newest messages within 50 %       the same rule, in counted tokens; or, given keep_results
                                              (the pipeline's KEEP), what its clearing keeps: the turns
                                              from the one holding the oldest of the newest KEEP results
                                              (the 50 % budget still the cap)
      "is the summary smaller?": chars / 3    counted tokens, both sides
        and the plain count
      the summary call: the prompt only       the prompt, plus each stand-in block it folds away (what
                                              the summary is written from); billed by the pipeline as the
                                              cache-friendly call (recommended.py, context.bill_summary)

Why. On a Claude Code log the first request carries files the log does not hold (about 70K
tokens on the shared logs), kept as one stand-in line in the first message. Measured in
characters that line is a few tokens: s08 keeps every later message verbatim (they fit its 50 %
of the window), finds no cut, and the summary does nothing, so the pipeline can never drop what
Claude Code's own summary drops. Measured in counted tokens the stand-in weighs what the bill
charges for it, and the cut falls after it. s08's teaching code is unchanged (its lesson shows it
line by line): this subclass only replaces its ruler.

Example: history [task + 70,000-token stand-in, 6 turns of 2,000 tokens], window 100,000
         -> s08: summarize() -> None (cut 0);  CountedCompactor: summarize() -> SUMMARIZE event,
            the first message folded into "[Summary] ..." and the stand-in gone
"""

from __future__ import annotations

from s01_loop import check_history
from s07_reactive.pairs import blocks, join, safe_cut
from s08_compact4 import CompactEvent, CompactLayer, ContextCompactor, SummaryFailed, find_safe_cut
from s08_compact4.summary import SUMMARY_TAG

from ..bills.accounting import UNRECORDED


def stand_ins(messages: list) -> list:
    """The stand-in blocks (unlogged tokens) in these messages.
    Example: [{"role": "user", "content": [{"type": "text", "text": "[not in the log: 9 tokens attached ...]"}]}]
             -> [that block]"""
    return [b for m in messages for b in blocks(m)
            if b.get("type") == "text" and UNRECORDED.match(str(b.get("text", "")))]


class CountedCompactor(ContextCompactor):
    """ContextCompactor whose sizes are count(message) tokens instead of characters / 3."""

    def __init__(self, client, config=None, *, count, model=None, transcript=None, keep_results=None):
        """`keep_results` (the pipeline's KEEP): after a summary keep verbatim the turns from the one holding
        the oldest of the newest `keep_results` tool results, as its clearing does; None: s08's 50 %."""
        super().__init__(client, config, model=model, transcript=transcript)
        self.count, self.keep_results = count, keep_results

    def estimate_tokens(self, messages: list) -> int:
        return sum(self.count(m) for m in messages)

    def keep_recent_count(self, history: list) -> int:
        """How many newest messages to keep: with keep_results, the turns from the one holding the oldest of
        the newest keep_results results (cut where no tool_use loses its result) if they fit the budget;
        otherwise (too big, or no such result) what fits in keep_recent_ratio of the window, in counted
        tokens (at least 1).
        Example: keep_results 3, [task, (call, result) x 10] -> 6 (the newest three turns)"""
        budget, used, count = self.config.keep_recent_tokens, 0, 0
        holding = [i for i, m in enumerate(history) if m.get("role") == "user"
                   for b in blocks(m) if b.get("type") == "tool_result"]
        if self.keep_results and holding:
            cut = safe_cut(history, holding[-min(self.keep_results, len(holding))])
            if cut > 0 and self.estimate_tokens(history[cut:]) <= budget:
                return len(history) - cut
        for message in reversed(history):
            used += self.count(message)
            if used > budget:
                break
            count += 1
        return max(count, 1)

    def summarize(self, history: list, keep_recent_count: int | None = None) -> CompactEvent | None:
        """s08's layers 2-3, every size counted (s08_compact4/compactor.py: ContextCompactor.summarize)."""
        check_history(history)
        tokens_before, messages_before = self.estimate_tokens(history), len(history)
        keep = self.keep_recent_count(history) if keep_recent_count is None else keep_recent_count
        cut = find_safe_cut(history, keep)
        old = history[:cut]
        if cut <= 0 or not self.buffer.render(old):
            return None
        self._before(CompactLayer.SUMMARIZE, history)
        prompt = [{"type": "text", "text": self.buffer.build_summary_prompt(old)}, *stand_ins(old)]
        try:
            text = self.ask_summary(prompt if len(prompt) > 1 else prompt[0]["text"])
        except SummaryFailed as exc:
            self.last_error = exc
            return None
        note = f"\n\n(Earlier messages are in the session transcript: {self.transcript})" \
            if self.transcript else ""
        compacted = join([], f"{SUMMARY_TAG}\n{text}{note}", history[cut:])
        if self.estimate_tokens(compacted) >= tokens_before:
            return None  # the summary would cost more than what it replaces
        history[:] = compacted
        self.buffer.update(text)
        return self._after(CompactEvent(CompactLayer.SUMMARIZE, messages_before, len(history), tokens_before,
                                        self.estimate_tokens(history), text), history)


def summary_sizes(compactor: CountedCompactor, view: list) -> tuple[int, int]:
    """(tokens a summary now would fold away, tokens of the view after it, the summary at its max_tokens),
    without making the call; (0, size of the view) when there is no safe cut.
    Example: [task + 14,000-token stand-in, 12 small messages] -> (14_0xx, 12 messages + 2,048)"""
    cut = find_safe_cut(view, compactor.keep_recent_count(view))
    if cut <= 0:
        return 0, compactor.estimate_tokens(view)
    return (compactor.estimate_tokens(view[:cut]),
            compactor.estimate_tokens(view[cut:]) + compactor.config.summary_max_tokens)


def summary_pays(total: int, tail: int, old: int, new: int, remaining: float, prices, summary: int) -> bool:
    """At a forced rewrite, after clearing: does a summary now cost less, over `remaining` more requests,
    than keeping the cleared view (`total` tokens, its last `tail` written this request)? Now: the call
    (`old` tokens folded, as input; the summary at its max_tokens `summary`, as output) and the whole new
    view (`new` tokens) written; later: every remaining request reads `total - new` fewer tokens.
    Example (Sonnet): total 107K, tail 50K, old 72K, new 37K, 14 remaining, summary 2,048 -> True
             ($0.29 saved later against $0.18 more now); with 3 remaining -> False ($0.06 saved)"""
    cleared_now = tail * prices.cache_write + (total - tail) * prices.cache_read
    summary_now = old * prices.input + summary * prices.output + new * prices.cache_write
    return old > 0 and remaining * prices.cache_read * (total - new) > summary_now - cleared_now
