"""arena: the compaction arena. Replay long sessions under many strategies; compare.

Motto: every strategy on the same work, priced with the prompt cache counted.

Its rooms, one line each:

    sessions/        what is replayed: real logs read from any folder, or the kit's own long session
    bills/           what a request costs, as the log states it: prices, tokens, the prompt cache
    strategies/      what each strategy does to the history: baselines, frameworks, the API's own, the kit's
    measures/        what the arena measures and claims: cost, memory, the goal, the Pareto front
    context.py       what a strategy is handed; how one request is measured
    replay.py        each turn: strategy.request(history) -> a request, measured
    run.py           every strategy on every session, into rows and replays
    bill_check.py    the replay of what was sent against the log's own bill
    report.py        tables, results.md and results.csv
    chart.py         the chart: request tokens per turn (arena.png)
    overhead.py      per-turn cost of the pipeline against a seed-style one
    exercise.py      the notebook's "strategy under a budget" check and its reference
    __main__.py      python -m arena: the command line

Run it: `python -m arena` (or `make bench`); benchmarks/arena_overhead.py;
the capstone notebook lessons/arena.ipynb.

Importing this package reads no file and runs nothing.
"""

from .bills.prices import SONNET, Prices
from .context import WINDOW, Context
from .measures.metrics import Facts, Row, extract_facts, recall
from .measures.probes import Probes
from .replay import Replay, replay
from .run import run_arena
from .sessions.folders import load_trace, load_traces
from .sessions.session import Session, SessionError
from .strategies.registry import strategies

__all__ = [
           "SONNET",
           "WINDOW",
           "Context",
           "Facts",
           "Prices",
           "Probes",
           "Replay",
           "Row",
           "Session",
           "SessionError",
           "extract_facts",
           "load_trace",
           "load_traces",
           "recall",
           "replay",
           "run_arena",
           "strategies",
]
