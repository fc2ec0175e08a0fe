"""The s05 check's box: where a student's persist_large_output runs, and what it left behind.

    sandbox()           a temporary folder; each call of the student's function gets its own box in it
    run_with(fn, root)  (tool_use_id, output, folder, threshold, preview) -> Outcome: what fn returned
                        (or raised, with error_hint) and the files it wrote, relative to its box
    error_hint(exc, d)  what an exception says about the code that raised it, when that is sure

Example: error_hint(FileNotFoundError(2, "No such file"), box / "new/results") while the folder is missing
  -> 'the folder does not exist yet (the first big output of a session finds none): create it first,
     parents too: Path(directory).mkdir(parents=True, exist_ok=True)'
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

from lessonkit.i18n import tr


@contextlib.contextmanager
def sandbox():
    """A temporary folder; each call of the student's function gets its own box in it."""
    with tempfile.TemporaryDirectory(prefix="lk-s05-") as tmp:
        yield Path(tmp).resolve()


class Outcome:
    """What the function returned (or raised), the files it wrote, relative to its box."""

    def __init__(self, returned=None, files=None, error: str | None = None, box: Path | None = None):
        self.returned, self.files, self.error, self.box = returned, files or {}, error, box


def run_with(fn, root: Path):
    """The student's fn as the cases call it: (tool_use_id, output, folder, threshold, preview) -> Outcome.
    `folder` is relative to a fresh box that holds an empty results/. A tuple of (id, output) pairs as
    tool_use_id calls fn once per pair in the same box (one session); `returned` is then their list."""
    def run(tool_use_id, output, folder, threshold, preview_chars):
        box = Path(tempfile.mkdtemp(dir=root, prefix="box-"))
        (box / "results").mkdir()
        try:
            if isinstance(tool_use_id, tuple):  # several calls in one box: (id, output) pairs, in order
                returned = [fn(one, text, directory=box / folder, threshold=threshold,
                               preview_chars=preview_chars) for one, text in tool_use_id]
            else:
                returned = fn(tool_use_id, output, directory=box / folder, threshold=threshold,
                              preview_chars=preview_chars)
        except Exception as exc:  # noqa: BLE001 -- reported without the temporary folder's name
            message = str(exc).splitlines()[0] if str(exc) else ""
            message = message.replace(f"{box}/", "").replace(str(box), ".")
            name = type(exc).__name__
            raised = (tr("raised {error}: {message}", error=name, message=message) if message
                      else tr("raised {error}", error=name))
            hint = error_hint(exc, box / folder)
            return Outcome(error=tr("{problem}: {hint}", problem=raised, hint=hint) if hint else raised)
        files = {p.relative_to(box).as_posix(): p.read_bytes() for p in sorted(box.rglob("*")) if p.is_file()}
        return Outcome(returned, files, box=box)
    return run


def error_hint(exc: Exception, directory: Path) -> str:
    """What an exception says about the code that raised it (empty when it says nothing sure).
    Example: FileNotFoundError while the folder is missing -> 'the folder does not exist yet ...: ...'"""
    if isinstance(exc, FileNotFoundError) and not directory.exists():
        return tr("the folder does not exist yet (the first big output of a session finds none): create "
                  "it first, parents too: Path(directory).mkdir(parents=True, exist_ok=True)")
    if isinstance(exc, (IsADirectoryError, NotADirectoryError, PermissionError)):
        return tr("the id is used as a path: make it a safe file name (letters, digits, _ . -)")
    if isinstance(exc, UnicodeError):
        return tr("write the file as UTF-8 (write_text(output, encoding='utf-8'))")
    return ""
