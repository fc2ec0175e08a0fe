"""What verify grades: per lesson, the exercise cells and checks, read from the kit's own notebook.

    plan()                       lessons/*.ipynb -> {lesson: {ids, starters, checks}}
      a cell tagged `exercise`     its id and its text (the starter: an untouched answer)
      a cell tagged `check`        per exercise.check(fn) in it: (fn's name, the cell's imports, its call)
    answer_cells(nb, plan)       a student's notebook -> the cells to run: tagged `exercise`, or with
                                 the lesson's exercise ids (the tag removed), and every cell the student
                                 added (an id the lesson does not have, not a check): an answer counts
                                 wherever it is written, as in the live kernel
    defining_cell(cells, name)   the last cell that defines `name`: "not started" when it is the starter
    uses_reference(cells, name, ref)  the answer is the stage's own function: imported, or its source

Example: plan()["s01_loop"]["checks"][0]
  -> {"name": "assistant_message", "prelude": "from lessonkit.exercises.s01_loop import exercise",
      "call": "exercise.check(assistant_message)"}
"""

from __future__ import annotations

import ast
import copy
import inspect
import json
import re
import textwrap
from pathlib import Path

from .progress import LESSONS

SETUP = {  # what a lesson's check needs from the notebook above it, as the kit's lesson computes it
    "arena": "from lessonkit import tokens\nfrom lessonkit.arena.generate import small_session\n"
             "session = small_session()\n"
             "window = int(round(tokens.count_request({'system': session.system, 'tools': session.tools, "
             "'messages': session.messages}) * 2 / 3, -3))\n",
}


def plan(lessons: Path = LESSONS) -> dict[str, dict]:
    """Per lesson, from the kit's own notebook: the exercise cells' ids and starters, and each check
    as (function, the check cell's imports, its call). Example: plan()["s01_loop"]["checks"][0]
    -> {"name": "assistant_message", "prelude": "from lessonkit.exercises.s01_loop import exercise",
        "call": "exercise.check(assistant_message)"}"""
    from .progress import CHECK_CALL, LESSON

    out = {}
    for path in sorted(Path(lessons).glob("*.ipynb")):
        if not LESSON.match(path.stem):
            continue
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        ids, starters, checks = set(), set(), []
        every = {cell.get("id") for cell in cells}
        for cell in cells:
            roles, text = cell.get("metadata", {}).get("tags", []), "".join(cell["source"])
            if cell["cell_type"] != "code":
                continue
            if "exercise" in roles:
                ids.add(cell.get("id"))
                starters.add(text.strip())
            elif "check" in roles:
                lines = text.strip().splitlines()
                imports = [ln for ln in lines if ln.startswith(("from ", "import "))]
                call = "\n".join(ln for ln in lines if ln.strip() and ln not in imports)
                for name in CHECK_CALL.findall(text):
                    checks.append({"name": name, "prelude": SETUP.get(path.stem, "") + "\n".join(imports),
                                   "call": call})
        out[path.stem] = {"ids": ids, "starters": starters, "checks": checks, "every": every}
    return out


def exercise_cells(nb: dict, lesson_plan: dict) -> list[tuple[int, str]]:
    """(1-based cell number, source) of the cells tagged `exercise` or with the lesson's exercise ids."""
    return [(n, src) for n, src, fatal in answer_cells(nb, lesson_plan) if fatal]


def answer_cells(nb: dict, lesson_plan: dict) -> list[tuple[int, str, bool]]:
    """(1-based cell number, source, is an exercise cell) of the cells verify runs, in notebook order:
    the exercise cells (an error there is the notebook's error) and the cells the student added."""
    out = []
    every = lesson_plan.get("every", set())
    for n, cell in enumerate(nb.get("cells", []), 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        roles = (cell.get("metadata") or {}).get("tags") or []
        roles = roles if isinstance(roles, list) else []
        text = cell.get("source", "")
        text = text if isinstance(text, str) else "".join(map(str, text))
        if "exercise" in roles or cell.get("id") in lesson_plan["ids"]:
            out.append((n, text, True))
        elif cell.get("id") not in every and not {"check", "solution"} & set(map(str, roles)) \
                and ".check(" not in text:
            out.append((n, text, False))
    return out


def _tree(source: str):
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def defines(source: str, name: str) -> bool:
    """Whether a cell defines `name` at its top level (def, class, assignment or import)."""
    tree = _tree(source)
    if tree is None:
        return f"def {name}(" in source
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and \
                any((a.asname or a.name.split(".")[0]) == name or a.name == "*" for a in node.names):
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
                return True
    return False


def defining_cell(cells, name: str):
    """The (number, source) of the last cell that defines `name`, or None."""
    found = [(n, src) for n, src, *_ in cells if defines(src, name)]
    return found[-1] if found else None


STAGE = re.compile(r"^s\d\d_\w+$")


def uses_reference(cells, name: str, reference) -> bool:
    """Whether the answer to `name` is the kit's own reference (a function): imported from a stage
    package (by name, as an attribute, or by a string naming it), or its source word for word."""
    if not inspect.isfunction(reference):
        return False
    ref_name = reference.__name__
    try:
        ref_tree = ast.dump(ast.parse(textwrap.dedent(inspect.getsource(reference))).body[0])
    except (OSError, TypeError, SyntaxError, IndexError):
        ref_tree = None
    stage_imported = False
    for _n, source, *_ in cells:
        tree = _tree(source)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and STAGE.match(node.module.split(".")[0]):
                stage_imported = True
                if any(a.name in (ref_name, name) for a in node.names):
                    return True
                if any(a.name == "*" for a in node.names) and not defines(source, name):
                    return True
            elif isinstance(node, ast.Import) and any(STAGE.match(a.name.split(".")[0]) for a in node.names):
                stage_imported = True
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and ref_tree is not None:
                renamed = copy.deepcopy(node)
                renamed.name = ref_name
                if ast.dump(renamed) == ref_tree:
                    return True
    if not stage_imported and not any("import" in src for _n, src, *_ in cells):
        return False
    for _n, source, *_ in cells:
        tree = _tree(source)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Attribute) and node.attr == ref_name:
                return True
            if isinstance(node, ast.Constant) and node.value == ref_name and stage_imported:
                return True
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("__import__", "import_module")  # noqa: SIM102
                    or isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module"):
                if any(isinstance(a, ast.Constant) and isinstance(a.value, str) and STAGE.match(a.value.split(".")[0])
                       for a in node.args):
                    return True
    return False
