"""What "it" means: the file the conversation acted on last, or a question back when that is not one file.

    "run app.py"  then  "how many lines are in notes.txt?"  then  "now delete it"
        the last request that acted on files acted on notes.txt only  ->  "it" = notes.txt
    "compare a.py and b.py"  then  "delete it"
        the last request acted on two files                            ->  ask: "a.py or b.py?"
    "delete it" in a fresh conversation                                ->  ask: which file?

The files a call acted on: the path of a file tool, else the file names in its shell
command (`wc -l < notes.txt`, `python3 app.py`, `rm old.txt`); a glob or a folder is no file.
"这里", "这儿" and "当前文件夹" name the workspace (grammar_parts.where), never a folder.

Example: candidates(events of "run app.py" then "count notes.txt", start) -> ["notes.txt"]
         ask("delete it", ["a.py", "b.py"]) -> 'Which file do you mean by "it": a.py or b.py? ...'

Not modeled: "them" for several files, "the other one", references to folders or commands.
"""

from __future__ import annotations

import re
import shlex

from lessonkit.i18n import tr

from ..conversation.calls import call_command, call_path
from ..conversation.reading import Event
from .parts import PATH

# Words that point at a file instead of naming it (the grammar puts the file in their place).
REF = re.compile(r"\b(?:it|this file|that file|the same file|this one|that one)\b|\b(?:this|that|the file)$"
                 r"|(?:这个|那个|该|此)文件(?!夹)|它",
                 re.IGNORECASE)
BARE = {"it", "this", "that", "one", "它", "them", "file", "folder", "the file"}  # never a resolved target


def files_of(call: Event) -> list[str]:
    """The files one tool call acted on. Example: bash `wc -l < notes.txt` -> ['notes.txt']"""
    path = call_path(call)
    if path and PATH.fullmatch(path):
        return [path.removeprefix("./")]
    command = call_command(call)
    if not command or "\n" in command:  # a folder listed, a pattern searched: no file
        return []
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    if words and words[0] == "printf" and ">>" in words:  # the line appended is text, the file follows >>
        words = words[words.index(">>") + 1:]
    return list(dict.fromkeys(w.removeprefix("./") for w in words if PATH.fullmatch(w) and "*" not in w))


def candidates(events: list[Event], start: int) -> list[str]:
    """The files the latest earlier request that acted on any file acted on (a file once each)."""
    found: list[str] = []
    for e in reversed(events[:max(start, 0)]):
        if e.kind == "request" and found:
            break
        if e.kind == "call":
            found = files_of(e) + [f for f in found if f not in files_of(e)]
    return list(dict.fromkeys(found))


def has_ref(text: str) -> bool:
    """True if the text points at a file without naming one. Example: 'delete it' -> True"""
    return bool(REF.search(text)) and not PATH.search(text)


def unresolved(actions: list) -> bool:
    """True if an action took a pointing word for a file name (`rm it`): it is never run."""
    return any(str(x).strip().lower() in BARE or REF.fullmatch(str(x).strip())
               for a in actions for x in (a.target, a.extra.get("dest", "")))


def ask(task: str, found: list[str], language: str = "en") -> str:
    """The question back when "it" is not one file."""
    word = (REF.search(task) or re.search(r"\w+", task)).group(0)
    if found:
        return tr('Which file do you mean by "{word}": {files}? I did not guess; name the file and ask again '
                  '(for example "{example}").', language=language, word=word, files=" or ".join(found[:4]),
                  example=re.sub(re.escape(word), found[0], task, count=1))
    return tr('Which file do you mean by "{word}"? Nothing in this conversation acted on a file yet, so I did not '
              'guess; name the file and ask again.', language=language, word=word)


def said(word: str, path: str, language: str = "en") -> str:
    """The line that says which file a pointing word was taken to mean."""
    return tr('(By "{word}" I took {path}, the file the last request acted on.)', language=language,
              word=word, path=path)
