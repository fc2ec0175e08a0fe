"""s08_compact4: the four-layer context compactor (estimate, safe cut, rolling summary, truncate).

Read config.py, boundary.py (layers 1-2), summary.py and compactor.py (layers 3-4), then agent.py.
"""

from .agent import MAX_TOKENS_RETRIES, Agent, agent_loop
from .boundary import TokenEstimator, find_safe_cut
from .compactor import ContextCompactor, SummaryFailed
from .config import CompactEvent, CompactionConfig, CompactLayer
from .summary import SummaryBuffer

__all__ = ["MAX_TOKENS_RETRIES", "Agent", "CompactEvent", "CompactLayer", "CompactionConfig", "ContextCompactor",
           "SummaryBuffer", "SummaryFailed", "TokenEstimator", "agent_loop", "find_safe_cut"]
