"""Does the arena's bill match the log's? Replay what was sent, compare with the logged usage.

Motto: before comparing strategies in dollars, show the dollars are the log's.

    a session that logs usage per request (bill.fit gives its BillModel)
        replay what was sent: 'recorded' after a real compaction, else 'none'
        arena  = its agent requests, each at its model's price (bill.py)
        logged = the log's own per-request usage at the same prices (bill.logged_bill)
        error  = arena / logged - 1           (the log's requests only: like with like)
        compaction = the modelled cost of Claude Code's compaction call (context.bill_summary): not a
                 request line of the log, so outside the comparison, stated apart
        size error on the held-out requests (those after the fitted ones):
                 sum of the replayed request sizes / sum of the logged input - 1: the spread (run.py)

Example: check(session) -> Check(session='s', strategy='none', arena=0.41, logged=0.40, error=0.025, ...)
         table([check(s)]) -> a markdown table, one row per log
"""

from __future__ import annotations

from dataclasses import dataclass

from ..i18n import tr
from .bill import logged_bill
from .calibration import logged_input


@dataclass(frozen=True)
class Check:
    session: str
    strategy: str
    requests: int
    models: str
    arena: float
    logged: float
    error: float
    size_error: float | None
    calibration: str
    compaction: float = 0.0    # $ of the replay's summary calls: modelled, no line of the log to match

    def line(self) -> str:
        return tr("{session}: arena ${arena} ({strategy}) vs the log's ${logged}: {error}", session=self.session,
                  arena=f"{self.arena:.2f}", strategy=self.strategy, logged=f"{self.logged:.2f}",
                  error=f"{100 * self.error:+.1f} %")


def sent_strategy(session) -> str:
    """The strategy that replays what the log sent: Claude Code's own compaction where it has one."""
    return "recorded" if session.recorded else "none"


def check(session, replayed=None) -> Check | None:
    """The arena's bill of what was sent against the log's own (None if the log has no usage per request).
    `replayed`: that strategy's Replay from a run already made with calibrate=True (else one is run)."""
    from .run import bill_of, run_arena

    model = bill_of(session)
    logged = logged_bill(session)
    if model is None or not logged:
        return None
    if replayed is None:
        _, (replayed,) = run_arena([session], [sent_strategy(session)], calibrate=True)
    turns = [r for r in replayed.records if r.kind == "turn"]
    arena = sum(r.cost() for r in turns)
    k = model.fitted + 1
    held = [logged_input(u) for u in session.usage[k:]]
    size_error = None
    if held and all(h is not None for h in held) and sum(held):
        size_error = sum(replayed.turn_tokens[k:]) / sum(held) - 1
        model.size_error = size_error
    counts = {}
    for m in session.models:
        counts[m] = counts.get(m, 0) + 1
    models = ", ".join(f"{m or '?'} x{n}" for m, n in counts.items())
    compaction = sum(r.cost() for r in replayed.records if r.kind == "summary")
    return Check(session.name, replayed.strategy, len(session.turns), models, arena, logged,
                 arena / logged - 1, size_error, model.line(), compaction)


def table(checks: list) -> str:
    """Markdown: one row per log, the bills and the errors."""
    head = [tr("log"), tr("requests"), tr("model(s)"), tr("replayed"), tr("arena $"), tr("log $"), tr("error"),
            tr("request size error, held out"), tr("compaction call $ (modelled, not in the log)")]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in checks:
        size = "-" if c.size_error is None else f"{100 * c.size_error:+.1f} %"
        lines.append(f"| {c.session} | {c.requests} | {c.models} | {c.strategy} | {c.arena:.2f} | {c.logged:.2f} "
                     f"| {100 * c.error:+.1f} % | {size} | {c.compaction:.2f} |")
    return "\n".join(lines)
