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

from .allowlist import EVALUATED, READ_ONLY, SAFE_ENV, long_match

__all__ = ["Verdict", "classify", "is_read_only"]  # the rest are the checker's own steps


@dataclass(frozen=True)
class Verdict:
    """read_only: runs without asking; reason: one line naming the part that is not read-only."""
    read_only: bool
    reason: str


BRACES = re.compile(r"(?<!\\)\{[^{}]*(,|\.\.)[^{}]*\}")  # {a,b} {1..3}, unquoted
# A ${…} the classifier can judge: ${x}, ${#x}, ${x:-word}, ${x#pat}, ${x/a/b}. Others (${x@P}, ${!x},
# ${a[i]}, ${x:1:$n}) expand prompts, indirect names, subscripts or arithmetic: a value like
# `a[$(rm f)]` then runs, so they are not read-only.
PLAIN_EXPANSION = re.compile(r"\$\{#?[A-Za-z_][A-Za-z0-9_]*(\}|:?[-=?+]|[#%/^,])", re.S)
ARITHMETIC_OK = re.compile(r"[\d\s+\-*/%()<>=!&|^~]*")  # $((1+2)): numbers only, no variable to evaluate


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
    if kind == "word" and BRACES.search(text(node)):
        return None  # bash expands {a,b} and {1..3} into several words: `{.,-delete}` is `. -delete`
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
        if BRACES.search(text(node)):
            return None  # a brace expansion split into parts (`{.,-delete}`): known only when it runs
        parts = [static(c) for c in node.children]
        return None if None in parts else "".join(parts)
    return None  # $x, ${x}, $(…), `…`, $'…', $((…)): known only when it runs




# ---------------------------------------------------------------- commands that run another command

SHELLS = ("bash", "sh", "dash", "zsh", "ksh")
WRAPPERS = {  # program: (flags, flags that take a value) it knows; the first other word is the command it runs.
    # Any other option asks: `env -S 'touch f'` runs its argument as a command, and so may an option
    # the list does not know. (env's -S/--split-string is left out on purpose.)
    "env": (("-i", "--ignore-environment", "-0", "--null", "-v", "--debug", "--list-signal-handling"),
            ("-u", "--unset", "-C", "--chdir", "--default-signal", "--ignore-signal", "--block-signal")),
    "timeout": (("--preserve-status", "--foreground", "-v", "--verbose"), ("-s", "--signal", "-k", "--kill-after")),
    "nice": ((), ("-n", "--adjustment")), "command": (("-p",), ()), "time": (("-p",), ()),
    "exec": (("-c", "-l"), ("-a",)),
    "xargs": (("-0", "--null", "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit"),
              ("-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args",
               "--max-procs", "--max-chars", "--max-lines")),
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
    flags, takes_value = WRAPPERS[name]
    k = 0
    while k < len(args) and args[k] is not None and (args[k].startswith("-") or (
            name == "env" and "=" in args[k])):
        if name == "env" and "=" in args[k] and not args[k].startswith("-"):
            if not safe_variable(args[k].split("=")[0]):
                return f"`env {args[k]}` sets a variable that can change what the command runs"
            k += 1
            continue
        if name == "command" and args[k] in ("-v", "-V"):
            return None
        if args[k] == "--":
            k += 1
            break
        if name == "nice" and re.fullmatch(r"-\d+", args[k]):
            k += 1
            continue
        given = args[k].split("=", 1)[0]
        hit = given if given in flags + takes_value else long_match(given, flags + takes_value)
        if hit is None:  # `env -S '…'`, `env --split-string=…`, `-iS`, or anything it does not know
            return f"`{name} {args[k]}` is not an option it knows, and may run its argument as a command"
        k += 1 + (hit in takes_value and "=" not in args[k])
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


def evaluated(node) -> str | None:
    """Why a node makes bash evaluate text as code, or None: arithmetic on variables (`$((x))`,
    `((x))`, `for ((…))`), a ${…} with a transformation, indirection, subscript or offset, a
    subscript anywhere, a test operand bash evaluates (`-v`, `-eq` in [[ ]])."""
    kind = node.type
    if kind == "arithmetic_expansion" or (kind == "compound_statement" and text(node).startswith("((")):
        body = re.sub(r"^\$?\(\(|\)\)$|^\$\[|\]$", "", text(node))
        if not ARITHMETIC_OK.fullmatch(body):
            return f"`{text(node)}` evaluates variables as arithmetic, which can run a command"
    if kind in ("c_style_for_statement", "subscript"):
        return f"`{text(node)}` evaluates an arithmetic expression, which can run a command"
    if kind == "expansion" and not PLAIN_EXPANSION.match(text(node)):
        return f"`{text(node)}` is an expansion the shell evaluates, which can run a command"
    if kind == "test_operator" and text(node) in EVALUATED:
        return f"`{text(node)}` evaluates its operand, which can run a command"
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
        if reason := evaluated(node):
            return reason
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
