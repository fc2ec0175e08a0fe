"""Run the arena: every strategy on every session, with progress, into rows and replays.

Motto: the same work for everyone, measured the same way.

    sessions x strategies ──> replay (replay.py) ──> Row (metrics.py) ──> report.py

Each session's facts and probe lines are extracted once and its blocks counted once
(one BlockMemo shared by all strategies on that session); each strategy gets a fresh state, a
fresh prompt cache and its own scratch folder.

Example: rows, replays = run_arena([session], ["none", "ctx-edit"])

Not modeled: parallel runs (the machine has 2 cores; one process is fast enough).
"""

from __future__ import annotations

import shutil

from .bills.calibration import memo_for
from .bills.model import fit
from .bills.prices import SONNET, Prices
from .context import WINDOW, scratch_dir
from .measures.consequences import Checker, find_needs
from .measures.metrics import extract_facts, row
from .measures.probes import Probes
from .replay import replay
from .strategies.registry import applies, strategies


def run_arena(sessions: list, names=None, *, window: int = WINDOW, prices: Prices = SONNET,
              progress=None, breakpoints: str = "last", calibrate: bool = False,
              calibrations: dict | None = None, scale: float | None = None,
              spread: int = 0) -> tuple[list, list]:
    """(rows, replays) for every applicable (session, strategy) pair, sessions outermost.

    progress(session_name, strategy_name, turn, turns) is called as replays advance;
    `breakpoints` is the client's breakpoint policy for every strategy (replay.py).
    Each session is counted with its measured prefix; with `calibrate`, with its counter
    scaled to the logged usage (calibration.py). `calibrations`, if given, receives
    session name -> Calibration. `scale` counts every session with that scale (a what-if run).
    With `calibrate`, a session that logs usage per request is replayed with its bill model
    (bills/model.py: the counter fitted per block kind on its first requests, each request's model, the
    cache TTL, the logged output); `spread` -1 / +1 moves every weight by minus / plus the held-out
    error that model measured (BillModel.spread; other sessions: by the largest such error).
    """
    chosen = strategies(names, window=window)
    rows, replays = [], []
    scratch = scratch_dir()
    try:
        bills = {s.name: bill_of(s) for s in sessions} if calibrate else {}
        worst = max((b.spread for b in bills.values() if b), default=0.0)
        for session in sessions:
            bill = bills.get(session.name)
            memo, found = memo_for(session, calibrate, scale)
            if bill is not None:
                memo = bill.memo(spread * bill.spread)
            elif spread:
                memo.scale *= 1 + spread * worst
            facts, probes, needs = extract_facts(session.messages), Probes(session), find_needs(session)
            if calibrations is not None:
                calibrations[session.name] = found
            for name, make in chosen.items():
                if not applies(make, session):
                    continue
                tick = (lambda t, n, s=session.name, k=name: progress(s, k, t, n)) if progress else None
                checker = Checker(needs)
                probe = lambda t, m, c=checker, p=probes: (c(t, m), p(t, m))[1]  # noqa: E731
                result = replay(session, make, window=window, memo=memo, workdir=scratch_dir(scratch),
                                progress=tick, probe=probe, breakpoints=breakpoints, bill=bill)
                result.strategy = name
                replays.append(result)
                rows.append(row(result, facts, prices))
                rows[-1].needed_lost, rows[-1].needed = len(checker.removed), checker.checked
                rows[-1].lost_items = list(checker.removed)
                rows[-1].first_compaction = result.compactions[0][0] if result.compactions else None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return rows, replays


def bill_of(session):
    """The session's bill model (bill.fit), fitted once and kept on the session."""
    if not hasattr(session, "bill_model"):
        session.bill_model = fit(session)
    return session.bill_model
