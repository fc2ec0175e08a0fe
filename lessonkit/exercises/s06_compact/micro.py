"""s06 exercise 1: micro-compact, old, long tool results become "[Previous: used <tool>]", in place.

    micro_compact(messages, keep_recent=3)
      tool_results, oldest first:   r1  r2  r3  r4  r5
                                    └older┘└ newest 3 ┘  (kept whole)
      an older result whose text is longer than 100 characters, and costs more tokens than its
      placeholder -> its content becomes "[Previous: used read_file]" (the tool its tool_use named)

Each case runs the student's function on a history wrapped in a list that counts how
often it is walked, so the report can say both what each result became and how many
passes it took: "result 1 of 5 (read_file) became '[Previous: used tool]', expected
'[Previous: used read_file]'", "walked the history 201 times for 200 results".

The starter is the seed's micro_compact (seed 000) with its helper: `hasattr(block, "id")`
is always False on a dict (every placeholder says "used tool"), `str(content)` measures
the repr of a list, `results[:-0]` is empty, and one history scan per result is O(n²).

Example: exercise.check(exercise.starter_function()) -> ✗ micro_compact: 2/9 cases pass
  ✗ five long reads, keep_recent=3: result 1 of 5 (read_file) became '[Previous: used tool]', expected
    '[Previous: used read_file]': the name comes from the tool_use block whose id is the result's tool_use_id

Reference: s06_compact.micro_compact.
"""

from __future__ import annotations

from s06_compact import micro_compact, micro_plan

from .. import Case, Exercise
from .micro_histories import LONG, parallel, reads
from .micro_mistakes import MISTAKES
from .micro_verdicts import SAME, expect, placeholder, run_with

STARTER = '''\
from lessonkit.tokens import count_content   # tokens of a result's content (a str or a list of blocks)

KEEP_RECENT = 3


def micro_compact(messages, keep_recent=KEEP_RECENT):
    """Replace old, long tool results with "[Previous: used {tool_name}]"; change messages in place."""
    tool_results = []
    for i, msg in enumerate(messages):
        if msg["role"] == "user" and isinstance(msg.get("content"), list):
            for j, part in enumerate(msg["content"]):
                if isinstance(part, dict) and part.get("type") == "tool_result":
                    tool_results.append((i, j, part))
    if len(tool_results) <= keep_recent:
        return messages
    for i, j, part in tool_results[:-keep_recent]:
        if len(str(part.get("content", ""))) > 100:
            tool_name = _find_tool_name(messages, part.get("tool_use_id", ""))
            part["content"] = f"[Previous: used {tool_name}]"
    return messages


def _find_tool_name(messages, tool_use_id):
    for msg in messages:
        if msg["role"] == "assistant":
            for block in (msg.get("content") or []):
                if hasattr(block, "id") and block.id == tool_use_id:
                    return block.name
    return "tool"
'''

TASK = """Write micro_compact(messages, keep_recent=3): every tool_result but the newest
`keep_recent` whose text is longer than 100 characters (and costs more tokens than
its placeholder) gets the content "[Previous: used <tool name>]", the name taken from
its tool_use. Change the history in place, in one pass, and return it."""

MAX_PASSES = 1   # walks of the history allowed, however long it is: the task says one pass


def cases(env=None) -> list[Case]:
    """No case carries a fixed `why`: the verdict explains each wrong result by where it stands
    (old or among the newest keep_recent) and what it holds (short, a list of blocks, cheap in tokens)."""
    P = placeholder
    many = reads(*[LONG] * 200)
    return [
        Case("five long reads, keep_recent=3", (reads(*[LONG] * 5), 3),
             expect([P("read_file"), P("read_file"), SAME, SAME, SAME], 3)),
        Case("each placeholder names its own tool", (parallel(), 3),
             expect([P("bash"), P("list_dir"), SAME, SAME, SAME], 3)),
        Case("short results stay", (reads("x" * 100, "y" * 40, LONG, LONG, LONG), 3),
             expect([SAME, SAME, SAME, SAME, SAME], 3)),
        Case("a result given as a list of blocks", (reads([{"type": "text", "text": "b" * 80}],
                                                          [{"type": "text", "text": LONG}], LONG, LONG, LONG), 3),
             expect([SAME, P("read_file"), SAME, SAME, SAME], 3)),
        Case("long in characters, cheap in tokens", (reads("\t" * 150 + "ok", LONG, LONG, LONG), 3),
             expect([SAME, SAME, SAME, SAME], 3)),
        Case("keep_recent=0", (reads(LONG, LONG, LONG), 0), expect([P("read_file")] * 3, 0)),
        Case("fewer results than keep_recent", (reads(LONG, LONG), 3), expect([SAME, SAME], 3)),
        Case("six reads, in one pass", (reads(*[LONG] * 6), 2),
             expect([P("read_file")] * 4 + [SAME] * 2, 2, max_passes=MAX_PASSES)),
        Case("is_error and the note beside the results stay", (parallel(), 4),
             expect([P("bash"), SAME, SAME, SAME, SAME], 4)),
        Case("200 reads, in one pass", (many, 3), expect([P("read_file")] * 197 + [SAME] * 3, 3,
                                                             max_passes=MAX_PASSES)),
    ]

HINTS = (
    "Find every tool_result (user messages hold them in lists), keep the newest keep_recent whole, and "
    "replace the content of each older one that is long (its text, not its repr) and dearer than its "
    "placeholder. The name is in the assistant's tool_use block with the same id.",
    "Walk the history once: record each tool_use's id -> name in a dict, and collect the tool_result "
    "blocks. old = results[:len(results) - keep_recent] (not results[:-keep_recent]: -0 is 0). Measure "
    "a list content by joining its text blocks; compare count_content(content) with the placeholder's.",
    "names, results = {}, []; for m in messages: for b in m's list content: tool_use -> names[b['id']] = "
    "b['name']; tool_result -> results.append(b). For b in results[:max(0, len(results) - keep_recent)]: "
    "if len(text) > 100 and count_content(b['content']) > count_content(p): b['content'] = p. Return messages.",
)

exercise = Exercise(name="micro_compact", task=TASK, starter=STARTER, reference=micro_compact,
                    cases=cases, adapt=run_with, hints=HINTS, mistakes=MISTAKES,
                    solution=(micro_compact, micro_plan))  # micro_plan holds the algorithm: show it
