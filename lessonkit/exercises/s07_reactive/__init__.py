"""s07 exercises: the pair-safe cut (`exercise`) and which error is "prompt is too long" (`too_long`).

    safe_cut.py          exercise 1: safe_cut(messages, k), its cases and its wrong answers
      cut_histories.py     the histories its cases cut (reads, parallel calls, a note, a new prompt)
      cut_verdicts.py      what a cut means: where it lands, what the API answers, why it fails
    prompt_too_long.py   exercise 2: prompt_too_long(error), on errors made by real requests

Example: exercise.check(exercise.starter_function())
  -> ✗ safe_cut: 4/12 cases pass
       ✗ a cut on a tool_result: returned 4, expected 3: the kept part would start at messages[4]
         (the user message with toolu_02's result), and the API answers 400: messages.0.content.0:
         unexpected `tool_use_id` found in `tool_result` blocks: toolu_02; step back to messages[3], ...

References: s07_reactive.safe_cut and s07_reactive.prompt_too_long.
"""

from __future__ import annotations

from .prompt_too_long import TOO_LONG_STARTER, too_long
from .safe_cut import STARTER, by_role, exercise, forward, last_block_only, lists_only, no_clamp, seeds_slice

__all__ = ["STARTER", "TOO_LONG_STARTER", "by_role", "exercise", "forward", "last_block_only", "lists_only",
           "no_clamp", "seeds_slice", "too_long"]
