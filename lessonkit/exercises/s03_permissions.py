"""s03 exercise: decide whether a tool call may run: deny list, destructive-with-approval, or allowed.

    check_permission(call, approve) -> None            the call may run
                                    -> "reason ..."    it may not (the model reads the reason)

    bash `sudo ls`        deny list     refused, and nobody is asked
    bash `rm -r build`    destructive   approve(call) is asked: only True lets it run;
                                        an approve that raises means no (fail closed)
    bash `ls`, write_file ...           allowed without asking

Each case runs the student's function with a recording `approve`, so the report says
both what happened and whether the user was asked: "`rm -fr /`: ran after asking;
expected: refused without asking".

The starter is the seed's `permission_hook`: substring tests (`"rm" in "echo perform"`),
one spelling per deny rule, and `if not approve(call)` (the string "no" is a yes).

Reference: s03_permissions.check_permission.
"""

from __future__ import annotations

from s03_permissions import DENY_LIST, DESTRUCTIVE, check_permission, first_match

from ..i18n import tr
from . import Case, Exercise, Mistake

STARTER = '''\
DENY = ["rm -rf /", "sudo", "mkfs", "shutdown"]   # never run
DESTRUCTIVE = ["rm", "mv", "chmod"]                # run only if approve(call) says yes


def check_permission(call, approve):
    """None if the tool call may run, else the reason it may not."""
    command = call["input"].get("command", "")
    for pattern in DENY:
        if pattern in command:
            return "Permission denied by deny list"
    for kw in DESTRUCTIVE:
        if kw in command:
            if not approve(call):
                return "Permission denied by user"
    return None
'''

TASK = """Write check_permission(call, approve): None if the call may run, else the reason.
Deny-list commands are refused without asking; destructive ones run only if
approve(call) returns True; anything else runs."""

RAISES = "raises"  # an approve with nobody to ask


def bash(command: str) -> dict:
    return {"type": "tool_use", "id": "toolu_01", "name": "bash", "input": {"command": command}}


class Decision:
    """What the student's function decided, and whether it asked."""

    def __init__(self, verdict, asked: bool):
        self.verdict, self.asked = verdict, asked

    def __str__(self) -> str:
        if self.verdict is not None and not isinstance(self.verdict, str):
            if self.asked:
                return tr("returned {value} (return None to allow, or a reason string to refuse) after asking",
                          value=repr(self.verdict))
            return tr("returned {value} (return None to allow, or a reason string to refuse) without asking",
                      value=repr(self.verdict))
        return outcome(self.verdict is None, self.asked)


def outcome(runs: bool, asked: bool) -> str:
    """What happened to the call, as one phrase. Example: outcome(True, False) -> 'ran without asking'"""
    if runs:
        return tr("ran after asking") if asked else tr("ran without asking")
    return tr("was refused after asking") if asked else tr("was refused without asking")


def decide(fn, env=None):
    """The student's fn as the cases call it: (call, answer) -> Decision.

    answer: what approve(call) returns (True, False, "no", ...), or RAISES for an
    approve that raises EOFError, like input() with no terminal.
    """
    def run(call, answer):
        asked = []

        def approve(c):
            asked.append(c)
            if answer == RAISES:
                raise EOFError("no terminal to ask on")
            return answer
        verdict = fn(call, approve)
        return Decision(verdict, bool(asked))
    return run


def expect(runs: bool, asked: bool):
    """A verdict: the call ran (or was refused), after asking (or without)."""
    want = outcome(runs, asked)

    def verdict(got: Decision) -> str | None:
        ok = isinstance(got.verdict, str) or got.verdict is None
        if ok and (got.verdict is None) == runs and got.asked == asked:
            return None
        return tr("{got}; expected: {want}", got=got, want=want)
    return verdict


def cases(env=None) -> list[Case]:
    return [
        Case("`ls -la`", (bash("ls -la"), False), expect(runs=True, asked=False),
             why="nothing destructive: nobody needs to be asked"),
        Case("`echo perform` (a word that contains rm)", (bash("echo perform"), False),
             expect(runs=True, asked=False),
             why="match rm as a whole word, e.g. a regex with \\b, not as letters inside another word"),
        Case("`cat sudoers.txt` (a file named like a deny rule)", (bash("cat sudoers.txt"), False),
             expect(runs=True, asked=False),
             why="sudo is a command, not five letters: match it where a command starts"),
        Case("`rm -r build`, the user says yes", (bash("rm -r build"), True), expect(runs=True, asked=True),
             why="destructive commands run when the user approves"),
        Case("`rm -r build`, the user says no", (bash("rm -r build"), False),
             expect(runs=False, asked=True), why="and do not run when the user refuses"),
        Case("`sudo ls`", (bash("sudo ls"), True), expect(runs=False, asked=False),
             why="deny-list commands are never run, and nobody is asked"),
        Case("`rm -fr /` (the disk, spelled another way)", (bash("rm -fr /"), True),
             expect(runs=False, asked=False),
             why="a deny rule must catch the command, not one spelling of it"),
        Case("`mv a.py b.py`, approve returns 'no'", (bash("mv a.py b.py"), "no"),
             expect(runs=False, asked=True),
             why="only True is a yes: the string 'no' is truthy"),
        Case("`rm x.py` with nobody to ask (approve raises)", (bash("rm x.py"), RAISES),
             expect(runs=False, asked=True),
             why="with nobody to ask, as in a notebook or CI, the answer is no: fail closed"),
        Case("write_file (not a bash call)",
             ({"type": "tool_use", "id": "toolu_02", "name": "write_file",
               "input": {"path": "rm.txt", "content": "sudo rm -rf /"}}, False),
             expect(runs=True, asked=False),
             why="the rules are for shell commands; s02 keeps the file tools in the workspace"),
    ]


# ---- plausible wrong answers ---------------------------------------------------------------

def substrings(call, approve):
    """The seed's permission_hook: substring tests, one spelling per rule, `if not approve(call)`."""
    command = call["input"].get("command", "")
    for pattern in ["rm -rf /", "sudo", "mkfs", "shutdown"]:
        if pattern in command:
            return "Permission denied by deny list"
    for kw in ["rm", "mv", "chmod"]:
        if kw in command and not approve(call):
            return "Permission denied by user"
    return None


def destructive_first(call, approve):
    """The right rules, checked in the wrong order: a yes lets a deny-list command through."""
    command = (call.get("input") or {}).get("command") if call["name"] == "bash" else None
    if command is None:
        return None
    if first_match(command, DESTRUCTIVE):
        return None if approve(call) is True else "not approved"
    return "denied" if first_match(command, DENY_LIST) else None


def truthy_approval(call, approve):
    """Regex rules, but any truthy answer is a yes and a failing approve escapes."""
    command = (call.get("input") or {}).get("command") if call["name"] == "bash" else None
    if command is None or first_match(command, DENY_LIST):
        return None if command is None else "denied"
    if first_match(command, DESTRUCTIVE) and not approve(call):
        return "not approved"
    return None


def every_tool(call, approve):
    """Checks every tool's input as if it were a command."""
    text = call["input"].get("command") or " ".join(map(str, call["input"].values()))
    return check_permission({"name": "bash", "input": {"command": text}}, approve)


def booleans(call, approve):
    """Returns True/False instead of None/a reason."""
    return check_permission(call, approve) is None


def asks_for_everything(call, approve):
    """Asks the user about every bash command, destructive or not."""
    if call["name"] != "bash":
        return None
    command = call["input"].get("command", "")
    if first_match(command, DENY_LIST):
        return "denied"
    try:
        return None if approve(call) is True else "not approved"
    except Exception:  # noqa: BLE001
        return "could not ask"


MISTAKES = (
    Mistake("the seed: substrings, `if not approve(call)`", substrings,
            "`echo perform` (a word that contains rm): was refused after asking; expected: ran without asking"),
    Mistake("destructive rules before the deny list", destructive_first,
            "ran after asking; expected: was refused without asking"),
    Mistake("any truthy answer is a yes; approve's error escapes", truthy_approval,
            "raised EOFError: no terminal to ask on"),
    Mistake("checks the file tools' inputs as commands", every_tool,
            "write_file (not a bash call): was refused"),
    Mistake("returns True/False instead of None/a reason", booleans,
            "returned True (return None to allow, or a reason string to refuse)"),
    Mistake("asks about every command", asks_for_everything,
            "`ls -la`: was refused after asking; expected: ran without asking"),
)

HINTS = (
    "Three outcomes, in this order: deny-list commands are refused without asking; destructive ones "
    "ask approve(call) and run only on an answer that is exactly True; everything else runs. "
    "Only bash calls have a command.",
    "Match whole words with regexes (re.search(r'\\brm\\b', command)), and write each deny rule so that "
    "it catches every spelling (rm -rf / and rm -fr /). DENY_LIST and DESTRUCTIVE in s03_permissions "
    "hold (pattern, reason) pairs, and first_match(command, rules) finds the first one.",
    "if call['name'] != 'bash': return None. If first_match(command, DENY_LIST): return a reason. If "
    "first_match(command, DESTRUCTIVE): try: ok = approve(call) is True; except Exception: ok = False; "
    "return None if ok else a reason. Otherwise return None.",
)

exercise = Exercise(name="check_permission", task=TASK, starter=STARTER, reference=check_permission,
                    cases=cases, adapt=decide, hints=HINTS, mistakes=MISTAKES)
