"""The file tools: read_file, write_file, edit_file, list_dir, each kept inside the workspace.

Example: edit_file(ws, "a.py", "x = 1", "x = 2") -> "Edited a.py: replaced 1 occurrence at line 3"
         read_file(ws, "a.py", offset=2, limit=1) -> "y = 2\n[... lines 3-4 of 4 not shown: read on with offset=3]"
"""

from __future__ import annotations

import codecs
import itertools
import os
import stat
from pathlib import Path

from s01_loop import OUTPUT_CAP, ToolError, cap_output, short_repr

from .registry import Tool
from .sandbox import relative_name, resolve_in
from .schema import json_type

READ_LIMIT = 2000     # lines read_file returns unless asked for fewer
LIST_LIMIT = 1000     # entries list_dir shows
SCAN_LIMIT = 8 << 20  # bytes read_file reads past what it returns, to count the lines left out (never the whole file)
EDIT_LIMIT = 8 << 20  # bytes of the largest file edit_file edits (it reads the file whole)
CHUNK = 1 << 20       # bytes read at a time when skipping or counting


def _open_regular(real: Path, path: str):
    """The file opened for reading, if it is a regular file; else ToolError saying what it is."""
    try:  # without blocking: a FIFO (the model can mkfifo one) would block a plain open for ever
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise ToolError(f"no file {path!r} (list_dir shows what exists)") from None
    except OSError as exc:
        raise ToolError(f"cannot open {path!r}: {exc.strerror}") from None
    mode = os.fstat(fd).st_mode  # checked on the open file: a check before the open could be raced
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise ToolError(f"{path!r} is a directory: use list_dir")
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
        raise ToolError(f"{path!r} is {kind}, not a regular file: only regular files are read")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _decode(data: bytes, path: str, *, final: bool = True) -> str:
    """UTF-8 text, or ToolError: not UTF-8, or binary. Example: _decode(b'hi', 'a.txt') -> 'hi'"""
    try:  # final=False: the bytes were cut, so a character cut in half at their end is dropped, not an error
        text = codecs.getincrementaldecoder("utf-8")().decode(data, final=final)
    except UnicodeDecodeError:
        raise ToolError(f"{path!r} is not UTF-8 text ({len(data)} bytes)") from None
    if "\x00" in text:  # NUL bytes: a binary file (not modeled: reading one)
        raise ToolError(f"{path!r} is a binary file (it holds NUL bytes): only text files are read")
    return text


def _text_of(real: Path, path: str) -> str:
    """A whole file's text (for edit_file), or ToolError saying why it cannot be read."""
    with _open_regular(real, path) as f:
        size = os.fstat(f.fileno()).st_size
        if size > EDIT_LIMIT:
            raise ToolError(f"{path!r} is {size:,} bytes: too big to edit here (the limit is {EDIT_LIMIT:,})")
        return _decode(f.read(EDIT_LIMIT + 1), path)


def _lines(f, keep: int):
    """Each line of a binary file, its first `keep` bytes only: the rest of a longer line is
    skipped in chunks (when the next line is asked for), never held.
    Example: b"ab\\ncd" -> b"ab\\n", b"cd" """
    while line := f.readline(keep):
        yield line
        chunk, size = line, keep
        while len(chunk) == size and not chunk.endswith(b"\n"):  # a longer line: skip the rest
            chunk, size = f.readline(CHUNK), CHUNK


def _count_rest(f, budget: int) -> tuple[int, bool]:
    """The lines after the file's position, reading at most `budget` bytes: (count, counted all?)."""
    count, last, seen = 0, b"\n", 0
    while seen < budget and (chunk := f.read(min(CHUNK, budget - seen))):
        count, last, seen = count + chunk.count(b"\n"), chunk[-1:], seen + len(chunk)
    return count + (last != b"\n"), not f.read(1)


def read_file(workspace: Path, path: str, offset: int = 1, limit: int = READ_LIMIT) -> str:
    """Lines offset..offset+limit-1 (1-based) of a text file, saying what was left out."""
    for name, value in (("offset", offset), ("limit", limit)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ToolError(f"{name} must be an integer >= 1, got {short_repr(value)}")
    keep, first = 4 * OUTPUT_CAP, offset - 1  # bytes: enough for OUTPUT_CAP characters of UTF-8
    with _open_regular(resolve_in(workspace, path), path) as f:
        lines = _lines(f, keep)
        skipped = sum(1 for _ in itertools.islice(lines, first))  # 1. skip to `offset`, line by line
        kept, held = [], 0
        for line in lines:  # 2. keep `limit` lines, or as many as fit in OUTPUT_CAP characters
            kept.append(line)
            held += len(line)
            if len(kept) == limit or held >= keep:
                break
        rest, counted = _count_rest(f, SCAN_LIMIT)  # 3. count what is left out, up to SCAN_LIMIT bytes on
        if kept and len(kept[-1]) == keep and not kept[-1].endswith(b"\n"):
            rest -= 1  # the last line shown was cut: what follows up to its newline is still that line
        size = os.fstat(f.fileno()).st_size
    if not kept and first and skipped:
        raise ToolError(f"{path!r} has {skipped} line{'' if skipped == 1 else 's'}: offset {offset} is past the end")
    out = cap_output(_decode(b"".join(kept), path, final=held < keep), OUTPUT_CAP)
    if rest or not counted:
        sep, start = "" if out.endswith("\n") else "\n", skipped + len(kept) + 1
        left_out = (f"line {start} of {start}" if rest == 1 else f"lines {start}-{start + rest - 1} of "
                    f"{start + rest - 1}") if counted else f"lines {start} and on of a {size:,}-byte file"
        # 4. Say what was left out and where to read on: the model pages through with offset.
        out += f"{sep}[... {left_out} not shown: read on with offset={start}]"
    return out or "(empty file)"


def write_file(workspace: Path, path: str, content: str) -> str:
    """Write `content` to a file (creating its folders); say whether it was created or overwritten."""
    real = resolve_in(workspace, path)
    if not isinstance(content, str):
        raise ToolError(f"content must be a string, got {json_type(content)}")
    if real.is_dir():
        raise ToolError(f"{path!r} is a directory: give a file path")
    existed = real.exists()
    if existed and not real.is_file():  # a FIFO would block the write until someone reads it
        raise ToolError(f"{path!r} is not a regular file: only regular files are written")
    real.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8")
    real.write_bytes(data)  # not modeled: file locking, undo (the last write wins)
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    verb = "Overwrote" if existed else "Created"
    return (f"{verb} {relative_name(workspace, real)}: {lines} line{'' if lines == 1 else 's'}, "
            f"{len(data)} byte{'' if len(data) == 1 else 's'}")


def edit_file(workspace: Path, path: str, old_string: str, new_string: str) -> str:
    """Replace the one occurrence of `old_string` with `new_string`; fail if it is absent or ambiguous."""
    real = resolve_in(workspace, path)
    for name, value in (("old_string", old_string), ("new_string", new_string)):
        if not isinstance(value, str):
            raise ToolError(f"edit_file: {name} must be a string, got {json_type(value)}")
    text = _text_of(real, path)
    if not old_string:
        raise ToolError("edit_file: old_string is empty; to create or overwrite a file use write_file")
    if old_string == new_string:
        raise ToolError("edit_file: old_string and new_string are the same; nothing to change")
    count = text.count(old_string)
    if count == 0:
        raise ToolError(f"edit_file: old_string not found in {path!r} (it must match exactly, "
                        "spaces and line breaks included; read_file shows the text)")
    if count > 1:
        raise ToolError(f"edit_file: old_string occurs {count} times in {path!r}; include more of "
                        "the surrounding text so it matches once")
    at = text.index(old_string)
    real.write_bytes(text.replace(old_string, new_string, 1).encode("utf-8"))  # bytes: line endings kept
    line = text.count("\n", 0, at) + 1
    return f"Edited {relative_name(workspace, real)}: replaced 1 occurrence at line {line}"


def list_dir(workspace: Path, path: str = ".") -> str:
    """The entries of a folder, sorted, one per line, folders with a trailing '/'."""
    real = resolve_in(workspace, path)
    if not real.exists():
        raise ToolError(f"no directory {path!r}")
    if not real.is_dir():
        raise ToolError(f"{path!r} is a file, not a directory: use read_file")
    entries = sorted(p.name + ("/" if p.is_dir() else "") for p in real.iterdir())
    if not entries:
        return "(empty directory)"
    out = "\n".join(entries[:LIST_LIMIT])
    if len(entries) > LIST_LIMIT:
        more = len(entries) - LIST_LIMIT
        out += f"\n[... {more} more {'entry' if more == 1 else 'entries'} not shown]"
    return out


def _schema(required: list, **props) -> dict:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


PATH = {"type": "string", "description": "a path relative to the workspace folder"}

READ_FILE = Tool("read_file", f"Read a UTF-8 text file of the workspace. Returns at most {READ_LIMIT} "
                 "lines from `offset` (1-based); says when lines were left out.",
                 _schema(["path"], path=PATH,
                         offset={"type": "integer", "minimum": 1, "description": "first line (default 1)"},
                         limit={"type": "integer", "minimum": 1,
                                "description": f"how many lines (default {READ_LIMIT})"}),
                 read_file)
WRITE_FILE = Tool("write_file", "Create or overwrite a text file with `content` (folders are created).",
                  _schema(["path", "content"], path=PATH,
                          content={"type": "string", "description": "the whole new text of the file"}),
                  write_file)
EDIT_FILE = Tool("edit_file", "Replace one exact occurrence of `old_string` with `new_string` in a file. "
                 "Fails if old_string is not found or found more than once.",
                 _schema(["path", "old_string", "new_string"], path=PATH,
                         old_string={"type": "string", "description": "the exact text to replace"},
                         new_string={"type": "string", "description": "the text to put there"}),
                 edit_file)
LIST_DIR = Tool("list_dir", "List a folder of the workspace: one entry per line, sorted, "
                "folders end with '/'.",
                _schema([], path={"type": "string", "description": "the folder (default: the workspace)"}),
                list_dir)
FILE_TOOLS = (READ_FILE, WRITE_FILE, EDIT_FILE, LIST_DIR)
