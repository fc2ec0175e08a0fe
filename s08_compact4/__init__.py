"""s08_compact4: the four-layer context compactor (estimate, safe cut, rolling summary, truncate).

Read config.py, boundary.py (layers 1-2), summary.py and compactor.py (layers 3-4), then agent.py.
"""

from .boundary import TokenEstimator, find_safe_cut
from .compactor import ContextCompactor, SummaryFailed
from .config import CompactEvent, CompactionConfig, CompactLayer
from .summary import SummaryBuffer

__all__ = ["CompactEvent", "CompactLayer", "CompactionConfig", "ContextCompactor", "SummaryBuffer",
           "SummaryFailed", "TokenEstimator", "find_safe_cut"]
