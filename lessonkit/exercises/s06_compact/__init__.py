"""s06 exercises: write micro-compact (`exercise`); pick the auto-compact threshold for a window (`thresholds`).

    micro.py                exercise 1: micro_compact(messages, keep_recent=3), its cases and hints
      micro_histories.py      the histories its cases compact (long reads, two calls in one turn)
      micro_verdicts.py       the counted run of the student's function, and why a result is wrong
      micro_mistakes.py       plausible wrong answers (the seed's, O(n²), results[:-0], str(), ...)
    threshold.py            exercise 2: pick_threshold(window), its cases, wrong thresholds and hints
      threshold_runs.py       one run of the s06 agent with the student's threshold on one window
      threshold_verdicts.py   what went wrong in a run, and which way to move the threshold

Example: exercise.check(exercise.starter_function()) -> ✗ micro_compact: 2/9 cases pass
  ✗ five long reads, keep_recent=3: result 1 of 5 (read_file) became '[Previous: used tool]', expected
    '[Previous: used read_file]': the name comes from the tool_use block whose id is the result's tool_use_id

References: s06_compact.micro_compact, and pick_threshold (65% of the window) in threshold.py.
"""

from __future__ import annotations

from .micro import HINTS, STARTER, cases, exercise
from .micro_mistakes import (
    MISTAKES,
    characters_only,
    measures_str,
    minus_zero,
    names_by_scan,
    rebuilds_blocks,
    returns_a_copy,
    seeds_micro,
)
from .threshold import (
    RATIO,
    THRESHOLD_HINTS,
    THRESHOLD_MISTAKES,
    THRESHOLD_STARTER,
    fixed_2000,
    half,
    most_of_it,
    nearly_all,
    pick_threshold,
    room_for_output,
    seeds_threshold,
    seventy,
    threshold_cases,
    thresholds,
)
from .threshold_verdicts import PASSING

__all__ = ["HINTS", "MISTAKES", "PASSING", "RATIO", "STARTER", "THRESHOLD_HINTS", "THRESHOLD_MISTAKES",
           "THRESHOLD_STARTER", "cases", "characters_only", "exercise", "fixed_2000", "half", "measures_str",
           "minus_zero", "most_of_it", "names_by_scan", "nearly_all", "pick_threshold", "rebuilds_blocks",
           "returns_a_copy", "room_for_output", "seeds_micro", "seeds_threshold", "seventy", "threshold_cases",
           "thresholds"]
