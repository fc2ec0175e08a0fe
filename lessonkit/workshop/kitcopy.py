"""The grader's read-only copies of the kit: the judge's, and the children's, where a reference tells on itself.

    Kit(base)          <base>/kit-XXXX/: lessonkit/, offline/, arena/ and the stages s[0-9][0-9]_*, compiled, every file
                       0o444 and folder 0o555; its digest (paths, modes, contents). The judge runs from it.
      kit.for_child(hidden)   a second copy for the grading children of one lesson, in which each of the
                       lesson's reference functions first tells the judge it is running, then runs (another
                       exercise or the kit's own code may build on it: s02's find_text on resolve_in), and a
                       solution written out as a program is gone. So an answer that calls the stage's own
                       function, under any name, by any import, is seen by the judge (jail.py: no other copy)
      kit.intact()     False, and fresh copies made, when an answer changed a copy
    kit_imports(root)  the standard-library modules the kit imports anywhere, for the child to preload

Example: kit = Kit(Path(tmp)); (kit.root / "lessonkit" / "workshop" / "harness.py").exists() -> True;
  kit.intact() -> True; kit.for_child(Hidden((("s01_loop.loop", "assistant_message"),), ()))
  -> a copy where s01_loop.assistant_message(r) tells the judge "s01_loop.loop:assistant_message", then runs
"""

from __future__ import annotations

import ast
import compileall
import functools
import hashlib
import os
import shutil
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from ..backends.client import REPO_ROOT

PACKAGES = ("lessonkit", "offline", "arena")  # the kit's code besides the stage packages s[0-9][0-9]_*


def kit_parts(root: Path) -> list[Path]:
    """The kit's code folders under `root`.

    Example: kit_parts(repo) -> [repo/lessonkit, repo/offline, repo/arena, repo/s01_loop, ..., repo/s10_memory]"""
    return [root / name for name in PACKAGES] + sorted(root.glob("s[0-9][0-9]_*"))

HOOK = "__lessons_reference__"   # the child's builtin a hidden reference calls (harness.py)


@dataclass(frozen=True)
class Hidden:
    """What a child's copy leaves out: functions as (module, qualname), and (module, text) program strings."""
    functions: tuple = ()
    strings: tuple = ()


class Kit:
    """A read-only copy of the kit's code (kit_parts: lessonkit, offline, arena, stages), compiled, hashed."""

    def __init__(self, base: Path, source: Path = REPO_ROOT):
        self.base, self.source = base, source
        self.children: dict[Hidden, tuple[Path, str]] = {}
        self.lock = threading.Lock()
        self.root, self.digest = self.build(), ""
        self.digest = self.hash(self.root)

    @classmethod
    def existing(cls, root: Path, base: Path) -> Kit:
        """The copy at `root`, as the judge (running from it) sees it: not copied again."""
        kit = cls.__new__(cls)
        kit.base, kit.source, kit.root, kit.digest, kit.children = base, root, root, "", {}
        kit.lock = threading.Lock()
        return kit

    def build(self, hidden: Hidden | None = None) -> Path:
        root = Path(tempfile.mkdtemp(prefix="kit-", dir=self.base))
        for part in kit_parts(self.source):
            if part.is_dir():
                shutil.copytree(part, root / part.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        if hidden is not None:
            hide_references(root, hidden)
        compileall.compile_dir(root, quiet=1)
        for folder, _dirs, files in os.walk(root):
            for f in files:
                os.chmod(os.path.join(folder, f), 0o444)
            os.chmod(folder, 0o555)
        return root

    def for_child(self, hidden: Hidden) -> Path:
        """The children's copy without `hidden` (made once per set, shared by the lesson's notebooks)."""
        with self.lock:
            if hidden not in self.children:
                root = self.build(hidden)
                self.children[hidden] = (root, self.hash(root))
            return self.children[hidden][0]

    @staticmethod
    def hash(root: Path) -> str:
        h = hashlib.sha256()
        for folder, dirs, files in sorted(os.walk(root)):
            dirs.sort()
            for f in sorted(files):
                p = os.path.join(folder, f)
                h.update(p.encode() + b"\0" + oct(os.lstat(p).st_mode).encode())
                with open(p, "rb") as data:
                    h.update(hashlib.sha256(data.read()).digest())
        return h.hexdigest()

    def intact(self) -> bool:
        """False (and fresh copies made) when a child changed a copy."""
        with self.lock:
            changed = [h for h, (root, digest) in self.children.items() if self.hash(root) != digest]
            for h in changed:
                root = self.build(h)
                self.children[h] = (root, self.hash(root))
            if self.hash(self.root) != self.digest:
                self.root = self.build()
                self.digest = self.hash(self.root)
                return False
            return not changed


def _module_file(root: Path, module: str) -> Path | None:
    base = root.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _stub(key: str, indent: str) -> list[str]:
    """The lines a reference gets before its body: tell the judge (the child's builtin HOOK) it ran.
    The body then runs as written: another exercise (s02's find_text) or the kit's own code (s04's agent
    triggering hooks) may build on it; the judge counts the call only against the exercise it answers."""
    return [f"{indent}import builtins as _lessons_builtins",
            f"{indent}_lessons_hook = getattr(_lessons_builtins, {HOOK!r}, None)",
            f"{indent}if _lessons_hook is not None:",
            f"{indent}    _lessons_hook({key!r})"]


def hide_references(root: Path, hidden: Hidden) -> None:
    """Rewrite the copy at `root`: each reference function tells the judge when it runs (_stub, after its
    docstring; its body kept), each written-out solution string becomes a note. Example: s01_loop/loop.py's
    `def assistant_message(response):` keeps its docstring, calls the hook, then runs as written."""
    edits: dict[Path, list] = {}
    for module, qualname in dict.fromkeys(hidden.functions):   # each once: a reference is also its solution
        path = _module_file(root, module)
        if path is not None:
            edits.setdefault(path, []).append(("def", qualname, f"{module}:{qualname}"))
    for module, text in dict.fromkeys(hidden.strings):
        path = _module_file(root, module)
        if path is not None:
            edits.setdefault(path, []).append(("str", text, ""))
    for path, todo in edits.items():
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        tree = ast.parse(source)
        spans = []   # (first line, last line (1-based, inclusive), replacement lines)
        for kind, what, key in todo:
            if kind == "def":
                node = _find_def(tree, what.split("."))
                if node is None:
                    continue
                body = node.body
                first = getattr(body[0], "value", None)
                docstring = isinstance(body[0], ast.Expr) and isinstance(getattr(first, "value", None), str)
                if body[0].lineno == node.lineno:
                    continue   # a body on the def's own line: nothing of the kit is written so
                at = body[0].end_lineno + 1 if docstring else body[0].lineno   # after the docstring, before the body
                indent = " " * body[0].col_offset
                spans.append((at, at - 1, _stub(key, indent)))   # an insertion: nothing of the body replaced
            else:
                for node in ast.walk(tree):
                    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                            and node.value.value == what:
                        head = lines[node.lineno - 1][:node.value.col_offset]
                        spans.append((node.lineno, node.end_lineno,
                                      [head + repr("(the solution is not available while grading)")]))
        for start, end, new in sorted(spans, reverse=True):
            lines[start - 1:end] = new
        os.chmod(path, 0o644)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _find_def(tree, parts):
    """The def (or class) at the qualname `parts` in a module's tree, or None."""
    body = tree.body
    node = None
    for part in parts:
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            return None
        body = node.body
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


@functools.lru_cache(maxsize=4)
def kit_imports(root: Path) -> tuple[str, ...]:
    """The standard-library modules the kit imports anywhere (also inside functions): the child
    imports them before it drops to the grading user, who may not read the interpreter's library."""
    names = set()
    for path in [f for part in kit_parts(root) for f in part.rglob("*.py")]:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
    return tuple(sorted(n for n in names if n.split(".")[0] in sys.stdlib_module_names
                        and not n.startswith(("_", "tkinter", "idlelib", "win", "msvc", "distutils"))))
