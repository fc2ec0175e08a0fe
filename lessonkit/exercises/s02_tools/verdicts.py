"""Why a resolve_in answer is wrong: a path refused or not the real one, or a path let out, and how.

    inside(ws, rel)      the path is accepted and is the real path of <ws>/rel; else why not (_not_real)
    refused(ws, asked)   the path is refused with ToolError; else how the returned path escapes (_escapes):
                         through `..`, a symlink, a sibling whose name starts like the workspace's

Example: refused(ws, "../outside.txt")(ws / "../outside.txt") -> "returned ../outside.txt instead of
  raising ToolError: it leads outside the workspace: `..` climbs above the workspace: Path.resolve()
  collapses it before you compare"
"""

from __future__ import annotations

import os
from pathlib import Path

from lessonkit.i18n import tr

from .workspace import Raised, Refused, spelled


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
        target = spelled(ws.joinpath(link).resolve(), ws)
        return tr("{link} is a symlink to {target}: Path.resolve() follows symlinks to the real path",
                  link=link, target=target)
    if ".." in Path(got).parts:
        return tr("Path.resolve() collapses .. and gives the real path")
    return ""


def inside(ws: Path, rel: str, *, given: str | None = None):
    """A verdict: the path is accepted, and is the real path of <ws>/rel (`given`: the workspace was
    named through that symlink beside it)."""
    want = (ws / rel).resolve()

    def verdict(got) -> str | None:
        if isinstance(got, Refused):
            problem = tr("raised ToolError, expected the path {want}: it is inside the workspace",
                         want=spelled(want, ws))
            if given:
                return tr("{problem}: the workspace was given as …/{via}, a symlink to it: resolve the workspace "
                          "too before you compare (root = Path(workspace).resolve())", problem=problem, via=given)
            return problem
        if isinstance(got, Raised):
            problem = tr("{problem}, expected the path {want}: it is inside the workspace", problem=got.text,
                         want=spelled(want, ws))
            if "FileNotFoundError" in got.text and not want.exists():
                return tr("{problem}: it does not exist yet, and write_file is about to make it: resolve() "
                          "without strict=True", problem=problem)
            return problem
        if not isinstance(got, (str, os.PathLike)):
            return tr("returned {got}, expected a Path", got=spelled(got, ws))
        if Path(got) != want:
            wrong = tr("returned {got}, expected the real path {want}", got=spelled(got, ws), want=spelled(want, ws))
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
                       "follows it)", link=link, target=spelled(ws.joinpath(link).resolve(), ws)))
    if str(real).startswith(str(ws)) and real != ws and ws not in real.parents:
        ways.append(tr("'…/{name}' starts with the text '…/{ws}': compare path parts, not strings",
                       name=real.relative_to(ws.parent).parts[0], ws=ws.name))
    if not ways and Path(got) == real:
        ways.append(tr("joining an absolute path to the workspace gives the absolute path itself")
                    if Path(asked).is_absolute() else
                    tr("it is the real path, and it is outside: compare it with the workspace's real path "
                       "(real.is_relative_to(root)) and raise ToolError"))
    return ways


def no_name(ws: Path):
    """A verdict: a path with a NUL character in it is refused with ToolError (no file can be named so)."""
    def verdict(got) -> str | None:
        if isinstance(got, Refused):
            return None
        if isinstance(got, Raised):
            return tr("{problem}: a path from the model can hold any character, a NUL too: refuse it with "
                      "ToolError before the file system sees it", problem=got.text)
        return tr("returned {got} instead of raising ToolError: no file name holds a NUL character",
                  got=repr(spelled(got, ws)) if isinstance(got, (str, os.PathLike)) else spelled(got, ws))
    return verdict


def refused(ws: Path, asked: str):
    """A verdict: the path `asked` is refused with a ToolError; a returned path is explained by how it escapes."""
    def verdict(got) -> str | None:
        if isinstance(got, Refused):
            return None
        if isinstance(got, Raised):
            return tr("{problem}: refuse with ToolError, the error the file tools raise for the model to read "
                      "(the loop reports any other exception as a bug in the tool)", problem=got.text)
        wrong = tr("returned {got} instead of raising ToolError: it leads outside the workspace", got=spelled(got, ws))
        if isinstance(got, (str, os.PathLike)):
            ways = _escapes(got, ws, asked)
            if ways:
                hint = ways[0]
                for more in ways[1:]:
                    hint = tr("{hint}; {more}", hint=hint, more=more)
                return tr("{problem}: {hint}", problem=wrong, hint=hint)
        return wrong
    return verdict
