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

The parts, one idea each:

    decide.py     how a case runs the function: a recording approve, the Decision it made
    cases.py      the cases (compound commands, substitutions, redirects, pipes into an interpreter among
                  them) and the verdict each gives a decision
    explain.py    why a decision is wrong, from what the command is and what the function did
    mistakes.py   plausible wrong answers (the seed's among them), each with what its report says

Example: exercise.check(substrings) -> ✗ check_permission: 9/26 cases pass
  ✗ `echo perform` (a word that contains rm): was refused after asking; expected: ran without
    asking: rm is only letters inside 'perform' here, not a command: match rules as whole words, ...
  ...
  ✗ `mv a.py b.py`, approve returns 'no': ran after asking; expected: was refused after asking:
    approve(call) returned 'no': only True is a yes, and a non-empty string is truthy

Reference: s03_permissions.check_permission.
"""

from __future__ import annotations

from s03_permissions import check_permission

from .. import Exercise
from .cases import case, cases, expect
from .decide import RAISES, Decision, bash, decide, outcome
from .explain import LOOKALIKES, explain, lookalike
from .mistakes import (
    MISTAKES,
    asks_first,
    asks_for_everything,
    booleans,
    deny_words,
    destructive_words,
    every_tool,
    first_word,
    metacharacters,
    no_process_substitution,
    substrings,
    trusts_quotes,
    truthy_approval,
    verdict_is_truthy,
)

__all__ = ["HINTS", "LOOKALIKES", "MISTAKES", "RAISES", "STARTER", "TASK", "Decision", "asks_first",
           "asks_for_everything", "bash", "booleans", "case", "cases", "decide", "deny_words",
           "destructive_words", "every_tool", "exercise", "first_word", "expect", "explain", "lookalike",
           "metacharacters", "no_process_substitution", "outcome", "substrings", "truthy_approval", "trusts_quotes",
           "verdict_is_truthy"]

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
