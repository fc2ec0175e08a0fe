"""lessonkit.arena: the compaction arena. Replay long sessions under many strategies; compare.

Motto: every strategy on the same work, priced with the prompt cache counted.

    sessions.py   recorded traces from any folder        generate.py  the kit's agent, 300+ calls
    readers/      raw logs: Claude Code, Agent SDK,            (small_session: the notebook's)
                  codex exec, mini-swe-agent, OpenHands
    harness.py    the harness's own output cut (Codex)   calibration.py  prefix, counter vs logged usage
         └────────────────────┬───────────────────────────────┘
                              v
    replay.py     for each assistant turn: strategy.request(history) -> request
                  breakpoints (breakpoints.py: 'last' or 'sticky') · validate (400s)
                  count (accounting.py) · prompt cache · summary calls · recall probes
                              v
    metrics.py    cost (prices.py) · tokens · cache · peak vs window · invalid · key-fact recall
    probes.py     output recall: the recent tool-output lines each request still shows
    consequences.py  needed results removed at the moment the recorded agent needed them
                              v
    report.py     table per session and overall · results.md / .csv · arena.png · goal check
    verdict.py    issue 14's goal across the counter's spread (cheapest within 1 %, fewest needs lost)
    bill.py       a logged session's bill model: counter fitted per block kind on its first requests,
                  each request's model (prices.py), cache TTL from timestamps; billcheck.py: the replay
                  of what was sent against the log's own bill
    oracle.py     the hindsight-best clearing schedule (a yardstick); frontier.py: regret against it,
                  cost against needed results lost, the Pareto front

Strategies: baselines.py (none, context editing, observation masking, recorded),
summarizers.py (OpenHands, LangChain), kit.py (the s06/s07 agents, the s08 compactor),
server.py (the API's compact_20260112 and clear_tool_uses_20250919 options),
recommended.py (the kit's recommended pipeline; breakeven.py: does a clearing pay
for itself), registry.py (the names; token
thresholds scaled to the window). exercise.py: the notebook's "strategy under a
budget" check and its reference. overhead.py: the per-turn cost of the recommended
pipeline against a seed-style one.
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
