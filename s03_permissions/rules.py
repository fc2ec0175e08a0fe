"""The permission rules: what never runs, what runs unasked, and what asks first.

    bash command ──> matches DENY_LIST?  ──yes──> "Permission denied ... (deny list)"  (never run, nobody asked)
                          │ no
                          v
                     known only to read? ──yes──> run, unasked           (lessonkit/base/readonly.py: a parser
                          │ no                                             and an allow-list of programs)
                          v
                     approve(call) is True? ──no──> "Permission denied ..." (and under never_approve: always)
                          │ yes
                          v
                         run

The deny list is short on purpose: what nobody wants, whatever they say (sudo, formatting a disk,
a fork bomb). It is not asked to be complete, and cannot be: `sed -i`, `find -exec unlink`, `: > f`
and `curl … | python3` each write or run code while matching no pattern. The allow-list
turns that around: a command runs unasked only if every part of it is known only to read, so a
missing entry costs one question, never a file. A deny rule matches a *command*, not a word
inside an argument or a quote (its pattern starts with AT, "where a command starts", and it is
matched on the command with quoted text blanked out, and on each `bash -c`/`eval` string).

Example: check_permission({"name": "bash", "input": {"command": "sed -i d notes.txt"}}, never_approve)
  -> "Permission denied: `sed -i d notes.txt` is not known to only read (`sed -i` edits files
      in place), and the user did not approve it"

Not modeled: what a read-only program reads. `pytest` runs the conftest.py an approved command
wrote; a yes is a yes for what the command does later, too. Remembered answers ("always allow
`git commit`"). These rules only decide when to ask: the OS sandbox (lessonkit/base/sandbox.py) enforces what a
command can write, so a command they misjudge still cannot.
The file tools need no rule here: s02 already keeps them inside the workspace.
"""

from __future__ import annotations

import re

from lessonkit.base.readonly import classify  # the parser's guess: armour, not the idea
from s01_loop import check_type, short_repr

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


def command_of(call: dict) -> str | None:
    """The shell command of a bash call, else None.

    Example: {'name': 'bash', 'input': {'command': 'ls'}} -> 'ls'
    """
    if not isinstance(call, dict):
        raise ValueError(f"call must be a tool_use block (a dict), got {short_repr(call)}")
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


def _check_rules(rules) -> None:
    """Rules are (regex, what it does) pairs of strings; anything else is one ValueError."""
    if not isinstance(rules, (list, tuple)) or not all(
            isinstance(rule, (list, tuple)) and len(rule) == 2 and all(isinstance(x, str) for x in rule)
            for rule in rules):
        raise ValueError(f"rules must be (pattern, what) pairs of strings, got {short_repr(rules)}")


def check_permission(call: dict, approve, *, deny_list=DENY_LIST, read_only=classify) -> str | None:
    """None if `call` may run, else the reason it may not (a one-line message for the model).

    read_only(command) -> Verdict: the classifier (readonly.classify); a read-only command runs unasked.
    """
    if not callable(approve):
        raise ValueError(f"approve must be a function of the call, got {short_repr(approve)}")
    command = command_of(call)
    if command is None:
        return None
    what = first_match(command, deny_list, commands_only=True)
    if what:
        return f"Permission denied: `{command}` {what}; commands like it are never run (deny list)"
    verdict = read_only(command)
    if verdict.read_only:
        return None
    what = f"is not known to only read ({verdict.reason})"
    try:
        allowed = approve(call)
    except Exception as exc:  # noqa: BLE001 -- nobody to ask (no terminal, a bug): the answer is no
        return (f"Permission denied: `{command}` {what}, and asking for approval failed "
                f"({type(exc).__name__}: {exc})")
    if allowed is True:  # only a real yes: "no", 1 or None are not approvals
        return None
    return f"Permission denied: `{command}` {what}, and the user did not approve it"


def ask_on_terminal(call: dict) -> bool:
    """The default approval: ask on the terminal, saying why it asks. Only 'y' or 'yes' allows."""
    command = command_of(call)
    verdict = classify(command) if command is not None else None
    why = "" if verdict is None else f" ({verdict.reason})" if not verdict.read_only else (
        " (it only reads, by the rules, but no OS sandbox here makes sure)")  # asked only without a sandbox
    answer = input(f"The agent wants to run: {command or call.get('name')}{why}\nAllow? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def never_approve(call: dict) -> bool:
    """A deterministic approval for notebooks and tests: always no."""
    return False


def always_approve(call: dict) -> bool:
    """A deterministic approval for notebooks and tests: always yes."""
    return True
