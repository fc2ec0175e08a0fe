"""Why a decision on one case is wrong, from what the command is by s03's own rules.

    explain(call, answer, got, same_as) -> str   one reason, or "" when nothing sure can be said

It reads the command (deny list, classify), what approve answered and what the student's
function did; where one outcome has two causes, it asks the function about another command
(`got.probe`): `rm x.txt` (does anything ask?), `ls` (does it ask or refuse everything?), or
`same_as`, another spelling of a denied command (a missed spelling, or the wrong order?).

Example: explain(bash("echo perform"), False, decide(substrings)(bash("echo perform"), False), None)
  -> "rm is only letters inside 'perform' here, not a command: match rules as whole words, e.g. a
      regex with \\b, where a command starts"
"""

from __future__ import annotations

import re

from lessonkit.i18n import tr
from s03_permissions import DENY_LIST, classify, first_match, mask_quotes

from .decide import RAISES, Decision

LOOKALIKES = ("rm", "mv", "chmod", "sudo", "mkfs", "shutdown")  # rule words a substring test finds inside others


def lookalike(command: str) -> tuple[str, str] | None:
    """A rule word found only as letters inside another word, and that word.
    Example: lookalike("echo perform") -> ("rm", "perform")"""
    for word in LOOKALIKES:
        if word in command and not re.search(rf"\b{word}\b", command):
            return word, next(w for w in re.findall(r"\S+", command) if word in w)
    return None


def one_line(text: str) -> str:
    """A command as the report shows it, on one line. Example: one_line("ls\\nrm x") -> 'ls\\\\nrm x'"""
    return text.replace("\n", "\\n")


def hidden(command: str) -> str:
    """What the shell runs or writes beyond the first word, by the part that does it, or "".
    Example: hidden("ls && rm -rf src") -> "`rm -rf src` after `&&` is a command too" """
    masked = mask_quotes(command)
    before = masked.split("\n", 1)[0]
    if (m := re.search(r"\n\s*(.+)", masked)) and not re.search(r"<<-?\s*\S+\s*$", before):  # not a here-doc's
        return tr("`{part}` after a new line is a command too", part=one_line(command[m.start(1):].strip()))
    if m := re.search(r"(&&|\|\||;|(?<![<>&|])&(?![&>]))\s*(.+)", masked):
        return tr("`{part}` after `{op}` is a command too", part=one_line(command[m.start(2):].strip()), op=m.group(1))
    if m := re.search(r"\|\s*(\w+)", masked):
        return tr("`| {program}` runs what it reads as a program", program=m.group(1))
    if m := re.search(r"<\([^)]*\)", masked):
        return tr("`{part}` runs first: bash runs it to make a file name", part=command[m.start():m.end()])
    if m := re.search(r"\$\([^)]*\)|`[^`]*`", masked):
        part = command[m.start():m.end()]
        if re.search(r"\"[^\"]*\$\(|<<", masked):  # inside double quotes or a here-doc: it runs all the same
            return tr("{part} runs first, inside the command: bash runs it inside double quotes and here-docs too",
                      part=f"`{part}`")
        return tr("{part} runs first, inside the command", part=part if part.startswith("`") else f"`{part}`")
    if m := re.search(r">>?\s*\S+", masked):
        return tr("`{part}` writes a file (the shell does it, before the program starts)",
                  part=command[m.start():m.end()])
    return ""


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
                      "catch the command, not one spelling of it", command=one_line(command), other=same_as)
        if not got.asked:
            return tr("`{command}` is on the deny list: refuse it", command=one_line(command))
        return tr("`{command}` is on the deny list: the deny list comes first, and a denied command is refused "
                  "before anyone is asked", command=one_line(command))
    verdict = classify(command)
    if not verdict.read_only:
        if not got.asked:
            if not got.runs:
                return tr("`{command}` is not on the deny list: ask approve(call), the user may say yes",
                          command=one_line(command))
            part = hidden(command)
            if part:  # a first-word check (`shlex.split(command)[0] in SAFE`) reads only the first command
                return tr("`{command}` starts with a command that only reads, but {part}: every part of the "
                          "line must only read: is_read_only(command) parses all of it", command=one_line(command),
                          part=part)
            plain = got.probe("rm x.txt")
            if plain is not None and plain.runs and not plain.asked:
                return tr("it runs even `rm x.txt` without asking: is_read_only(command) (or "
                          "classify(command).read_only) tells what may run unasked; a Verdict itself is "
                          "always true")
            return tr("`{command}` is not known to only read ({reason}): a list of destructive words cannot "
                      "be complete: ask approve(call) about every command is_read_only does not clear",
                      command=one_line(command), reason=verdict.reason)
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
    return (tr("`{command}` only reads: nobody needs to be asked", command=one_line(command)) if got.asked
            else tr("nothing in `{command}` is on the deny list", command=one_line(command)))
