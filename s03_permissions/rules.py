"""The permission rules: commands that never run, and commands that need a yes first.

    bash command ──> matches DENY_LIST?    ──yes──> "Permission denied ..." (never run, nobody asked)
                          │ no
                          v
                     writes to `protected`? ─yes─┐  (the agent's own record: s05's results and
                          │ no                   │   s06's transcript folders)
                          v                      v
                     matches DESTRUCTIVE?  ──yes──> approve(call)? ──no──> "Permission denied ..."
                          │ no                            │ yes
                          v                               v
                         run                             run

A deny rule matches a *command*, not a word inside an argument or a quote: its
pattern starts with AT, "where a command starts" (the start, or after ; & | ( {
$( and a backtick, past VAR=x and wrappers like env, nohup, xargs, sudo), and it
is matched on the command with quoted text blanked out (`mask_quotes`). So
`grep -rn sudo .`, `git log --grep=reboot` and `echo "don't reboot"` run, while
`sudo x`, `echo a && sudo b` and `reboot` do not; the string given to `bash -c`,
`sh -c` or `eval` is checked as a command too. DESTRUCTIVE patterns match
anywhere in the raw text (`\\brm\\b` matches `rm -r x` but not `perform`): a false
alarm there only asks.

Example: check_permission({"name": "bash", "input": {"command": "rm -r build"}}, never_approve)
  -> "Permission denied: `rm -r build` deletes files, and the user did not approve it"

Not modeled: real shell parsing. `r''m`, `$(echo rm)`, `a=su; $a`, an alias, a
script file (`echo 'sudo x' > s.sh; bash s.sh`) or `python -c "import os; ..."`
slip past any pattern list: a deny list is a guard rail against mistakes, not a
sandbox against an adversary (that takes the OS: a container, seccomp, a VM).
The file tools need no rule here: s02 already keeps them inside the workspace.
"""

from __future__ import annotations

import os
import re

from s01_loop import check_type, shown

# Where a command starts: the start of the text or after ; & | ( { $( ` or a newline, then any
# VAR=value assignments, shell keywords and wrappers that run the next word as a command.
AT = (r"(?:^|[;&|(){}\n!]|\$\(|`)\s*"
      r"(?:(?:[A-Za-z_]\w*=\S*|then|do|else|if|while|until|time|nohup|exec|env|nice|command|builtin"
      r"|xargs|sudo|doas)\s+(?:-\S+\s+)*)*(?:[\w.~/-]*/)?")
DENY_LIST = (  # (pattern, what it does): never run, whatever anyone says
    (AT + r"(sudo|doas|su)(\s|$)", "runs as another user"),
    (AT + r"rm\s+(-\S+\s+)*(/|~/?|\$HOME/?)\*?(\s|$|[;&|)])", "deletes the whole disk or home folder"),
    (AT + r"(mkfs(\.\w+)?|fdisk|wipefs)\b", "formats a disk"),
    (AT + r"dd\b.*\bof=/dev/|>\s*/dev/(sd|nvme|disk)", "writes over a raw disk"),
    (r":\(\)\s*\{.*:\s*\|\s*:", "is a fork bomb"),
    (AT + r"(shutdown|reboot|halt|poweroff|systemctl\s+(reboot|poweroff|halt))\b", "stops the machine"),
    (AT + r"(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z|da)?sh\b", "runs a script straight from the internet"),
)
DESTRUCTIVE = (  # (pattern, what it does): runs only if approve(call) says yes
    (r"\brm\b", "deletes files"),
    (r"\bfind\b.*\s-(delete|exec\s+rm)\b", "deletes files"),
    (r"\bmv\b", "moves files (and may overwrite)"),
    (r"\b(truncate|shred)\b", "destroys file contents"),
    (r"\b(chmod|chown)\b", "changes permissions"),
    (r"\bgit\s+(reset\s+--hard|clean\b|checkout\s+--|push\b.*\s(-f|--force)\b)", "throws away git work"),
    (r"(?i)\bdrop\s+(table|database)\b", "deletes a database table"),
)


def command_of(call: dict) -> str | None:
    """The shell command of a bash call, else None.

    Example: {'name': 'bash', 'input': {'command': 'ls'}} -> 'ls'
    """
    if not isinstance(call, dict):
        raise ValueError(f"call must be a tool_use block (a dict), got {shown(call)}")
    tool_input = call.get("input")
    if call.get("name") != "bash" or not isinstance(tool_input, dict):
        return None
    command = tool_input.get("command")
    return command if isinstance(command, str) else None


def mask_quotes(command: str) -> str:
    """The command with the text inside quotes blanked ('_'), except `$(...)` inside "...", which runs.

    Example: mask_quotes('echo "a; sudo b" && ls') -> 'echo "__________" && ls'
    """
    check_type(command, str, "command")
    out, quote, depth, k = [], None, 0, 0
    while k < len(command):
        ch = command[k]
        if quote is None:
            if ch == "\\":
                out.append(command[k:k + 2])
                k += 2
                continue
            if ch in "'\"":
                quote = ch
            out.append(ch)
        elif quote == "'":
            quote = None if ch == "'" else quote
            out.append(ch if quote is None else "_")
        elif depth or command.startswith("$(", k):  # a command substitution inside "...": it runs
            depth += (command.startswith("$(", k)) - (ch == ")")
            out.append(ch)
        elif ch == "\\":
            out.append("__")
            k += 2
            continue
        else:
            quote = None if ch == '"' else quote
            out.append(ch if quote is None else "_")
        k += 1
    return "".join(out)


_INNER = re.compile(r"""(?:\b(?:ba|z|da)?sh\s+(?:-\S+\s+)*-c|\beval)\s+(?:'([^']*)'|"((?:[^"\\]|\\.)*)")""")


def commands_in(command: str) -> list[str]:
    """The texts the deny list checks: the command with its quotes masked, and (the same way) each
    string it hands to `bash -c`, `sh -c` or `eval`. Example: 'bash -c "sudo x"' -> [.., 'sudo x']"""
    check_type(command, str, "command")
    texts, todo = [], [command]
    while todo and len(texts) < 20:
        text = todo.pop()
        texts.append(mask_quotes(text))
        todo += [a or b for a, b in _INNER.findall(text)]
    return texts


def _check_rules(rules) -> None:
    """Rules are (regex, what it does) pairs of strings; anything else is one ValueError."""
    if not isinstance(rules, (list, tuple)) or not all(
            isinstance(rule, (list, tuple)) and len(rule) == 2 and all(isinstance(x, str) for x in rule)
            for rule in rules):
        raise ValueError(f"rules must be (pattern, what) pairs of strings, got {shown(rules)}")


def first_match(command: str, rules, *, commands_only: bool = False) -> str | None:
    """What the first matching rule says the command does, or None.

    commands_only: match where a command starts, outside quotes (see `commands_in`);
    else anywhere in the raw text.
    """
    check_type(command, str, "command")
    _check_rules(rules)
    texts = commands_in(command) if commands_only else [command]
    for pattern, what in rules:
        if any(re.search(pattern, text) for text in texts):
            return what
    return None


_READERS = {"cat", "head", "tail", "less", "more", "grep", "rg", "wc", "ls", "stat", "file", "du", "diff",
            "jq", "sort", "uniq", "cut", "md5sum", "sha256sum", "find", "echo", "printf"}


def writes_to(command: str, folders) -> str | None:
    """The first of `folders` (workspace-relative names) the command names in a way that may write,
    or None. Reading (cat, grep, ... with no `>`, no `-exec`/`-delete`) is fine; anything else
    naming the folder may write to it. Example: writes_to(": > .transcripts/s.jsonl", [".transcripts"])
      -> ".transcripts" """
    check_type(command, str, "command")
    if not isinstance(folders, (list, tuple)) or not all(isinstance(f, (str, os.PathLike)) for f in folders):
        raise ValueError(f"folders must be a list of paths, got {shown(folders)}")
    for folder in folders:
        name = re.escape(str(folder).strip("/"))
        if not name or not re.search(rf"(^|[\s'\"=:/<>]){name}(/|\s|$|['\";|&)])", command):
            continue
        masked = mask_quotes(command)
        words = [segment.split()[0] for segment in re.split(r"[;&|\n]+|\$\(|`", masked) if segment.split()]
        reads = all(w.rsplit("/", 1)[-1] in _READERS for w in words)
        if not reads or ">" in masked or re.search(r"\s-(exec|execdir|delete|fprint|ok)\b", masked):
            return str(folder)
    return None


def check_permission(call: dict, approve, *, deny_list=DENY_LIST, destructive=DESTRUCTIVE,
                     protected=()) -> str | None:
    """None if `call` may run, else the reason it may not (a one-line message for the model).

    `protected`: folders (relative to the workspace) a command may not write to without
    approval: the agent's own record (s05's results, s06's transcript).
    """
    if not callable(approve):
        raise ValueError(f"approve must be a function of the call, got {shown(approve)}")
    command = command_of(call)
    if command is None:
        return None
    what = first_match(command, deny_list, commands_only=True)
    if what:
        return f"Permission denied: `{command}` {what}; commands like it are never run (deny list)"
    folder = writes_to(command, protected)
    what = f"may write to {folder}, the agent's own record" if folder else first_match(command, destructive)
    if not what:
        return None
    try:
        allowed = approve(call)
    except Exception as exc:  # noqa: BLE001 -- nobody to ask (no terminal, a bug): the answer is no
        return (f"Permission denied: `{command}` {what}, and asking for approval failed "
                f"({type(exc).__name__}: {exc})")
    if allowed is True:  # only a real yes: "no", 1 or None are not approvals
        return None
    return f"Permission denied: `{command}` {what}, and the user did not approve it"


def ask_on_terminal(call: dict) -> bool:
    """The default approval: ask on the terminal. Only 'y' or 'yes' allows."""
    answer = input(f"The agent wants to run: {command_of(call) or call.get('name')}\nAllow? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def never_approve(call: dict) -> bool:
    """A deterministic approval for notebooks and tests: always no."""
    return False


def always_approve(call: dict) -> bool:
    """A deterministic approval for notebooks and tests: always yes."""
    return True
