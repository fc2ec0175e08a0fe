from . import agent
from .agent import COMPACT_TOOL, TRANSCRIPT_DIR, Agent, agent_loop
from .auto import (
    MAX_FAILURES,
    THRESHOLD,
    CircuitBreaker,
    auto_compact,
    compact_history,
    estimate_tokens,
    needs_compaction,
)
from .micro import KEEP_RECENT, PLACEHOLDER, micro_compact, micro_plan, placeholder
from .summary import SummaryError, summarize, summary_message
from .transcript import Transcript, new_session_path, read_transcript

__all__ = ["COMPACT_TOOL", "KEEP_RECENT", "MAX_FAILURES", "PLACEHOLDER", "THRESHOLD", "TRANSCRIPT_DIR",
           "Agent", "CircuitBreaker", "SummaryError", "Transcript", "agent_loop", "auto_compact",
           "compact_history", "estimate_tokens", "micro_compact", "micro_plan", "needs_compaction",
           "new_session_path", "placeholder", "read_transcript", "summarize", "summary_message"]

# The package's help is the stage's own docstring (agent.py), plus where to read on.
__doc__ = agent.__doc__ + ("\nRead agent.py, then transcript.py, micro.py (layer 1), "
                           "summary.py and auto.py (layers 2-3).\n")
