"""lessonkit.arena: the compaction arena. Replay long sessions under many strategies; compare.

Motto: every strategy on the same work, priced with the prompt cache counted.

    sessions.py   recorded traces from any folder        generate.py  the kit's agent, 300+ calls
         └────────────────────┬───────────────────────────────┘
                              v
    replay.py     for each assistant turn: strategy.request(history) -> request
                  validate (400s) · count (accounting.py) · prompt cache · summary calls
                              v
    metrics.py    cost (prices.py) · tokens · cache · peak vs window · invalid · recall · ms/turn
                              v
    report.py     table per session and overall · results.md / .csv · arena.png · goal check

Strategies: baselines.py (none, context editing, observation masking, recorded),
summarizers.py (OpenHands, LangChain), kit.py (the s06/s07 agents, the s08 compactor),
recommended.py (the kit's recommended pipeline), registry.py (the names).
overhead.py: the per-turn cost of the recommended pipeline against a seed-style one.
Run it: `python -m lessonkit.arena` (or `make bench`); benchmarks/arena_overhead.py.

Importing this package reads no file and runs nothing.
"""

from .metrics import Facts, Row, extract_facts, recall
from .prices import SONNET, Prices
from .registry import strategies
from .replay import WINDOW, Context, Replay, replay
from .run import run_arena
from .sessions import Session, SessionError, load_trace, load_traces

__all__ = [
           "SONNET",
           "WINDOW",
           "Context",
           "Facts",
           "Prices",
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
