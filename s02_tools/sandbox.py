"""Keep the file tools inside the workspace: every path is resolved, then checked.

    "src/a.py"        -> <workspace>/src/a.py         inside: fine
    "src/../a.py"     -> <workspace>/a.py             inside: fine (.. that stays in)
    "../secret"       -> refused: it climbs out with ..
    "/etc/passwd"     -> refused: an absolute path outside the workspace
    "link/x"          -> refused if `link` is a symlink to a place outside

The check is on the *resolved* path (symlinks followed, `..` collapsed), so a
path cannot get out by any spelling. An absolute path inside the workspace is
accepted: it names the same file as its relative form.

Example: resolve_in(Path("/ws"), "../x")
  -> ToolError("path '../x' is outside the workspace (it climbs out with ..); use a path relative to it")

Not modeled: a file swapped for a symlink between the check and the use (a race),
hard links, and `bash`, which can still go anywhere (s03 adds a deny list).
"""

from __future__ import annotations

import os
from pathlib import Path

from s01_loop import ToolError


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def resolve_in(workspace: Path, path: str) -> Path:
    """The real path `path` names inside `workspace`, or ToolError saying why it is refused."""
    if not isinstance(workspace, (str, os.PathLike)):
        raise ToolError(f"workspace must be a path, got {type(workspace).__name__}")
    if not isinstance(path, str):
        raise ToolError(f"path must be a string, got {type(path).__name__}")
    if "\x00" in path:
        raise ToolError(f"path {path!r} contains a NUL character")
    root = Path(workspace).resolve()
    given = Path(path)
    # 1. Where the path points by its spelling alone (no symlinks followed yet).
    lexical = Path(os.path.normpath(root / given))
    if not _inside(lexical, root):
        why = "an absolute path" if given.is_absolute() else "it climbs out with .."
        raise ToolError(f"path {path!r} is outside the workspace ({why}); use a path relative to it")
    # 2. Where it really points once symlinks are followed.
    try:
        real = lexical.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise ToolError(f"path {path!r} cannot be resolved: {exc}") from None
    if not _inside(real, root):
        raise ToolError(f"path {path!r} is outside the workspace (through a symlink to {real})")
    return real


def relative_name(workspace: Path, real: Path) -> str:
    """A resolved path as the model sees it: relative, with '/'. Example: /ws/src/a.py -> 'src/a.py'"""
    if not isinstance(workspace, (str, os.PathLike)) or not isinstance(real, Path):
        raise ValueError(f"relative_name() takes a workspace path and a Path, got {type(workspace).__name__} "
                         f"and {type(real).__name__}")
    try:
        rel = real.relative_to(Path(workspace).resolve())
    except ValueError:
        raise ValueError(f"{str(real)!r} is not inside the workspace {str(workspace)!r}") from None
    return rel.as_posix() if rel.parts else "."
