"""The arena's goal, per session: the recommended pipeline cheapest among those that fit,
and remembering as much.

Motto: a goal is met part by part, and a part not met says why.

    rows of one session ──> contenders: strategies that never exceed the window, send no invalid request
                            (not the oracle: a hindsight bound, BOUNDS)
                       ──> Verdict: cheapest?  key-fact recall >= best other's?  output recall >= best other's?
                       ──> one line: "met" / "NOT MET" per recall, the cost, the best other of each

Among the strategies that fit, the recommended pipeline must have the lowest
dollar cost, and recall at least as high as the best other such strategy's. It is
checked against both recalls (metrics.py, probes.py), and each part is reported on
its own: cost, key-fact recall, output recall. spread.py checks the goal
across the token counter's spread; frontier.py sets cost against memory.

Example: goal_check(rows) -> ["g: met with key-fact recall, NOT MET with output recall · $2.74, cheapest · ..."]
"""

from __future__ import annotations

from dataclasses import dataclass

from lessonkit.i18n import tr

from .metrics import Row

RECOMMENDED = "recommended"
ORACLE = "oracle"
BOUNDS = frozenset({ORACLE})   # rows that are yardsticks, not strategies: the oracle clears in hindsight,
                               # so no one can run it; it is never a rival in a goal (regret is measured to it)


def rivals(mine: list, recommended: str = RECOMMENDED) -> list:
    """The strategies the recommended pipeline is checked against: those that fit the window, not itself,
    not a bound. Example: rows none (over), api-compact, oracle, recommended -> [api-compact]"""
    return [r for r in mine if r.fits and r.strategy != recommended and r.strategy not in BOUNDS]


def by_session(rows: list[Row]) -> dict[str, list[Row]]:
    """Rows grouped by session, in order of first appearance. Example: [a/none, b/none, a/x] -> {a: [..2], b: [..1]}"""
    out: dict[str, list[Row]] = {}
    for r in rows:
        out.setdefault(r.session, []).append(r)
    return out



@dataclass
class Verdict:
    """The goal on one session, part by part. `others` are the contenders (they fit the window)."""
    session: str
    fits: bool                        # the recommended pipeline itself never exceeds the window
    cost: float
    cheaper: list                     # contenders cheaper than it
    recall: float
    best_recall: tuple                # (value, strategy) of the best contender
    output_recall: float
    best_output: tuple

    @property
    def cheapest(self) -> bool:
        return self.fits and not self.cheaper

    @property
    def key_facts(self) -> bool:
        return self.fits and self.recall >= self.best_recall[0]

    @property
    def output(self) -> bool:
        return self.fits and self.output_recall >= self.best_output[0]

    def line(self) -> str:
        """Example: 'g: met with key-fact recall, NOT MET with output recall · $2.74, cheapest · ...'"""
        if not self.fits:
            return tr("{session}: NOT MET: {strategy} exceeds the window or sends an invalid request",
                      session=self.session, strategy=RECOMMENDED)
        cost = (tr("${cost}, cheapest", cost=f"{self.cost:.2f}") if self.cheapest else
                tr("${cost}, cheaper: {names}", cost=f"{self.cost:.2f}", names=", ".join(self.cheaper)))
        return tr("{session}: {facts_met} with key-fact recall, {output_met} with output recall · {cost} · "
                  "key-fact recall {recall} (best other {best_recall}, {best_recall_by}) · "
                  "output recall {output_recall} (best other {best_output}, {best_output_by})",
                  session=self.session, facts_met=met(self.cheapest and self.key_facts),
                  output_met=met(self.cheapest and self.output), cost=cost, recall=f"{self.recall:.2f}",
                  best_recall=f"{self.best_recall[0]:.2f}", best_recall_by=self.best_recall[1],
                  output_recall=f"{self.output_recall:.2f}", best_output=f"{self.best_output[0]:.2f}",
                  best_output_by=self.best_output[1])


def met(ok: bool) -> str:
    """A goal's part, held or not, as the verdict lines say it. Example: met(False) -> "NOT MET" """
    return tr("met") if ok else tr("NOT MET")


def verdicts(rows: list[Row], recommended: str = RECOMMENDED) -> list[Verdict]:
    """The goal, per session where the recommended pipeline ran."""
    out = []
    for session, mine in by_session(rows).items():
        rec = next((r for r in mine if r.strategy == recommended), None)
        if rec is None:
            continue
        others = rivals(mine, recommended)
        best = max(others, key=lambda r: r.recall, default=None)
        best_out = max(others, key=lambda r: r.output_recall, default=None)
        out.append(Verdict(
            session, rec.fits, rec.cost, [r.strategy for r in others if r.cost < rec.cost],
            rec.recall, (best.recall, best.strategy) if best else (0.0, "-"),
            rec.output_recall, (best_out.output_recall, best_out.strategy) if best_out else (0.0, "-")))
    return out


def goal_check(rows: list[Row], recommended: str = RECOMMENDED) -> list[str]:
    """One line per session: is the goal met there, part by part, and if not, why not."""
    lines = [v.line() for v in verdicts(rows, recommended)]
    missing = [s for s, mine in by_session(rows).items() if not any(r.strategy == recommended for r in mine)]
    return lines + [tr("{session}: no '{strategy}' strategy in this run", session=s, strategy=recommended)
                    for s in missing]
