"""The house's shape: named parts, imports that point one way, no circles, stages on a small base.

    lessonkit's base (base/, tokens, console, kernels) <- i18n <- offline/ <- backends <- show
        <- exercises <- workshop <- cli <- arena/

Three packages hold the kit's code besides the stages: `lessonkit` (what lessons stand on), `offline`
(the offline model and API, a product of its own) and `arena` (the compaction arena, a product of its
own). A module may import its own part and any part to its left, never one to its right; a package's
facade (`lessonkit/__init__.py`, `lessonkit/__main__.py`) and every `__main__` (an entry point nothing
imports) may import anything. Imports inside functions count too: a lazy import is still a dependency.
So nothing in lessonkit imports the arena, and the offline model stands on lessonkit's base and i18n
alone. The stage packages (s01..s10) stand on `base`.

Inside offline/, the same rule over its rooms: api/ and conversation/ (the API's rules; reading a
request) <- grammar/ (what a request asks) <- answers/ (what the model says) <- agent/ (what it does
next) <- model.py <- serve/ (how requests reach it).

The stages: each imports earlier stages, and of lessonkit only the small base it is allowed
(STAGE_MAY_IMPORT: the client factory `lessonkit`, the token counter, lessonkit/base/); its
`__main__` (the terminal REPL) may import the kit's cli. No stage reads another object's private
attributes (`client._client...`): what it needs is passed in.

The budget counts ideas, not lines: each stage's idea file (the one its package help is, and
the lesson shows first) reads in one sitting, at most IDEA_FILE_LINES lines, with comments
beside the lines that carry the idea; every module says in its docstring's first line the one
thing it holds. No line cap forces a file that is one idea to be split.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("lessonkit", "offline", "arena")  # the kit's code besides the stages
KIT = ROOT / "lessonkit"
PARTS = ("base", "i18n", "offline", "backends", "show", "exercises", "workshop", "cli", "arena")
BASE = {"lessonkit.tokens", "lessonkit.console", "lessonkit.kernels"}
OFFLINE_ROOMS = ("api", "conversation", "grammar", "answers", "agent", "model", "serve")
OFFLINE_SAME_FLOOR = {"api": "conversation"}  # rooms of one floor: neither imports the other
FACADES = ("lessonkit", "lessonkit.__main__", "offline", "arena")
STAGES = sorted(p.name for p in ROOT.glob("s[0-9][0-9]_*") if (p / "__init__.py").exists())
STAGE_MAY_IMPORT = ("lessonkit", "lessonkit.tokens", "lessonkit.base")  # and lessonkit.base.*
REPL_MAY_IMPORT = ("lessonkit.cli.repl",)                             # a stage's __main__ only
IDEA_FILE_LINES = 250
IDEA_COMMENTS = 5  # at least this many comments beside code lines in an idea file
COMMENTS_PENDING: set = set()  # a stage whose idea file is being rewritten elsewhere: counted once it lands


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def part_of(name: str) -> str | None:
    """The part a module belongs to. Example: 'lessonkit.show.views' -> 'show', 'offline.api.betas' -> 'offline'"""
    if name in BASE:
        return "base"
    bits = name.split(".")
    if bits[0] in ("offline", "arena"):
        return bits[0]
    return bits[1] if len(bits) > 1 and bits[1] in PARTS else None


def room_of(name: str) -> str | None:
    """The room of an offline module. Example: 'offline.agent.plan' -> 'agent', 'offline.model' -> 'model'"""
    bits = name.split(".")
    return bits[1] if bits[0] == "offline" and len(bits) > 1 and bits[1] in OFFLINE_ROOMS else None


def imports(name: str, path: Path, known: dict) -> set[str]:
    """Every kit module `name` imports, anywhere in the file (a submodule, not its package,
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
    loose = [name for name in modules() if part_of(name) is None and name not in FACADES]
    assert not loose, f"modules in no part (put each in one of {PARTS}): {loose}"


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_imports_point_one_way():
    rank = {part: i for i, part in enumerate(PARTS)}
    wrong = []
    for name, targets in graph().items():
        if name in FACADES or name.endswith(".__main__"):
            continue  # the facades and the entry points
        for target in targets:
            if target == "lessonkit":
                wrong.append(f"{name} imports the facade `lessonkit`: import the module it re-exports")
                continue
            a, b = part_of(name), part_of(target)
            if b is not None and rank[b] > rank[a]:
                wrong.append(f"{name} ({a}) imports {target} ({b}): {b} comes after {a}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_offline_rooms_point_one_way():
    """Inside the offline model: what a request asks, says and does stands on the API's rules, never the reverse."""
    rank = {room: i for i, room in enumerate(OFFLINE_ROOMS)}
    for low, high in OFFLINE_SAME_FLOOR.items():
        rank[high] = rank[low]
    wrong = []
    for name, targets in graph().items():
        a = room_of(name)
        if a is None:
            continue
        for target in targets:
            b = room_of(target)
            if b is not None and b != a and rank[b] >= rank[a]:
                wrong.append(f"{name} ({a}/) imports {target} ({b}/)")
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_nothing_in_the_kit_imports_a_product_above_it():
    """lessonkit never imports the arena; the offline model imports of lessonkit only its base, tokens and i18n."""
    wrong = []
    for name, targets in graph().items():
        for target in targets:
            if name.startswith("lessonkit") and target.startswith("arena"):
                wrong.append(f"{name} imports {target}")
            if name.startswith("offline") and target.startswith("lessonkit") \
                    and part_of(target) not in ("base", "i18n"):
                wrong.append(f"{name} imports {target}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
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


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_every_module_names_its_one_idea():
    """The budget counts ideas: a module's docstring opens with one line saying what it holds."""
    vague = [str(path.relative_to(ROOT)) for path in modules().values()
             if not (ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").strip()]
    assert not vague, f"modules that do not say what they hold (a docstring, first line): {vague}"


def stage_imports(path: Path) -> set[str]:
    """Every module a stage file imports by absolute name (lazy imports too), and its relative
    imports resolved. Example: 'from lessonkit import tokens' -> {'lessonkit', 'lessonkit.tokens'}"""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names
                      if (ROOT / node.module.replace(".", "/") / f"{alias.name}.py").exists()
                      or (ROOT / node.module.replace(".", "/") / alias.name / "__init__.py").exists()}
    return found


def stage_problems(stage: str, files) -> list[str]:
    """What in a stage's files breaks the layering: a lessonkit module off the allow-list, a later
    stage, a private attribute of anything but self/cls."""
    wrong = []
    for path in files:
        where = f"{stage}/{path.name}"
        for target in sorted(stage_imports(path)):
            top = target.split(".")[0]
            if top == "lessonkit":
                allowed = target in STAGE_MAY_IMPORT or target.startswith("lessonkit.base.") or (
                    path.name == "__main__.py" and target in REPL_MAY_IMPORT)
                if not allowed:
                    wrong.append(f"{where} imports {target}: a stage may import only {STAGE_MAY_IMPORT} "
                                 "(and lessonkit.base.*)")
            elif top in STAGES and top >= stage and top != stage:
                wrong.append(f"{where} imports {top}, a later stage")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = node.value.id if isinstance(node.value, ast.Name) else None
                if owner not in ("self", "cls"):
                    wrong.append(f"{where}:{node.lineno} reads .{node.attr} of another object: pass it in")
    return wrong


@pytest.mark.parametrize("stage", STAGES)
def test_a_stage_imports_what_it_teaches_and_a_small_base(stage):
    assert not (wrong := stage_problems(stage, sorted((ROOT / stage).glob("*.py")))), "\n".join(wrong)


def idea_file(stage: str) -> Path:
    """The file whose docstring is the stage's package help: the one the lesson shows first."""
    found = re.search(r"__doc__ = (\w+)\.__doc__", (ROOT / stage / "__init__.py").read_text(encoding="utf-8"))
    assert found, f"{stage}/__init__.py must set __doc__ from its idea file (`__doc__ = loop.__doc__ + ...`)"
    return ROOT / stage / f"{found.group(1)}.py"


@pytest.mark.parametrize("stage", STAGES)
def test_a_stage_idea_file_reads_in_one_sitting(stage):
    path = idea_file(stage)
    lines = path.read_text(encoding="utf-8").splitlines()
    beside = sum(1 for line in lines if "  # " in line and not line.lstrip().startswith("#"))
    assert len(lines) <= IDEA_FILE_LINES, (f"{path.relative_to(ROOT)} has {len(lines)} lines: an idea file reads "
                                           f"in one sitting (<= {IDEA_FILE_LINES}); move what it does not teach "
                                           "to lessonkit/base/")
    assert beside >= IDEA_COMMENTS or stage in COMMENTS_PENDING, (f"{path.relative_to(ROOT)} has {beside} comments beside its code: "
                                     f"say what the lines that carry the idea do (>= {IDEA_COMMENTS})")


def test_the_stage_checker_sees_a_bad_import(tmp_path):
    """The stage rules find what they forbid (they cannot pass empty)."""
    bad = tmp_path / "agent.py"
    bad.write_text("from lessonkit.backends.window import window_of\nimport s08_compact4\n"
                   "def f(client):\n    return client._client._transport\n")
    wrong = stage_problems("s05_budget", [bad])
    assert any("lessonkit.backends.window" in w for w in wrong)
    assert any("s08_compact4, a later stage" in w for w in wrong)
    assert any("._transport" in w for w in wrong) and any("._client" in w for w in wrong)
    good = tmp_path / "ok.py"
    good.write_text("from lessonkit import tokens\nfrom lessonkit.base.processes import run_tree\n"
                    "import s01_loop\nclass A:\n    def f(self):\n        return self._x\n")
    assert stage_problems("s05_budget", [good]) == []


@pytest.mark.parametrize("part", [p for p in PARTS if p not in ("offline", "arena")]
                         + [f"offline/{room}" for room in OFFLINE_ROOMS if room != "model"])
def test_every_part_says_what_it_is(part):
    init = (ROOT / part if "/" in part else KIT / part) / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) if init.exists() else None
    assert doc and len(doc.splitlines()) > 2, \
        f"{init.relative_to(ROOT)} needs a docstring: the part in one sentence, then its files"


@pytest.mark.parametrize("package", ["offline", "arena"])
def test_each_product_has_a_readme_naming_every_room(package):
    """The offline model and the arena are products of their own: a README a newcomer starts from."""
    readme = ROOT / package / "README.md"
    assert readme.is_file(), f"{package}/README.md: what the product is, how to run it, its rooms"
    text = readme.read_text(encoding="utf-8")
    rooms = sorted({p.relative_to(ROOT / package).parts[0] for p in (ROOT / package).rglob("*.py")} - {"__init__.py"})
    missing = [room for room in rooms if room.removesuffix(".py") not in text]
    assert not missing, f"{package}/README.md does not name: {missing}"


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
