"""s07 exercise 1: the pair-safe cut: where a history may be cut without orphaning a tool_result.

    safe_cut(messages, k)            the kept part is messages[k:]
      messages[k] is a user message carrying tool_result blocks?
          its tool_use is in messages[k-1], which the cut drops: step back to k-1
      anything else (an assistant turn, a new prompt, 0, the end) is safe: k
      k outside 0..len(messages) is clamped first

    u0 "read every file"   a1 tool_use(t1)   u1 tool_result(t1)   a2 tool_use(t2)   u2 ...
                                             ^ cut here: t1's result has no tool_use -> 400
                           ^ safe_cut(h, 2) == 1

When a student's cut is unsafe, the report quotes what the offline model's API
answers for the kept part (after a "[snipped N messages]" marker merged in front,
as s07's join does): "messages.0.content.0: unexpected `tool_use_id` found in
`tool_result` blocks: toolu_02 ...", and where to step back to. A crash is reported as
check() does ("raised IndexError: list index out of range"), followed by what it means
when that is sure ("messages[7] does not exist: a cut at len(messages) ...").

The starter is the seed's slicing: `messages[-keep_tail:]` starts wherever the count
lands, so the cut is k itself.

The histories are in cut_histories.py, the verdicts that explain a wrong cut in cut_verdicts.py.

Example: exercise.check(no_clamp) -> ✗ safe_cut: 10/12 cases pass
  ✗ k past the end: returned 12, expected 7: a cut is an index from 0 to len(messages) = 7; clamp k first
  ✗ k below 0: returned -3, expected 0: a cut is an index from 0 to len(messages) = 7; clamp k first

Reference: s07_reactive.safe_cut.
"""

from __future__ import annotations

from s07_reactive import safe_cut
from s07_reactive.pairs import is_safe_cut

from .. import Case, Exercise, Mistake
from .cut_histories import follow_up, noted, parallel, reads
from .cut_verdicts import Raised, expect

STARTER = '''\
def safe_cut(messages, k):
    """The nearest cut at or before k where messages[k:] starts on no orphaned tool_result (0 if none)."""
    return k   # the seed: messages[-keep_tail:] starts wherever the count lands
'''

TASK = """Write safe_cut(messages, k): the largest cut c <= k such that messages[c:] does not
start with a user message carrying tool_result blocks (their tool_use would be cut
away). 0 and len(messages) are always safe; clamp k into 0..len(messages) first."""


def attempt(fn, env=None):
    """The student's fn as the cases call it: (messages, k) -> what it returned, or Raised."""
    def run(messages, k):
        try:
            return fn(messages, k)
        except Exception as exc:  # noqa: BLE001 -- a crash is a result, explained by the verdict when it can
            return Raised(exc)
    return run


def cut(name: str, messages: list, k: int, want: int) -> Case:
    """The case "safe_cut(messages, k) == want"."""
    return Case(name, (messages, k), expect(messages, k, want))


def cases(env=None) -> list[Case]:
    """No case carries a fixed `why`: the verdict explains each cut by the message it lands on."""
    h, par, note, more = reads(3), parallel(), noted(), follow_up()  # h: u0 a1 u1 a2 u2 a3 u3
    blocks = follow_up(as_blocks=True)
    return [
        cut("a cut on an assistant turn", h, 3, 3),
        cut("a cut on a tool_result", h, 4, 3),
        cut("a cut on the first result", h, 2, 1),
        cut("a cut on two parallel results", par, 4, 3),
        cut("a cut on a result with a note beside it", note, 4, 3),
        cut("a cut on an error result (a list of blocks)", note, 6, 5),
        cut("a cut on a new prompt", more, 4, 4),
        cut("a cut on a new prompt given as text blocks", blocks, 4, 4),
        cut("a cut on the last result", more, 6, 5),
        cut("k = 0", h, 0, 0),
        cut("k = len(messages)", h, len(h), len(h)),
        cut("k past the end", h, len(h) + 5, len(h)),
        cut("k below 0", h, -3, 0),
    ]


# ---- plausible wrong answers ---------------------------------------------------------------

def seeds_slice(messages, k):
    """The seed: the cut is wherever the count lands."""
    return k


def by_role(messages, k):
    """Steps back off every user message, a new prompt included."""
    k = max(0, min(k, len(messages)))
    while 0 < k < len(messages) and messages[k]["role"] == "user":
        k -= 1
    return k


def last_block_only(messages, k):
    """Looks at the last block only: a note after the result hides it."""
    k = max(0, min(k, len(messages)))
    while 0 < k < len(messages) and isinstance(messages[k]["content"], list) \
            and messages[k]["content"][-1].get("type") == "tool_result":
        k -= 1
    return k


def forward(messages, k):
    """Moves forward to the next safe cut: drops what it was asked to keep."""
    k = max(0, min(k, len(messages)))
    while not is_safe_cut(messages, k):
        k += 1
    return k


def lists_only(messages, k):
    """Treats every content as a list of blocks: a plain-string prompt crashes it, k = len too."""
    k = max(0, min(k, len(messages)))
    while k > 0 and any(b["type"] == "tool_result" for b in messages[k]["content"]):
        k -= 1
    return k


def no_clamp(messages, k):
    """Right steps, but k is used as it comes: below 0 stays below 0."""
    while 0 < k < len(messages) and not is_safe_cut(messages, k):
        k -= 1
    return k


MISTAKES = (
    Mistake("the seed: the cut is k itself", seeds_slice,
            "the API answers 400: messages.0.content.0: unexpected `tool_use_id`"),
    Mistake("steps back off every user message", by_role,
            "returned 3, expected 4: messages[4] (a new user prompt, a plain string) is already safe"),
    Mistake("looks at the last block only", last_block_only,
            "a cut on a result with a note beside it: returned 4, expected 3"),
    Mistake("steps forward instead of back", forward, "a cut after k=4 drops messages the caller asked to keep"),
    Mistake("every content taken for a list", lists_only, "raised TypeError: string indices must be integers"),
    Mistake("k not clamped", no_clamp, "returned -3, expected 0: a cut is an index from 0 to len(messages)"),
)

HINTS = (
    "Only one place is unsafe: a user message that carries a tool_result block, because its tool_use is "
    "in the message before, which the cut drops. Everything else (an assistant turn, a new prompt, 0, "
    "the end) is a safe place to start.",
    "Clamp first: k = max(0, min(k, len(messages))). Then step back (never forward) while messages[k] is "
    "a user message whose content is a list with ANY block of type tool_result (a plain-string content "
    "holds none).",
    "k = max(0, min(k, len(messages))); while 0 < k < len(messages) and messages[k]['role'] == 'user' and "
    "isinstance(messages[k]['content'], list) and any(b.get('type') == 'tool_result' for b in "
    "messages[k]['content']): k -= 1; return k.",
)

exercise = Exercise(name="safe_cut", task=TASK, starter=STARTER, reference=safe_cut, cases=cases,
                    adapt=attempt, hints=HINTS, mistakes=MISTAKES)

