"""lessonkit's shape: named parts, imports that point one way, no circles, small modules.

    base (tokens, console, kernels) <- i18n <- offline <- backends <- show <- exercises <- arena <- workshop <- cli

A module may import its own part and any part to its left, never one to its right; the package's
facade (`lessonkit/__init__.py`, `lessonkit/__main__.py`) and each part's `__main__` (an entry point
nothing imports) may import anything. Imports inside functions count too: a lazy import is still a
dependency. The stage packages (s01..s10) stand on `base`; `offline` may read s03's command classifier.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT / "lessonkit"
PARTS = ("base", "i18n", "offline", "backends", "show", "exercises", "arena", "workshop", "cli")
BASE = {"lessonkit.tokens", "lessonkit.console", "lessonkit.kernels"}
MAX_LINES = 300
# Data, not code a student reads: tables the code looks things up in.
LONG_DATA = set()


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(KIT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def part_of(name: str) -> str | None:
    """The part a module belongs to. Example: 'lessonkit.show.views' -> 'show'"""
    if name in BASE:
        return "base"
    bits = name.split(".")
    return bits[1] if len(bits) > 1 and bits[1] in PARTS else None


def imports(name: str, path: Path, known: dict) -> set[str]:
    """Every lessonkit module `name` imports, anywhere in the file (a submodule, not its package,
    when `from package import submodule`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            subs = [f"{mod}.{alias.name}" for alias in node.names if f"{mod}.{alias.name}" in known]
            targets = subs if len(subs) == len(node.names) else [mod, *subs]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_every_module_is_in_a_named_part():
    loose = [name for name in modules() if part_of(name) is None
             and name not in ("lessonkit", "lessonkit.__main__")]
    assert not loose, f"modules in no part (put each in one of {PARTS}): {loose}"


def test_imports_point_one_way():
    rank = {part: i for i, part in enumerate(PARTS)}
    wrong = []
    for name, targets in graph().items():
        if name in ("lessonkit", "lessonkit.__main__") or name.endswith(".__main__"):
            continue  # the facade and the entry points
        for target in targets:
            if target == "lessonkit":
                wrong.append(f"{name} imports the facade `lessonkit`: import the module it re-exports")
                continue
            a, b = part_of(name), part_of(target)
            if rank[b] > rank[a]:
                wrong.append(f"{name} ({a}) imports {target} ({b}): {b} comes after {a}")
    assert not wrong, "\n".join(wrong)


def test_no_import_circles():
    edges = graph()
    index, low, stack, on, circles, counter = {}, {}, [], set(), [], [0]

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for v in edges:
        if v not in index:
            visit(v)
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


def test_modules_are_small():
    big = {str(path.relative_to(ROOT)): n for path in KIT.rglob("*.py")
           if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
           and str(path.relative_to(ROOT)) not in LONG_DATA}
    assert not big, f"modules over {MAX_LINES} lines (split them by idea): {big}"


@pytest.mark.parametrize("part", [p for p in PARTS if p != "base"])
def test_every_part_says_what_it_is(part):
    init = KIT / part / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) if init.exists() else None
    assert doc, f"lessonkit/{part}/__init__.py needs a docstring: the part in one sentence, then its files"


def test_the_checker_sees_a_circle(tmp_path):
    """The graph code finds a circle and a backwards import when there is one (it cannot pass empty)."""
    (tmp_path / "a.py").write_text("from . import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from .a import x\n")
    known = {"lessonkit.show.a": tmp_path / "a.py", "lessonkit.show.b": tmp_path / "b.py",
             "lessonkit.cli.c": tmp_path / "a.py"}
    assert imports("lessonkit.show.a", tmp_path / "a.py", known) == {"lessonkit.show.b"}
    assert imports("lessonkit.show.b", tmp_path / "b.py", known) == {"lessonkit.show.a"}


def test_every_stage_has_its_lesson_test_and_repl_by_the_same_name():
    stages = sorted(p.name for p in ROOT.glob("s[0-9][0-9]_*") if (p / "__init__.py").is_file())
    assert {"s09_subagents", "s10_memory"} <= set(stages)
    missing = [f"{s}: {what}" for s in stages for what in (f"lessons/{s}.ipynb", f"tests/test_{s}.py",
                                                          f"{s}/__main__.py") if not (ROOT / what).is_file()]
    assert not missing, "parallel names: sNN_slug/ <-> lessons/sNN_slug.ipynb <-> tests/test_sNN_slug.py: " \
        + ", ".join(missing)
