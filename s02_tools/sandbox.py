"""The file tools' sandbox: a path the model names is resolved, then must lie inside the workspace.

Example: resolve_in(ws, "src/../a.py") -> <ws>/a.py
         resolve_in(ws, "../secret")   -> ToolError("path '../secret' is outside the workspace (it climbs out ...")
         resolve_in(ws, "/etc/passwd") -> ToolError (an absolute path outside the workspace)
         resolve_in(ws, "link/x")      -> ToolError when `link` is a symlink to a place outside
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
    # 1. Where the path points by its spelling alone (no symlinks followed yet); an absolute path
    #    inside the workspace is fine: it names the same file as its relative form.
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
    return real  # not modeled: a symlink swapped in between this check and the use (a race), hard links


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
