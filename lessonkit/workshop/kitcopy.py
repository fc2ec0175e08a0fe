"""The grader's read-only copy of the kit: what the child imports the checks from, checked by hash.

    Kit(base)          <base>/kit-XXXX/: lessonkit/ and the stage packages s[0-9][0-9]_*, compiled, every file
                       0o444 and folder 0o555; its digest (paths, modes, contents)
      kit.intact()     False, and a fresh copy made, when an answer changed the copy
    kit_imports(root)  the standard-library modules the kit imports anywhere, for the child to preload

Example: kit = Kit(Path(tmp)); (kit.root / "lessonkit" / "workshop" / "harness.py").exists() -> True;
  kit.intact() -> True
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
from pathlib import Path

from ..backends.client import REPO_ROOT


class Kit:
    """A read-only copy of the kit's code (lessonkit/ and the stage packages), compiled, with its hash."""

    def __init__(self, base: Path, source: Path = REPO_ROOT):
        self.base, self.source = base, source
        self.build()

    @classmethod
    def existing(cls, root: Path, base: Path) -> Kit:
        """The copy at `root`, as the judge (running from it) sees it: not copied again."""
        kit = cls.__new__(cls)
        kit.base, kit.source, kit.root, kit.digest = base, root, root, ""
        return kit

    def build(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="kit-", dir=self.base))
        for part in [self.source / "lessonkit", *sorted(self.source.glob("s[0-9][0-9]_*"))]:
            if part.is_dir():
                shutil.copytree(part, self.root / part.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        compileall.compile_dir(self.root, quiet=1)
        for folder, _dirs, files in os.walk(self.root):
            for f in files:
                os.chmod(os.path.join(folder, f), 0o444)
            os.chmod(folder, 0o555)
        self.digest = self.hash()

    def hash(self) -> str:
        h = hashlib.sha256()
        for folder, dirs, files in sorted(os.walk(self.root)):
            dirs.sort()
            for f in sorted(files):
                p = os.path.join(folder, f)
                h.update(p.encode() + b"\0" + oct(os.lstat(p).st_mode).encode())
                with open(p, "rb") as data:
                    h.update(hashlib.sha256(data.read()).digest())
        return h.hexdigest()

    def intact(self) -> bool:
        """False (and a fresh copy made) when a child changed the copy."""
        if self.hash() == self.digest:
            return True
        self.build()
        return False


@functools.lru_cache(maxsize=4)
def kit_imports(root: Path) -> tuple[str, ...]:
    """The standard-library modules the kit imports anywhere (also inside functions): the child
    imports them before it drops to the grading user, who may not read the interpreter's library."""
    names = set()
    parts = [root / "lessonkit" / p for p in ("exercises", "arena", "offline", "backends", "show", "tokens.py")]
    files = [f for p in parts for f in ([p] if p.is_file() else p.rglob("*.py"))]
    for path in files + [f for stage in root.glob("s[0-9][0-9]_*") for f in stage.rglob("*.py")]:
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
