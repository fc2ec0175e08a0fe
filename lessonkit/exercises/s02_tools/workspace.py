"""The s02 check's sandbox, and how it calls a student's resolve_in and names what came back.

    sandbox()        a throwaway workspace with a neighbour, a look-alike sibling, two symlinks in it and
                     one to it (via -> ws: the workspace as a symlink names it, as /tmp is on macOS)
    attempt(fn, ws)  path (and optionally the workspace as given: "via") -> what fn returned, Refused
                     (a ToolError) or Raised (anything else)
    spelled(got, ws) a returned path relative to the workspace, as spelled; no temporary folder

Example: spelled(ws / "src" / ".." / "a.py", ws) -> 'src/../a.py'; spelled(ws.parent / "outside.txt", ws)
  -> '../outside.txt'
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

from lessonkit.i18n import tr
from s01_loop import ToolError


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
        (root / "via").symlink_to(ws, target_is_directory=True)  # the workspace, named through a symlink
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
    """The student's fn as the cases call it: path -> what it returned, Refused, or Raised. `given`
    names the workspace another way: "via", the symlink beside it that leads to it."""
    def resolve(path, given=None):
        try:
            return fn(ws.parent / given if given else ws, path)
        except ToolError as exc:
            return Refused(str(exc))
        except Exception as exc:  # noqa: BLE001 -- reported as check() would, without the temporary folder
            return Raised(exc, ws)
    return resolve


def spelled(got, ws: Path) -> str:
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
