"""s02 exercise: the path check that keeps the file tools inside the workspace.

    resolve_in(workspace, "src/a.py")        -> <workspace>/src/a.py   (the real path)
    resolve_in(workspace, "../outside.txt")  -> ToolError              (climbs out)
    resolve_in(workspace, "link/outside.txt")-> ToolError              (a symlink that leads out)

The cases run in a small sandbox made for each check (a temporary folder):

    <tmp>/outside.txt            a file next to the workspace
    <tmp>/ws-old/secret.txt      a sibling whose name starts like the workspace's
    <tmp>/ws/                    the workspace: app_01.py, src/a.py,
                                 link -> <tmp> (out), inner -> src (in)

The starter joins and compares strings: `..`, a sibling with the same prefix and
a symlink all get through, and it returns paths that are not the real ones.
Reports name paths relative to the workspace, never the temporary folder (an exception
other than ToolError included), and say how a returned path escapes: through `..`, a
symlink, or a sibling whose name starts like the workspace's.

Reference: s02_tools.resolve_in.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

from s01_loop import ToolError
from s02_tools import resolve_in

from ..i18n import tr
from . import Case, Exercise, Mistake

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


@contextlib.contextmanager
def sandbox():
    """A workspace with a neighbour, a look-alike sibling and two symlinks; yields the workspace."""
    with tempfile.TemporaryDirectory(prefix="lk-s02-") as tmp:
        root = Path(tmp).resolve()
        ws = root / "ws"
        (ws / "src").mkdir(parents=True)
        (ws / "app_01.py").write_text("print('app')\n", encoding="utf-8")
        (ws / "src" / "a.py").write_text("A = 1\n", encoding="utf-8")
        (root / "outside.txt").write_text("not yours\n", encoding="utf-8")
        (root / "ws-old").mkdir()
        (root / "ws-old" / "secret.txt").write_text("not yours either\n", encoding="utf-8")
        (ws / "link").symlink_to(root, target_is_directory=True)
        (ws / "inner").symlink_to("src", target_is_directory=True)
        yield ws


class Refused:
    """The student's function raised ToolError (what a refusal should be)."""

    def __init__(self, message: str):
        self.message = message


class Raised:
    """The student's function raised something else: its one-line report, temporary folders hidden.
    Example: "raised ValueError: '../outside.txt' is not in the subpath of '.'" """

    def __init__(self, exc: Exception, ws: Path):
        message = hide(str(exc).splitlines()[0] if str(exc) else "", ws).rstrip(".: ")
        name = type(exc).__name__
        self.text = (tr("raised {error}: {message}", error=name, message=message) if message
                     else tr("raised {error}", error=name))


def hide(text: str, ws: Path) -> str:
    """`text` with the sandbox's paths relative to the workspace. Example: '<tmp>/ws-old/x' -> '../ws-old/x'"""
    text = text.replace(f"{ws}{os.sep}", "")
    text = re.sub(re.escape(str(ws)) + r"(?![\w.-])", ".", text)
    return text.replace(f"{ws.parent}{os.sep}", ".." + os.sep)


def attempt(fn, ws: Path):
    """The student's fn as the cases call it: path -> what it returned, Refused, or Raised."""
    def resolve(path):
        try:
            return fn(ws, path)
        except ToolError as exc:
            return Refused(str(exc))
        except Exception as exc:  # noqa: BLE001 -- reported as check() would, without the temporary folder
            return Raised(exc, ws)
    return resolve


def shown(got, ws: Path) -> str:
    """A returned path as the student would read it: relative to the workspace, as spelled.
    Example: <tmp>/ws/src/../a.py -> 'src/../a.py'; <tmp>/outside.txt -> '../outside.txt'"""
    if not isinstance(got, (str, os.PathLike)):
        return tr("a {kind}", kind=type(got).__name__)
    text, ws_text, root_text = os.fspath(got), str(ws), str(ws.parent)
    if text == ws_text:
        return tr("the workspace itself")
    if text == root_text:
        return tr("the folder above the workspace")
    if text.startswith(ws_text + os.sep):
        return text[len(ws_text) + 1:]
    if text.startswith(root_text + os.sep):
        return ".." + os.sep + text[len(root_text) + 1:]
    return text if Path(text).is_absolute() else tr("the relative path {path}", path=repr(text))


def _symlink_on(got, ws: Path) -> str | None:
    """The first symlink the returned path passes through inside the workspace, as spelled (e.g. 'link')."""
    try:
        parts = Path(got).relative_to(ws).parts
    except ValueError:
        return None
    for n in range(1, len(parts) + 1):
        if ".." in parts[:n]:
            return None
        if (ws.joinpath(*parts[:n])).is_symlink():
            return "/".join(parts[:n])
    return None


def _not_real(got, ws: Path) -> str:
    """Why a returned path is not the real one: its `..`, or a symlink it passes through."""
    link = _symlink_on(got, ws)
    if link:
        target = shown(ws.joinpath(link).resolve(), ws)
        return tr("{link} is a symlink to {target}: Path.resolve() follows symlinks to the real path",
                  link=link, target=target)
    if ".." in Path(got).parts:
        return tr("Path.resolve() collapses .. and gives the real path")
    return ""


def inside(ws: Path, rel: str):
    """A verdict: the path is accepted, and is the real path of <ws>/rel."""
    want = (ws / rel).resolve()

    def verdict(got) -> str | None:
        if isinstance(got, Refused):
            return tr("raised ToolError, expected the path {want}: it is inside the workspace", want=shown(want, ws))
        if isinstance(got, Raised):
            return tr("{problem}, expected the path {want}: it is inside the workspace", problem=got.text,
                      want=shown(want, ws))
        if not isinstance(got, (str, os.PathLike)):
            return tr("returned {got}, expected a Path", got=shown(got, ws))
        if Path(got) != want:
            wrong = tr("returned {got}, expected the real path {want}", got=shown(got, ws), want=shown(want, ws))
            if Path(got).is_absolute() and Path(got).resolve() == want:
                because = _not_real(got, ws)
                return tr("{problem}: {hint}", problem=wrong, hint=because) if because else wrong
            return wrong
        return None
    return verdict


def _escapes(got, ws: Path, asked: str) -> list[str]:
    """How a returned path leads out of the workspace: through `..`, a symlink, a look-alike sibling
    that a text comparison takes for the workspace, as the absolute path `asked` itself, or as a
    real path nobody compared with the workspace."""
    if not Path(got).is_absolute():
        return []
    ways, real = [], Path(got).resolve()
    if ".." in Path(got).parts:
        ways.append(tr("`..` climbs above the workspace: Path.resolve() collapses it before you compare"))
    link = _symlink_on(got, ws)
    if link:
        ways.append(tr("{link} is a symlink to {target}: check where the path really leads (Path.resolve() "
                       "follows it)", link=link, target=shown(ws.joinpath(link).resolve(), ws)))
    if str(real).startswith(str(ws)) and real != ws and ws not in real.parents:
        ways.append(tr("'…/{name}' starts with the text '…/{ws}': compare path parts, not strings",
                       name=real.relative_to(ws.parent).parts[0], ws=ws.name))
    if not ways and Path(got) == real:
        ways.append(tr("joining an absolute path to the workspace gives the absolute path itself")
                    if Path(asked).is_absolute() else
                    tr("it is the real path, and it is outside: compare it with the workspace's real path "
                       "(real.is_relative_to(root)) and raise ToolError"))
    return ways


def refused(ws: Path, asked: str):
    """A verdict: the path `asked` is refused with a ToolError; a returned path is explained by how it escapes."""
    def verdict(got) -> str | None:
        if isinstance(got, Refused):
            return None
        if isinstance(got, Raised):
            return tr("{problem}: refuse with ToolError, the error the file tools raise for the model to read "
                      "(the loop reports any other exception as a bug in the tool)", problem=got.text)
        wrong = tr("returned {got} instead of raising ToolError: it leads outside the workspace", got=shown(got, ws))
        if isinstance(got, (str, os.PathLike)):
            ways = _escapes(got, ws, asked)
            if ways:
                hint = ways[0]
                for more in ways[1:]:
                    hint = tr("{hint}; {more}", hint=hint, more=more)
                return tr("{problem}: {hint}", problem=wrong, hint=hint)
        return wrong
    return verdict


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
    "root = Path(workspace).resolve(); real = (root / path).resolve(); if real != root and root not in "
    "real.parents: raise ToolError(...); return real.",
)

exercise = Exercise(name="resolve_in", task=TASK, starter=STARTER, reference=resolve_in,
                    cases=cases, setup=sandbox, adapt=attempt, hints=HINTS, mistakes=MISTAKES)
