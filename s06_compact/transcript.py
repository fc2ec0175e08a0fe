"""The session transcript: every message, as first produced, one JSON line each, on disk.

Example: t = Transcript(tmp / "s.jsonl"); t.append({"role": "user", "content": "上下文"}) -> 1
         read_transcript(tmp / "s.jsonl") -> [{"role": "user", "content": "上下文"}]
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from s01_loop import check_path

FILE_PATTERN = "session-{:03d}.jsonl"


def _line(message: dict) -> bytes:
    """One message as one line of JSON (non-ASCII kept as UTF-8). Example: {"role": "user"} -> b'{"role":"user"}\\n'"""
    try:  # not JSON (a set, bytes, NaN): a ValueError, never its str(): the file must hold what the history holds
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a transcript line must be plain JSON: {exc}") from None
    return (text + "\n").encode("utf-8")


def read_transcript(path) -> list[dict]:
    """The messages in a transcript file, skipping a torn (half-written) line."""
    check_path(path, "path")
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read the transcript {str(path)!r}: {exc.strerror}") from None
    out = []
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            message = json.loads(raw)
        except ValueError:  # a line torn by a crash (at worst the last one): that message is lost, the file is not
            continue
        if isinstance(message, dict):
            out.append(message)
    return out


def new_session_path(directory) -> Path:
    """Claim the first free `session-NNN.jsonl` in `directory` (created empty, exclusively)."""
    check_path(directory, "directory")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for n in range(1, 100_000):
        path = directory / FILE_PATTERN.format(n)
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        except FileExistsError:
            continue
        return path
    raise RuntimeError(f"no free session file name left in {directory}")


class Transcript:
    """An append-only JSONL file of messages. Opened per append: nothing to close."""

    def __init__(self, path, *, fsync: bool = False):
        check_path(path, "path")
        self.path = Path(path)
        self.fsync = fsync  # each line on the disk before append returns: survives a crash of the machine too
        self.lines = None  # lines in the file, counted on the first append

    def append(self, message: dict) -> int:
        """Write one message as one line; return its line number (1-based)."""
        if not isinstance(message, dict):
            raise ValueError(f"a transcript line is a message dict, got {type(message).__name__}")
        data = _line(message)
        if self.lines is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # O_APPEND: lines never interleave (not modeled: NFS, where it is not atomic; rotation, compression).
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if self.lines is None:
                self.lines = self._count_and_close_torn_line(fd)
            view = memoryview(data)
            while view:  # one whole line in one os.write (a regular file takes it; loop if the OS says otherwise)
                view = view[os.write(fd, view):]
            if self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        self.lines += 1
        return self.lines

    def extend(self, messages) -> None:
        for message in messages:
            self.append(message)

    def read(self) -> list[dict]:
        return read_transcript(self.path) if self.path.exists() else []

    def __len__(self) -> int:
        return len(self.read())

    def _count_and_close_torn_line(self, fd: int) -> int:
        """Lines already in the file; a torn last line gets its newline, so it cannot glue onto a new line."""
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            os.write(fd, b"\n")
            data += b"\n"
        return data.count(b"\n")

    def __repr__(self) -> str:
        return f"Transcript({str(self.path)!r})"
