"""s03 exercise: decide whether a tool call may run: deny list, read-only, or ask first.

    check_permission(call, approve) -> None            the call may run
                                    -> "reason ..."    it may not (the model reads the reason)

    bash `sudo ls`                   deny list     refused, and nobody is asked
    bash `ls`, `grep -n "sudo" f`    read-only     runs, nobody is asked (is_read_only(command))
    bash `sed -i …`, `rm -r build`   anything else approve(call) is asked: only True lets it run;
                                                   an approve that raises means no (fail closed)
    write_file …                                   not a bash call: allowed (s02 keeps it in the workspace)

The classifier is given (s03_permissions.is_read_only, a shell parser and an allow-list): the
exercise is the order of the three outcomes and what counts as a yes.

Each case runs the student's function with a recording `approve`, so the report says
both what happened and whether the user was asked, then why that is wrong, from what the
command is (by s03's own rules) and what the function did. Where one outcome has two
causes, the function is asked once more about another command to tell them apart:
"`rm -fr /`: ran after asking; expected: was refused without asking" goes on with "a deny
rule must catch the command, not one spelling of it" when the function refuses `rm -rf /`
without asking, and with "the deny list comes first" when it asks about that one too.

The starter is the seed's `permission_hook`: substring tests (`"rm" in "echo perform"`),
one spelling per deny rule, a list of destructive words (`sed -i` has none), and
`if not approve(call)` (the string "no" is a yes).

Reference: s03_permissions.check_permission.
"""

from __future__ import annotations

import re

from s03_permissions import DENY_LIST, check_permission, classify, first_match, is_read_only
from s03_permissions.review import SEED_DESTRUCTIVE

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
Deny-list commands are refused without asking; commands that only read
(is_read_only(command), from s03_permissions) run without asking; anything else
runs only if approve(call) returns True."""

RAISES = "raises"  # an approve with nobody to ask


def bash(command: str) -> dict:
    return {"type": "tool_use", "id": "toolu_01", "name": "bash", "input": {"command": command}}


class Decision:
    """What the student's function decided, whether it asked, and a way to ask it again about
    another command (`probe`), so that a report can tell one mistake from another."""

    def __init__(self, verdict, asked: bool, escaped: Exception | None = None, probe=None):
        self.verdict, self.asked, self.escaped, self.probe = verdict, asked, escaped, probe

    @property
    def runs(self) -> bool:
        return self.verdict is None and self.escaped is None

    def __str__(self) -> str:
        if self.escaped is not None:
            return tr("raised {error}: {message}", error=type(self.escaped).__name__, message=self.escaped)
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
    approve that raises EOFError, like input() with no terminal. That EOFError escaping
    the student's function is a Decision too (`escaped`); any other exception is the
    student's own and reaches check(), which reports it.
    """
    def run(call, answer):
        asked, nobody = [], EOFError("no terminal to ask on")

        def approve(c):
            asked.append(c)
            if answer == RAISES:
                raise nobody
            return answer
        try:
            verdict = fn(call, approve)
        except EOFError as exc:
            if exc is not nobody:
                raise
            return Decision(None, True, exc, probe)
        return Decision(verdict, bool(asked), probe=probe)

    def probe(command: str, answer=False):
        """The decision on another bash command, or None if that raised."""
        try:
            return run(bash(command), answer)
        except Exception:  # noqa: BLE001 -- a probe only adds to a report, it never fails a case
            return None
    return run


LOOKALIKES = ("rm", "mv", "chmod", "sudo", "mkfs", "shutdown")  # rule words a substring test finds inside others


def lookalike(command: str) -> tuple[str, str] | None:
    """A rule word found only as letters inside another word, and that word.
    Example: lookalike("echo perform") -> ("rm", "perform")"""
    for word in LOOKALIKES:
        if word in command and not re.search(rf"\b{word}\b", command):
            return word, next(w for w in re.findall(r"\S+", command) if word in w)
    return None


def explain(call: dict, answer, got: Decision, same_as: str | None) -> str:
    """Why `got` is wrong for this call, from what the command is (by s03's own rules), what approve
    answered, what the student's function did, and (where one outcome has two causes) what it does
    with another command. Empty when nothing sure can be said."""
    command = call["input"].get("command") if call["name"] == "bash" else None
    if got.escaped is not None:
        return tr("approve(call) raised it: with nobody to ask, as in a notebook or CI, the answer is no: "
                  "catch the exception and refuse (fail closed)")
    if not (got.verdict is None or isinstance(got.verdict, str)):
        return ""
    if command is None:
        return tr("{tool} is not a bash call: the rules are for shell commands (s02 keeps the file tools in "
                  "the workspace)", tool=call["name"])
    denied = first_match(command, DENY_LIST, commands_only=True)
    if denied:
        other = got.probe(same_as) if same_as else None
        if other is not None and not other.runs and not other.asked:
            return tr("`{command}` does what `{other}` does, which you refuse without asking: a deny rule must "
                      "catch the command, not one spelling of it", command=command, other=same_as)
        if not got.asked:
            return tr("`{command}` is on the deny list: refuse it", command=command)
        return tr("`{command}` is on the deny list: the deny list comes first, and a denied command is refused "
                  "before anyone is asked", command=command)
    verdict = classify(command)
    if not verdict.read_only:
        if not got.asked:
            if not got.runs:
                return tr("`{command}` is not on the deny list: ask approve(call), the user may say yes",
                          command=command)
            plain = got.probe("rm x.txt")
            if plain is not None and plain.runs and not plain.asked:
                return tr("it runs even `rm x.txt` without asking: is_read_only(command) (or "
                          "classify(command).read_only) tells what may run unasked; a Verdict itself is "
                          "always true")
            return tr("`{command}` is not known to only read ({reason}): a list of destructive words cannot "
                      "be complete: ask approve(call) about every command is_read_only does not clear",
                      command=command, reason=verdict.reason)
        if answer is True:
            return tr("approve(call) returned True: the user said yes, so it runs")
        if answer is False:
            return tr("approve(call) returned False: the user said no")
        if answer == RAISES:
            return tr("approve(call) raised EOFError: with nobody to ask, as in a notebook or CI, the answer is "
                      "no: fail closed")
        return tr("approve(call) returned {answer}: only True is a yes, and a non-empty string is truthy",
                  answer=repr(answer))
    # a command that only reads: it should run, without asking
    plain = got.probe("ls")
    if plain is not None and (plain.asked or not plain.runs):
        return (tr("it asks even about `ls`: ask only about commands that is_read_only(command) does not clear")
                if plain.asked else tr("it refuses even `ls`: refuse only what the deny list names"))
    word = lookalike(command)
    if word:
        return tr("{word} is only letters inside '{inside}' here, not a command: match rules as whole words, "
                  "e.g. a regex with \\b, where a command starts", word=word[0], inside=word[1])
    quoted = next((w for w in re.findall(r"[\w.-]+", command) if first_match(w, DENY_LIST, commands_only=True)),
                  None)  # a word the deny list refuses where a command starts, here inside an argument
    if quoted and not got.asked:
        return tr("{word} is only text inside an argument here, not a command: a deny rule matches where a "
                  "command starts, outside quotes: first_match(command, DENY_LIST, commands_only=True)",
                  word=quoted)
    return (tr("`{command}` only reads: nobody needs to be asked", command=command) if got.asked
            else tr("nothing in `{command}` is on the deny list", command=command))


def expect(call: dict, answer, runs: bool, asked: bool, *, same_as: str | None = None):
    """A verdict: the call ran (or was refused), after asking (or without); a wrong decision is explained
    (`same_as`: another spelling of the same command, probed to tell a missed spelling from a wrong order)."""
    want = outcome(runs, asked)

    def verdict(got: Decision) -> str | None:
        ok = isinstance(got.verdict, str) or got.verdict is None
        if ok and got.escaped is None and (got.verdict is None) == runs and got.asked == asked:
            return None
        problem = tr("{got}; expected: {want}", got=got, want=want)
        why = explain(call, answer, got, same_as)
        return tr("{problem}: {hint}", problem=problem, hint=why) if why else problem
    return verdict


def case(name: str, call: dict, answer, runs: bool, asked: bool, same_as: str | None = None) -> Case:
    """The case "check_permission(call, approve answering `answer`) runs/asks like this"."""
    return Case(name, (call, answer), expect(call, answer, runs, asked, same_as=same_as))


def cases(env=None) -> list[Case]:
    """No case carries a fixed `why`: `explain` says why the decision found is wrong."""
    write = {"type": "tool_use", "id": "toolu_02", "name": "write_file",
             "input": {"path": "rm.txt", "content": "sudo rm -rf /"}}
    return [
        case("`ls -la`", bash("ls -la"), False, runs=True, asked=False),
        case("`echo perform` (a word that contains rm)", bash("echo perform"), False, runs=True, asked=False),
        case("`cat sudoers.txt` (a file named like a deny rule)", bash("cat sudoers.txt"), False,
             runs=True, asked=False),
        case("`grep -n \"sudo rm\" notes.txt` (sudo in quotes)", bash('grep -n "sudo rm" notes.txt'), False,
             runs=True, asked=False),
        case("`sed -i 's/a/b/' notes.txt` (writes, with no destructive word)", bash("sed -i 's/a/b/' notes.txt"),
             False, runs=False, asked=True),
        case("`rm -r build`, the user says yes", bash("rm -r build"), True, runs=True, asked=True),
        case("`rm -r build`, the user says no", bash("rm -r build"), False, runs=False, asked=True),
        case("`sudo ls`", bash("sudo ls"), True, runs=False, asked=False),
        case("`rm -fr /` (the disk, spelled another way)", bash("rm -fr /"), True, runs=False, asked=False,
             same_as="rm -rf /"),
        case("`mv a.py b.py`, approve returns 'no'", bash("mv a.py b.py"), "no", runs=False, asked=True),
        case("`rm x.py` with nobody to ask (approve raises)", bash("rm x.py"), RAISES, runs=False, asked=True),
        case("write_file (not a bash call)", write, False, runs=True, asked=False),
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


def destructive_words(call, approve):
    """The deny list right, then the seed's destructive patterns instead of the read-only check."""
    command = (call.get("input") or {}).get("command") if call["name"] == "bash" else None
    if command is None:
        return None
    if first_match(command, DENY_LIST, commands_only=True):
        return "denied"
    if first_match(command, SEED_DESTRUCTIVE):
        try:
            return None if approve(call) is True else "not approved"
        except Exception:  # noqa: BLE001
            return "could not ask"
    return None


def asks_first(call, approve):
    """The right rules, checked in the wrong order: a yes lets a deny-list command through."""
    command = (call.get("input") or {}).get("command") if call["name"] == "bash" else None
    if command is None or is_read_only(command):
        return None
    try:
        if approve(call) is True:
            return None
    except Exception:  # noqa: BLE001
        return "could not ask"
    return "denied" if first_match(command, DENY_LIST, commands_only=True) else "not approved"


def truthy_approval(call, approve):
    """The right rules, but any truthy answer is a yes and a failing approve escapes."""
    command = (call.get("input") or {}).get("command") if call["name"] == "bash" else None
    if command is None or first_match(command, DENY_LIST, commands_only=True):
        return None if command is None else "denied"
    if not is_read_only(command) and not approve(call):
        return "not approved"
    return None


def verdict_is_truthy(call, approve):
    """Tests the Verdict itself (`if classify(command):`), which is always true: nothing ever asks."""
    command = (call.get("input") or {}).get("command") if call["name"] == "bash" else None
    if command is None or first_match(command, DENY_LIST, commands_only=True):
        return None if command is None else "denied"
    if classify(command):
        return None
    return None if approve(call) is True else "not approved"


def deny_words(call, approve):
    """A deny rule as a whole word anywhere (r'\bsudo\b'): it also refuses `grep "sudo rm"` (issue 24)."""
    command = (call.get("input") or {}).get("command") if call["name"] == "bash" else None
    if command is None:
        return None
    if re.search(r"\b(sudo|su|doas|mkfs|shutdown|reboot)\b", command):
        return "denied"
    return check_permission(call, approve)


def every_tool(call, approve):
    """Checks every tool's input as if it were a command."""
    text = call["input"].get("command") or " ".join(map(str, call["input"].values()))
    return check_permission({"name": "bash", "input": {"command": text}}, approve)


def booleans(call, approve):
    """Returns True/False instead of None/a reason."""
    return check_permission(call, approve) is None


def asks_for_everything(call, approve):
    """Asks the user about every bash command, read-only or not."""
    if call["name"] != "bash":
        return None
    command = call["input"].get("command", "")
    if first_match(command, DENY_LIST, commands_only=True):
        return "denied"
    try:
        return None if approve(call) is True else "not approved"
    except Exception:  # noqa: BLE001
        return "could not ask"


MISTAKES = (
    Mistake("the seed: substrings, `if not approve(call)`", substrings,
            "`echo perform` (a word that contains rm): was refused after asking; expected: ran without asking"),
    Mistake("a list of destructive patterns instead of the read-only check", destructive_words,
            "(writes, with no destructive word): ran without asking; expected: was refused after asking"),
    Mistake("asks before the deny list", asks_first, "ran after asking; expected: was refused without asking"),
    Mistake("any truthy answer is a yes; approve's error escapes", truthy_approval,
            "raised EOFError: no terminal to ask on"),
    Mistake("tests the Verdict, not its .read_only", verdict_is_truthy, "a Verdict itself is always true"),
    Mistake("a deny rule matches the word anywhere, also in quotes", deny_words,
            "(sudo in quotes): was refused without asking; expected: ran without asking"),
    Mistake("checks the file tools' inputs as commands", every_tool,
            "write_file (not a bash call): was refused"),
    Mistake("returns True/False instead of None/a reason", booleans,
            "returned True (return None to allow, or a reason string to refuse)"),
    Mistake("asks about every command", asks_for_everything,
            "was refused after asking; expected: ran without asking: it asks even about `ls`"),
)

HINTS = (
    "Three outcomes, in this order: deny-list commands are refused without asking; commands that only "
    "read run without asking; everything else asks approve(call) and runs only on an answer that is "
    "exactly True. Only bash calls have a command.",
    "s03_permissions gives you both checks: first_match(command, DENY_LIST, commands_only=True) matches a "
    "deny rule where a command starts (not `sudo` inside quotes, not `rm` inside 'perform'), and "
    "is_read_only(command) parses the command and tells whether every part of it only reads.",
    "if call['name'] != 'bash': return None. If first_match(command, DENY_LIST, commands_only=True): return "
    "a reason. If is_read_only(command): return None. try: ok = approve(call) is True; except Exception: "
    "ok = False; return None if ok else a reason.",
)

exercise = Exercise(name="check_permission", task=TASK, starter=STARTER, reference=check_permission,
                    cases=cases, adapt=decide, hints=HINTS, mistakes=MISTAKES)
