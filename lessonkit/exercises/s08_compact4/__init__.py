"""s08 exercises: the compactor's thresholds (`exercise`) and the estimate its trigger reads (`estimate`).

    compaction_config.py   exercise 1: compaction_config(context_window), its cases and wrong settings
      runs.py                one run of the s08 agent on the offline model with the student's settings
      run_verdicts.py        what a run means: the first thing that went wrong in it, with its numbers
    estimate_one.py        exercise 2: estimate_one(message), characters / 3, its cases and wrong answers
      estimate_slips.py      why a wrong estimate is wrong: the slip that gives it, or the rules it breaks

Example: exercise.check(ratios(0.95, 0.75)) -> ✗ compaction_config: 2/5 cases pass
  ✗ 12 files, a 3,000-token window (and 1 more case like it): request 13 was refused: prompt is too long:
    3,028 tokens > 3,000 maximum; the trigger saw 2,785 estimated tokens of messages (it fires at 2,850),
    and the request also carried 735 tokens of system prompt and tools; s07's reactive compaction caught
    it, for the price of a refused request and a summary (trigger 0.95, keep 0.75)
  ✗ 10 long files, a 2,200-token window: the run ended on an answer cut off by max_tokens at request 9 ...

References: s08_compact4.CompactionConfig (its defaults, 0.8 and 0.5) and s08_compact4.TokenEstimator.estimate_one.
"""

from __future__ import annotations

from .compaction_config import HINTS, MISTAKES, SOLUTION, STARTER, exercise, no_window, plain_dict, ratios
from .estimate_one import ESTIMATE_HINTS, ESTIMATE_MISTAKES, ESTIMATE_STARTER, estimate, per_block, reprs
from .estimate_slips import RULES, SLIPS, count_chars, estimated
from .run_verdicts import verdict
from .runs import Run, run_with

__all__ = ["ESTIMATE_HINTS", "ESTIMATE_MISTAKES", "ESTIMATE_STARTER", "HINTS", "MISTAKES", "RULES", "SLIPS",
           "SOLUTION", "STARTER", "Run", "count_chars", "estimate", "estimated", "exercise", "no_window",
           "per_block", "plain_dict", "ratios", "reprs", "run_with", "verdict"]
