"""Exercises: the piece of each stage a student writes, a first try the check rejects, and the cases.

    lessonkit.exercises.s01_loop.exercise   assistant_message(response)      (reference in s01_loop)
    lessonkit.exercises.s02_tools.exercise  resolve_in(workspace, path)      (reference in s02_tools)
    lessonkit.exercises.s03_permissions...  check_permission(call, approve)  (reference in s03_permissions)
    lessonkit.exercises.s04_hooks.exercise  trigger_hooks(registry, event, *args)  (reference in s04_hooks)
    lessonkit.exercises.s05_budget          persist_large_output(...), with_cache_breakpoint(messages)
    lessonkit.exercises.s06_compact         micro_compact(...), pick_threshold(window)
    lessonkit.exercises.s07_reactive        safe_cut(messages, k), prompt_too_long(error)
    lessonkit.exercises.s08_compact4        compaction_config(context_window), estimate_one(message)
    lessonkit.exercises.s09_subagents       read_only(registry)              (reference in s09_subagents)
    lessonkit.exercises.s10_memory          memory_path(root, path)          (reference in s10_memory)

    checks.py    run a function on named cases and say what failed; solution.py: a ladder's last rung;
    records.py   each check a student runs appends its verdict to work/.progress/ (the room view reads it)

An Exercise holds what the notebook needs and what the tests check:

    exercise.starter        source of a plausible first try (the notebook's cell tagged "exercise"
                            holds it verbatim: exercise_cells(notebook) reads it back); it fails
                            at least half the cases
    exercise.check(fn)      run the cases on fn -> CheckResult, shown as its report:
                            "✗ resolve_in: 5/10 cases pass" + each failing input and why it matters;
                            a case carries no fixed explanation (checks.Case has no `why`): its
                            verdict explains the result it got, so a report on one mistake never
                            hints at another the student did not make
    exercise.reference      the stage module's own function: the notebook never holds the only copy
    exercise.mistakes       wrong answers a student plausibly writes (the seeds' own bugs, typical
                            slips), each with the words the check's report must say about THAT mistake
    exercise.hint()         the next hint of a ladder of up to three (general -> specific), then the
                            solution: the reference's own source

Example: exercise.check(exercise.starter_function())
  -> ✗ assistant_message: 0/5 cases pass
       ✗ a text answer (end_turn): content[0] is a TextBlock, not a plain dict: convert each
         block with to_dict (the history is data: it must survive json.dumps)
       ...

Not modeled: timeouts for student code that never returns, grading or scores.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..i18n import tr
from .checks import Case, CheckResult, check, translated

STAGE = re.compile(r"^s\d\d_[a-z0-9]+$")  # a stage package: the lesson a check records under

__all__ = ["Case", "Exercise", "Hint", "Mistake", "climb", "exercise_cells"]

TAG = "exercise"  # the notebook cell the student edits carries this tag
MAX_HINTS = 3


def _same(fn, env):
    return fn


@dataclass(frozen=True)
class Mistake:
    """A plausible wrong answer: what the slip is, the function that makes it, and the words the
    check's report must contain about it. Example: Mistake("truthiness", truthy, "returned None after")"""
    slip: str
    fn: Callable
    says: str


class Hint:
    """One rung of the hint ladder, shown as its text. Example: Hint(1, 3, "Look at ...")"""

    def __init__(self, rung: int, of: int, text: str):
        self.rung, self.of, self.text = rung, of, text

    def __repr__(self) -> str:
        return tr("Hint {rung}/{of}: {text}", rung=self.rung, of=self.of, text=translated(self.text))

    __str__ = __repr__


def climb(hints, reference: Callable, asked: list, rung: int | None = None):
    """One step up a hint ladder: hint `rung` (default: the one after the last asked, counted in
    asked[0]), or past the last hint a complete solution (exercises.solution): the reference's
    own source with what it uses, or the program or objects given as `reference`."""
    if rung is None:
        asked[0] += 1
        rung = asked[0]
    if rung < 1:
        raise ValueError(f"hint rungs start at 1, got {rung}")
    if rung <= len(hints):
        return Hint(rung, len(hints), hints[rung - 1])
    from .solution import solution
    return solution(*reference) if isinstance(reference, tuple) else solution(reference)


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
    hints: tuple[str, ...] = ()                # up to three, general first; then the solution
    mistakes: tuple[Mistake, ...] = ()
    solution: object = None                    # the last rung, if not the reference: a program (str), or
                                               # a tuple of objects shown together (exercises.solution)
    _asked: list = field(default_factory=lambda: [0], repr=False, compare=False)

    def __post_init__(self):
        if len(self.hints) > MAX_HINTS:
            raise ValueError(f"{self.name}: at most {MAX_HINTS} hints before the solution, got {len(self.hints)}")

    def hint(self, rung: int | None = None):
        """The next hint (or hint `rung`, 1-based); after the last one, the solution's source.

        Example: exercise.hint() -> Hint 1/3: ...; exercise.hint() -> Hint 2/3: ...; ...
                 the fourth call -> the reference, shown with its file and line range
        """
        return climb(self.hints, self.reference if self.solution is None else self.solution, self._asked, rung)

    def check(self, fn: Callable) -> CheckResult:
        """Run every case on `fn`; the result shows as its report (the first line says pass/fail).
        In a student folder the verdict is also recorded for the room view (exercises/records.py)."""
        # the lesson is the stage the reference belongs to: s06_compact.micro -> s06_compact, and a
        # reference written in the exercise itself, lessonkit.exercises.s06_compact.threshold -> s06_compact
        parts = getattr(self.reference, "__module__", "").split(".")
        lesson = next((part for part in parts if STAGE.match(part)), parts[0])
        if not callable(fn):
            message = tr("check() needs your {name} function, got {kind}", name=self.name, kind=type(fn).__name__)
            _record(lesson, self.name, 0, 0, "", message)
            raise TypeError(message)
        raised: list = []
        target = getattr(getattr(self.reference, "__func__", self.reference), "__code__", None)
        used: list = []   # the reference's code ran inside the student's function: a wrapper around it

        def watch(frame, event, arg):
            if event == "call" and frame.f_code is target:
                used.append(True)

        def counted(*args, **kwargs):
            before = sys.getprofile()
            if target is not None:
                sys.setprofile(watch)   # only while the student's function runs, this thread only
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                raised.append(exc)
                raise
            finally:
                if target is not None:
                    sys.setprofile(before)

        functools.update_wrapper(counted, fn)  # what an agent reports (a hook's name) is fn's, not this wrapper's

        with self.setup() as env:
            result = check(self.adapt(counted, env), self.cases(env), title=self.name, echo=False)
        record_result(lesson, self.name, result, raised, reference=bool(used) or is_reference(fn, self.reference))
        return result

    def starter_function(self) -> Callable:
        """The starter, compiled on its own (as running the notebook's exercise cell does)."""
        namespace: dict = {}
        exec(compile(self.starter, f"<starter {self.name}>", "exec"), namespace)  # noqa: S102
        return namespace[self.name]


def is_reference(fn, reference) -> bool:
    """Whether fn is the stage's own function: the object itself, or a function running its code.
    Example: is_reference(s01_loop.assistant_message, s01_loop.assistant_message) -> True"""
    if fn is reference:
        return True
    mine, theirs = getattr(fn, "__code__", None), getattr(reference, "__code__", None)
    return mine is not None and theirs is not None and (mine is theirs or (mine.co_code, mine.co_names) ==
                                                        (theirs.co_code, theirs.co_names)
                                                        and mine.co_consts == theirs.co_consts)


def record_result(lesson: str, name: str, result: CheckResult, raised: list, *, reference: bool = False) -> None:
    """Record a check's verdict for the room view; raising on every case is recorded as an error."""
    total = len(result.passed) + len(result.failures)
    error = ""
    if raised and not result.passed and len(raised) >= total:
        exc = raised[0]
        error = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}".rstrip(": ")
    first = f"{translated(result.failures[0][0])}: {result.failures[0][1]}" if result.failures else ""
    _record(lesson, name, len(result.passed), total, first, error, reference=reference)


def _record(lesson: str, name: str, passed: int, total: int, first: str, error: str, *,
            reference: bool = False) -> None:
    from .records import record

    record(lesson or "unknown", name, passed, total, first, error, reference=reference)


def exercise_cells(notebook) -> list[str]:
    """The sources of a notebook's code cells tagged "exercise" (tests compare them with the starters)."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells
            if c["cell_type"] == "code" and TAG in c.get("metadata", {}).get("tags", [])]
