"""Exercises: the piece of each stage a student writes, a first try the check rejects, and the cases.

    lessonkit.exercises.s01_loop.exercise   assistant_message(response)      (reference in s01_loop)
    lessonkit.exercises.s02_tools.exercise  resolve_in(workspace, path)      (reference in s02_tools)
    lessonkit.exercises.s03_permissions...  check_permission(call, approve)  (reference in s03_permissions)
    lessonkit.exercises.s04_hooks.exercise  trigger_hooks(registry, event, *args)  (reference in s04_hooks)
    lessonkit.exercises.s05_budget          persist_large_output(...)        (reference in s05_budget)
    lessonkit.exercises.s06_compact         micro_compact(...), pick_threshold(window)
    lessonkit.exercises.s07_reactive        safe_cut(messages, k)            (reference in s07_reactive)
    lessonkit.exercises.s08_compact4        compaction_config(context_window)

An Exercise holds what the notebook needs and what the tests check:

    exercise.starter        source of a plausible first try (the notebook's cell tagged "exercise"
                            holds it verbatim: exercise_cells(notebook) reads it back)
    exercise.check(fn)      run the cases on fn -> CheckResult, shown as its report:
                            "✗ resolve_in: 5/10 cases pass" + each failing input and why it matters
    exercise.reference      the stage module's own function: the notebook never holds the only copy

Example: exercise.check(exercise.starter_function())
  -> ✗ assistant_message: 0/5 cases pass
       ✗ a text answer (end_turn): content[0] is a TextBlock, not a plain dict: convert each
         block with to_dict (the history is data: it must survive json.dumps)
       ...

Not modeled: timeouts for student code that never returns, grading or scores.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..checks import Case, CheckResult, check

__all__ = ["Case", "Exercise", "exercise_cells"]

TAG = "exercise"  # the notebook cell the student edits carries this tag


def _same(fn, env):
    return fn


@dataclass(frozen=True)
class Exercise:
    """One exercise. `cases(env)` makes the cases; `setup()` (a context manager) makes `env`,
    e.g. a sandbox on disk; `adapt(fn, env)` turns the student's fn into what the cases call."""
    name: str                                  # the function the student writes
    task: str                                  # what to write, in a few lines
    starter: str                               # a first try that the check rejects
    reference: Callable                        # the stage module's own solution
    cases: Callable[..., list[Case]]
    setup: Callable = contextlib.nullcontext
    adapt: Callable = field(default=_same)

    def check(self, fn: Callable) -> CheckResult:
        """Run every case on `fn`; the result shows as its report (the first line says pass/fail)."""
        if not callable(fn):
            raise TypeError(f"check() needs your {self.name} function, got {type(fn).__name__}")
        with self.setup() as env:
            return check(self.adapt(fn, env), self.cases(env), title=self.name, echo=False)

    def starter_function(self) -> Callable:
        """The starter, compiled on its own (as running the notebook's exercise cell does)."""
        namespace: dict = {}
        exec(compile(self.starter, f"<starter {self.name}>", "exec"), namespace)  # noqa: S102
        return namespace[self.name]


def exercise_cells(notebook) -> list[str]:
    """The sources of a notebook's code cells tagged "exercise" (tests compare them with the starters)."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells
            if c["cell_type"] == "code" and TAG in c.get("metadata", {}).get("tags", [])]
