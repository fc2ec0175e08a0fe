"""Does the arena's bill match the log's? Replay what was sent, compare with the logged usage.

Motto: before comparing strategies in dollars, show the dollars are the log's.

    a session that logs usage per request (bill.fit gives its BillModel)
        replay what was sent: 'recorded' after a real compaction, else 'none'
        arena  = its agent requests, each at its model's price (bills/model.py)
        logged = the log's own per-request usage at the same prices (bill.logged_bill)
        error  = arena / logged - 1           (the log's requests only: like with like)
        compaction = the modelled cost of Claude Code's compaction call (context.bill_summary): not a
                 request line of the log, so outside the comparison, stated apart
        size error: sum of the replayed request sizes / sum of the logged input - 1: the spread (run.py)
        per request: the log's usage against the replay's, in tokens and dollars (request_table), and the
                 distribution of |replayed $ / logged $ - 1| over the requests (distribution)

Example: check(session) -> Check(session='s', strategy='none', arena=0.41, logged=0.40, error=0.025, ...)
         table([check(s)]) -> a markdown table, one row per log
"""

from __future__ import annotations

from dataclasses import dataclass

from lessonkit.i18n import tr

from .bills.calibration import logged_input
from .bills.model import logged_bill


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
    compaction: float = 0.0    # $ of the replay's summary calls: from what the log states, no request line
    requests_compared: tuple = ()   # per request: (label, logged usage, replayed usage, logged $, replayed $)

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
    held = [logged_input(u) for u in session.usage]
    size_error = None
    if held and all(h is not None for h in held) and sum(held):
        size_error = sum(replayed.turn_tokens) / sum(held) - 1
        model.size_error = size_error
    counts = {}
    for _, _, u in session.logged_requests or [(0, 0, {"model": m}) for m in session.models]:
        m = u.get("model") if isinstance(u, dict) else None
        counts[m] = counts.get(m, 0) + 1
    models = ", ".join(f"{m or '?'} x{n}" for m, n in counts.items())
    compaction = sum(r.cost() for r in replayed.records if r.kind == "summary")
    compared = tuple(_compare(session, turns))
    requests = len(session.logged_requests) or len(session.turns)     # a retry is a request of its own
    return Check(session.name, replayed.strategy, requests, models, arena, logged,
                 arena / logged - 1, size_error, model.line(), compaction, compared)


def _compare(session, turns):
    """(request label, logged usage, replayed usage, logged $, replayed $) per request (the log's output where
    final); a request the log sent again on the same history is labelled "7+1"."""
    from .bills.prices import for_model

    shares = session.bill_model.outputs if getattr(session, "bill_model", None) else []
    for r in turns:
        u = session.usage[r.turn] if r.turn < len(session.usage) else None
        if r.repeat:
            u = session.repeats[r.turn][r.repeat - 1]
        if not isinstance(u, dict):
            continue
        logged = {k: u.get(k) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                                        "cache_creation")}
        logged["output_tokens"] = u.get("output_tokens") if session.output_logged else (
            shares[r.turn] if r.turn < len(shares) and not r.repeat else 0)
        label = f"{r.turn + 1}" if not r.repeat else f"{r.turn + 1}+{r.repeat}"   # "7+1": request 7 sent again
        yield (label, logged, r.usage, for_model(u.get("model")).cost(logged), r.cost())


def distribution(check: Check) -> dict:
    """The per-request errors of one check: {"n", "median", "p90", "worst"} of |replayed $ / logged $ - 1|
    over the requests, and "within5": how many are within 5 %."""
    errors = sorted(abs(b / a - 1) for _, _, _, a, b in check.requests_compared if a > 0)
    if not errors:
        return {"n": 0}
    pick = lambda q: errors[min(len(errors) - 1, int(q * len(errors)))]  # noqa: E731
    return {"n": len(errors), "median": pick(0.5), "p90": pick(0.9), "worst": errors[-1],
            "within5": sum(1 for e in errors if e <= 0.05)}


def distribution_line(check: Check) -> str:
    d = distribution(check)
    if not d["n"]:
        return tr("{session}: no request to compare", session=check.session)
    return tr("{session}: per-request error |replay / log - 1|: median {median}, 90th percentile {p90}, worst "
              "{worst}; {within} of {n} requests within 5 %", session=check.session,
              median=f"{100 * d['median']:.1f} %", p90=f"{100 * d['p90']:.1f} %", worst=f"{100 * d['worst']:.1f} %",
              within=d["within5"], n=d["n"])


def request_table(check: Check) -> str:
    """Markdown: every request of one log, the log's usage against the replay's, and their dollars."""
    head = [tr("request"), tr("log: input / write 5m / write 1h / read / output"),
            tr("replay: input / write 5m / write 1h / read / output"), tr("log $"), tr("replay $"), tr("error")]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def parts(u):
        written = int(u.get("cache_creation_input_tokens") or 0)
        split = u.get("cache_creation") if isinstance(u.get("cache_creation"), dict) else {}
        hour = min(written, int(split.get("ephemeral_1h_input_tokens") or 0))
        return " / ".join(f"{x:,}" for x in (int(u.get("input_tokens") or 0), written - hour, hour,
                                              int(u.get("cache_read_input_tokens") or 0),
                                              int(u.get("output_tokens") or 0)))
    for t, logged, replayed, a, b in check.requests_compared:
        error = f"{100 * (b / a - 1):+.1f} %" if a > 0 else "-"
        lines.append(f"| {t} | {parts(logged)} | {parts(replayed)} | {a:.4f} | {b:.4f} | {error} |")
    return "\n".join(lines)


def table(checks: list) -> str:
    """Markdown: one row per log, the bills and the errors."""
    head = [tr("log"), tr("requests"), tr("model(s)"), tr("replayed"), tr("arena $"), tr("log $"), tr("error"),
            tr("request size error"), tr("compaction call $ (as the log states it, no request line)")]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in checks:
        size = "-" if c.size_error is None else f"{100 * c.size_error:+.1f} %"
        lines.append(f"| {c.session} | {c.requests} | {c.models} | {c.strategy} | {c.arena:.2f} | {c.logged:.2f} "
                     f"| {100 * c.error:+.1f} % | {size} | {c.compaction:.2f} |")
    return "\n".join(lines)


def totals_table(checks: list, sessions: list) -> str:
    """Markdown: per session with subagents, the session's total (its own requests and every subagent's,
    each billed as a session of its own) against the log's."""
    by_name = {c.session: c for c in checks}
    head = [tr("session"), tr("subagents"), tr("requests"), tr("arena $"), tr("log $"), tr("error")]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in sessions:
        if not s.subagents or s.name not in by_name:
            continue
        found = [by_name[s.name]] + [by_name[x.name] for x in s.subagents if x.name in by_name]
        arena, logged = sum(c.arena for c in found), sum(c.logged for c in found)
        requests = sum(c.requests for c in found)
        lines.append(f"| {s.name} | {len(found) - 1} | {requests} | {arena:.2f} | {logged:.2f} | "
                     f"{100 * (arena / logged - 1) if logged else 0:+.1f} % |")
    return "\n".join(lines) if len(lines) > 2 else ""
