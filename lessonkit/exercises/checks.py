"""Exercise checks: run a student's function on named cases and say exactly what failed.

A case names the situation, gives the input, and says what is expected: a value,
or a verdict, a function that returns None when the result is right and, when it is
wrong, what is wrong with THAT result and why it matters. The report names each
failing case with its reason, so the student learns from the message, not only from
a red cross.

A case carries no fixed explanation: one attached to the case would be said about
every failure of it, also about a mistake the student did not make. Only the verdict
explains, from the result it was given (and the case's input).

Example:
    def lands_on_the_call(cut):
        if cut == 1:
            return None
        why = " (index 2 holds tool_results: step back)" if cut == 2 else ""
        return f"returned {cut}, expected 1{why}"

    check(find_safe_cut, [Case("cut lands on a tool_result", (history, 2), expect=lands_on_the_call)])
    -> ✗ find_safe_cut: 0/1 cases pass
         ✗ cut lands on a tool_result: returned 2, expected 1 (index 2 holds tool_results: step back)

Cases that fail the same way (the same reason, up to its numbers, quoted values and class names)
share one line: the first of them, with how many more fail like it, so a report on one mistake
says it once: "✗ a turn of tool results (and 3 more cases like it): no block carries cache_control".

Every sentence of the report goes through `tr` (lessonkit.i18n): under LESSONS_LANG=zh the same
report reads in Chinese, with the same cases, numbers and values. A case's name, written once in
English as data, is looked up with `translated`.

Not modeled: timeouts for student code that never returns.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..i18n import catalog, lang, tr, trn

PASS, FAIL = "✓", "✗"
MAX_SHOWN = 160


def translated(text: str) -> str:
    """A text kept as data in English (a case's name, a hint), in the current language.

    Example (LESSONS_LANG=zh): translated("a file") -> "一个文件"; a text with no entry stays English
    (tests/test_feedback_i18n.py keeps that from shipping for every exercise).
    """
    return catalog(lang()).get(text, text) if text else text


@dataclass
class Case:
    """One situation to test: a name, the arguments, and what is expected (a value, or a verdict
    that says what is wrong with the result it is given). No `why`: see the module's docstring."""
    name: str
    args: tuple = ()
    expect: Any = None
    kwargs: dict = field(default_factory=dict)

    def verdict(self, result) -> str | None:
        """None if `result` is right, otherwise what is wrong with it."""
        if callable(self.expect):
            return self.expect(result)
        if result != self.expect:
            return returned(result, self.expect)
        return None


@dataclass
class CheckResult:
    """The outcome of `check`: which cases passed, and the report lines."""
    title: str
    passed: list[str]
    failures: list[tuple[str, str]]

    def __bool__(self) -> bool:
        return not self.failures

    def report(self) -> str:
        total = len(self.passed) + len(self.failures)
        mark = PASS if self else FAIL
        lines = [tr("{mark} {title}: {n}/{total} cases pass", mark=mark, title=self.title,
                    n=len(self.passed), total=total)]
        for (name, reason), more in grouped(self.failures):
            if more:
                lines.append("  " + trn("{mark} {case} (and {n} more case like it): {reason}",
                                        "{mark} {case} (and {n} more cases like it): {reason}", more,
                                        mark=FAIL, case=translated(name), reason=reason))
            else:
                lines.append("  " + tr("{mark} {case}: {reason}", mark=FAIL, case=translated(name), reason=reason))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.report()


# What may differ between two cases that fail the same way: lists, numbers (with the word after them, so
# that "1 summary was" and "3 summaries were" group as Chinese, which has no plural, does), quoted
# values, class names.
_VALUES = re.compile(r"""\[[^\]]*\]|\d[\d,.]*(?: \w+(?: was| were)?)?|'[^']*'|"[^"]*"|`[^`]*`|\b[A-Z][a-z]+[A-Z]\w*""")


def same_way(reason: str) -> str:
    """A reason with its values masked: two failures with the same key fail the same way.
    Example: same_way("returned 5, expected 3") == same_way("returned 7, expected 5") -> True"""
    return _VALUES.sub("#", reason)


def grouped(failures: list[tuple[str, str]]) -> list[tuple[tuple[str, str], int]]:
    """The failures, one per way of failing, in order of first appearance: ((first case, its
    reason), how many more cases fail that way). Example: [(a, "x 1"), (b, "y"), (c, "x 2")]
    -> [((a, "x 1"), 1), ((b, "y"), 0)]"""
    groups: dict[str, list] = {}
    for name, reason in failures:
        groups.setdefault(same_way(reason), [(name, reason), 0])[1] += 1
    return [(first, count - 1) for first, count in groups.values()]


def first_difference(got, want, path: str = "") -> tuple[str, object, object] | None:
    """Where two values first differ: (path, got's part, want's part), or None if equal.
    Example: first_difference([{"a": 1}], [{"a": 2}]) -> ("[0]['a']", 1, 2)"""
    if got == want:
        return None
    if isinstance(got, dict) and isinstance(want, dict):
        for key in [*want, *(k for k in got if k not in want)]:
            if key not in got or key not in want or got[key] != want[key]:
                if key not in got or key not in want:
                    return (f"{path}[{key!r}]", got.get(key, _MISSING), want.get(key, _MISSING))
                return first_difference(got[key], want[key], f"{path}[{key!r}]")
    if isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)) and type(got) is type(want):
        for i, (a, b) in enumerate(zip(got, want)):
            if a != b:
                return first_difference(a, b, f"{path}[{i}]")
        if len(got) != len(want):
            return (f"len(value{path})", len(got), len(want))
    return (path, got, want)


class _Missing:
    def __repr__(self) -> str:
        return tr("(missing)")


_MISSING = _Missing()


def returned(got, want) -> str:
    """'returned X, expected Y'; when either is too long to show whole, where they first differ.
    Example: returned([1, 2], [1, 3]) -> "returned [1, 2], expected [1, 3]"; two long lists that
    differ at [4]['content'] -> "returned a value that differs at [4]['content']: 'x', expected 'y'" """
    if len(repr(got)) <= MAX_SHOWN and len(repr(want)) <= MAX_SHOWN:
        return tr("returned {got}, expected {want}", got=repr(got), want=repr(want))
    path, a, b = first_difference(got, want)
    if not path:
        return tr("returned {got}, expected {want}", got=_short(got), want=_short(want))
    return tr("returned a value that differs at {path}: {got}, expected {want}", path=path, got=_short(a),
              want=_short(b))


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def check(fn: Callable, cases: list[Case], *, title: str | None = None, echo: bool = True) -> CheckResult:
    """Run `fn` on every case (on deep copies of the inputs) and report.

    A case that raises fails with the exception's one-line message. Returns a
    CheckResult (truthy when all pass); prints the report unless echo=False.
    """
    if not cases:
        raise ValueError("check() needs at least one case")
    title = title or getattr(fn, "__name__", "solution")
    passed, failures = [], []
    for case in cases:
        args, kwargs = copy.deepcopy(case.args), copy.deepcopy(case.kwargs)
        try:
            problem = case.verdict(fn(*args, **kwargs))
        except Exception as exc:  # the student's code failing is a result, not a crash
            message = (str(exc).splitlines()[0] if str(exc) else "").rstrip(": ")
            problem = (tr("raised {error}: {message}", error=type(exc).__name__, message=message) if message
                       else tr("raised {error}", error=type(exc).__name__))
        if problem is None:
            passed.append(case.name)
        else:
            failures.append((case.name, problem))
    result = CheckResult(title, passed, failures)
    if echo:
        print(result.report())
    return result


def remembered(store: dict, key, make: Callable[[], Any], kept: int):
    """What make() gave for `key` the first time, as a copy (a check may change what it gets); every
    time when key is None. At most `kept` keys, the oldest dropped first. For the checks that run an
    agent on the deterministic offline model. Example: remembered({}, 1, lambda: [1], 4) -> [1]"""
    if key is None:
        return make()
    if key not in store:
        while len(store) >= kept:
            store.pop(next(iter(store)))
        store[key] = make()
    return copy.deepcopy(store[key])
