"""s06 exercise 2: pick_threshold(window) -> the `threshold` the s06 agent is given.

Each case runs the agent on 30 files of 40 lines (a fresh workspace) on one window, and reads
the run: a refused request, a failed summary call, a file read twice (a summary cut
short lost track of the work), an unfinished task, or more summaries than needed.
The starter is the seed's THRESHOLD (50,000, made for a 200,000-token window).

Example: thresholds.check(seeds_threshold) -> ✗ pick_threshold: 2/4 cases pass
  ✗ a 4,000-token window: request 26 was refused (prompt is too long: 4017 tokens > 4000 maximum) with
    threshold 50,000 on a 4,000-token window: the history outgrew the window before the estimate ...

Reference: pick_threshold below (65% of the window): s06 has no window to derive it
from; s08's CompactionConfig does that.
"""

from __future__ import annotations

from .. import Case, Exercise, Mistake
from .threshold_runs import run_agent, scratch
from .threshold_verdicts import PASSING, finishes

THRESHOLD_STARTER = '''\
def pick_threshold(window):
    """The estimated tokens at which the s06 agent summarizes, for a `window`-token context."""
    return 50_000   # the seed's THRESHOLD, made for a 200,000-token window
'''

THRESHOLD_TASK = """Write pick_threshold(window): the auto-compact threshold (in estimated tokens) for a
model with a `window`-token context. The check runs the s06 agent with it on 30 files of
40 lines, on four windows: the task must finish (no request refused, no summary call
failed, no file read twice), with at most 3 summaries (4 on the tightest window), and none
when the window holds it all."""

MAX_SUMMARIES = 3
RATIO = 0.65


def pick_threshold(window: int) -> int:
    """The reference: 65% of the window. Above the threshold there must be room for what the
    estimate does not count (the system prompt and tool schemas), for the next turn's
    results, and for the summary call itself: its prompt sends the history, and its answer
    must fit in what is left. Example: pick_threshold(4_000) -> 2600"""
    return int(window * RATIO)


def threshold_cases(env=None) -> list[Case]:
    """No case carries a fixed `why`: each run's report says what went wrong in it, with its numbers.

    On 200,000 tokens the micro-compacted task peaks near 4,600: no summary is needed. On 6,000
    micro-compact alone nearly copes, and a summary must not make things worse. On 4,000 the system
    prompt and tool schemas take about 730 before the history starts. 3,500 is tight: too late and
    requests are refused, too early and it summarizes every other file.
    """
    return [
        Case("a 200,000-token window", (200_000,), finishes(0)),
        Case("a 6,000-token window", (6_000,), finishes(MAX_SUMMARIES)),
        Case("a 4,000-token window", (4_000,), finishes(MAX_SUMMARIES)),
        Case("a 3,500-token window", (3_500,), finishes(MAX_SUMMARIES + 1)),
    ]


# ---- plausible wrong thresholds -----------------------------------------------------------

def seeds_threshold(window):
    """The seed's THRESHOLD, whatever the window."""
    return 50_000


def half(window):
    return window // 2


def fixed_2000(window):
    """A number that worked on a small window, kept for every window."""
    return 2_000


def most_of_it(window):
    """80%: the seed s08's compact_trigger_ratio, where s06 has no room for the summary call."""
    return int(window * 0.8)


def nearly_all(window):
    return int(window * 0.85)


def room_for_output(window):
    """The window minus a fixed 1,000 tokens for the answer."""
    return window - 1_000


def seventy(window):
    return int(window * 0.7)


THRESHOLD_MISTAKES = (
    Mistake("the seed's 50,000 for every window", seeds_threshold,
            "with threshold 50,000 on a 4,000-token window: the history outgrew the window"),
    Mistake("half the window", half, "with threshold 2,000 on a 4,000-token window: each summary is an extra call"),
    Mistake("a fixed 2,000", fixed_2000, "with threshold 2,000 on a 200,000-token window, where the whole task fits"),
    Mistake("80% of the window", most_of_it, "with threshold 4,800 on a 6,000-token window: a summary lost track"),
    Mistake("85% of the window", nearly_all,
            "with threshold 5,100 on a 6,000-token window: it sends the whole history"),
    Mistake("the window minus 1,000", room_for_output,
            "with threshold 3,000 on a 4,000-token window: a summary lost track"),
    Mistake("70% of the window", seventy, "with threshold 2,450 on a 3,500-token window, after"),
)

THRESHOLD_HINTS = (
    "The threshold is compared with an estimate of the history alone. Above it there must be room for "
    "what the estimate does not count: the system prompt and the tool schemas, the next turn's results, "
    "and the summary call itself (it sends the history and needs room for its answer).",
    "A fixed number cannot fit every window: use a share of it. Too high a share and requests (or the "
    "summary call) are refused or the summary is cut short; too low and it summarizes far too often. "
    f"On these four windows only shares from {PASSING[0]} to {PASSING[1]} pass; read what each run "
    "reports: each failure says which way to move.",
    "Somewhere near two thirds of the window works here: return int(window * 0.65).",
)


thresholds = Exercise(name="pick_threshold", task=THRESHOLD_TASK, starter=THRESHOLD_STARTER,
                      reference=pick_threshold, cases=threshold_cases, setup=scratch, adapt=run_agent,
                      hints=THRESHOLD_HINTS, mistakes=THRESHOLD_MISTAKES)
