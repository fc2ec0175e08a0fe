from . import agent
from .agent import MAX_TOKENS_RETRIES, Agent, agent_loop
from .boundary import TokenEstimator, find_safe_cut
from .compactor import ContextCompactor, SummaryFailed
from .config import CompactEvent, CompactionConfig, CompactLayer
from .summary import SummaryBuffer

__all__ = ["MAX_TOKENS_RETRIES", "Agent", "CompactEvent", "CompactLayer", "CompactionConfig", "ContextCompactor",
           "SummaryBuffer", "SummaryFailed", "TokenEstimator", "agent_loop", "find_safe_cut"]

# The package's help is the stage's own docstring (agent.py), plus where to read on.
__doc__ = agent.__doc__ + ("\nRead config.py, boundary.py (layers 1-2), summary.py and compactor.py (layers 3-4), "
                           "then agent.py.\n")
