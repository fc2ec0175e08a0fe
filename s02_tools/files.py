"""The file tools: read_file, write_file, edit_file, list_dir, each kept inside the workspace.

    read_file  {path, offset?, limit?}        the text (READ_LIMIT lines at most, says when cut)
    write_file {path, content}                creates folders as needed, says created/overwrote
    edit_file  {path, old_string, new_string} replaces exactly one occurrence, or fails saying
                                              "not found" / "found N times"
    list_dir   {path?}                        one entry per line, sorted, folders end with "/"

Every path goes through `resolve_in` first (sandbox.py). Files are read and written
as UTF-8 bytes, so an edit keeps the file's line endings.

Example: edit_file(ws, "a.py", "x = 1", "x = 2") -> "Edited a.py: replaced 1 occurrence at line 3"

Not modeled: binary files (refused), file locking, undo.
"""

from __future__ import annotations

from pathlib import Path

from s01_loop import OUTPUT_CAP, ToolError, cap_output

from .registry import Tool
from .sandbox import resolve_in, shown

READ_LIMIT = 2000     # lines read_file returns unless asked for fewer
LIST_LIMIT = 1000     # entries list_dir shows


def _text_of(real: Path, path: str) -> str:
    """A file's text, or ToolError saying why it cannot be read."""
    if not real.exists():
        raise ToolError(f"no file {path!r} (list_dir shows what exists)")
    if real.is_dir():
        raise ToolError(f"{path!r} is a directory: use list_dir")
    data = real.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{path!r} is not UTF-8 text ({len(data)} bytes)") from None


def read_file(workspace: Path, path: str, offset: int = 1, limit: int = READ_LIMIT) -> str:
    """Lines offset..offset+limit-1 (1-based) of a text file, saying what was left out."""
    text = _text_of(resolve_in(workspace, path), path)
    lines = text.splitlines(keepends=True)
    first, last = offset - 1, min(offset - 1 + limit, len(lines))
    if first >= len(lines) and lines:
        raise ToolError(f"{path!r} has {len(lines)} lines: offset {offset} is past the end")
    out = cap_output("".join(lines[first:last]), OUTPUT_CAP)
    if last < len(lines):
        out += (f"{'' if out.endswith(chr(10)) else chr(10)}[... lines {last + 1}-{len(lines)} of "
                f"{len(lines)} not shown: read on with offset={last + 1}]")
    return out or "(empty file)"


def write_file(workspace: Path, path: str, content: str) -> str:
    """Write `content` to a file (creating its folders); say whether it was created or overwritten."""
    real = resolve_in(workspace, path)
    if real.is_dir():
        raise ToolError(f"{path!r} is a directory: give a file path")
    existed = real.exists()
    real.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8")
    real.write_bytes(data)
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    verb = "Overwrote" if existed else "Created"
    return f"{verb} {shown(workspace, real)}: {lines} lines, {len(data)} bytes"


def edit_file(workspace: Path, path: str, old_string: str, new_string: str) -> str:
    """Replace the one occurrence of `old_string` with `new_string`; fail if it is absent or ambiguous."""
    real = resolve_in(workspace, path)
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
    real.write_bytes(text.replace(old_string, new_string, 1).encode("utf-8"))
    line = text.count("\n", 0, at) + 1
    return f"Edited {shown(workspace, real)}: replaced 1 occurrence at line {line}"


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
        out += f"\n[... {len(entries) - LIST_LIMIT} more entries not shown]"
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
