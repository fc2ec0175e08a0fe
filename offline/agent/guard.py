"""Guard rails on what the offline model does from plain words: never outside the workspace, typed commands only read.

    plan from the grammar ──> a path outside the workspace?            ──> refuse, run nothing
                              (../x, /etc/x, ~/x, --output=../x, -fls ../x, through any tool)
                         ──> a command typed without backticks that    ──> refuse, run nothing: put it in
                              s03's classifier does not call read-only      backticks to ask explicitly
                         ──> otherwise: the plan goes ahead (the agent's own permission rules still apply)

A command in `backticks` is the user's own explicit command: it is not refused here; it goes
to the agent's permission rules (s03 asks before anything not known to only read, and the
deny list refuses what never runs). The model only knows the workspace by its relative paths,
so every absolute path counts as outside.

Example: outside_paths([Action("append", ..., "../x.txt")]) -> ["../x.txt"]
         refusal(...) for "run git tag -d v1" -> 'I did not run `git tag -d v1`: ... backticks ...'

Not modeled: symlinks inside the workspace that lead out (s02's sandbox resolves those for its
file tools), paths built by the command at run time.
"""

from __future__ import annotations

import posixpath
import re
import shlex

from lessonkit.base.readonly import classify  # the same guess s03 makes
from lessonkit.i18n import tr

PATH_ROLES = ("read", "write", "edit", "list")
NO_PATH_KINDS = ("find", "git", "test")  # their target is a search text, a git question, "the tests"


def is_outside(word: str) -> bool:
    """True for a path that leaves the workspace. Example: '../x' -> True; 'src/../a.py' -> False; '/etc' -> True"""
    word = (word or "").strip().strip("'\"`")
    if word.startswith("-") and "=" in word:  # --output=../x
        word = word.split("=", 1)[1]
    for redirect in (">>", ">", "<"):
        word = word.split(redirect)[-1] if redirect in word else word
    if not word:
        return False
    if word.startswith(("/", "~")):
        return True
    return posixpath.normpath(word).split("/")[0] == ".."


def outside_words(task: str) -> list[str]:
    """Paths outside the workspace a request names in plain words (text in backticks is the user's command).

    Example: "list the files in ../" -> ["../"]; "see https://x.org and/or 1/2" -> []
    """
    plain = re.sub(r"`[^`]*`", " ", task)
    found = re.findall(r"(?<![\w:/`.])((?:\.\.(?=/|\s|$)|~/|/(?=[\w.-]+/|[\w-]+\.\w))[^\s`'\"，。,;]*"
                       r"|[/~](?=[.?!]?$))", plain.strip())  # a path, or the root / home folder at the end
    words = [re.sub(r"(?<=[^.])[.?!]+$", "", w) for w in found]  # a sentence's full stop is not the path's
    return list(dict.fromkeys(w for w in words if is_outside(w)))


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def outside_paths(actions: list) -> list[str]:
    """The paths outside the workspace that a plan's actions name (from plain words; backticks excluded)."""
    found = []
    for a in actions:
        if a.extra.get("ticked"):
            continue
        names = [] if a.kind in NO_PATH_KINDS else [str(a.target), str(a.extra.get("dest", ""))]
        for role, args in a.calls:
            if role in PATH_ROLES:
                names.append(str(args.get("path", "")))
            elif role == "bash" and a.kind == "run":
                names += _words(args.get("command", ""))
        found += [n for n in names if is_outside(n)]
    return list(dict.fromkeys(found))


def outside_steps(steps: list) -> list[str]:
    """The same for a plan's steps (role, args) outside the grammar: a listing, reads of named files."""
    return list(dict.fromkeys(str(args.get("path", "")) for step in steps for role, args in step.calls
                              if role in PATH_ROLES and is_outside(str(args.get("path", "")))))


def not_read_only(actions: list) -> list[tuple[str, str]]:
    """(command, why) for each command typed without backticks that s03's classifier does not call read-only."""

    verdicts = [(a.calls[0][1]["command"], classify(a.calls[0][1]["command"])) for a in actions if a.extra.get("typed")]
    return [(cmd, verdict.reason) for cmd, verdict in verdicts if not verdict.read_only]


def outside_refusal(task: str, paths: list[str], language: str = "en") -> str:
    gist = " ".join(task.split())[:120]
    return tr('I did not do "{gist}": {paths} is outside the workspace, and I work only inside it (paths relative '
              'to the folder I was started in). Nothing was run or changed.', language=language, gist=gist,
              paths=", ".join(paths))


def typed_refusal(commands: list[tuple[str, str]], language: str = "en") -> str:
    cmd, why = commands[0]
    return tr("I did not run `{cmd}`: from plain words I run only commands known to only read, and this one is not "
              "({why}). If you mean it, ask explicitly with the command in backticks (run `{cmd}`); the agent's "
              "permission rules then decide. Nothing was run.", language=language, cmd=cmd, why=why)
