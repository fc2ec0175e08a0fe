"""s05_budget: big tool outputs go to disk with a preview; the request carries a cache breakpoint.

Read persist.py, then cache.py, then agent.py.
"""

from .cache import with_cache_breakpoint
from .persist import (PERSIST_THRESHOLD, PREVIEW_CHARS, persist_large_output, persisted_path, preview,
                      result_text, tool_result_budget)

__all__ = ["PERSIST_THRESHOLD", "PREVIEW_CHARS", "persist_large_output", "persisted_path", "preview",
           "result_text", "tool_result_budget", "with_cache_breakpoint"]
