"""The oracle: the cheapest clearing schedule in hindsight, within the recommended pipeline's family.

Motto: to know how good a rule is, ask what it would have cost to know the future.

    the family: at chosen requests, clear every tool result but the newest KEEP (the recommended
                pipeline's placeholders, its stable breakpoints, its s05 budget and safety layers)
    the oracle: knows the whole session, so it knows every later request
        full(t)   tokens of the uncleared view at request t          (one dry pass over the session)
        saved(j)  tokens a clearing at request j takes off            (all results but the newest KEEP)
        a request t after the last clearing j:  read x (F + full(t-1) - saved(j)) + write x growth
        the clearing request k after j:         read x (prefix before the first newly cleared block)
                                                + write x (the rest)
        best[k] = min over j of best[j] + (requests j+1 .. k-1) + (the clearing at k)     O(n^2)
    the schedule is then replayed like any strategy: its row is measured, not the DP's estimate

No rule that cannot see the future matches it on every session: whether a clearing pays
depends on how many requests follow, and that is the ski-rental problem (rent = read the
uncleared part once more, buy = write the rewritten tail once). The break-even rule buys
when the rent paid so far equals the price of buying, and in the worst case pays twice the
oracle's extra cost (Karlin et al., 1988): the lesson shows it on the run's sessions.

Example: replay(session, Oracle) -> a Replay whose compactions are the hindsight-best clearings

Not modeled: schedules outside the family (summaries, masking): a strategy that forgets more can
cost less than the oracle (its regret is then negative, and the arena says it forgot to get there).
"""

from __future__ import annotations

from .recommended import Recommended


def schedule(full: list, saved: list, first: list, fixed: int, read: float, write: float) -> set:
    """The request numbers (1-based) to clear at, cheapest in hindsight (see the module docstring).

    full[t]: view tokens at request t (uncleared); saved[t]: tokens a clearing at t takes off;
    first[j + 1]: tokens before the first block a clearing rewrites after one at j (first[0]: none before).
    Example: schedule([10_000, 20_000, 21_000], [0, 0, 9_000], [0, 0, 0, 0], 0, 0.3, 3.75) -> set()
             (one request left: the rewrite never pays back)
    """
    n = len(full)
    if not n:
        return set()
    a = [write * (fixed + full[0])] + [read * (fixed + full[t - 1]) + write * (full[t] - full[t - 1])
                                       for t in range(1, n)]
    pre = [0.0]
    for x in a:
        pre.append(pre[-1] + x)

    def run(j: int, k: int) -> float:       # requests j+1 .. k-1 after a clearing at j (j = -1: none)
        if k - 1 < j + 1:
            return 0.0
        return pre[k] - pre[j + 1] - read * (saved[j] if j >= 0 else 0) * (k - 1 - j)

    best, back = {-1: 0.0}, {}
    for k in range(1, n):
        options = []
        for j in best:
            off = saved[j] if j >= 0 else 0
            if saved[k] <= off:
                continue                    # nothing new to clear
            kept = fixed + min(first[j + 1], full[k]) - off
            size = fixed + full[k] - saved[k]
            cost = best[j] + run(j, k) + read * kept + write * (size - kept)
            options.append((cost, j))
        if options:
            best[k], back[k] = min(options)
    end = min(best, key=lambda j: best[j] + run(j, n))
    out, j = set(), end
    while j >= 0:
        out.add(j + 1)
        j = back[j]
    return out


class Oracle(Recommended):
    """The recommended pipeline's clearings at the hindsight-best requests (schedule), nowhere else
    unless the window forces one (its safety layer, as the pipeline's own)."""

    def __init__(self, **options):
        super().__init__(**options)
        self.name = "oracle"
        self.plan: set = set()

    def start(self, session, ctx):
        workdir = ctx.workdir
        ctx.workdir = workdir / "oracle-dry"          # the dry pass's own files
        ctx.workdir.mkdir(parents=True, exist_ok=True)
        dry = Recommended(keep=self.keep)
        dry.start(session, ctx)
        full, counts = [], []
        for index in session.turns:
            dry.sync(session.messages[:index])
            full.append(dry.total)
            counts.append(len(dry.results))
        ctx.workdir = workdir
        super().start(session, ctx)
        gains = [r[2] for r in dry.results]
        starts = [sum(dry.sizes[:r[0]]) for r in dry.results]
        cum = [0]
        for g in gains:
            cum.append(cum[-1] + g)
        cleared = [max(0, c - self.keep) for c in counts]     # results a clearing at t takes off
        saved = [cum[c] for c in cleared]
        last = full[-1] if full else 0
        first = [starts[0] if starts else last] + [starts[c] if c < len(starts) else last for c in cleared]
        self.plan = schedule(full, saved, first, ctx.fixed_tokens, self.prices.cache_read,
                             self.prices.cache_write)

    def _clear(self, force: bool) -> None:
        if force or self.turns in self.plan:
            self.batches = False                       # no batch-size or break-even test: the plan decided
            try:
                super()._clear(force)
            finally:
                self.batches = True
