"""The strategies the arena runs, by name, each a factory of a fresh strategy per session.

Motto: one name, one documented design, one fresh state per session.

    name              what it is (token figures at a 200K window)        where it is from
    none              the whole history every turn                       -
    ctx-edit          clear old tool results past 100K, keep 3           Anthropic clear_tool_uses_20250919
    ctx-edit+5k       ... reclaiming at least 5,000 tokens per clearing  (its clear_at_least)
    api-compact       past 150K, the API summarises with the same model   Anthropic compact_20260112 (api_side.py)
                      and continues from the summary (its pass billed)
    masking-10        all but the last 10 tool results masked            "The Complexity Trap" / SWE-agent
    openhands         LLM condenser, max_size 100 events, keep_first 1   OpenHands LLMSummarizingCondenser
    langchain         summarise past 0.8 of the window, keep 20 msgs     LangChain SummarizationMiddleware
    recorded          Claude Code's own compaction, as recorded          the trace (only where it has one)
    s06               the s06 agent's prepare: budget, micro, auto 50K   s06_compact.Agent (kit_layers.py)
    s07               + snip; reactive compaction on prompt-too-long     s07_reactive.Agent
    s08               the four-layer ContextCompactor, s08 defaults      s08_compact4.ContextCompactor
    recommended       s05 persist + cost-optimal batch clearing behind   recommended.py
                      a stable breakpoint; s08/s07 only when needed
    oracle            the same clearings at the hindsight-best requests  oracle.py (dynamic programming
                      (it reads the whole session: a yardstick only)     over where to clear)

The thresholds given in tokens (context editing's trigger and clear_at_least, the
s06/s07 auto-compaction threshold) are the documented values for a 200K window;
`strategies(window=W)` scales them by W / 200K, so a small window (the notebook's)
asks the same of every strategy. Thresholds given as fractions of the window, in
events or in messages are the same at every window.

The kit's layers are listed only when their stage packages import (kit_layers.py).

A strategy is any object with `name`, `start(session, ctx)` and
`request(history) -> messages`; optional `recover(history, messages)` (called on a
request over the window) and `applies(session)` (a static check: skip otherwise).

Example: [make().name for make in strategies().values()] -> ['none', 'ctx-edit', ...]
"""

from __future__ import annotations

from ..context import WINDOW
from .api_side import COMPACT_MINIMUM, COMPACT_TRIGGER, ServerClearing, ServerCompaction
from .baselines import NoCompaction, ObservationMasking, Recorded
from .kit_layers import kit_strategies
from .summarizers import LangChainSummarization, OpenHandsCondenser

CTX_EDIT_TRIGGER = 100_000     # tokens, at a 200K window (Anthropic's documented default)
CTX_EDIT_AT_LEAST = 5_000      # tokens, the docs' own clear_at_least example
AUTO_THRESHOLD = 50_000        # tokens, s06's THRESHOLD


def scaled(tokens: int, window: int) -> int:
    """A token threshold documented for a 200K window, at `window`. Example: scaled(100_000, 20_000) -> 10_000"""
    return max(1, round(tokens * window / WINDOW))


def baseline_strategies(window: int = WINDOW) -> dict:
    """Name -> factory for the strategies that need nothing from the stages."""
    trigger, at_least = scaled(CTX_EDIT_TRIGGER, window), scaled(CTX_EDIT_AT_LEAST, window)
    compact, minimum = scaled(COMPACT_TRIGGER, window), scaled(COMPACT_MINIMUM, window)
    return {
        "none": NoCompaction,
        "ctx-edit": lambda: ServerClearing(trigger=trigger, keep=3),
        "ctx-edit+5k": lambda: ServerClearing(trigger=trigger, keep=3, clear_at_least=at_least),
        "api-compact": lambda: ServerCompaction(trigger=compact, minimum=minimum),
        "masking-10": lambda: ObservationMasking(10),
        "openhands": lambda: OpenHandsCondenser(max_size=100, keep_first=1),
        "langchain": lambda: LangChainSummarization(fraction=0.8, keep=20),
        "recorded": Recorded,
    }


def strategies(names=None, *, window: int = WINDOW) -> dict:
    """All strategies (or those named, in the order given); unknown names raise a one-line error."""
    found = {**baseline_strategies(window), **kit_strategies(scaled(AUTO_THRESHOLD, window))}
    if not names:
        return found
    unknown = [n for n in names if n not in found]
    if unknown:
        raise ValueError(f"unknown strategy {', '.join(unknown)}: choose from {', '.join(found)}")
    return {n: found[n] for n in names}


def applies(make, session) -> bool:
    """Does the strategy apply to this session? (e.g. 'recorded' needs a recorded compaction)"""
    check = getattr(make, "applies", None)
    return check(session) if check else True
