"""s10 exercise: the memory's sandbox, /memories paths to real paths inside one folder.

    memory_path(root, "/memories/notes.md")      -> <root>/notes.md   (the real path)
    memory_path(root, "/memories/../secret.txt") -> ToolError         (climbs out)
    memory_path(root, "/memoriesX/notes.md")     -> ToolError         (not the memory: a look-alike)
    memory_path(root, "notes.md")                -> ToolError         (every memory path starts /memories)

The cases run in a sandbox made for each check: <tmp>/secret.txt next to the memory folder
<tmp>/mem/ (notes.md, sub/a.md, link -> <tmp>), and <tmp>/mem-old/, a folder beside it whose name
starts like the memory's (a text comparison takes it for the memory).

Example: exercise.check(no_prefix_check) -> ✗ memory_path: 8/9 cases pass
  ✗ a path without /memories: returned notes.md instead of raising ToolError: ...

Reference: s10_memory.memory_path.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from lessonkit.i18n import tr
from s01_loop import ToolError
from s10_memory import memory_path

from .. import Case, Exercise, Mistake
from ..checks import translated

STARTER = '''\
from pathlib import Path


def memory_path(root, path):
    """The real path a /memories path names inside root, or ToolError."""
    return Path(root) / path.removeprefix("/memories").lstrip("/")
'''

TASK = """Write memory_path(root, path): for "/memories" or a path under "/memories/", the real path
(symlinks followed, `..` collapsed) it names inside `root`; anything else, or a path that leads out
of `root`, raises ToolError."""


@contextlib.contextmanager
def sandbox():
    with tempfile.TemporaryDirectory(prefix="lk-s10-") as tmp:
        top = Path(tmp).resolve()
        root = top / "mem"
        (root / "sub").mkdir(parents=True)
        (root / "notes.md").write_text("- a\n", encoding="utf-8")
        (root / "sub" / "a.md").write_text("b\n", encoding="utf-8")
        (top / "secret.txt").write_text("not memory\n", encoding="utf-8")
        (top / "mem-old").mkdir()
        (top / "mem-old" / "notes.md").write_text("- an old note, not memory\n", encoding="utf-8")
        (root / "link").symlink_to(top, target_is_directory=True)
        yield root


class Refused:
    def __init__(self, message):
        self.message = message


class Raised:
    """Anything but a ToolError: its one-line report."""

    def __init__(self, exc: Exception):
        first = (str(exc).splitlines() or [""])[0]
        self.text = tr("raised {error}: {message}", error=type(exc).__name__, message=first) if first else \
            tr("raised {error}", error=type(exc).__name__)


def attempt(fn, root):
    def run(path):
        try:
            return fn(root, path)
        except ToolError as exc:
            return Refused(str(exc))
        except Exception as exc:  # noqa: BLE001 -- reported, with what it means for the memory tool
            return Raised(exc)
    return run


def show(got, root: Path) -> str:
    if not isinstance(got, (str, os.PathLike)):
        return tr("a {kind}", kind=type(got).__name__)
    text = os.fspath(got)
    if text == str(root):
        return "/memories"
    if text.startswith(str(root) + os.sep):
        return "/memories/" + text[len(str(root)) + 1:]
    return text.replace(str(root.parent) + os.sep, "<the folder above>/")


def inside(root: Path, rel: str):
    want = (root / rel).resolve()

    def verdict(got) -> str | None:
        if isinstance(got, Raised):
            return tr("{problem}, expected the path {want}: it is in the memory", problem=got.text,
                      want=show(want, root))
        if isinstance(got, Refused):
            problem = tr("raised ToolError, expected the path {want}: it is in the memory", want=show(want, root))
            if rel == ".":
                return tr("{problem}: /memories itself is the memory folder (view /memories lists it): accept "
                          "it as well as a path under /memories/", problem=problem)
            return problem
        if not isinstance(got, (str, os.PathLike)) or Path(got) != want:
            return tr("returned {got}, expected the real path {want}: resolve() collapses .. and follows "
                      "symlinks", got=show(got, root), want=show(want, root))
        return None
    return verdict


def how_out(got, root: Path) -> str:
    """How a returned path leads out of the memory, when that is sure: its `..`, a symlink on the way, or a
    folder beside the memory that a text comparison takes for it. Empty otherwise."""
    if not isinstance(got, (str, os.PathLike)) or "\x00" in os.fspath(got):
        return ""
    path = Path(got)
    if ".." in path.parts:
        return tr("`..` climbs out of the memory folder: resolve the path, then compare it with the root")
    real = path.resolve()
    if real == root or root in real.parents:
        return ""
    if str(real).startswith(str(root)):
        return tr("{name} is beside the memory, and its name starts with the memory folder's: compare path parts "
                  "(is_relative_to), not text", name=real.relative_to(root.parent).parts[0])
    here = root
    for part in path.relative_to(root).parts if root in path.parents else ():
        here = here / part
        if here.is_symlink():
            return tr("{link} is a symlink out of the memory: check where the path really leads (resolve())",
                      link=here.relative_to(root).as_posix())
    return ""


def refused(root: Path, why: str):
    """A verdict: the path is refused with ToolError; a returned path is explained by how it gets out (how_out),
    else by what is wrong with the path asked (`why`)."""
    def verdict(got) -> str | None:
        if isinstance(got, Refused):
            return None
        if isinstance(got, Raised):
            return tr("{problem}: refuse with ToolError, which the memory tool turns into an error result the "
                      "model reads; any other exception is a crash: {why}", problem=got.text, why=translated(why))
        shown = show(got, root)
        return tr("returned {got} instead of raising ToolError: {why}", got=repr(shown) if "\x00" in shown else shown,
                  why=how_out(got, root) or translated(why))
    return verdict


def cases(root: Path) -> list[Case]:
    return [
        Case("the memory folder", ("/memories",), inside(root, ".")),
        Case("a note", ("/memories/notes.md",), inside(root, "notes.md")),
        Case("a note in a folder", ("/memories/sub/a.md",), inside(root, "sub/a.md")),
        Case(".. that stays inside", ("/memories/sub/../notes.md",), inside(root, "notes.md")),
        Case("climbing out with ..", ("/memories/../secret.txt",),
             refused(root, "the path leads out of the memory folder: resolve it, then compare it with the root")),
        Case("a symlink out", ("/memories/link/secret.txt",),
             refused(root, "the path leads out of the memory folder: resolve it, then compare it with the root")),
        Case("a look-alike prefix", ("/memoriesX/notes.md",),
             refused(root, "/memoriesX is not /memories: accept /memories itself or a path under /memories/")),
        Case("a path without /memories", ("notes.md",),
             refused(root, "every memory path starts with /memories: the model must name the memory")),
        Case("an absolute path elsewhere", ("/etc/passwd",),
             refused(root, "/etc/passwd is not a memory path")),
        Case("a folder beside the memory, named like it", ("/memories/../mem-old/notes.md",),
             refused(root, "the path leads out of the memory folder: resolve it, then compare it with the root")),
        Case("a name with a NUL character", ("/memories/notes\x00.md",),
             refused(root, "a NUL character cannot be in a file name: refuse it before the file system sees it")),
    ]


# ---- plausible wrong answers ---------------------------------------------------------------

def _resolved(root, rest):
    real = (Path(root) / rest).resolve()
    if real != Path(root).resolve() and Path(root).resolve() not in real.parents:
        raise ToolError("outside")
    return real


def loose_prefix(root, path):
    """startswith("/memories"), no slash: /memoriesX passes."""
    if not path.startswith("/memories"):
        raise ToolError("not memory")
    return _resolved(root, path.removeprefix("/memories").lstrip("/X") or ".")


def no_prefix_check(root, path):
    """Any path is taken as relative to the memory."""
    return _resolved(root, path.removeprefix("/memories").lstrip("/") or ".")


def lexical_only(root, path):
    """Collapses .. by spelling; symlinks are not followed."""
    if path != "/memories" and not path.startswith("/memories/"):
        raise ToolError("not memory")
    full = Path(os.path.normpath(Path(root) / path.removeprefix("/memories").lstrip("/")))
    if full != Path(root) and Path(root) not in full.parents:
        raise ToolError("outside")
    return full


def wrong_error(root, path):
    """Right checks, but refuses with ValueError."""
    if path != "/memories" and not path.startswith("/memories/"):
        raise ValueError("not memory")
    real = (Path(root) / (path.removeprefix("/memories").lstrip("/") or ".")).resolve()
    real.relative_to(Path(root).resolve())
    return real


def spelled(root, path):
    """Checks the real path, returns the spelling."""
    lexical_only(root, path)
    _resolved(root, path.removeprefix("/memories").lstrip("/") or ".")
    return Path(root) / path.removeprefix("/memories").lstrip("/")


MISTAKES = (
    Mistake("the starter: nothing checked", lambda root, path: Path(root) / path.removeprefix("/memories").lstrip("/"),
            "returned /memories/../secret.txt instead"),
    Mistake("a loose prefix", loose_prefix, "/memoriesX is not /memories"),
    Mistake("no prefix check", no_prefix_check, "every memory path starts with /memories"),
    Mistake("symlinks not followed", lexical_only, "link is a symlink out of the memory"),
    Mistake("ValueError instead of ToolError", wrong_error, "raised ValueError"),
    Mistake("returns the spelling", spelled, "returned /memories/sub/../notes.md"),
)

HINTS = (
    "Two checks: is it a memory path at all (/memories, or /memories/...), and where does it really lead?",
    "path == '/memories' or path.startswith('/memories/'); then the rest, relative to root, through "
    "Path.resolve(), compared with root by parts (is_relative_to), never by text.",
    "s02's resolve_in(root, rest) already does the second check: strip the prefix, call it, and let its "
    "ToolError through.",
)

exercise = Exercise(name="memory_path", task=TASK, starter=STARTER, reference=memory_path, cases=cases,
                    setup=sandbox, adapt=attempt, hints=HINTS, mistakes=MISTAKES)
