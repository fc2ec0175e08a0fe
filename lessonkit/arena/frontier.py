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

from ..i18n import tr
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


def figure(rows: list, *, panel: float = 4.0):
    """Cost against needed results lost, one panel per session, the Pareto front joined: a
    lessonkit.show.charts.Chart (matplotlib's object API; shows itself as a PNG in a notebook)."""
    from ..show.charts import Chart, _fonts, _say  # the lesson's language when a font draws it, else English

    sessions = by_session(rows)
    fig = Chart(figsize=(panel * max(1, len(sessions)), panel * 0.9), layout="constrained")
    axes = fig.subplots(1, max(1, len(sessions)), squeeze=False)[0]
    for ax, (session, mine) in zip(axes, sessions.items()):
        fitting = _fitting(mine)
        for r in fitting:
            ax.scatter(r.cost, r.needed_lost, s=28, color="tab:red" if r.strategy in (RECOMMENDED, ORACLE)
                       else "tab:blue")
            ax.annotate(r.strategy, (r.cost, r.needed_lost), fontsize=7, xytext=(3, 3), textcoords="offset points")
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
