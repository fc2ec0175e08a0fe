"""The parts every entry of the task grammar is built from: the Action, name patterns, numbers in words.

An entry (grammar_clause.py, grammar_files.py, grammar_shell.py, grammar_kinds.py) turns one clause into Actions:
what to say, which calls to make as (role, args), and what the call works on, which
report.py reads back to answer.

Example: bash("count", "wc -l < a.py", "Counting the lines of a.py", "a.py", unit="lines")
  -> Action("count", "Counting the lines of a.py", [("bash", {"command": "wc -l < a.py"})], "a.py", {"unit": "lines"})
         number("five") -> 5;  number("十二") -> 12;  number("3") -> 3;  number("many") -> None
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PATH = re.compile(r"(?<![\w/.@-])((?:\.{1,2}/)?(?:[\w.@-]+/)*[\w@-][\w.@-]*\.[A-Za-z]\w{0,5})(?![\w/])")
# What a task may name as a file: PATH, an absolute path (/etc/passwd) or a dotfile (.env).
NAMED = re.compile(r"(?<![\w/.@-])((?:\.{1,2}/)?(?:[\w.@-]+/)*[\w@-][\w.@-]*\.[A-Za-z]\w{0,5}"
                   r"|/(?:[\w.@-]+/)*[\w.@-]*[\w@-]|\.[A-Za-z][\w-]*)(?![\w/])")
KINDS = {"python": ".py", "py": ".py", "markdown": ".md", "md": ".md", "json": ".json", "text": ".txt",
         "txt": ".txt", "typescript": ".ts", "ts": ".ts", "javascript": ".js", "js": ".js",
         "toml": ".toml", "yaml": ".yaml", "shell": ".sh", "rust": ".rs", "go": ".go", "csv": ".csv"}
F = PATH.pattern  # a file path with an extension, as a group
NAME = r"`?((?:\.{1,2}/)?[\w@][\w.@-]*(?:/[\w.@-]+)*/?)`?"  # a file or folder name
Q = r"(\S.*?)"  # some text (quoted or not)
KIND = r"(" + "|".join(KINDS) + r"|\*?\.[A-Za-z]\w{0,5})"  # a kind of file: "python", ".py", "*.py"
# Where a request says "here": words that name the folder the agent works in.
HERE = re.compile(r"^(?:this|here|current|the|my|our|the current|this current|working|project|workspace|repo|"
                  r"repository|this project|the project|this repo|this workspace|this directory|this folder|"
                  r"the current directory|the current folder|current directory|current folder|\.)$", re.IGNORECASE)
ZH_HERE = r"(?:这个|当前|此|整个|本)?(?:文件夹|目录|项目|仓库|工作区)|这里|这儿"
# What is left of 这里 / 这儿 / 当前文件夹 once a pattern took 里 / 下 as "in": still here, never a folder named 这
ZH_DEICTIC = r"(?:这|这个|此|当前|本)(?:里|儿|边|处)?(?:的)?(?:文件夹|目录)?"
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
         "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "a": 1, "an": 1}
ZH_DIGITS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
NUMBER = r"(\d{1,4}|" + "|".join(WORDS) + r"|[一两二三四五六七八九十]{1,3})"  # a count, as a group


@dataclass
class Action:
    """One clause of a request: its entry, what it says, its calls as (role, args), what it works on."""
    kind: str
    say: str
    calls: list
    target: str
    extra: dict = field(default_factory=dict)


def bash(kind: str, command: str, say: str, target: str = "", **extra) -> Action:
    """An action that runs one shell command."""
    return Action(kind, say, [("bash", {"command": command})], target or command, extra)


def number(word: str) -> int | None:
    """A count written in digits, English words or Chinese numerals (up to 99), else None."""
    word = (word or "").strip().lower()
    if word.isdigit():
        return int(word)
    if word in WORDS:
        return WORDS[word]
    if word and all(ch in ZH_DIGITS or ch == "十" for ch in word):
        tens, _, ones = word.partition("十")
        if "十" not in word:
            return ZH_DIGITS.get(word) if len(word) == 1 else None
        if len(tens) > 1 or len(ones) > 1:
            return None
        return ZH_DIGITS.get(tens, 1) * 10 + ZH_DIGITS.get(ones, 0)
    return None


def kind_ext(word: str | None) -> str:
    """The extension a kind of file names ('' for none). Example: 'Python' -> '.py'; '*.md' -> '.md'"""
    word = (word or "").strip().lower().lstrip("*")
    return KINDS.get(word, word if word.startswith(".") else "")


def where(name: str | None) -> str:
    """The folder a request names, "." for here. Example: 'this folder' -> '.'; 'src/' -> 'src'"""
    name = (name or "").strip().strip("`")
    if not name or HERE.match(name) or re.fullmatch(ZH_HERE, name) or re.fullmatch(ZH_DEICTIC, name):
        return "."
    return name.rstrip("/") or "."


def unquote(text: str) -> str:
    """Text as the user meant it. Example: '"Hello, World!".' -> 'Hello, World!'; 'hi.' -> 'hi'"""
    text = text.strip()
    for a, b in (('"', '"'), ("'", "'"), ("`", "`"), ("“", "”"), ("‘", "’"), ("「", "」")):
        inner = text.rstrip("。.")
        if len(inner) >= 2 and inner[0] == a and inner[-1] == b:
            return inner[1:-1]
    return re.sub(r"[.。]$", "", text).strip()
