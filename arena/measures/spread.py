"""The goal across the counter's spread: cheapest within 1 %, losing no more than the rivals that matter.

Motto: call a win only when it survives the error of the ruler.

    runs: the main replay, and the same with every count scaled to each end of the
          calibration range (counted/logged ratio r in [r_min, r_max] across the traces
          that log usage: scale 1/r_max and 1/r_min)
    per session:
      contenders = strategies that never exceed the window and send no invalid request (not the oracle)
      cost:  recommended <= 1.01 x the cheapest other contender, in every run
      needs: among the contenders that cost < 60 % of 'none', and Claude Code's own compaction
             ('recorded', whatever it costs: the compaction the pipeline replaces), recommended has the
             fewest needed items removed (consequences.py); if it is not under 60 % itself, it fails
             when another is, and the part does not apply (n/a) when none is

Each bill is reported as main [low–high] over the runs. A run with a scale other
than 1 is a what-if (the counter's ratio on one trace applied to all), not a
measurement of that session.

Example: goal_lines({"main": rows, "x1.32": rows2}) -> ["CC impl: cost met in 3/3 runs ($1.10 vs ...) · needs ..."]
"""

from __future__ import annotations

from lessonkit.i18n import tr

from .goal import RECOMMENDED, by_session, met, rivals

RECORDED = "recorded"   # Claude Code's own compaction: always a rival for memory, whatever it costs

WITHIN = 0.01        # "within 1 % of the cheapest"
CHEAP = 0.60         # "strategies that cost less than 60 % of no compaction"


def spread(runs: dict) -> dict:
    """(session, strategy) -> (main cost, low, high) over the runs (the first run is the main one)."""
    out = {}
    for k, rows in enumerate(runs.values()):
        for r in rows:
            main, low, high = out.get((r.session, r.strategy), (r.cost, r.cost, r.cost))
            out[(r.session, r.strategy)] = (main if k else r.cost, min(low, r.cost), max(high, r.cost))
    return out


def _share(share: float) -> str:
    """A share of 'none' as the lines write it. Example: 0.6 -> "60 %" """
    return f"{share * 100:.0f} %"


def _check(mine: list) -> tuple[bool | None, bool | None, str]:
    """(cost met, needs met, a short reason) for one session in one run."""
    rec = next((r for r in mine if r.strategy == RECOMMENDED), None)
    if rec is None:
        return None, None, tr("no {strategy}", strategy=RECOMMENDED)
    if not rec.fits:
        return False, False, tr("{strategy} exceeds the window", strategy=RECOMMENDED)
    others = rivals(mine)
    best = min(others, key=lambda r: r.cost, default=None)
    cost_ok = best is None or rec.cost <= (1 + WITHIN) * best.cost
    none = next((r for r in mine if r.strategy == "none"), None)
    if none is None:
        return cost_ok, None, tr("no 'none' to compare")
    cheap = [r for r in others if r.cost < CHEAP * none.cost or r.strategy == RECORDED]
    head = (tr("cheapest other {strategy} ${cost}", strategy=best.strategy, cost=f"{best.cost:.2f}") if best
            else tr("no other contender"))
    share, cut = f"{rec.cost / none.cost:.0%}", _share(CHEAP)
    if rec.cost >= CHEAP * none.cost and not any(r.strategy == RECORDED for r in cheap):
        # not itself under 60 %: vacuous only if nothing else is
        if not cheap:
            return cost_ok, None, tr("{head}; nothing costs under {cut} of none ({strategy} {share})", head=head,
                                     cut=cut, strategy=RECOMMENDED, share=share)
        return cost_ok, False, tr("{head}; {strategy} costs {share} of none, {names} under {cut}", head=head,
                                  strategy=RECOMMENDED, share=share, names=", ".join(r.strategy for r in cheap),
                                  cut=cut)
    fewest = min((r.needed_lost for r in cheap), default=None)
    rival = min(cheap, key=lambda r: r.needed_lost).strategy if cheap else "-"
    needs_ok = fewest is None or rec.needed_lost <= fewest
    return cost_ok, needs_ok, tr("{head}; needed results lost {lost}, fewest other under {cut} or Claude Code's "
                                 "own compaction {fewest} ({rival})", head=head, lost=rec.needed_lost, cut=cut,
                                 fewest=fewest if fewest is not None else "-", rival=rival)


def goal_lines(runs: dict) -> list[str]:
    """One line per session: the cost part and the needs part, in how many runs each holds."""
    main = next(iter(runs.values()))
    lines = []
    for session in by_session(main):
        checks = [_check(by_session(rows).get(session, [])) for rows in runs.values()]
        if checks[0][0] is None:
            continue
        n = len(checks)
        cost = sum(1 for c in checks if c[0])
        needs = [c[1] for c in checks if c[1] is not None]
        part = (tr("{met} ({n}/{runs} runs)", met=met(all(needs)), n=sum(needs), runs=len(needs)) if needs else
                tr("n/a (no strategy under {cut} of none)", cut=_share(CHEAP)))
        lines.append(tr("{session}: cost {met} ({n}/{runs} runs) · fewest needed results lost among those under "
                        "{cut} of none and Claude Code's own compaction: {needs} · {reason}", session=session,
                        met=met(cost == n), n=cost, runs=n,
                        cut=_share(CHEAP), needs=part, reason=checks[0][2]))
    return lines


def calibration_table(calibrations: dict, sessions: list) -> str:
    """Markdown: per trace, what it logs, the counter's ratio, the measured prefix, the notes."""
    heads = [tr("session"), tr("logged usage"), tr("counted / logged"), tr("prefix (system + tools)"), tr("notes")]
    lines = ["| " + " | ".join(heads) + " |", "|---|---|---|---:|---|"]
    for s in sessions:
        found = calibrations.get(s.name)
        kind = tr("per request") if s.usage else (tr("totals") if s.logged.get("input_tokens") else
                                                  (tr("cost only") if s.logged else tr("none")))
        notes = "; ".join(s.notes).replace("|", "/")
        lines.append(f"| {s.name} | {kind} | {found.line() if found else '-'} | {s.prefix_tokens:,} | {notes} |")
    return "\n".join(lines)


def spread_table(runs: dict) -> str:
    """Markdown: cost $ main [low–high] per strategy and session."""
    costs, main = spread(runs), next(iter(runs.values()))
    sessions = list(by_session(main))
    lines = [f"| {tr('strategy')} | " + " | ".join(sessions) + " |", "|---|" + "---:|" * len(sessions)]
    for name in dict.fromkeys(r.strategy for r in main):
        cells = []
        for s in sessions:
            if (s, name) in costs:
                m, lo, hi = costs[(s, name)]
                cells.append(f"{m:.2f} [{lo:.2f}–{hi:.2f}]")
            else:
                cells.append("")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def section(runs: dict, calibrations: dict, sessions: list) -> str:
    """The results.md section for the goal across the spread: calibration, spread, goal."""
    return (tr("## The counter against the logs") + "\n\n" + calibration_table(calibrations, sessions) + "\n\n"
            + tr("## Bills with the counter's spread\n\nRuns: {names} (a log with usage per request: every "
                 "weight moved by minus and plus the error of its replay of what was sent (request sizes); "
                 "other sessions: by the largest such error). Cost $ main [low–high]:", names=", ".join(runs))
            + "\n\n" + spread_table(runs) + "\n\n"
            + tr("## Goal across the spread: cheapest, and losing no more needed results\n\nAmong the strategies "
                 "that never exceed the window, the recommended pipeline is cheapest or within {within} of the "
                 "cheapest, in every run of the spread; and among those costing under {cut} of 'none', and "
                 "Claude Code's own compaction whatever it costs, it removes the fewest needed items.",
                 within=_share(WITHIN), cut=_share(CHEAP))
            + "\n\n" + "\n".join(f"- {line}" for line in goal_lines(runs)) + "\n")
