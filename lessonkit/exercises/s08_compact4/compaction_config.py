"""s08 exercise 1: pick the compactor's thresholds so that real runs stay under the window.

    compaction_config(context_window) -> CompactionConfig(context_window=...,
                                                          compact_trigger_ratio=?, keep_recent_ratio=?)

Each case is a real run of the s08 agent on the offline model: "read every Python file
in this folder, one at a time" in a demo workspace, with the model's context window
set to the case's, and the compactor configured by the student's function. A run passes
when:

  1. no request is refused (prompt too long): the trigger compares TokenEstimator's
     guess for the messages (chars / 3) with the window, but the request also carries
     the system prompt and the tool schemas (~730 tokens here);
  2. it ends with the whole final answer (a turn cut off by max_tokens that compaction
     cannot make room for is kept cut, and the task ends unfinished);
  3. no emergency truncation: old turns dropped unsummarised;
  4. no thrashing: not a compaction before every request (each is a summary request,
     and a rewritten history the prompt cache has to write again);
  5. no lost work: after each compaction, the request still carries word for word at
     least as many tool results as a third of the window holds (the model still sees
     the files it just read).

These are the whole criterion: every setting that keeps the work and the requests inside the
window passes (a band, not the seed's 0.8/0.5 alone: 0.75/0.45 and 0.8/0.45 pass too), and a
rejected one is told how far it is from the band: how many tokens (and what share of the
window) a refused request was over, how much more of the window the lost reads needed.

The cases are chosen so that bad settings visibly cost: a trigger a few points too
late is refused on the 2,200-token window, a keep ratio too low leaves too little of the
recent work, one too high leaves no room for the next turn's answer.

The report names the first thing that went wrong in each run, with its numbers:
"request 15 was refused: prompt is too long: 3,023 tokens > 3,000 maximum; the trigger saw
2,774 estimated tokens of messages (it fires at 2,850), and the request also carried 735
tokens of system prompt and tools; s07's reactive compaction caught it, ...".

The starter compacts as late as it can (95% of the window) and keeps most of it verbatim.

How a run goes is in runs.py; what a run means, and the report's line for it, in run_verdicts.py.

Example: exercise.check(ratios(0.8, 0.3)) -> ✗ compaction_config: 2/5 cases pass
  ✗ 12 files, a 3,000-token window (and 2 more cases like it): after the compaction before request 7
    only 2 of the file reads were left word for word, where 3 fit: the model no longer sees the work it
    just did (lost work): keep more of the recent history (trigger 0.8, keep 0.3)

Reference: s08_compact4.CompactionConfig itself: its defaults are the seed's, 0.8 and 0.5.
"""

from __future__ import annotations

from s08_compact4 import CompactionConfig

from .. import Case, Exercise, Mistake
from .run_verdicts import verdict
from .runs import Run, run_with, sandbox

STARTER = '''\
from s08_compact4 import CompactionConfig


def compaction_config(context_window):
    """The compactor's settings for a model with this context window (in tokens)."""
    return CompactionConfig(context_window=context_window,
                            compact_trigger_ratio=0.95,   # use the whole window before compacting
                            keep_recent_ratio=0.75)       # and keep most of it word for word
'''

TASK = """Write compaction_config(context_window): a CompactionConfig for that window whose
compact_trigger_ratio and keep_recent_ratio keep each run under the window, finished,
without emergency truncation, without a summary before every request, and without losing
the recent work."""


def graded(max_summaries: int, min_kept: int):
    """A verdict for one run: the four tests above, then at most `max_summaries` compactions, and
    at least `min_kept` tool results left word for word after each (what the window has room for)."""
    def check_run(got: Run) -> str | None:
        return verdict(got, max_summaries=max_summaries, min_kept=min_kept)
    return check_run


def cases(env=None) -> list[Case]:
    """No case carries a fixed `why`: each run's report says what went wrong in it, with its numbers.

    12 x 40 lines in 3,000 tokens is the lesson's run; 10 x 60 lines in 2,400 and 2,200 tokens
    leave the system prompt and tools (~730 tokens) a large share of the window, so a trigger a
    few points too late is refused; 20 files in 6,000 tokens is a longer session, where how often
    it compacts is what it costs; 8 x 120 lines in 8,000 tokens is few, big results (~1,000
    tokens a turn), of which half the window holds 3.
    """
    # The band: no per-case count of summaries beyond "not one before every request" (a thrash), and
    # the recent work a third of the window and more holds, not half: any setting that keeps the work
    # and the requests inside the window passes, 0.75 / 0.45 as well as 0.8 / 0.5.
    many = 10**9
    return [
        Case("12 files, a 3,000-token window", (12, 40, 3_000), graded(many, 2)),
        Case("10 long files, a 2,400-token window", (10, 60, 2_400), graded(many, 1)),
        Case("10 long files, a 2,200-token window", (10, 60, 2_200), graded(many, 1)),
        Case("20 files, a 6,000-token window", (20, 40, 6_000), graded(many, 4)),
        Case("8 files of 120 lines, an 8,000-token window", (8, 120, 8_000), graded(many, 2)),
    ]


# ---- plausible wrong settings -------------------------------------------------------------

def ratios(trigger: float, keep: float):
    """A compaction_config with these ratios. Example: ratios(0.85, 0.5)(3_000).compact_threshold -> 2550"""
    def compaction_config(context_window):
        return CompactionConfig(context_window=context_window, compact_trigger_ratio=trigger,
                                keep_recent_ratio=keep)
    compaction_config.__qualname__ = f"ratios({trigger}, {keep})"
    return compaction_config


def no_window(context_window):
    """Forgets to pass the window: the ratios are of the default 200,000 tokens."""
    return CompactionConfig()


def plain_dict(context_window):
    """The settings as a dict."""
    return {"context_window": context_window, "compact_trigger_ratio": 0.8, "keep_recent_ratio": 0.5}


MISTAKES = (
    Mistake("the starter: 0.95 / 0.75", ratios(0.95, 0.75),
            "request 13 was refused: prompt is too long: 3,028 tokens > 3,000 maximum"),
    Mistake("a first guess: 0.85 / 0.5", ratios(0.85, 0.5), "tokens > 2,200 maximum"),
    Mistake("0.9 / 0.5", ratios(0.9, 0.5), "tokens > 2,400 maximum"),
    Mistake("keep little: 0.8 / 0.3", ratios(0.8, 0.3), "(lost work)"),
    Mistake("keep most: 0.8 / 0.7", ratios(0.8, 0.7), "the run ended on an answer cut off by max_tokens"),
    Mistake("the default window", no_window, "its context_window is 200,000, the model's is 3,000"),
    Mistake("a dict, not a CompactionConfig", plain_dict, "returned dict, not a CompactionConfig"),
)

HINTS = (
    "Two numbers, two opposite costs. The trigger: too late and a request is refused (the estimate "
    "does not see the system prompt and tools); too early and it summarizes more often than needed. "
    "The keep ratio: too low and the model loses the files it just read; too high and no room is left "
    "for the next answer.",
    "Read each failing run's numbers: a refusal says how far over the window the request went (and so "
    "how much earlier the trigger must fire); '(lost work)' says how much more of the window to keep; a "
    "cut-off answer says keep less. Move one ratio at a time, in steps of 0.05.",
    "The seed's defaults pass every run: CompactionConfig(context_window=context_window, "
    "compact_trigger_ratio=0.8, keep_recent_ratio=0.5).",
)

SOLUTION = '''\
from s08_compact4 import CompactionConfig


def compaction_config(context_window):
    """The compactor's settings for a model with this context window (in tokens)."""
    return CompactionConfig(context_window=context_window,
                            compact_trigger_ratio=0.8,    # room above the trigger for the system prompt
                            keep_recent_ratio=0.5)        # half the window verbatim, room for the answer
'''

exercise = Exercise(name="compaction_config", task=TASK, starter=STARTER, reference=CompactionConfig,
                    cases=cases, setup=sandbox, adapt=run_with, hints=HINTS, mistakes=MISTAKES,
                    solution=SOLUTION)
