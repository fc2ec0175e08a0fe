"""lessonkit.arena: the compaction arena. Replay long sessions under many strategies; compare.

Motto: every strategy on the same work, priced with the prompt cache counted.

Its modules, one line each:

    sessions.py      read sessions: Messages-API traces and raw logs, from any folder
    readers/         raw logs: Claude Code, Agent SDK, codex exec, mini-swe-agent, OpenHands
    session.py       one session: a history the API would accept, its logged usage and notes
    generate.py      the kit's own agent doing long work (small_session: the notebook's)
    codebase.py      the generated code base, test runner and planted bugs it works on
    harness.py       what the harness really sent: Codex's output cut, Claude Code's restored files
    calibration.py   the counter against logged usage; the unrecorded prefix
    bill.py          a logged session's bill model: per-kind counter, models, cache TTL, output
    unlogged.py      what Claude Code adds to requests and its log never shows: after its events, carried
    billcheck.py     the replay of what was sent against the log's own bill
    prices.py        the price table, per model, with its source and date
    registry.py      the strategies by name; token thresholds scaled to the window
    baselines.py     none, context editing, observation masking, recorded
    summarizers.py   OpenHands' condenser and LangChain's summarisation middleware
    server.py        the API's compact_20260112 and clear_tool_uses_20250919
    kit.py           the s06 / s07 agents and the s08 compactor as strategies
    recommended.py   the kit's recommended pipeline: batch clearing behind a stable breakpoint
    counted.py       s08's compactor measuring in the bill's tokens: the pipeline's summary layer
    breakeven.py     does a clearing pay for itself (the Lindy prior)
    oracle.py        the hindsight-best clearing schedule, a yardstick
    edits.py         small history edits the strategies share (copy-on-write, pair-safe)
    replay.py        each turn: strategy.request(history) -> a request, measured
    context.py       what a strategy is handed; how one request is measured
    breakpoints.py   where the client puts cache breakpoints ('last', 'sticky')
    accounting.py    token counts memoized per block; the prompt cache over them
    run.py           every strategy on every session, into rows and replays
    metrics.py       per strategy: cost, tokens, cache, peak, invalid requests, key-fact recall
    probes.py        output recall: the recent tool output each request still shows
    consequences.py  needed results removed when the recorded agent needed them
    frontier.py      regret against the oracle; cost against memory, the Pareto front
    goal.py          the goal per session: cheapest among those that fit, recall kept
    verdict.py       the goal across the counter's spread
    report.py        tables, results.md and results.csv
    plot.py          the chart: request tokens per turn (arena.png)
    exercise.py      the notebook's "strategy under a budget" check and its reference
    overhead.py      per-turn cost of the pipeline against a seed-style one
    __main__.py      python -m lessonkit.arena: the command line

Run it: `python -m lessonkit.arena` (or `make bench`); benchmarks/arena_overhead.py;
the capstone notebook lessons/arena.ipynb.

Importing this package reads no file and runs nothing.
"""

from .context import WINDOW, Context
from .metrics import Facts, Row, extract_facts, recall
from .prices import SONNET, Prices
from .probes import Probes
from .registry import strategies
from .replay import Replay, replay
from .run import run_arena
from .session import Session, SessionError
from .sessions import load_trace, load_traces

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
