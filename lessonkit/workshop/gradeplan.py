"""What verify grades: per lesson, the exercise cells and checks, read from the kit's own notebook.

    plan()                       lessons/*.ipynb -> {lesson: {ids, starters, checks}}
      a cell tagged `exercise`     its id and its text (the starter: an untouched answer)
      a cell tagged `check`        per exercise.check(fn) in it: (fn's name, the cell's imports, its call)
    answer_cells(nb, plan)       a student's notebook -> the cells to run: tagged `exercise`, or with
                                 the lesson's exercise ids (the tag removed), and every cell the student
                                 added (an id the lesson does not have, not a check): an answer counts
                                 wherever it is written, as in the live kernel
    defining_cell(cells, name)   the last cell that defines `name`: "not started" when it is the starter
    references(lesson_plan)      per exercise, the kit's functions that solve it (its reference, a solution
                                 shown with it): hidden from the grading child (kitcopy.Hidden)
    copies_reference(cells, name, refs)  the answer is the stage's own code written out (any names), or
                                 its reference class itself

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
import sys
import textwrap
from pathlib import Path

from .progress import LESSONS

SETUP = {  # what a lesson's check needs from the notebook above it, as the kit's lesson computes it
    "arena": "from lessonkit import tokens\nfrom arena.sessions.generated import small_session\n"
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
        every: dict = {}   # each cell id -> its texts as the kit ships them (English, and each translation)
        for copy_ in [path, *sorted(Path(lessons).glob(f"*/{path.name}"))]:
            for cell in json.loads(copy_.read_text(encoding="utf-8"))["cells"] if copy_ != path else cells:
                every.setdefault(cell.get("id"), set()).add("".join(cell.get("source", "")))
                if "exercise" in (cell.get("metadata") or {}).get("tags", []) and cell["cell_type"] == "code":
                    starters.add("".join(cell["source"]).strip())
        for cell in cells:
            roles, text = cell.get("metadata", {}).get("tags", []), "".join(cell["source"])
            if cell["cell_type"] != "code":
                continue
            if "exercise" in roles:
                ids.add(cell.get("id"))
            elif "check" in roles:
                lines = text.strip().splitlines()
                imports = [ln for ln in lines if ln.startswith(("from ", "import "))]
                call = "\n".join(ln for ln in lines if ln.strip() and ln not in imports)
                for name in CHECK_CALL.findall(text):
                    checks.append({"name": name, "prelude": SETUP.get(path.stem, "") + "\n".join(imports),
                                   "imports": "\n".join(imports), "call": call})
        out[path.stem] = {"ids": ids, "starters": starters, "checks": checks, "every": every}
    return out


def exercise_cells(nb: dict, lesson_plan: dict) -> list[tuple[int, str]]:
    """(1-based cell number, source) of the cells tagged `exercise` or with the lesson's exercise ids."""
    return [(n, src) for n, src, fatal in answer_cells(nb, lesson_plan) if fatal]


def answer_cells(nb: dict, lesson_plan: dict) -> list[tuple[int, str, bool]]:
    """(1-based cell number, source, is an exercise cell) of the cells verify runs, in notebook order:
    the exercise cells (an error there is the notebook's error), the cells the student added, and the
    definitions (def, class, import, assignment) in a lesson cell the student edited: an answer counts
    wherever it is written, as in the live kernel. A statement that runs a check is left out of each."""
    out = []
    every = lesson_plan.get("every", {})
    every = every if isinstance(every, dict) else dict.fromkeys(every)
    every = {k: ({v} if isinstance(v, str) else v) for k, v in every.items()}
    for n, cell in enumerate(nb.get("cells", []), 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        roles = (cell.get("metadata") or {}).get("tags") or []
        roles = roles if isinstance(roles, list) else []
        text = cell.get("source", "")
        text = text if isinstance(text, str) else "".join(map(str, text))
        if "exercise" in roles or cell.get("id") in lesson_plan["ids"]:
            out.append((n, without_checks(text), True))
        elif cell.get("id") not in every:
            out.append((n, without_checks(text), False))
        elif every[cell.get("id")] is not None and text not in every[cell.get("id")]:
            names = [c["name"] for c in lesson_plan.get("checks", [])]
            kept = definitions(text, names)
            if any(defines(kept, name) for name in names):   # a lesson cell the student wrote an answer in
                out.append((n, kept, False))
    return out


def _statements(source: str, keep) -> str:
    """The source's top-level statements for which keep(node) holds, as text (all of it when it does not parse)."""
    tree = _tree(source)
    if tree is None:
        return source
    lines = source.splitlines()

    def first(node) -> int:   # a decorated def starts at its first decorator
        return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return "\n".join("\n".join(lines[first(node) - 1:node.end_lineno]) for node in tree.body if keep(node)) + "\n"


def _runs_a_check(node) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "check"
               for n in ast.walk(node))


def without_checks(source: str) -> str:
    """A cell without its statements that run a check. Example: "def f(): ...\nexercise.check(f)" -> "def f(): ..." """
    tree = _tree(source)
    if tree is None or not any(_runs_a_check(node) for node in tree.body):
        return source
    return _statements(source, lambda node: not _runs_a_check(node))


def definitions(source: str, names=()) -> str:
    """A cell's top-level definitions only: def, class, import, and an assignment to one of `names`; never
    a check or a demo's run. Example: ("def f(): ...\nrun_demo()\nx = big()", ["f"]) -> "def f(): ..." """
    def kept(node) -> bool:
        if _runs_a_check(node):
            return False
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            return True
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        return any(isinstance(t, ast.Name) and t.id in names for target in targets for t in ast.walk(target))
    return _statements(source, kept)


def answered(nb: dict, lesson_plan: dict) -> bool:
    """Whether a student worked in this notebook: an exercise cell that is not its starter, or a cell they
    added or edited. Example: a notebook as `student` wrote it -> False"""
    starters = lesson_plan["starters"]
    return any(not fatal or source.strip() not in starters for _n, source, fatal in answer_cells(nb, lesson_plan))


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


MODULE_REFERENCES = {"arena.exercise": "batched_clearing"}   # an exercise that is a module: its reference


def references(lesson_plan: dict) -> dict[str, dict]:
    """Per exercise of a lesson: {"functions": [function, ...], "classes": [class], "strings": [(module, text)]},
    the kit's objects that ARE its solution: the exercise's reference, and the solution its hints end on
    (functions shown with it, or a program written out). Example: references(plan()["s06_compact"])
    ["micro_compact"]["functions"] -> [s06_compact.micro.micro_compact, s06_compact.micro.micro_plan]"""
    out = {}
    for check in lesson_plan["checks"]:
        scope: dict = {}
        exec(compile(check.get("imports", check["prelude"]), "<kit check>", "exec"), scope)  # noqa: S102 - the kit's
        exercise = scope.get(check["call"].split(".check(")[0].strip())
        found = {"functions": [], "classes": [], "strings": []}
        ref = getattr(exercise, "reference", None)
        if ref is None and inspect.ismodule(exercise):
            ref = getattr(exercise, MODULE_REFERENCES.get(exercise.__name__, ""), None)
        solution = getattr(exercise, "solution", None)
        for obj in [ref, *(solution if isinstance(solution, tuple) else ())]:
            target = getattr(obj, "__func__", obj)
            if inspect.isfunction(target):
                found["functions"].append(target)
            elif inspect.isclass(target):
                found["classes"].append(target)
        if isinstance(solution, str):
            holder = next((m.__name__ for m in list(sys.modules.values())
                           if getattr(m, "__name__", "").startswith("lessonkit.")
                           and any(v is solution for v in vars(m).values())), None)
            if holder:
                found["strings"].append((holder, solution))
        out[check["name"]] = found
    return out


def key(fn) -> str:
    """A function's name as the hidden reference reports it. Example: s01_loop.loop:assistant_message"""
    return f"{fn.__module__}:{fn.__qualname__}"


class _Names(ast.NodeTransformer):
    """Every local name (arguments, assigned names) renamed v0, v1, ... in order of first appearance."""

    def __init__(self, local: set):
        self.local, self.map = local, {}

    def _new(self, name):
        return self.map.setdefault(name, f"v{len(self.map)}") if name in self.local else name

    def visit_Name(self, node):  # noqa: N802 - ast's name
        node.id = self._new(node.id)
        return node

    def visit_arg(self, node):  # noqa: N802
        node.arg, node.annotation = self._new(node.arg), None
        return node


def shape(fn_node) -> str:
    """A function's code without its name, docstring, annotations or the names of its locals.
    Example: shape(def f(a): return a + 1) == shape(def g(x): "doc"; return x + 1)"""
    node = copy.deepcopy(fn_node)
    node.name, node.returns, node.decorator_list = "f", None, []
    if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) \
            and isinstance(node.body[0].value.value, str) and len(node.body) > 1:
        node.body = node.body[1:]
    local = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return ast.dump(_Names(local).visit(node), annotate_fields=False)


def _shapes(functions) -> set[str]:
    out = set()
    for fn in functions:
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        except (OSError, TypeError, SyntaxError):
            continue
        if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.add(shape(tree.body[0]))
    return out


def copies_reference(cells, name: str, refs: dict) -> bool:
    """Whether the answer to `name` is the kit's own solution, from the cells' text: a function anywhere in
    them whose code is a reference function's (any names, docstring or none), or `name` bound to the
    reference class itself (`compaction_config = CompactionConfig`, or imported as that name)."""
    shapes = _shapes(refs.get("functions", ()))
    classes = {c.__name__ for c in refs.get("classes", ())}
    for _n, source, *_ in cells:
        tree = _tree(source)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and shapes and shape(node) in shapes:
                return True
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Name, ast.Attribute)) and \
                    getattr(node.value, "id", getattr(node.value, "attr", "")) in classes and \
                    any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                return True
            if isinstance(node, ast.ImportFrom) and any(a.name in classes and a.asname == name for a in node.names):
                return True
    return False


def mentions(cells, name: str) -> bool:
    """Whether any of the cells names `name` (as code or inside a string, as `exec("def f(...)")` does)."""
    word = re.compile(rf"(?<![\w]){re.escape(name)}(?![\w])")
    return any(word.search(source) for _n, source, *_ in cells)
