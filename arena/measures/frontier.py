"""Cost against memory: regret against the oracle, the Pareto front, and who is cheaper only by forgetting.

Motto: a cheaper bill that forgot what the agent needed is not a saving, it is a different trade.

    per session, each strategy that fits the window: (cost $, needed results lost)
        regret   = cost - oracle's cost                  (oracle.py: the hindsight-best clearing schedule)
        Pareto   = no other strategy is both no dearer and loses no more (one of the two strictly)
        forgetting: A is cheaper than B only by forgetting when A costs less and loses more than B,
                    for B = the recommended pipeline: said in words
    chart: one panel per session, cost (x) against needed results lost (y), the front joined

Example: regret_table(rows) -> markdown, one row per (session, strategy), regret in $ and %
         forgetting_lines(rows) -> ['openhands costs 87 % of none and loses 13 needed results where ...']
"""

from __future__ import annotations

from lessonkit.i18n import tr

from .goal import ORACLE, RECOMMENDED, by_session


def pareto(rows: list) -> list:
    """The rows no other row dominates (no dearer and no more needed results lost, one strictly)."""
    def dominated(r):
        return any(o is not r and o.cost <= r.cost and o.needed_lost <= r.needed_lost
                   and (o.cost < r.cost or o.needed_lost < r.needed_lost) for o in rows)
    return sorted((r for r in rows if not dominated(r)), key=lambda r: r.cost)


def _fitting(rows: list) -> list:
    return [r for r in rows if r.fits]


def regret_table(rows: list) -> str:
    """Markdown: per session, each fitting strategy's cost, regret against the oracle, needed lost, front."""
    head = [tr("session"), tr("strategy"), tr("cost $"), tr("regret $"), tr("regret %"), tr("needed lost"),
            tr("Pareto")]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for session, mine in by_session(rows).items():
        fitting = _fitting(mine)
        oracle = next((r for r in mine if r.strategy == ORACLE), None)
        front = {id(r) for r in pareto(fitting)}
        for r in sorted(fitting, key=lambda r: r.cost):
            regret = "-" if oracle is None else f"{r.cost - oracle.cost:+.3f}"
            share = "-" if oracle is None or not oracle.cost else f"{100 * (r.cost / oracle.cost - 1):+.0f} %"
            out.append(f"| {session} | {r.strategy} | {r.cost:.3f} | {regret} | {share} | {r.needed_lost} | "
                       f"{'*' if id(r) in front else ''} |")
    return "\n".join(out)


def forgetting_lines(rows: list, reference: str = RECOMMENDED) -> list[str]:
    """In words: every fitting strategy cheaper than `reference` that loses more needed results."""
    lines = []
    for session, mine in by_session(rows).items():
        ref = next((r for r in mine if r.strategy == reference), None)
        none = next((r for r in mine if r.strategy == "none"), None)
        if ref is None:
            continue
        for r in _fitting(mine):
            if r.strategy in (reference, ORACLE) or not (r.cost < ref.cost and r.needed_lost > ref.needed_lost):
                continue
            share = f"{100 * r.cost / none.cost:.0f} %" if none and none.cost else "-"
            lines.append(tr("{session}: {strategy} is cheaper than {reference} only by forgetting: it costs {share} of "
                            "none (${cost} against ${ref_cost}) and loses {lost} needed results where {reference} "
                            "loses {ref_lost}", session=session, strategy=r.strategy, reference=reference,
                            share=share, cost=f"{r.cost:.2f}", ref_cost=f"{ref.cost:.2f}", lost=r.needed_lost,
                            ref_lost=ref.needed_lost))
    return lines


LABEL_SIZE = 7       # points: the strategy labels of the cost-against-memory chart


def regret_lines(rows: list, names=(RECOMMENDED, "none", "recorded")) -> list[str]:
    """Per session: the oracle's cost and each named strategy's regret, in $ and in % of the oracle."""
    lines = []
    for session, mine in by_session(rows).items():
        oracle = next((r for r in mine if r.strategy == ORACLE), None)
        if oracle is None or not oracle.cost:
            continue
        parts = [tr("{name} {regret} ({share})", name=r.strategy, regret=f"{r.cost - oracle.cost:+.3f}",
                    share=f"{100 * (r.cost / oracle.cost - 1):+.1f} %") for n in names
                 for r in mine if r.strategy == n]
        lines.append(tr("{session}: oracle ${cost}; regret: {parts}", session=session, cost=f"{oracle.cost:.3f}",
                        parts=", ".join(parts)))
    return lines


def bound_lines(rows: list) -> list[str]:
    """Per session: what the oracle's cost bounds, and what costs less. By construction it is the cheapest
    schedule of the pipeline's own clearing in hindsight (oracle.py): a lower bound for that family only, the
    recommended pipeline included only where it did nothing but clear. Any other strategy costing more is an
    observation on this session, never called bounded; one costing less is named, with why.
    Example: oracle $2.10, recommended $2.05 with a summary -> "... NOT a bound for recommended ..." """
    lines = []
    for session, mine in by_session(rows).items():
        oracle = next((r for r in mine if r.strategy == ORACLE), None)
        if oracle is None:
            continue
        rec = next((r for r in mine if r.strategy == RECOMMENDED), None)
        family = tr("the recommended pipeline, which only cleared here") if rec is not None and not \
            rec.summary_calls else tr("no strategy of this run (the recommended pipeline also summarised here)")
        below = [r for r in mine if r.strategy != ORACLE and r.cost < oracle.cost]
        if not below:
            lines.append(tr("{session}: no strategy costs less than the oracle (${cost}) here; by construction it "
                            "bounds only the pipeline's own clearing schedules: {family}; for the others it is an "
                            "observation on this session, not a bound", session=session,
                            cost=f"{oracle.cost:.2f}", family=family))
            continue
        lines.append(tr("{session}: the oracle (${cost}) is NOT a bound for {names}, which cost less ({costs}): it "
                        "searches only where to clear, and they summarise or rewrite outside that family; by "
                        "construction it bounds only the pipeline's own clearing schedules: {family}",
                        session=session, cost=f"{oracle.cost:.2f}", names=", ".join(r.strategy for r in below),
                        costs=", ".join(f"${r.cost:.2f}" for r in below), family=family))
    return lines


def memory_lines(rows: list, pipeline: str = RECOMMENDED, recorded: str = "recorded") -> list[str]:
    """Per session with Claude Code's own compaction: whether the pipeline loses more needed results than
    it, and if so why: where its losses fall (before Claude Code's first compaction, when Claude Code still
    sent everything) and what kind of need each was (a re-read, a re-run, a quoted line)."""
    lines = []
    for session, mine in by_session(rows).items():
        rec = next((r for r in mine if r.strategy == pipeline), None)
        cc = next((r for r in mine if r.strategy == recorded), None)
        if rec is None or cc is None:
            continue
        if rec.needed_lost <= cc.needed_lost:
            lines.append(tr("{session}: {pipeline} loses {lost} needed results, no more than Claude Code's own "
                            "compaction ({theirs})", session=session, pipeline=pipeline, lost=rec.needed_lost,
                            theirs=cc.needed_lost))
            continue
        first = cc.first_compaction
        early = sum(1 for t, _, _ in rec.lost_items if first is not None and t < first)
        kinds: dict = {}
        for _, _, why in rec.lost_items:
            for w in why.split(","):
                kinds[w] = kinds.get(w, 0) + 1
        kinds_text = ", ".join(f"{n} {w}" for w, n in sorted(kinds.items()))
        if early:
            why = tr("{early} of its {lost} losses fall before Claude Code's first compaction (request {first}), "
                     "when Claude Code still sent everything: the pipeline clears old results from request {mine} "
                     "on because clearing pays for itself in cache reads, and a later request needed them",
                     early=early, lost=rec.needed_lost, first="-" if first is None else first + 1,
                     mine="-" if rec.first_compaction is None else rec.first_compaction + 1)
        else:
            why = tr("all {lost} fall after Claude Code's first compaction (request {first}), when both had "
                     "rewritten the history: the pipeline keeps the newest results and a summary, Claude Code "
                     "its own summary and the newest files it read, re-attached; the later requests needed "
                     "more of what Claude Code kept", lost=rec.needed_lost, first="-" if first is None else first + 1)
        lines.append(tr("{session}: {pipeline} loses MORE needed results than Claude Code's own compaction "
                        "({lost} against {theirs}). Why: {why} (by kind: {kinds})", session=session,
                        pipeline=pipeline, lost=rec.needed_lost, theirs=cc.needed_lost, why=why,
                        kinds=kinds_text or "-"))
    return lines


def label_offsets(points: list, sizes: list, *, gap: float = 3.0) -> list[tuple[float, float]]:
    """Offsets (points) for one label per point so that no two labels overlap and no label covers a point:
    each label takes the first free place on rings of growing radius around its point (right, above,
    left, below, then the diagonals). `points`: (x, y) in points; `sizes`: (width, height) of each label.
    Example: two points 1 pt apart, labels 30 x 8 -> [(3, 3), (3, -11)] (the second goes below)"""
    placed, out = [], []

    def free(box):
        x0, y0, x1, y1 = box
        if any(x0 < bx1 and bx0 < x1 and y0 < by1 and by0 < y1 for bx0, by0, bx1, by1 in placed):
            return False
        return not any(x0 - 1 < px < x1 + 1 and y0 - 1 < py < y1 + 1 for px, py in points)
    for (x, y), (w, h) in zip(points, sizes):
        ring = 0
        while True:
            step = gap + ring * (h + gap)
            tries = [(gap, gap), (gap, -h - gap), (-w - gap, gap), (-w - gap, -h - gap),
                     (gap, step), (gap, -h - step), (-w - gap, step), (-w - gap, -h - step),
                     (step, gap), (-w - step, gap), (step, -h - gap), (-w - step, -h - gap)] if ring else \
                [(gap, gap), (gap, -h - gap), (-w - gap, gap), (-w - gap, -h - gap)]
            found = next(((dx, dy) for dx, dy in tries if free((x + dx, y + dy, x + dx + w, y + dy + h))), None)
            if found is not None:
                placed.append((x + found[0], y + found[1], x + found[0] + w, y + found[1] + h))
                out.append(found)
                break
            ring += 1
    return out


def figure(rows: list, *, panel: float = 4.0):
    """Cost against needed results lost, one panel per session, the Pareto front joined: a
    lessonkit.show.charts.Chart (matplotlib's object API; shows itself as a PNG in a notebook)."""
    from lessonkit.show.charts import Chart, _fonts, _say  # the lesson's language when a font draws it, else English

    sessions = by_session(rows)
    fig = Chart(figsize=(panel * max(1, len(sessions)), panel * 0.9), layout="constrained")
    axes = fig.subplots(1, max(1, len(sessions)), squeeze=False)[0]
    for ax, (session, mine) in zip(axes, sessions.items()):
        fitting = _fitting(mine)
        for r in fitting:
            ax.scatter(r.cost, r.needed_lost, s=28, color="tab:red" if r.strategy in (RECOMMENDED, ORACLE)
                       else "tab:blue")
        ax.autoscale_view()
        scale = 72 / fig.dpi                              # pixels -> points
        where = [tuple(v * scale for v in ax.transData.transform((r.cost, r.needed_lost))) for r in fitting]
        sizes = [(0.62 * LABEL_SIZE * len(r.strategy), 1.2 * LABEL_SIZE) for r in fitting]
        for r, (dx, dy) in zip(fitting, label_offsets(where, sizes)):
            ax.annotate(r.strategy, (r.cost, r.needed_lost), fontsize=LABEL_SIZE, xytext=(dx, dy),
                        textcoords="offset points")
        front = pareto(fitting)
        ax.step([r.cost for r in front], [r.needed_lost for r in front], where="post", color="tab:green",
                linewidth=1.2, label=_say("Pareto front"))
        ax.set_title(session[-32:], fontsize=9)
        ax.set_xlabel(_say("cost $"))
        ax.set_ylabel(_say("needed results lost"))
        ax.legend(fontsize=7)
    _fonts(fig)
    return fig


def chart(rows: list, path) -> None:
    """Save figure(rows) as a PNG."""
    figure(rows).savefig(path, dpi=110, metadata={"Software": None})
