"""The tool-result budget: a result over the threshold goes to a file; the context keeps a preview naming it.

Example: persist_large_output("toolu_1", output, directory="d"), output 123,456 characters in 4,000 lines
  -> <persisted-output>
     Full output: d/toolu_1.txt (123,456 characters, 4,000 lines)
     Preview (first 1,987 characters):
     ...its first lines, cut at a line boundary...
     ...
     </persisted-output>
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

from s01_loop import ToolError, check_history, check_int, check_type, short_repr
from s02_tools import READ_LIMIT

PERSIST_THRESHOLD = 30_000  # characters: a result longer than this goes to disk
PREVIEW_CHARS = 2_000       # characters of it kept in the context
BASH_CAP = 1_000_000        # characters kept of one command's output, all saved (s01 kept 50,000)
NEAR_LINE = 0.8             # cut at a newline if one is in the last 20% of the preview
OPEN_TAG, CLOSE_TAG = "<persisted-output>", "</persisted-output>"
_FULL_OUTPUT = re.compile(r"^Full output: (.+?)(?: \(\d[\d,]* characters?, [\d,]+ lines?\))?$", re.MULTILINE)
_SAFE_ID = re.compile(r"[^A-Za-z0-9_.-]")
NAME_CHARS = 80             # at most this much of an id goes into a file name (a long one is cut, then hashed)


def check_sizes(threshold: int, preview_chars: int) -> None:
    """Raise a one-line ValueError for sizes that cannot work."""
    if not isinstance(threshold, int) or isinstance(threshold, bool) or threshold < 0:
        raise ValueError(f"threshold must be a whole number of characters >= 0, got {short_repr(threshold)}")
    if not isinstance(preview_chars, int) or isinstance(preview_chars, bool) or preview_chars < 0:
        raise ValueError(f"preview_chars must be a whole number >= 0, got {short_repr(preview_chars)}")
    if preview_chars > threshold:
        raise ValueError(f"preview_chars ({preview_chars}) must not be larger than threshold ({threshold})")


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """The first `limit` characters, cut at a line boundary if one is near.

    Example: preview("aaaaaaaa\\nbbbb", 10) -> "aaaaaaaa\\n"   (a newline near the end: cut there)
             preview("aa\\nbbbbbbbbbb", 10) -> "aa\\nbbbbbbb"   (none near: cut at 10)
    """
    check_type(text, str, "text")
    check_int(limit, "limit", 0)
    if len(text) <= limit:
        return text
    head = text[:limit]
    newline = head.rfind("\n")
    if newline >= 0 and newline + 1 >= limit * NEAR_LINE:
        return head[:newline + 1]
    return head


def safe_name(tool_use_id) -> str:
    """A file name for a tool_use id: it stays in its folder, and it is never another id's name.

    An id that already is a safe name is used as it is; any other gets its safe characters plus a
    hash of the WHOLE id, since replacing or cutting characters alone turns two ids into one name.
    Example: safe_name("toolu_01A") -> "toolu_01A"
             safe_name("run/toolu_6") -> "run_toolu_6-" + 12 hex digits (never "run_toolu_6": another id's)
    """
    if not isinstance(tool_use_id, str) or not tool_use_id:
        raise ValueError(f"tool_use_id must be a non-empty str to name a file, got {short_repr(tool_use_id)}")
    text = tool_use_id
    name = _SAFE_ID.sub("_", text).strip(".")[:NAME_CHARS]
    if name == text:
        return name  # the usual case: toolu_... ids are safe names already
    return f"{name}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that a reader sees the old file or the whole new one."""
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"path must be a path, got {short_repr(path)}")
    check_type(text, str, "text")
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a directory: write_atomic writes a file")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def persist_large_output(tool_use_id: str, output: str, *, directory, threshold: int = PERSIST_THRESHOLD,
                         preview_chars: int = PREVIEW_CHARS, relative_to=None) -> str:
    """`output` itself if short; else `directory/<tool_use_id>.txt` written and a preview naming it."""
    check_sizes(threshold, preview_chars)
    if not isinstance(output, str):
        raise ValueError(f"output must be a str, got {type(output).__name__}")
    if not isinstance(directory, (str, os.PathLike)):
        raise ValueError(f"directory must be a path, got {short_repr(directory)}")
    if len(output) <= threshold or output.startswith(OPEN_TAG):
        return output  # short enough, or already a preview of a persisted file: never persist twice
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{safe_name(tool_use_id)}.txt"  # inside directory, and no other id's file
    write_atomic(path, output)  # the whole output, on disk (not modeled: deleting old files)
    # Named relative to the workspace, as the model names files for read_file (the same on every machine).
    if relative_to is not None and Path(relative_to).resolve() in path.resolve().parents:
        path = path.resolve().relative_to(Path(relative_to).resolve())
    head = preview(output, preview_chars)
    lines = len(split_lines(output))  # lines end at '\n'; a last one without it counts too
    return (f"{OPEN_TAG}\n"
            f"Full output: {path} ({_plural(len(output), 'character')}, {_plural(lines, 'line')})\n"
            f"Preview (first {len(head):,} characters):\n"
            f"{head}{'' if head.endswith(chr(10)) else chr(10)}"
            f"...\n{CLOSE_TAG}")


def persisted_path(content) -> str | None:
    """The file a `<persisted-output>` block names, or None. Example: persisted_path('hi') -> None"""
    if isinstance(content, list):
        content = next((b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"), "")
    if not isinstance(content, str) or not content.startswith(OPEN_TAG):
        return None
    m = _FULL_OUTPUT.search(content[:4_000])
    return m.group(1) if m else None


def result_text(content) -> str:
    """A tool_result's content as text (a list of blocks: its text blocks joined)."""
    if isinstance(content, str):
        return content
    if content is not None and not isinstance(content, list):
        raise ValueError(f"content must be a str or a list of blocks, got {short_repr(content)}")
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def over_budget(messages: list, threshold: int = PERSIST_THRESHOLD, keep=()) -> list[dict]:
    """The newest turn's tool_result blocks longer than `threshold` (and not in `keep`).

    Example: [..., user [result 'ok', result of 40,000 characters]], threshold 30,000 -> [the 40,000 one]
    """
    check_history(messages)  # a malformed history: one ValueError naming the message
    check_int(threshold, "threshold", 0)
    if not isinstance(keep, (list, tuple, set, frozenset)):
        raise ValueError(f"keep must be a collection of tool_use ids, got {short_repr(keep)}")
    last = messages[-1] if messages else None  # the newest turn: the results the model is about to read
    if not last or last.get("role") != "user" or not isinstance(last.get("content"), list):
        return []
    # Each result judged alone (not modeled: a budget summed over the turn); `keep`: reads of persisted files.
    return [block for block in last["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
            and block.get("tool_use_id") not in keep
            and len(text := result_text(block.get("content", ""))) > threshold
            and not text.startswith(OPEN_TAG)]


def tool_result_budget(messages: list, *, directory, threshold: int = PERSIST_THRESHOLD,
                       preview_chars: int = PREVIEW_CHARS, keep=(), relative_to=None) -> list:
    """Persist the newest turn's big tool results; return `messages`, changed IN PLACE (no API call)."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    check_sizes(threshold, preview_chars)
    for block in over_budget(messages, threshold, keep):
        content = block["content"]
        # A list of blocks is persisted as its text, joined; the other blocks (images) stay beside the preview.
        short = persist_large_output(block["tool_use_id"], result_text(content), directory=directory,
                                     threshold=threshold, preview_chars=preview_chars, relative_to=relative_to)
        others = [b for b in content if isinstance(b, dict) and b.get("type") != "text"] \
            if isinstance(content, list) else []
        block["content"] = [{"type": "text", "text": short}, *others] if others else short
    return messages


def split_lines(text: str) -> list[str]:
    """The lines of a text as the block counts them (and wc -l, sed -n): each ends at '\\n', kept.
    Example: split_lines("a\\r50%\\nb") -> ["a\\r50%\\n", "b"]   (str.splitlines would give 3)"""
    check_type(text, str, "text")
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def read_slice(path: Path, offset: int = 1, limit: int = READ_LIMIT, max_chars: int = PERSIST_THRESHOLD) -> str:
    """Lines offset.. of a persisted output, at most `max_chars` characters, saying where to read on.

    Example: 1,500 lines of 72 characters, offset=1, max_chars=30_000 -> the first 415 lines +
             "[lines 1-415 of 1,500 shown: read on with offset=416]"
    """
    if not isinstance(path, Path):
        raise ValueError(f"path must be a Path, got {type(path).__name__}")
    for name, value, least in (("offset", offset, 1), ("limit", limit, 1), ("max_chars", max_chars, 1)):
        check_int(value, name, least)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ToolError(f"cannot read {path.name}: {exc.strerror}") from None
    if size > 4 * BASH_CAP:  # more than any output the budget writes: read only as far as needed
        raise ToolError(f"{path.name} is {size:,} bytes, more than a saved output can be: read it with "
                        "bash (head, sed -n, grep)")
    text = path.read_bytes().decode("utf-8")  # as written: a '\r' stays inside its line
    if "\x00" in text:
        raise ToolError(f"{path.name} is a binary file (it holds NUL bytes): only text files are read")
    lines = split_lines(text)  # the lines the block counted: each ends at '\n'
    if offset > max(len(lines), 1):
        raise ToolError(f"{path.name} has {len(lines)} line{'' if len(lines) == 1 else 's'}: offset {offset} is "
                        "past the end")
    room = max(max_chars - 120, 1)  # leave room for the footer: the whole answer stays under max_chars
    out, end, size = [], offset - 1, 0
    for line in lines[offset - 1: offset - 1 + limit]:
        if size + len(line) > room:
            if not out:  # one line longer than the room: show its start
                out.append(line[:room] + "\n")
                end += 1
            break
        out.append(line)
        end, size = end + 1, size + len(line)
    text = "".join(out)
    if end < len(lines):
        text += f"[lines {offset}-{end} of {len(lines):,} shown: read on with offset={end + 1}]"
    return text or "(empty file)"
