"""Is this shell command known only to read? A real parser, then an allow-list of programs.

    command ──> tree-sitter-bash ──> syntax tree ──> every node, everywhere:
                                                       a kind of node it does not know -> not read-only
                                                       ERROR / missing part -> not read-only
                                                       `> f`, `>> f`, `&> f` -> not read-only (unless /dev/null)
                                                       arithmetic, ${x@P}, subscripts, unset, declare,
                                                         `-v`/`-eq` operands -> not read-only (bash runs
                                                         code it finds in them)
                                                       a command            -> its program must be on READ_ONLY,
                                                                               its options read as it reads them
    read-only only if every part, in every `$(…)`, `<(…)`, here-doc, loop, subshell and `bash -c` string, is

Nothing about a command's words is guessed: a program not on the list (rm, but also unlink, tee, dd,
awk, python3 -c), an option it does not know, a node it does not know: each is not read-only, so the
list can only be too short, and then the user is asked. A word bash computes when it runs (`$x`,
`*.py`, `{a,b}`) is None: a program with an option that writes asks then.

Example: classify("sed -i s/a/b/ notes.txt")
  -> Verdict(read_only=False, reason='`sed -i` edits files in place')

Not modeled: what a read-only program reads. `pytest` or `git diff` run code or settings found in
files (a conftest.py, a .git/config alias): if an approved command wrote them, they run unasked.
The sandbox (sandbox.py) is what keeps a mistake here from writing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from .readonly_programs import EVALUATED, OPTIONS, READ_ONLY, SAFE_ENV, WRITES, Unknown, getopt, options

__all__ = ["Verdict", "classify", "is_read_only"]  # the rest are the checker's own steps


@dataclass(frozen=True)
class Verdict:
    """read_only: runs without asking; reason: one line naming the part that is not read-only."""
    read_only: bool
    reason: str


BRACES = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")  # {a,b} {1..3}: several words, known only when bash runs
GLOB = re.compile(r"(?<!\\)(?:\\\\)*[*?[]")  # an unescaped * ? [: file names, known only when bash runs
# A ${…} the classifier can judge: ${x}, ${#x}, ${x:-word}, ${x#pat}, ${x/a/b}. Others (${x@P}, ${!x},
# ${a[i]}, ${x:1:$n}) expand prompts, indirect names, subscripts or arithmetic: a value like
# `a[$(rm f)]` then runs, so they are not read-only.
PLAIN_EXPANSION = re.compile(r"\$\{#?[A-Za-z_][A-Za-z0-9_]*(\}|:?[-=?+]|[#%/^,])", re.S)
# An expansion left in text the parser did not split up (tree-sitter-bash reads a here-doc line that starts
# with blanks, `\t$(rm f)`, as plain text): bash runs it, so the command is not read-only.
UNREAD = re.compile(r"(?<!\\)(?:\\\\)*(?:`|\$[({\[A-Za-z_@*#?!$0-9-])")
UNREAD_IN_HEREDOC = re.compile(r"(?<!\\)(?:\\\\)*[$`]")
ARITHMETIC_OK = re.compile(r"[\d\s+\-*/%()<>=!&|^~]*")  # $((1+2)): numbers only, no variable to evaluate
# The kinds of node it judges (tree-sitter-bash 0.25); any other kind is not read-only. The ones that
# only group others (a list, a loop, a string) are judged by their parts.
KNOWN = set("""program list pipeline subshell compound_statement do_group if_statement elif_clause else_clause
    while_statement case_statement case_item negated_command redirected_statement function_definition comment
    heredoc_body heredoc_content heredoc_end heredoc_start heredoc_redirect herestring_redirect file_redirect
    command_substitution process_substitution string string_content raw_string ansi_c_string translated_string
    concatenation word number simple_expansion special_variable_name variable_name command_name file_descriptor
    test_command test_operator unary_expression binary_expression parenthesized_expression postfix_expression
    ternary_expression regex extglob_pattern brace_expression array variable_assignment variable_assignments
    arithmetic_expansion expansion subscript c_style_for_statement for_statement command declaration_command
    unset_command""".split())  # noqa: SIM905


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

    Example: `\\rm` -> 'rm', `"r"m` -> 'rm', `'-i'` -> '-i', `$x` -> None, `$(ls)` -> None, `*.py` -> None
    """
    kind = node.type
    if kind == "word" and (BRACES.search(text(node)) or GLOB.search(text(node))):
        return None  # bash expands `{.,-delete}` into `. -delete`, and `*` into file names (`-i`, say)
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
WRAPPERS = ("env", "timeout", "nice", "xargs", "command", "time", "exec")  # each runs its first operand
MAX_DEPTH = 5
# tree-sitter-bash 0.25.1's scanner can crash the whole process (a segfault, not an exception) on
# `{` followed by a code point past the assigned planes (seen with U+E3FC7, U+56A5E, U+10FFFF):
# a command holding one is not parsed at all, so it is never read-only.
PARSER_SAFE_BELOW = 0x30000


def shell(name, args, depth):
    """Why `bash -c '…'`, `eval …` or a shell running a script is not read-only: the string is parsed too."""
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


def unwrap(name, args, depth):
    """Why a wrapper (env, timeout, nice, xargs, command …) or the command it runs is not read-only:
    its options read as it reads them (they end at the command), then the command itself."""
    try:
        opts, rest = getopt(args, OPTIONS[name])
    except Unknown as exc:  # `env -S '…'` aside, an option it does not know may run its argument too
        return f"`{name}`: {exc}, and it may run its argument as a command"
    writes, what = WRITES.get(name, ((), ""))
    if hit := next((o for o, _ in opts if o in writes), None):
        return f"`{name} {hit}` {what}"
    if name == "command" and any(o in ("-v", "-V") for o, _ in opts):
        return None  # only says what a name is
    while name == "env" and rest and rest[0] is not None and re.match(r"[^=-][^=]*=", rest[0]):
        if not safe_variable(rest[0].split("=")[0]):
            return f"`env {rest[0]}` sets a variable that can change what the command runs"
        rest = rest[1:]
    rest = rest[1:] if name == "timeout" else rest  # its duration
    if not rest:
        return f"`{name}` runs a command from its input" if name == "timeout" else None
    if rest[0] is None:
        return f"`{name}` runs a command computed at run time"
    if name == "xargs" and not (READ_ONLY.get(rest[0], 0) is None or (
            READ_ONLY.get(rest[0]) is options and rest[0] not in WRITES)):
        return f"`xargs {rest[0]}` runs {rest[0]} with words from its input, which could be options that write"
    return program(rest[0], rest[1:], depth)


def safe_variable(name: str) -> bool:
    """A variable set before a command that cannot change what it runs (LC_ALL=C sort), else False."""
    return name in SAFE_ENV or name.startswith("LC_")


def program(name, args, depth):
    """Why running `name args` is not read-only, or None."""
    if "/" in name:
        return f"`{name}` runs a program by its path"
    if name in SHELLS or name == "eval":
        return shell(name, args, depth)
    if name in WRAPPERS:
        return unwrap(name, args, depth)
    if name not in READ_ONLY:
        return f"`{name}` is not on the read-only list"
    check = READ_ONLY[name]
    return check(name, args) if check else None


WRITES_TO = {">", ">>", "&>", "&>>", ">|", "<>"}


def redirect(node) -> str | None:
    """Why a redirection is not read-only: it writes a file other than /dev/null."""
    op = next((text(c) for c in node.children if not c.is_named), "")
    target = node.child_by_field_name("destination")
    where = static(target) if target is not None else None
    writes = op in WRITES_TO or (op == ">&" and not re.fullmatch(r"\d+|-", where or ""))
    if writes and where != "/dev/null":
        return f"`{op} {text(target) if target is not None else ''}` writes to a file"
    return None


def evaluated(node) -> str | None:
    """Why a node makes bash evaluate text as code, or None: arithmetic on variables (`$((x))`,
    `((x))`, `for ((…))`), a ${…} with a transformation, indirection, subscript or offset, a
    subscript anywhere, a test operand bash evaluates (`-v`, `-eq` in [[ ]]), `unset`, `declare`."""
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
    if kind == "test_command" and text(node).startswith("[") and not text(node).startswith("[["):
        split = next((e for e in descendants(node) if e.type in ("simple_expansion", "expansion",
                      "command_substitution") and (e.parent.type != "string" or "@" in text(e) or "*" in text(e))),
                     None)  # `[ $op x ]`, `[ "$@" ]`: words known only at run time, `-v` among them
        if split is not None:
            return f"`{text(split)}` in `[ … ]` could become an operator that evaluates its operand"
    if kind in ("declaration_command", "unset_command"):
        return f"`{text(node.children[0])}` changes the shell's variables (and evaluates subscripts)"
    return None


def descendants(node):
    todo = list(node.children)
    while todo:
        node = todo.pop()
        todo.extend(node.children)
        yield node


def unread(node) -> str | None:
    """Why a leaf of text holds an expansion the parser did not read (bash will), or None."""
    if node.child_count or node.type not in ("word", "string_content", "heredoc_body", "heredoc_content"):
        return None
    if node.type.startswith("heredoc"):
        holder = node.parent if node.type == "heredoc_body" else node.parent.parent  # the heredoc_redirect
        start = next((c for c in holder.children if c.type == "heredoc_start"), None) if holder else None
        quoted = start is None or re.search(r"['\"\\]", text(start))  # <<'EOF': the body is only text
        found = not quoted and UNREAD_IN_HEREDOC.search(text(node))
    else:
        found = UNREAD.search(text(node))
    return f"`{text(node).strip()[:40]}` holds an expansion the parser did not read" if found else None


def assigns(node) -> str | None:
    """Why an assignment (`PATH=. ls`, `for PATH in .`) can change what commands run, or None."""
    if node.type == "variable_assignment":
        name = text(node).split("=")[0].split("+")[0]
        local = re.search(r"[a-z]", name) and node.parent.type not in ("command", "declaration_command")
    elif node.type == "for_statement" and (var := node.child_by_field_name("variable")) is not None:
        name, local = text(var), bool(re.search(r"[a-z]", text(var)))
    else:
        return None
    if not local and not safe_variable(name):
        return f"`{name}=…` sets a variable that can change what commands run"
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
        if node.is_named and node.type not in KNOWN:
            return f"`{text(node)}` is shell syntax it does not judge"
        if node.type == "file_redirect" and (reason := redirect(node)):
            return reason
        if reason := assigns(node) or evaluated(node) or unread(node):
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
