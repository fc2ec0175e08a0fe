"""Discovery: which files an "every <kind> file" task is about, from listings the conversation shows.

    task "read every Python file in src/"  ──>  kind .py, root src
    no listing yet        ──> a list call (list_dir / LS / Glob), or `find` with only a shell
    listings visible      ──> files with the extension, and sub-folders still to list
    listings compacted    ──> the entries a summary kept ("- src: listed, 3 entries: a.py, ...")
                              or, if none, list again (at most MAX_DISCOVERY rounds)

Listing formats read: one name per line (list_dir, Glob, `find`), `ls -la` lines,
names ending in "/" or marked [dir]/<dir>/(dir) for folders. Hidden folders,
__pycache__, node_modules and venv are skipped.

Example: discover("read every python file", ".py", events with list_dir(".") -> "a.py\nb.txt\nsub/")
  -> Step("2 sub-folder(s)...", [("list", {"path": "sub", ...})]), then, once sub is listed, ["a.py", "sub/c.py"]

Not modeled: .gitignore, symlinks, listings in formats other than the above.
"""

from __future__ import annotations

import re

from ..answers.sections import PLAN
from ..conversation.calls import call_command, call_path, call_verb
from ..conversation.reading import Event
from ..conversation.roles import is_glob
from ..grammar.parts import KINDS, PATH  # what a request names files with
from .scenarios import Step

MAX_DISCOVERY = 3
SKIP_DIRS = ("__pycache__", "node_modules", "venv")
HERE = ("this", "the", "that", "current", "same", "working", "workspace", "my", "our", "your", "project")
DIR = re.compile(r"(?:\b(?:in|under|inside|from|of)\s+(?:the\s+)?`?((?:\.{1,2}/)?[\w.@-]+(?:/[\w.@-]+)*)/?`?"
                 r"\s+(?:folder|directory|dir)\b)|(?<![\w/.`-])`?((?:\.{1,2}/)?(?:[\w@-][\w.@-]*/)+)(?=[\s`,.;:!?)]|$)")
LISTED = re.compile(r"^- (.+?): listed(?:, [^\n]*?)?, \d+ entr(?:y|ies): ([^\n]*?)(?: \(\+\d+ more\))?$", re.MULTILINE)


def norm(path: str) -> str:
    path = path.strip().rstrip("/") or "."
    while path.startswith("./"):
        path = path[2:]
    return path or "."


def every_kind(task: str) -> str | None:
    """The file extension an "every/all <kind> files" task asks for ('' = any file), or None.

    Example: "Read every Python file" -> ".py"; "读取每个 Python 文件" -> ".py"; "列出所有文件" -> ""
    """
    m = re.search(r"\b(?:every|all|each)\b(?:\s+(?:the|of|my|our|of the))*\s+\*?(\.?\w+)\s+"
                  r"(?:files?|modules?|scripts?|sources?)\b", task, re.IGNORECASE)
    if m:
        word = m.group(1).lower()
        return KINDS.get(word.lstrip("."), word if word.startswith(".") else None)
    if re.search(r"\b(?:every|all|each)\b(?:\s+(?:the|of|my|our))*\s+files?\b", task, re.IGNORECASE):
        return ""
    m = re.search(r"(?:每个|每一个|所有|全部)的?\s*(\.?[A-Za-z]+)?\s*(?:文件|模块|脚本)", task)  # 每个 Python 文件
    if m:
        word = (m.group(1) or "").lower()
        return KINDS.get(word.lstrip("."), word if word.startswith(".") else None) if word else ""
    return None


def task_root(task: str) -> str:
    """The folder a task names ("in src/", "under the lib folder"), else '.'."""
    for m in DIR.finditer(task):
        found = norm(m.group(1) or m.group(2) or ".")
        if found.lower() in HERE:
            return "."
        if not PATH.fullmatch(found):
            return found
    return "."


def _entries(call: Event, text: str, ext: str) -> tuple[list[str], list[str]]:
    """Files with `ext` and sub-folders named in one listing result."""
    recursive = is_glob({"name": call.tool, "input_schema": {}}) or call_command(call).startswith("find")
    base = "" if recursive else norm(call_path(call) or ".")
    files, dirs = [], []
    for line in text.splitlines()[:2000]:
        tokens = line.split()
        if not tokens or line.lstrip().startswith(("<persisted-output", "Full output:", "Preview:", "total ")):
            continue
        is_dir = line.startswith("d") and len(tokens) > 5 or any(t.lower() in ("dir", "[dir]", "<dir>", "directory",
                                                                                 "(dir)") for t in tokens)
        for token in tokens:
            name = token.strip("'\",;")
            if name.lower() in ("dir", "[dir]", "<dir>", "directory", "(dir)", "d", "f", "file", "[file]", ".", ".."):
                continue
            full = norm(name if not base or base == "." or name.startswith(("/", base + "/")) else f"{base}/{name}")
            if any(part.startswith(".") or part in SKIP_DIRS for part in full.split("/") if part not in (".", "..")):
                continue
            if name.endswith("/") or (is_dir and token is tokens[-1]):
                dirs.append(full)
            elif re.search(r"\.\w{1,6}$", name) and full.endswith(ext):
                files.append(full)
    return files, dirs


def discover(task: str, ext: str, events: list[Event], start: int, roles: dict) -> Step | list[str]:
    """The next discovery step, or the files found (sorted) once discovery is done."""
    root = task_root(task)
    calls = {e.call_id: e for e in events if e.kind == "call"}
    files, dirs, listed, rounds, visible = [], [], set(), 0, 0
    for i, e in enumerate(events[max(start, 0):], max(start, 0)):
        call = calls.get(e.call_id) if e.kind == "result" else None
        if call is None or call_verb(call) != "listed":
            continue
        rounds += events[i - 1].kind != "result"  # a turn's results come together
        listed.add(norm(call_path(call) or root))
        if not e.is_error and not e.text.startswith("[Previous"):
            visible += 1
            more_files, more_dirs = _entries(call, e.text, ext)
            files += more_files
            dirs += more_dirs
    for e in events[max(start, 0):]:  # listings a summary kept: "- src: listed, 3 entries: a.py, ..."
        kept = LISTED.findall(e.text) if e.kind == "summary" else []
        rounds += bool(kept)
        for key, names in kept:
            visible += 1
            base = key if not any(c in key for c in "*? ") else ""
            listed.add(norm(base or root))
            fake = Event("assistant", "call", tool="list", input={"path": base} if base else {})
            more_files, more_dirs = _entries(fake, "\n".join(names.split(", ")), ext)
            files += more_files
            dirs += more_dirs
    pending = sorted(d for d in dict.fromkeys(dirs) if d not in listed)[:8]
    kind = f"*{ext}" if ext else "*"
    where = "this folder" if root == "." else root
    if rounds == 0 or (not visible and rounds < MAX_DISCOVERY):  # none yet, or compacted away
        if "list" in roles:
            return Step(f"Let me see what is in {where} first.",
                        [("list", {"path": root, "pattern": f"**/{kind}"})])
        return Step(f"Let me find the {ext or ''} files first.".replace("the  files", "the files"),
                    [("bash", {"command": f"find {root} -type f -name '{kind}' -not -path '*/.*' | sort"})])
    if pending and rounds < MAX_DISCOVERY and "list" in roles and not is_glob(roles["list"]):
        return Step(f"{len(pending)} sub-folder(s) to look into.",
                    [("list", {"path": d, "pattern": f"**/{kind}"}) for d in pending])
    return sorted(dict.fromkeys(files))


def stated_plan(events: list[Event], start: int) -> list[str]:
    """Items of the latest 'Plan: a, b, c.' said after the task (in a text or a summary)."""
    for e in reversed(events[max(start, 0):]):
        if e.kind in ("text", "summary"):
            m = PLAN.search(e.text)
            if m:
                return [item.strip() for item in (m.group(1) or m.group(2)).split(", ") if item.strip()]
    return []
