"""Is this shell command known only to read? A real parser, then an allow-list of programs.

    command ──> tree-sitter-bash ──> syntax tree ──> every node, everywhere:
                                                       ERROR / missing part -> not read-only
                                                       `> f`, `>> f`, `&> f` -> not read-only (unless /dev/null)
                                                       a command            -> its program must be on READ_ONLY,
                                                                               with read-only flags (sed without -i)
    read-only only if every part, in every `$(…)`, `<(…)`, here-doc, loop, subshell and `bash -c` string, is

Nothing about a command's words is guessed: a program not on the list (rm, but also unlink, tee, dd,
awk, python3 -c) is not read-only, so the list can only be too short, and then the user is asked.

Example: classify("sed -i s/a/b/ notes.txt")
  -> Verdict(read_only=False, reason='`sed -i` edits files in place')

Not modeled: what a read-only program reads. `pytest` or `git diff` run code or settings found in
files (a conftest.py, a .git/config alias): if an approved command wrote them, they run unasked.
Globs are not expanded (a file named `-i` could turn `sed … *` into `sed -i`): writing it asks first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from .allowlist import READ_ONLY, SAFE_ENV

__all__ = ["Verdict", "classify", "is_read_only"]  # the rest are the checker's own steps


@dataclass(frozen=True)
class Verdict:
    """read_only: runs without asking; reason: one line naming the part that is not read-only."""
    read_only: bool
    reason: str


@cache
def parser():
    """The tree-sitter-bash parser (built on first use, so importing this module does nothing)."""
    import tree_sitter
    import tree_sitter_bash
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def text(node) -> str:
    return node.text.decode("utf-8", "replace")


def static(node) -> str | None:
    """The word a node stands for if nothing in it runs or expands at run time, else None.

    Example: `\\rm` -> 'rm', `"r"m` -> 'rm', `'-i'` -> '-i', `$x` -> None, `$(ls)` -> None
    """
    kind = node.type
    if kind == "word":
        return re.sub(r"\\(.)", r"\1", text(node))
    if kind == "number":
        return text(node)
    if kind == "raw_string":
        return text(node)[1:-1]
    if kind == "string":
        parts = [c for c in node.children if c.type != '"']
        if all(c.type == "string_content" for c in parts):
            return re.sub(r'\\([$`"\\\n])', r"\1", "".join(text(c) for c in parts))
        return None
    if kind == "concatenation":
        parts = [static(c) for c in node.children]
        return None if None in parts else "".join(parts)
    return None  # $x, ${x}, $(…), `…`, $'…', $((…)): known only when it runs




# ---------------------------------------------------------------- commands that run another command

SHELLS = ("bash", "sh", "dash", "zsh", "ksh")
WRAPPERS = {  # program: options that take a value; the first other word is the command it runs
    "env": ("-u", "--unset", "-C", "--chdir", "-S"), "timeout": ("-s", "--signal", "-k", "--kill-after"),
    "nice": ("-n", "--adjustment"), "command": (), "time": (), "exec": ("-a",), "xargs":
    ("-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args"),
}
MAX_DEPTH = 5
# tree-sitter-bash 0.25.1's scanner can crash the whole process (a segfault, not an exception) on
# `{` followed by a code point past the assigned planes (seen with U+E3FC7, U+56A5E, U+10FFFF):
# a command holding one is not parsed at all, so it is never read-only.
PARSER_SAFE_BELOW = 0x30000


def unwrap(name, args, depth):
    """Why a wrapper (env, timeout, xargs, bash -c, eval …) or the command it runs is not read-only."""
    if name in SHELLS or name == "eval":
        if None in args:
            return f"`{name}` runs a command computed at run time"
        if name == "eval":
            return why(" ".join(args), depth + 1)
        if args and all(a in ("--version", "--help") for a in args):
            return None
        k = 0
        while k < len(args) - 1 and re.fullmatch(r"[-+][a-z]+", args[k]):  # bash -e -lc 'ls'
            if "c" in args[k]:
                return why(args[k + 1], depth + 1)
            k += 1
        return f"`{name}` runs a script"
    takes_value = WRAPPERS[name]
    k = 0
    while k < len(args) and args[k] is not None and (args[k].startswith("-") or (
            name == "env" and "=" in args[k])):
        if name == "env" and "=" in args[k] and not safe_variable(args[k].split("=")[0]):
            return f"`env {args[k]}` sets a variable that can change what the command runs"
        if name == "command" and args[k] in ("-v", "-V"):
            return None
        k += 1 + (args[k] in takes_value)
    if name == "timeout":
        k += 1  # the duration
    rest = args[k:]
    if not rest:
        return None if name in ("env", "nice", "time", "exec") else f"`{name}` runs a command from its input"
    if rest[0] is None:
        return f"`{name}` runs a command computed at run time"
    if name == "xargs" and (rest[0] not in READ_ONLY or READ_ONLY[rest[0]] is not None):
        return f"`xargs {rest[0]}` runs {rest[0]} with words from its input, which could be flags that write"
    return program(rest[0], rest[1:], depth)


def safe_variable(name: str) -> bool:
    """A variable set before a command that cannot change what it runs (LC_ALL=C sort), else False."""
    return name in SAFE_ENV or name.startswith("LC_")


def program(name, args, depth):
    """Why running `name args` is not read-only, or None."""
    if "/" in name:
        return f"`{name}` runs a program by its path"
    if name in WRAPPERS or name in SHELLS or name == "eval":
        return unwrap(name, args, depth)
    if name not in READ_ONLY:
        return f"`{name}` is not on the read-only list"
    check = READ_ONLY[name]
    return check(name, args) if check else None


WRITES = {">", ">>", "&>", "&>>", ">|", "<>"}


def redirect(node) -> str | None:
    """Why a redirection is not read-only: it writes a file other than /dev/null."""
    op = next((text(c) for c in node.children if not c.is_named), "")
    target = node.child_by_field_name("destination")
    where = static(target) if target is not None else None
    writes = op in WRITES or (op == ">&" and not re.fullmatch(r"\d+|-", where or ""))
    if writes and where != "/dev/null":
        return f"`{op} {text(target) if target is not None else ''}` writes to a file"
    return None


def why(command: str, depth: int = 0) -> str | None:
    """Why `command` is not read-only, or None: every node of its syntax tree is checked."""
    if depth > MAX_DEPTH:
        return "nests shells too deep to check"
    tree = parser().parse(command.encode("utf-8"))
    todo = [tree.root_node]
    while todo:
        node = todo.pop()
        todo.extend(reversed(node.children))
        if node.type == "ERROR" or node.is_missing or (node.type == ";;" and node.parent.type != "case_item"):
            return "could not be parsed as a shell command"
        if node.type == "file_redirect" and (reason := redirect(node)):
            return reason
        if node.type == "variable_assignment" and node.parent.type in ("command", "declaration_command") or (
                node.type == "variable_assignment" and not re.search(r"[a-z]", text(node).split("=")[0])):
            name = text(node).split("=")[0]
            if not safe_variable(name):
                return f"`{name}=…` sets a variable that can change what commands run"
        if node.type == "declaration_command":
            return f"`{text(node.children[0])}` changes the shell's variables"
        if node.type == "command" and (name_node := node.child_by_field_name("name")) is not None:
            name = static(name_node.children[0]) if name_node.children else None
            if name is None:
                return f"`{text(name_node)}` is a program name computed at run time"
            args = [static(a) for a in node.children_by_field_name("argument")]
            if reason := program(name, args, depth):
                return reason
    return None


def classify(command: str) -> Verdict:
    """Whether `command` only reads (runs unasked), with a one-line reason.

    Example: classify("grep -rn TODO . | head") -> Verdict(read_only=True, reason='only reads')
             classify("echo $(: > f)") -> Verdict(read_only=False, reason='`> f` writes to a file')
    """
    if not isinstance(command, str):
        raise ValueError(f"command must be a string, got {type(command).__name__}")
    if not command.strip():
        return Verdict(False, "is empty")
    odd = next((ch for ch in command if ord(ch) >= PARSER_SAFE_BELOW), None)
    if odd is not None:
        return Verdict(False, f"holds U+{ord(odd):04X}, which the shell parser cannot read safely")
    reason = why(command)
    return Verdict(reason is None, reason or "only reads")


def is_read_only(command: str) -> bool:
    """classify(command).read_only. Example: is_read_only("git log --output=x") -> False"""
    return classify(command).read_only
