"""s02 exercise: the path check that keeps the file tools inside the workspace.

    resolve_in(workspace, "src/a.py")        -> <workspace>/src/a.py   (the real path)
    resolve_in(workspace, "../outside.txt")  -> ToolError              (climbs out)
    resolve_in(workspace, "link/outside.txt")-> ToolError              (a symlink that leads out)

The cases run in a small sandbox made for each check (a temporary folder):

    <tmp>/outside.txt            a file next to the workspace
    <tmp>/ws-old/secret.txt      a sibling whose name starts like the workspace's
    <tmp>/ws/                    the workspace: app_01.py, src/a.py,
                                 link -> <tmp> (out), inner -> src (in)
    <tmp>/via -> ws              the workspace as a symlink names it (one case is given that)

The starter joins and compares strings: `..`, a sibling with the same prefix and
a symlink all get through, and it returns paths that are not the real ones.
Reports name paths relative to the workspace, never the temporary folder (an exception
other than ToolError included), and say how a returned path escapes: through `..`, a
symlink, or a sibling whose name starts like the workspace's.

The sandbox and how a returned path is shown are in workspace.py; the verdicts that explain
a wrong answer (how a path escapes, why it is not the real one) in verdicts.py.

Example: exercise.check(lexical_only) -> ✗ resolve_in: 8/10 cases pass
  ✗ a symlink out of the workspace: returned link/outside.txt instead of raising ToolError: it leads
    outside the workspace: link is a symlink to the folder above the workspace: check where the path
    really leads (Path.resolve() follows it)
  ✗ a symlink that stays inside: returned inner/a.py, expected the real path src/a.py: inner is a
    symlink to src: Path.resolve() follows symlinks to the real path

Reference: s02_tools.resolve_in.
"""

from __future__ import annotations

import os
from pathlib import Path

from s01_loop import ToolError
from s02_tools import resolve_in

from .. import Case, Exercise, Mistake
from .verdicts import inside, no_name, refused
from .workspace import attempt, sandbox

STARTER = '''\
from pathlib import Path
from s01_loop import ToolError


def resolve_in(workspace, path):
    """The path `path` names inside `workspace`, or ToolError if it is outside."""
    full = Path(workspace) / path
    if not str(full).startswith(str(workspace)):
        raise ToolError(f"path {path!r} is outside the workspace")
    return full
'''

TASK = """Write resolve_in(workspace, path): the real path (symlinks followed, `..` collapsed)
that `path` names inside `workspace`, or raise ToolError if it leads outside."""



def cases(ws: Path) -> list[Case]:
    """No case carries a fixed `why`: each verdict explains the path it was given back."""
    return [
        Case("a file", ("app_01.py",), inside(ws, "app_01.py")),
        Case("a file in a folder", ("src/a.py",), inside(ws, "src/a.py")),
        Case("the workspace itself", (".",), inside(ws, ".")),
        Case(".. that stays inside", ("src/../app_01.py",), inside(ws, "app_01.py")),
        Case("climbing out with ..", ("../outside.txt",), refused(ws, "../outside.txt")),
        Case("a sibling folder with the same prefix", ("../ws-old/secret.txt",), refused(ws, "../ws-old/secret.txt")),
        Case("an absolute path outside", ("/etc/passwd",), refused(ws, "/etc/passwd")),
        Case("an absolute path inside", (str(ws / "app_01.py"),), inside(ws, "app_01.py")),
        Case("a symlink out of the workspace", ("link/outside.txt",), refused(ws, "link/outside.txt")),
        Case("a symlink that stays inside", ("inner/a.py",), inside(ws, "src/a.py")),
        Case("a file that does not exist yet", ("notes/todo.md",), inside(ws, "notes/todo.md")),
        Case("a name with a NUL character", ("app_01.py\x00.txt",), no_name(ws)),
        Case("the workspace named through a symlink", ("src/a.py", "via"), inside(ws, "src/a.py", given="via")),
    ]


# ---- plausible wrong answers ---------------------------------------------------------------

def joins_strings(workspace, path):
    """The starter: join, then compare strings; nothing is resolved."""
    full = Path(workspace) / path
    if not str(full).startswith(str(workspace)):
        raise ToolError(f"path {path!r} is outside the workspace")
    return full


def lexical_only(workspace, path):
    """Collapses .. by spelling, never follows symlinks."""
    full = Path(os.path.normpath(Path(workspace) / path))
    if full != Path(workspace) and Path(workspace) not in full.parents:
        raise ToolError("outside")
    return full


def string_prefix(workspace, path):
    """Resolves, then compares strings."""
    real = (Path(workspace) / path).resolve()
    if not str(real).startswith(str(workspace)):
        raise ToolError("outside")
    return real


def wrong_error(workspace, path):
    """Resolves and checks parts, but refuses with relative_to's ValueError."""
    real = (Path(workspace) / path).resolve()
    real.relative_to(workspace)
    return real


def returns_the_spelling(workspace, path):
    """Checks the real path, but returns the path as it was spelled."""
    full = Path(workspace) / path
    try:
        full.resolve().relative_to(Path(workspace).resolve())
    except ValueError:
        raise ToolError("outside") from None
    return full


def forgets_the_workspace(workspace, path):
    """Resolves `path` on its own: relative to the current folder, not to the workspace."""
    real = Path(path).resolve()
    try:
        real.relative_to(Path(workspace).resolve())
    except ValueError:
        raise ToolError("outside") from None
    return real


MISTAKES = (
    Mistake("the starter: joined strings, nothing resolved", joins_strings,
            "returned ../outside.txt instead of raising ToolError"),
    Mistake(".. collapsed by spelling, symlinks not followed", lexical_only,
            "returned link/outside.txt instead of raising ToolError"),
    Mistake("a string prefix test after resolving", string_prefix, "returned ../ws-old/secret.txt"),
    Mistake("refuses with ValueError instead of ToolError", wrong_error, "raised ValueError"),
    Mistake("returns the path as spelled, not the real one", returns_the_spelling,
            "returned src/../app_01.py, expected the real path app_01.py"),
    Mistake("resolves the path without the workspace", forgets_the_workspace,
            "raised ToolError, expected the path app_01.py"),
)

HINTS = (
    "Strings lie about paths: `..`, a sibling folder whose name starts the same, and symlinks all "
    "get past a text comparison. Ask the file system where the path really leads.",
    "Path(workspace, path).resolve() collapses `..` and follows symlinks. Then compare path parts, "
    "not text: real.relative_to(root) or real.is_relative_to(root), with root = Path(workspace).resolve().",
    "if '\\x00' in str(path): raise ToolError(...); root = Path(workspace).resolve(); real = (root / path).resolve(); "
    "if real != root and root not in real.parents: raise ToolError(...); return real.",
)

exercise = Exercise(name="resolve_in", task=TASK, starter=STARTER, reference=resolve_in,
                    cases=cases, setup=sandbox, adapt=attempt, hints=HINTS, mistakes=MISTAKES)

from .tool_exercise import FIND_TEXT, find_text, tool_exercise  # noqa: E402, F401 -- the second exercise: build a tool
