"""The four-layer compactor's settings, each a share of the context window, and the event it reports.

Example: CompactionConfig(context_window=8_000), in estimated tokens:
    0 ────────── keep_recent 4,000 ──── compact 6,400 ──── emergency 7,600 ─── 8,000 context_window
                 (50%) what stays       (80%) summarise    (95%) drop whole
                 after a compaction     (layer 3)          turns (layer 4)
         CompactionConfig(keep_recent_ratio=0.9) -> ValueError("keep_recent_ratio (0.9) must be below ...")
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

DEFAULT_COMPACT_TRIGGER_RATIO = 0.8
DEFAULT_EMERGENCY_TRIGGER_RATIO = 0.95
DEFAULT_KEEP_RECENT_RATIO = 0.5
DEFAULT_SUMMARY_MAX_TOKENS = 2048
DEFAULT_MIN_HISTORY_TO_COMPACT = 4
DEFAULT_CONTEXT_WINDOW = 200_000


@dataclass(frozen=True)
class CompactionConfig:
    """When to compact and how much to keep (ratios of `context_window`, in estimated tokens)."""
    compact_trigger_ratio: float = DEFAULT_COMPACT_TRIGGER_RATIO      # layer 1-3: summarise above this
    emergency_trigger_ratio: float = DEFAULT_EMERGENCY_TRIGGER_RATIO  # layer 4: truncate above this
    keep_recent_ratio: float = DEFAULT_KEEP_RECENT_RATIO              # what recent messages may keep
    summary_max_tokens: int = DEFAULT_SUMMARY_MAX_TOKENS              # the summary call's max_tokens
    min_history_to_compact: int = DEFAULT_MIN_HISTORY_TO_COMPACT      # shorter histories are left alone
    # The model's window, in tokens: a number you pass (not modeled: a table of each model's window).
    context_window: int = DEFAULT_CONTEXT_WINDOW

    def __post_init__(self):
        for name in ("compact_trigger_ratio", "emergency_trigger_ratio", "keep_recent_ratio"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
                raise ValueError(f"{name} must be a ratio in (0, 1], got {value!r}")
        for name, low in (("summary_max_tokens", 1), ("min_history_to_compact", 2), ("context_window", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
        if self.keep_recent_ratio >= self.compact_trigger_ratio:
            raise ValueError(f"keep_recent_ratio ({self.keep_recent_ratio}) must be below "
                             f"compact_trigger_ratio ({self.compact_trigger_ratio}): "
                             "a compaction must leave the history under its trigger")
        if self.compact_trigger_ratio > self.emergency_trigger_ratio:
            raise ValueError(f"compact_trigger_ratio ({self.compact_trigger_ratio}) must not exceed "
                             f"emergency_trigger_ratio ({self.emergency_trigger_ratio})")

    @property
    def compact_threshold(self) -> int:
        return int(self.context_window * self.compact_trigger_ratio)

    @property
    def emergency_threshold(self) -> int:
        return int(self.context_window * self.emergency_trigger_ratio)

    @property
    def keep_recent_tokens(self) -> int:
        return int(self.context_window * self.keep_recent_ratio)


class CompactLayer(str, Enum):
    """Which layer changed the history (the value is the "compact" event's layer name)."""
    SUMMARIZE = "summarize"  # layer 3: old messages folded into the rolling summary (gentle)
    TRUNCATE = "truncate"    # layer 4: oldest whole turns dropped (aggressive)


@dataclass(frozen=True)
class CompactEvent:
    """What one compaction did. Tokens are TokenEstimator's (chars / 3) numbers."""
    layer: CompactLayer
    messages_before: int
    messages_after: int
    tokens_before: int
    tokens_after: int
    summary_text: str | None = None  # only for SUMMARIZE
