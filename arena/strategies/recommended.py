"""The kit's recommended pipeline: cache-aware batch clearing that keeps the key facts.

Motto: rewrite the past rarely, in big batches, behind a breakpoint that stays put.

    a result arrives ──> over 30,000 chars? ──> s05 persist_large_output: file + preview
          │                                       (+ its first error line, if it failed)
          v
    before each request:
      reclaimable X = what clearing every result but the newest KEEP (3) would save
      rewrite     S = tokens from the first result to clear to the end (the cache miss)
      X >= max(MIN_BATCH, sqrt(2 (write - read) / read * S * g)) ?      g = tokens added per turn
      and it pays for itself (breakeven.py): X x read x remaining > S x write - (S + X) x read,
          remaining = the requests so far (the Lindy prior: as likely to end soon as to go on)
          │ yes to both (or the request is over SAFETY, 0.78, of the window: where Claude Code compacts)
          v
      each such result -> s06 placeholder "[Previous: used bash] (full result in ...)"
                          + "; it failed: <first error line>" when it had failed
      stable breakpoint on the last cleared block: the next batch rewrites only what follows it
          │
      a forced clearing, and still over SAFETY, or a summary pays over the expected remaining requests?
          -> s08's compactor in the bill's tokens (counted.py): a summary; the newest KEEP results' turns stay
      over the window anyway?            -> s07 reactive_compact (summary + pair-safe tail)

Why this batch size. Clearing saves `read` price on X tokens every later turn, and
costs one cache miss: the S tokens after the first rewritten block are written
again (at `write` instead of `read`). With the history growing g tokens a turn, a
cycle of k turns between clearings costs per turn about read*(S + k*g/2) +
(write - read)*S/k, least at k = sqrt(2 (write - read) S / (read g)), i.e. when the
reclaimable part reaches X = k g = sqrt(2 (write - read)/read * S * g). With
Sonnet prices (write/read = 12.5) and S = 10K, g = 1K tokens: X = 21K, a clearing
every ~21 turns. The batch size says when a clearing is worth considering; the
break-even rule (breakeven.py) says whether this one pays back before the session is
likely to end: late in a session with a big tail and a small gain, it waits (the
audited case: a 24.8K-token rewrite at request 126 of 145 that 19 requests never
paid back). Clearing every turn (micro-compact, masking) pays the miss every
turn; waiting for a 100K trigger (context editing) reads a big prefix meanwhile.

Why the breakpoints. The API caches prefixes that end at a breakpoint, and looks
for them only up to 20 blocks back from a breakpoint of the request. A breakpoint
on the last block a batch cleared marks a prefix that no later batch changes; it
stays on through the next batch, so that batch reads the old prefix from the cache
and writes only what follows it (then its own last block becomes the new mark).
With the moving one on the last block, that is at most 3 of the API's 4.

What it keeps: every user message, every tool call (its input names the file or
the command), every assistant text, the newest KEEP results whole, and for each
cleared result the tool, where the full text is (the session transcript, or the
persisted file) and, if it failed, its first error line. Summaries only when the
cleared history itself no longer fits (a forced clearing leaves the request over
SAFETY), so short and medium sessions never pay for one.

Pair-safe: only tool_result contents change; no message is dropped or reordered
outside the s08/s07 layers, which cut at safe places.

Example: 300 reads of ~1,500 tokens each -> a clearing every ~20 turns, requests
between ~15K and ~45K tokens, each clearing one cache write of the rewritten tail.

Why the forced clearing waits until 0.78 of the window. It exists to keep requests inside the
window, not to save money (the break-even rule does that). At half the window (round 3) it fired on
almost every request of a Claude Code session whose fixed part (system prompt, tools, attached files)
is 40 % of the window, and lost 18 needed results on each of the two shared logs; at the point where
Claude Code's own compaction fires (0.78: 156,732 and 155,203 tokens in those logs) it loses 7.

Why a summary comes when a forced clearing leaves the request over SAFETY. The line is where
the request must get back under; clearing is tried first, because it is cheaper and keeps every
call, text and placeholder. What clearing cannot remove (user messages, tool calls, the agent's
text, the files attached to the first request) only a summary can, so it comes exactly when the
cheaper rewrite is not enough, and is measured in the bill's tokens (counted.py): s08's own
characters / 3 read a 70K-token attachment stand-in as one short line and never cut before it.
A forced clearing that does get under the line is followed by a summary too when the summary pays
for itself: the break-even rule's sums, for the other rewrite (counted.summary_pays: the call and
the new view's write now, against the tokens it removes read by every remaining request, the Lindy
prior's count). No new constant: the prices, the prior, and s08's own summary max_tokens.

Not modeled: re-reading a cleared file (the trajectory is fixed), per-tool rules
(e.g. never clearing a plan tool's result).
"""

from __future__ import annotations

import math

from offline.api.validate import ApiError

from ..bills.prices import SONNET
from ..measures.metrics import EXIT_MARKER, error_line
from ..replay import BREAKPOINT, MODEL
from ..sessions.edits import blocks, replace_result, result_text
from .baselines import _View
from .breakeven import decide, lindy

KEEP = 3               # newest tool results never cleared
MIN_BATCH = 2_048      # tokens: a smaller clearing is never worth a cache miss
SAFETY = 0.78         # of the window: past this, clear whatever the batch size (where Claude Code compacts)


def failed(block: dict) -> bool:
    text = result_text(block)
    return block.get("is_error") is True or bool(EXIT_MARKER.search(text[-400:] + text[:400]))


class Recommended(_View):
    """Persist big outputs, clear old results in cost-optimal batches behind a stable breakpoint.

    Per-turn work is proportional to what arrived, not to the history: the view's
    tokens, the uncleared results and what clearing them would gain are kept up to
    date as messages arrive and batches clear (benchmarks/arena_overhead.py).
    """

    def __init__(self, keep: int = KEEP, min_batch: int = MIN_BATCH, safety: float = SAFETY,
                 prices=SONNET, *, batches: bool = True, marks: bool = True,
                 break_even: bool = True, remaining=lindy):
        """`batches=False` clears as soon as a result is old (every turn), `marks=False` drops the
        stable breakpoints, `break_even=False` clears whenever the batch is big enough: the
        ablations the arena notebook runs to show what each part is worth. `remaining(turns so
        far)` is the expected number of requests left (default: the Lindy prior, breakeven.py)."""
        if keep < 0 or min_batch < 0 or not 0 < safety <= 1:
            raise ValueError("Recommended: keep, min_batch >= 0; safety in (0, 1]")
        self.keep, self.min_batch, self.safety = keep, min_batch, safety
        self.penalty = 2 * (prices.cache_write - prices.cache_read) / prices.cache_read
        self.batches, self.marked, self.break_even, self.remaining = batches, marks, break_even, remaining
        self.prices = prices
        self.name = "recommended"

    def start(self, session, ctx):
        super().start(session, ctx)
        from s05_budget import PERSIST_THRESHOLD, persist_large_output, persisted_path
        from s06_compact import Transcript, placeholder

        self.persist, self.persisted_path = persist_large_output, persisted_path
        self.threshold = PERSIST_THRESHOLD   # characters: s05's own budget, the seed's (Claude Code's) 30,000
        self.placeholder = placeholder
        self.transcript = Transcript(ctx.workdir / "transcript.jsonl")
        self.where = "transcript.jsonl"
        self.names, self.arrived, self.turns, self.fresh = {}, 0, 0, 0
        self.decisions = []                # breakeven.Decision of every clearing considered
        self.sizes, self.total = [], 0     # tokens of each message of the view, and their sum
        self.results = []                  # uncleared results, oldest first: [i, k, gain, placeholder]
        self.gain = 0                      # what clearing all but the newest `keep` of them would save
        self.marks = []                    # (i, k) of the last cleared block of the last two batches
        self.compactor = None

    # ---- arrival: transcript, names, s05 budget, bookkeeping ----------------------------------
    def sync(self, history):
        self.fresh = 0                     # tokens that arrived since the last request: written anyway
        for message in history[self.seen:]:
            self.transcript.append(message)
            for b in blocks(message):
                if b.get("type") == "tool_use":
                    self.names[b.get("id")] = b.get("name") or "tool"
            self._add(self._budget(message))
            self.arrived += self.sizes[-1]
            self.fresh += self.sizes[-1]
        self.seen = len(history)
        self.turns += 1

    def _add(self, message: dict) -> None:
        i = len(self.view)
        self.view.append(message)
        self.sizes.append(self.ctx.message_tokens(message))
        self.total += self.sizes[-1]
        for k, b in enumerate(blocks(message)):
            if b.get("type") == "tool_result" and message.get("role") == "user":
                short = self._placeholder(b)
                cleared = replace_result(message, k, short)
                gain = self.ctx.message_tokens(message) - self.ctx.message_tokens(cleared)
                self.results.append([i, k, gain, short])
                if len(self.results) > self.keep:   # one more result is old enough to be cleared
                    self.gain += self.results[-1 - self.keep][2]

    def _budget(self, message: dict) -> dict:
        """Big results go to disk (s05); a failed one keeps its first error line beside the preview."""
        for k, b in enumerate(blocks(message)):
            if b.get("type") != "tool_result" or len(text := result_text(b)) <= self.threshold:
                continue
            short = self.persist(b.get("tool_use_id", "result"), text, directory=self.ctx.workdir / "results",
                                 threshold=self.threshold).replace(str(self.ctx.workdir) + "/", "")
            if failed(b):
                short += f"\nIt failed: {error_line(text)}"
            message = replace_result(message, k, short)
        return message

    def _placeholder(self, block: dict) -> str:
        """s06's placeholder, naming where the full text is; a failure keeps its first error line."""
        where = self.persisted_path(block.get("content")) or self.where
        short = self.placeholder(self.names.get(block.get("tool_use_id"), "tool"), where)
        return short + f"; it failed: {error_line(result_text(block))}" if failed(block) else short

    # ---- clearing --------------------------------------------------------------------------
    def batch_size(self, first: int) -> float:
        """Tokens a clearing must reclaim to be worth its cache miss: max(MIN_BATCH, sqrt(p S g)).

        S: tokens written again after the first cleared message; g: tokens the history has
        grown per turn so far; p = 2 (write - read) / read, from the prices (module docstring).
        """
        rewrite = sum(self.sizes[first:]) - self.gain
        growth = self.arrived / max(1, self.turns)
        return max(self.min_batch, math.sqrt(self.penalty * rewrite * growth))

    def _clear(self, force: bool) -> None:
        plan = self.results[:len(self.results) - self.keep]
        if not plan or self.gain <= 0:
            return
        if self.batches and not force and self.gain < self.batch_size(plan[0][0]):
            return
        if self.batches and self.break_even:
            old_tail = max(self.gain, sum(self.sizes[plan[0][0]:]) - self.fresh)
            decision = decide(self.turns, old_tail, old_tail - self.gain, self.remaining(self.turns),
                              prices=self.prices, force=force)
            self.decisions.append(decision)
            if not decision.fired:
                return
        self.tail = sum(self.sizes[plan[0][0]:]) - self.gain     # written again: from the first cleared block
        for i, k, _, short in plan:
            self.view[i] = replace_result(self.view[i], k, short)
            size = self.ctx.message_tokens(self.view[i])
            self.total += size - self.sizes[i]
            self.sizes[i] = size
        self.results, self.gain = self.results[len(plan):], 0
        # The previous batch's breakpoint stays one more batch: this request reads up to it.
        self.marks = [*self.marks[-1:], (plan[-1][0], plan[-1][1])]
        self.ctx.note("clear")

    # ---- summaries, only when needed ----------------------------------------------------------
    def _compact(self, sent: list) -> None:
        """s08's summary; its call billed as the cache-friendly call (`sent`: the view before this turn's
        clearing, the last request's prefix and what arrived since, + s08's instruction; bill_summary)."""
        from s08_compact4.summary import SUMMARY_INSTRUCTION

        event = self._compactor().summarize(self.view)
        if event is not None:
            self.ctx.account(sent, SUMMARY_INSTRUCTION, event.summary_text or "")
        if event or self.compactor.emergency_truncate(self.view):
            self._rebuild(self.view)
            self.ctx.note("summarize")

    def _compactor(self):
        """s08's compactor, measuring with the bill's counter in the room the messages have (counted.py)."""
        from s08_compact4 import CompactionConfig

        from .counted import CountedCompactor

        if self.compactor is None:
            config = CompactionConfig(context_window=self.ctx.window - self.ctx.fixed_tokens)
            self.compactor = CountedCompactor(self.ctx.quiet_client, config, count=self.ctx.message_tokens,
                                              model=MODEL, transcript=self.where,
                                              keep_results=self.keep)   # billed by _compact
        return self.compactor

    def _summary_pays(self) -> bool:
        """At a forced rewrite, after clearing: does a summary cost less over the expected remaining requests
        than keeping the cleared view (counted.summary_pays: the break-even rule's sums for a summary)?"""
        from .counted import summary_pays, summary_sizes

        if not (self.batches and self.break_even):
            return False
        old, new = summary_sizes(self._compactor(), self.view)
        return summary_pays(self.total, self.tail, old, new, self.remaining(self.turns), self.prices,
                            self.compactor.config.summary_max_tokens)

    def _rebuild(self, view: list) -> None:
        """Start the bookkeeping afresh on a view another layer rebuilt (rare: a summary)."""
        self.view, self.sizes, self.total, self.results, self.gain, self.marks = [], [], 0, [], 0, []
        for message in view:
            self._add(message)

    def request(self, history):
        self.sync(history)
        limit = self.ctx.window - self.ctx.fixed_tokens
        forced, self.tail = self.total > self.safety * limit, self.fresh
        sent = self._marked() if forced else None     # the conversation as the last request sent it
        self._clear(force=forced)
        if forced and (self.total > self.safety * limit or self._summary_pays()):
            self._compact(sent)
        return self._marked()

    def _marked(self) -> list:
        """The view, with stable breakpoints on the last cleared block of the last two batches."""
        view = list(self.view)
        for i, k in self.marks if self.marked else ():
            content = list(view[i]["content"])
            content[k] = {**content[k], "cache_control": dict(BREAKPOINT)}
            view[i] = {**view[i], "content": content}
        return view

    def recover(self, history, messages):
        """Over the window anyway: s07's reactive compaction (summary + pair-safe tail)."""
        from s07_reactive import reactive_compact

        try:
            view = reactive_compact(self.view, client=self.ctx.client, model=MODEL,
                                    transcript=self.transcript,
                                    too_long=(self.ctx.tokens(messages), self.ctx.window))
        except (ApiError, RuntimeError):
            return None
        self._rebuild(view)
        self.ctx.note("reactive")
        return self._marked()
