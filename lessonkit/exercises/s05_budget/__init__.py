"""s05 exercises: persist a big output with a preview (`exercise`), the cache breakpoint (`cache_exercise`).

    persist.py           exercise 1: persist_large_output(...), its cases and its wrong answers
      persist_box.py       the box each call runs in, and what it returned, raised and wrote
      persist_verdicts.py  why an answer is wrong: what it wrote, what its block says, its preview
    cache.py             exercise 2: with_cache_breakpoint(messages), its cases and its wrong answers
      cache_verdicts.py    why an answer is wrong: the history changed, the mark misplaced, a copy

Example: exercise.check(next_newline) -> ✗ persist_large_output: 4/8 cases pass
  ✗ a 108,000-character output (and 3 more cases like it): the preview has 2,016 characters, more
    than preview_chars (2,000)

References: s05_budget.persist_large_output and s05_budget.with_cache_breakpoint.
"""

from __future__ import annotations

from .cache import (
    CACHE_STARTER,
    any_last_block,
    cache_exercise,
    copies_everything,
    first_block,
    lists_only,
    marks_every_turn,
    marks_in_place,
    marks_the_history,
)
from .persist import (
    STARTER,
    at_the_threshold,
    exercise,
    first_lines,
    id_as_path,
    names_another_file,
    next_newline,
    persists_previews,
    seeds_persist,
    two_files,
)

__all__ = ["CACHE_STARTER", "STARTER", "any_last_block", "at_the_threshold", "cache_exercise", "copies_everything",
           "exercise", "first_block", "first_lines", "id_as_path", "lists_only", "marks_every_turn",
           "marks_in_place", "marks_the_history", "names_another_file", "next_newline", "persists_previews",
           "seeds_persist", "two_files"]
