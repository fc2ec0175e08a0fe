"""The task list the agent keeps in its memory: /memories/tasks.md, one checkbox line per task.

    - [x] app_01.py        done
    - [ ] app_02.py        still to do

Plain Markdown, so the model writes it with the memory tool's own commands (create once,
str_replace "- [ ] x" -> "- [x] x" as each task is done) and a person can read it.

Example: parse_tasks("- [x] a.py\\n- [ ] b.py\\n") -> [("a.py", True), ("b.py", False)]
         format_tasks([("a.py", True), ("b.py", False)]) -> "- [x] a.py\\n- [ ] b.py\\n"

Not modeled: nested tasks, owners, due dates.
"""

from __future__ import annotations

import re

TASKS_FILE = "/memories/tasks.md"
LINE = re.compile(r"^\s*[-*]\s+\[([ xX])\]\s+(.+?)\s*$")


def parse_tasks(text: str) -> list[tuple[str, bool]]:
    """(task, done) for each checkbox line of `text`; other lines are ignored."""
    if not isinstance(text, str):
        raise ValueError(f"a task list is text, got {type(text).__name__}")
    return [(m.group(2), m.group(1) != " ") for m in map(LINE.match, text.splitlines()) if m]


def format_tasks(tasks) -> str:
    """The Markdown of a task list. Tasks are (name, done) pairs; a name is one line."""
    if isinstance(tasks, (str, bytes, dict, set)) or not hasattr(tasks, "__iter__"):
        raise ValueError(f"tasks must be a list of (name, done) pairs, got {type(tasks).__name__}")
    out = []
    for item in tasks:
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise ValueError(f"a task is a (name, done) pair, got a {type(item).__name__}")
        name, done = item
        if not isinstance(name, str) or not name.strip() or "\n" in name:
            raise ValueError(f"a task is one non-empty line, got {type(name).__name__} {str(name)[:40]!r}")
        out.append(f"- [{'x' if done else ' '}] {name.strip()}\n")
    return "".join(out)
