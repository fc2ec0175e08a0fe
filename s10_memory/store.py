"""The memory folder: the API memory tool's six commands on files under one folder, /memories.

    the model names        /memories/notes.md          the disk holds  <root>/notes.md
                           /memories                                   <root>
                           /memories/../x, /etc/x, notes.md, /memories/link-out/x  -> refused

    view        {path, view_range?}            a folder: its files and sizes; a file: numbered lines
    create      {path, file_text}              write a file (a new one, or all of an old one)
    str_replace {path, old_str, new_str}       old_str must be in the file exactly once
    insert      {path, insert_line, insert_text}  after line N (0: at the top)
    delete      {path}                         a file or a folder, never /memories itself
    rename      {old_path, new_path}           new_path must not exist

Every path is "/memories" or starts with "/memories/", and the rest goes through s02's
`resolve_in(root, rest)`: no `..`, absolute path or symlink gets out of the folder. A write
that would make the folder hold more than `max_chars` characters is refused with an error
that tells the model to consolidate; nothing is written.

Example: MemoryStore(tmp).run({"command": "create", "path": "/memories/a.md", "file_text": "x\\n"})
  -> "Created /memories/a.md (2 characters; the memory holds 2 of 4,000)."
         MemoryStore(tmp).run({"command": "view", "path": "/memories/../a"})
  -> ToolError("path '/memories/../a' is outside /memories ...")

Not modeled: binary files, the API's own server-side memory tool type (this is a client
tool with the same commands and parameters), several agents writing one folder at once.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from s01_loop import ToolError, check_path
from s02_tools import resolve_in

PREFIX = "/memories"
NAME_BYTES, PATH_BYTES = 255, 4_000  # the longest file name and path a file system takes (a longer one: refused)
MAX_CHARS = 4_000  # the whole folder, all files: past it a write is refused and the model consolidates
MEMORY_TOOL = ("memory", ("Your memory: files under /memories that outlive this conversation and any "
                          "compaction. Commands: view {path, view_range?}, create {path, file_text}, "
                          "str_replace {path, old_str, new_str}, insert {path, insert_line, insert_text}, "
                          "delete {path}, rename {old_path, new_path}. Every path starts with /memories."),
               {"type": "object", "additionalProperties": False, "required": ["command"],
                "properties": {
                    "command": {"type": "string",
                                "enum": ["view", "create", "str_replace", "insert", "delete", "rename"]},
                    "path": {"type": "string"}, "view_range": {"type": "array", "items": {"type": "integer"}},
                    "file_text": {"type": "string"}, "old_str": {"type": "string"},
                    "new_str": {"type": "string"}, "insert_line": {"type": "integer"},
                    "insert_text": {"type": "string"}, "old_path": {"type": "string"},
                    "new_path": {"type": "string"}}})
NEEDS = {"view": ("path",), "create": ("path", "file_text"), "str_replace": ("path", "old_str", "new_str"),
         "insert": ("path", "insert_line", "insert_text"), "delete": ("path",), "rename": ("old_path", "new_path")}


def memory_path(root, path) -> Path:
    """The real path a /memories path names inside `root`, or ToolError saying why it is refused.

    Example: memory_path(root, "/memories/a/b.md") -> <root>/a/b.md
             memory_path(root, "/memories/../x") -> ToolError("memory: path '/memories/../x' is outside ...")
    """
    if not isinstance(path, str):
        raise ToolError(f"memory: a path must be a string, got {type(path).__name__}")
    if "\x00" in path:  # no file name holds one: refused before the file system sees it
        raise ToolError(f"memory: path {path!r} contains a NUL character")
    if path != PREFIX and not path.startswith(PREFIX + "/"):  # "/memoriesX" is not the memory
        raise ToolError(f"memory: path {path!r} is outside {PREFIX}: every memory path starts with {PREFIX}/")
    rest = path[len(PREFIX):].lstrip("/") or "."
    longest = max(rest.split("/"), key=lambda part: len(part.encode("utf-8", "surrogatepass")))
    size = len(path.encode("utf-8", "surrogatepass"))
    if len(longest.encode("utf-8", "surrogatepass")) > NAME_BYTES or size > PATH_BYTES:
        raise ToolError(f"memory: path {path[:60]!r}… is too long: a name may have {NAME_BYTES} bytes and a path "
                        f"{PATH_BYTES:,}; use shorter names")
    try:
        return resolve_in(Path(root), rest)  # s02's check: resolved (.., symlinks), then inside, or refused
    except ToolError as exc:
        why = str(exc).split("(", 1)[-1].split(")")[0]
        raise ToolError(f"memory: path {path!r} is outside {PREFIX} ({why})") from None


class MemoryStore:
    """The files of one memory folder on disk (`root`), reached only through `run(input)`."""

    def __init__(self, root, *, max_chars: int = MAX_CHARS):
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1:
            raise ValueError(f"max_chars must be an int >= 1, got {max_chars!r}")
        check_path(root, "root")  # not a path: one ValueError naming it
        self.root = Path(root).resolve()
        self.max_chars = max_chars

    # ---- paths: /memories/... -> a real path inside root, or ToolError ------------------------
    def real(self, path) -> Path:
        """The real path a /memories path names. Example: '/memories/a/b.md' -> <root>/a/b.md"""
        self.root.mkdir(parents=True, exist_ok=True)
        return memory_path(self.root, path)

    def name(self, real: Path) -> str:
        """A real path as the model names it. Example: <root>/a.md -> '/memories/a.md'"""
        rel = real.relative_to(self.root).as_posix()
        return PREFIX if rel == "." else f"{PREFIX}/{rel}"

    # ---- size: what the folder holds, and what a write would make it --------------------------
    def files(self, folder: Path) -> list[Path]:
        """The memory's own files under `folder`, sorted: a symlink is never one (it may lead out of the
        folder, to a file of any size, and a link to a memory file would count it twice)."""
        return sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())

    def size(self) -> int:
        """Characters in every file of the folder."""
        if not self.root.is_dir():
            return 0
        return sum(len(p.read_text(encoding="utf-8", errors="replace")) for p in self.files(self.root))

    def _fits(self, real: Path, text: str) -> None:
        old = len(real.read_text(encoding="utf-8")) if real.is_file() else 0
        after = self.size() - old + len(text)
        if after > self.max_chars:
            raise ToolError(f"memory is full: this write would make {PREFIX} hold {after:,} characters, over "
                            f"its cap of {self.max_chars:,}; nothing was written. Consolidate first: rewrite "
                            "a file shorter (create it again, or str_replace), or delete what is done.")

    def _folder_for(self, real: Path) -> None:
        """Make real's folder; a file where a folder must be is said as the model names it."""
        blocker = next((p for p in real.parents if p.is_file() and self.root in p.parents), None)
        if blocker is not None:
            raise ToolError(f"memory: {self.name(blocker)} is a file, so it cannot hold {self.name(real)}")
        real.parent.mkdir(parents=True, exist_ok=True)

    def _write(self, real: Path, text: str) -> int:
        self._fits(real, text)
        self._folder_for(real)
        real.write_text(text, encoding="utf-8")
        return len(text)

    def _text(self, real: Path, path: str) -> str:
        if not real.is_file():
            raise ToolError(f"memory: {path} is not a file" + (" (it is a folder)" if real.is_dir() else
                                                              " (no such file: view /memories to see what there is)"))
        return real.read_text(encoding="utf-8")

    def _held(self, verb: str, real: Path) -> str:
        return f"{verb} {self.name(real)} (the memory holds {self.size():,} of {self.max_chars:,} characters)."

    # ---- the commands -------------------------------------------------------------------------
    def run(self, tool_input: dict) -> str:
        """Run one memory command; its output text, or ToolError for the model to read."""
        command = tool_input.get("command")
        if command not in NEEDS:
            raise ToolError(f"memory: unknown command {command!r}: the commands are {', '.join(NEEDS)}")
        missing = [k for k in NEEDS[command] if k not in tool_input]
        if missing:
            raise ToolError(f"memory {command}: {', '.join(repr(k) for k in missing)} is required")
        try:
            return getattr(self, command)(**{k: v for k, v in tool_input.items() if k != "command"})
        except UnicodeDecodeError:  # a file put there by other means: said without the folder's real path
            raise ToolError(f"memory {command}: a file it reads is not UTF-8 text") from None
        except OSError as exc:  # e.g. a folder where a file is: the model hears why, never the real path
            names = [tool_input.get(k) for k in ("path", "old_path", "new_path") if tool_input.get(k)]
            raise ToolError(f"memory {command}: {exc.strerror or type(exc).__name__} ({', '.join(names)})") from None

    def view(self, path: str, view_range=None) -> str:
        real = self.real(path)
        if real.is_dir():
            lines = [f"- {self.name(p)} ({len(p.read_text(encoding='utf-8', errors='replace')):,} characters)"
                     for p in self.files(real)]
            return f"Directory {self.name(real)}:\n" + ("\n".join(lines) if lines else "(empty)")
        lines = self._text(real, path).splitlines()
        first, last = 1, len(lines)
        if view_range is not None:
            if not (isinstance(view_range, list) and len(view_range) == 2 and all(
                    isinstance(v, int) and not isinstance(v, bool) for v in view_range)):
                raise ToolError("memory view: view_range must be [first, last] line numbers")
            first, last = view_range[0], (len(lines) if view_range[1] == -1 else view_range[1])
            if not 1 <= first <= max(last, 1) or last > len(lines):
                raise ToolError(f"memory view: view_range {view_range} is outside lines 1-{len(lines)}")
        body = "\n".join(f"{k:6}\t{line}" for k, line in enumerate(lines[first - 1:last], first))
        return body or "(empty file)"

    def create(self, path: str, file_text: str) -> str:
        real = self.real(path)
        if real == self.root or real.is_dir():
            raise ToolError(f"memory create: {path} is a folder")
        new = not real.exists()
        self._write(real, str(file_text))
        return self._held("Created" if new else "Rewrote", real)

    def str_replace(self, path: str, old_str: str, new_str: str) -> str:
        real = self.real(path)
        text = self._text(real, path)
        count = text.count(old_str) if old_str else 0
        if count != 1:
            raise ToolError(f"memory str_replace: old_str occurs {count} times in {path}; it must occur exactly once")
        self._write(real, text.replace(old_str, str(new_str), 1))
        return self._held("Edited", real)

    def insert(self, path: str, insert_line: int, insert_text: str) -> str:
        real = self.real(path)
        lines = self._text(real, path).splitlines(keepends=True)
        if isinstance(insert_line, bool) or not isinstance(insert_line, int) or not 0 <= insert_line <= len(lines):
            raise ToolError(f"memory insert: insert_line must be 0-{len(lines)} (the file has {len(lines)} lines), "
                            f"got {insert_line!r}")
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        text = str(insert_text) if str(insert_text).endswith("\n") else str(insert_text) + "\n"
        self._write(real, "".join(lines[:insert_line]) + text + "".join(lines[insert_line:]))
        return self._held("Inserted into", real)

    def delete(self, path: str) -> str:
        real = self.real(path)
        if real == self.root:
            raise ToolError(f"memory delete: {PREFIX} itself cannot be deleted; delete the files in it")
        if not real.exists():
            raise ToolError(f"memory delete: {path} does not exist")
        shutil.rmtree(real) if real.is_dir() else real.unlink()
        return f"Deleted {path} (the memory holds {self.size():,} of {self.max_chars:,} characters)."

    def rename(self, old_path: str, new_path: str) -> str:
        old, new = self.real(old_path), self.real(new_path)
        if old == self.root or new == self.root:
            raise ToolError(f"memory rename: {PREFIX} itself cannot be renamed")
        if not old.exists():
            raise ToolError(f"memory rename: {old_path} does not exist")
        if new.exists():
            raise ToolError(f"memory rename: {new_path} already exists")
        self._folder_for(new)
        old.rename(new)
        return f"Renamed {old_path} to {new_path}."
