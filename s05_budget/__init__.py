"""s05_budget: big tool outputs go to disk with a preview; the request carries a cache breakpoint.

Read persist.py, then cache.py, then agent.py.
"""

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
                      tool_result_budget,
)

__all__ = [
                      "BASH_CAP",
                      "PERSIST_THRESHOLD",
                      "PREVIEW_CHARS",
                      "RESULTS_DIR",
                      "Agent",
                      "agent_loop",
                      "over_budget",
                      "persist_large_output",
                      "persisted_path",
                      "preview",
                      "read_slice",
                      "result_text",
                      "tool_result_budget",
                      "with_cache_breakpoint",
]
