"""Cell tags for the workshop: which cells are the exercise, its check, and the reference solution.

The rule is by content, so a lesson (or an exercise added later) is tagged the same
way every time; `python -m lessonkit.workshop tag lessons/*.ipynb` applies it, and
changes only cell metadata (ids and sources are never touched).

    exercise   a code cell already tagged "exercise" (the convention exercise_cells reads),
               or whose source is an exercise's starter verbatim
    check      a code cell calling `<x>.check(<name>` where <name> is a function an exercise
               cell of the same notebook defines (the student's function)
    solution   a code cell calling `show_reference(`; and, after a check cell and before the
               next heading, exercise or check, the run of cells from the first one that
               mentions the reference (a markdown cell saying "reference", a `show(` cell)
               to the last reference re-check (`show_reference(`, or `.check(` on a
               function the student did not write)

    ... check(student fn) · hint · "The reference solution is ..." · show(ref) · check(ref) · ## next
           check                      solution ------------------------------------------

Example: tag_cells(cells) on s01's cells 17-21 -> exercise, check, solution, solution, solution

Not modeled: solutions written inline in a markdown answer; tag such a cell by hand.
"""

from __future__ import annotations

import ast
import re

EXERCISE, CHECK, SOLUTION = "exercise", "check", "solution"
ROLES = (EXERCISE, CHECK, SOLUTION)
CHECK_CALL = re.compile(r"\.check\(\s*([A-Za-z_][\w.]*)")
SHOW_CALL = re.compile(r"(^|[^\w.])show(_reference)?\(|\.show_reference\(", re.M)
HEADING = re.compile(r"^#{1,6} ", re.M)
REFERENCE_WORDS = ("reference", "参考")  # how a markdown cell names the reference, in each lesson language


def source(cell) -> str:
    """A cell's source as one string (nbformat stores a string or a list of lines)."""
    text = cell.get("source", "")
    return text if isinstance(text, str) else "".join(text)


def tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def defined_names(code: str) -> set[str]:
    """Top-level functions and classes a cell defines. Example: 'def f(x): ...' -> {'f'}"""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set(re.findall(r"^(?:def|class)\s+(\w+)", code, re.M))
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def known_starters() -> set[str]:
    """The starters of every exercise the kit ships: each Exercise's `.starter` and each module's
    STARTER, in lessonkit.exercises.* and arena.exercise."""
    import importlib
    import pkgutil

    import lessonkit.exercises as package

    modules = [f"lessonkit.exercises.{m.name}" for m in pkgutil.iter_modules(package.__path__)]
    starters = set()
    for name in modules + ["arena.exercise"]:
        module = importlib.import_module(name)
        found = [getattr(v, "starter", None) for v in vars(module).values()] + [getattr(module, "STARTER", None)]
        starters |= {s.strip() for s in found if isinstance(s, str) and s.strip()}
    return starters


def is_reference_check(code: str, student: set[str]) -> bool:
    """A cell that runs the reference: show_reference(...), or .check(...) on a non-student function."""
    if "show_reference(" in code:
        return True
    return any(name not in student for name in CHECK_CALL.findall(code))


def classify(cells, starters=frozenset()) -> list[str | None]:
    """The role of every cell under the rule above (None: a lesson cell, kept as it is)."""
    roles: list[str | None] = [None] * len(cells)
    student: set[str] = set()
    for i, cell in enumerate(cells):
        code = source(cell)
        if cell["cell_type"] == "code" and (EXERCISE in tags(cell) or code.strip() in starters):
            roles[i] = EXERCISE
            student |= defined_names(code)
    for i, cell in enumerate(cells):
        if roles[i] or cell["cell_type"] != "code":
            continue
        names = CHECK_CALL.findall(source(cell))
        if names and all(n in student for n in names):
            roles[i] = CHECK
        elif "show_reference(" in source(cell):
            roles[i] = SOLUTION
    for i, role in enumerate(roles):
        if role == CHECK:
            _mark_reference_block(cells, roles, i, student)
    return roles


def _mark_reference_block(cells, roles, check_index: int, student: set[str]) -> None:
    """Tag the reference block that follows the check at `check_index` (see the module docstring)."""
    window = []
    for j in range(check_index + 1, len(cells)):
        if roles[j] in (EXERCISE, CHECK) or (cells[j]["cell_type"] == "markdown" and HEADING.search(source(cells[j]))):
            break
        window.append(j)
    last = max((j for j in window if cells[j]["cell_type"] == "code"
                and is_reference_check(source(cells[j]), student)), default=None)
    if last is None:
        return
    first = next(j for j in window if j == last or _mentions_reference(cells[j]))
    for j in range(first, last + 1):
        roles[j] = SOLUTION


def _mentions_reference(cell) -> bool:
    code = source(cell)
    if cell["cell_type"] == "markdown":
        return any(word in code.lower() for word in REFERENCE_WORDS)
    return bool(SHOW_CALL.search(code))


def tag_cells(cells, starters=frozenset()) -> int:
    """Set each cell's role tag (and drop stale role tags) in place; return how many cells changed."""
    changed = 0
    for cell, role in zip(cells, classify(cells, starters)):
        old = tags(cell)
        new = [t for t in old if t not in ROLES] + ([role] if role else [])
        if new != old:
            changed += 1
            if new:
                cell.setdefault("metadata", {})["tags"] = new
            else:
                cell["metadata"].pop("tags", None)
    return changed
