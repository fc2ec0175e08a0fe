"""s06_compact: three layers that keep a long session inside the context window.

Read micro.py (layer 1), summary.py and auto.py (layers 2-3), transcript.py, then agent.py.
"""

from .auto import MAX_FAILURES, THRESHOLD, CircuitBreaker, auto_compact, compact_history, estimate_tokens
from .micro import KEEP_RECENT, PLACEHOLDER, micro_compact, placeholder
from .summary import SummaryError, summarize, summary_message
from .transcript import Transcript, new_session_path, read_transcript

__all__ = ["KEEP_RECENT", "MAX_FAILURES", "PLACEHOLDER", "THRESHOLD", "CircuitBreaker", "SummaryError",
           "Transcript", "auto_compact", "compact_history", "estimate_tokens", "micro_compact",
           "new_session_path", "placeholder", "read_transcript", "summarize", "summary_message"]
