"""The permission rules: commands that never run, and commands that need a yes first.

    bash command ──> matches DENY_LIST?    ──yes──> "Permission denied ..." (never run, nobody asked)
                          │ no
                          v
                     matches DESTRUCTIVE?  ──yes──> approve(call)? ──no──> "Permission denied ..."
                          │ no                            │ yes
                          v                               v
                         run                             run

Patterns are regular expressions with word boundaries (`\\brm\\b` matches `rm -r x`
but not `perform`), checked in order; the first match gives the reason.

Example: check_permission({"name": "bash", "input": {"command": "rm -r build"}}, never_approve)
  -> "Permission denied: `rm -r build` deletes files, and the user did not approve it"

Not modeled: real shell parsing. `r''m`, `$(echo rm)`, an alias or a script file
slip past any pattern list: a deny list is a guard rail against mistakes, not a
sandbox against an adversary. The file tools need no rule here: s02 already
keeps them inside the workspace.
"""

from __future__ import annotations

import re

DENY_LIST = (  # (pattern, what it does): never run, whatever anyone says
    (r"\b(sudo|doas)\b|(^|[;&|(]\s*)su(\s|$)", "runs as another user"),
    (r"\brm\s+(-\S+\s+)*(/|~/?|\$HOME/?)\*?(\s|$)", "deletes the whole disk or home folder"),
    (r"\b(mkfs(\.\w+)?|fdisk|wipefs)\b", "formats a disk"),
    (r"\bdd\b.*\bof=/dev/|>\s*/dev/(sd|nvme|disk)", "writes over a raw disk"),
    (r":\(\)\s*\{.*:\s*\|\s*:", "is a fork bomb"),
    (r"\b(shutdown|reboot|halt|poweroff)\b", "stops the machine"),
    (r"\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z|da)?sh\b", "runs a script straight from the internet"),
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
    if call.get("name") != "bash":
        return None
    command = (call.get("input") or {}).get("command")
    return command if isinstance(command, str) else None


def first_match(command: str, rules) -> str | None:
    """What the first matching rule says the command does, or None."""
    for pattern, what in rules:
        if re.search(pattern, command):
            return what
    return None


def check_permission(call: dict, approve, *, deny_list=DENY_LIST, destructive=DESTRUCTIVE) -> str | None:
    """None if `call` may run, else the reason it may not (a one-line message for the model)."""
    command = command_of(call)
    if command is None:
        return None
    what = first_match(command, deny_list)
    if what:
        return f"Permission denied: `{command}` {what}; commands like it are never run (deny list)"
    what = first_match(command, destructive)
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
