"""Grammar entries that act on every file of one kind at once: "Delete all the .pyc files".

    entry    example (English / Chinese)                         tool call (bash)
    purge    Delete all the .pyc files / remove every log file   `find . -type f -name '*.pyc' -not -path '*/.*'
             删除所有 .pyc 文件                                     -print -delete` (s03 asks first: it deletes)

The files are found and deleted by one `find`, which prints each one it deletes, so the
answer names them from the real output; no file is read (a .pyc is binary). Hidden folders
(.git, .venv) are skipped.

Example: entry("delete all the .pyc files", {"bash": ...})
  -> [Action("purge", "Deleting the .pyc files in this folder",
             [("bash", {"command": "find . -type f -name '*.pyc' -not -path '*/.*' -print -delete"})],
             ".", {"ext": ".pyc"})]

Not modeled: patterns other than one extension, deleting folders by kind.
"""

from __future__ import annotations

import re
import shlex

from .parts import KIND, NAME, Action, bash, kind_ext, where


def entry(c: str, roles: dict) -> list[Action] | None:
    """The action of a clause that deletes every file of a kind, or None."""
    if "bash" not in roles:
        return None
    m = (re.match(r"^(?:delete|remove|rm|erase|clean(?:\s+up)?|get\s+rid\s+of)\s+(?:all\s+|every\s+|each\s+)?"
                  r"(?:of\s+)?(?:the\s+|my\s+)?" + KIND + r"\s+files?(?:\s+(?:in|under|from)\s+(?:the\s+)?" + NAME
                  + r"(?:\s+(?:folder|directory|dir))?)?$", c, re.IGNORECASE)
         or re.match(r"^(?:删除|删掉|清除|清理)\s*(?:" + NAME + r"\s*(?:里|中|下)的?)?\s*(?:所有|全部)的?\s*" + KIND
                     + r"\s*文件$", c))
    if not m:
        return None
    zh = not c[:1].isascii()
    ext, root = kind_ext(m.group(2) if zh else m.group(1)), where(m.group(1) if zh else m.group(2))
    if not ext:
        return None
    command = f"find {shlex.quote(root)} -type f -name {shlex.quote('*' + ext)} -not -path '*/.*' -print -delete"
    label = "this folder" if root == "." else root
    return [bash("purge", command, f"Deleting the {ext} files in {label}", root, ext=ext)]
