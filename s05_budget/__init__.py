from . import agent
from .agent import BASH_CAP, RESULTS_DIR, Agent, agent_loop, read_slice
from .cache import with_cache_breakpoint
from .persist import (
    PERSIST_THRESHOLD,
    PREVIEW_CHARS,
    over_budget,
    persist_large_output,
    persisted_path,
    preview,
    result_text,
    safe_name,
    tool_result_budget,
)

__all__ = ["BASH_CAP", "PERSIST_THRESHOLD", "PREVIEW_CHARS", "RESULTS_DIR", "Agent", "agent_loop",
           "over_budget", "persist_large_output", "persisted_path", "preview", "read_slice", "result_text",
           "safe_name", "tool_result_budget", "with_cache_breakpoint"]

# The package's help is the stage's own docstring (agent.py), plus where to read on.
__doc__ = agent.__doc__ + "\nRead agent.py, then persist.py and cache.py.\n"
