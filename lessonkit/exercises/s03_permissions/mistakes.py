"""Plausible wrong answers to the s03 exercise, and what the check must say about each.

Each is a check_permission a student might write: the seed's substring tests, a list of destructive
words, the right rules in the wrong order, any truthy answer as a yes, and more. MISTAKES pairs
each with words its report must contain (tests/test_exercises.py runs them all).

Example: exercise.check(asks_first) -> ✗ ... `sudo ls`: ran after asking; expected: was refused
  without asking: `sudo ls` is on the deny list: the deny list comes first, ...
"""

from __future__ import annotations

import re
import shlex

from s03_permissions import DENY_LIST, check_permission, classify, first_match, is_read_only
from s03_permissions.seed_rules import SEED_DESTRUCTIVE

from .. import Mistake


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
    """A deny rule as a whole word anywhere (r'\bsudo\b'): it also refuses `grep "sudo rm"`."""
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


FIRST_WORDS = ("ls", "cat", "grep", "head", "tail", "wc", "echo", "pwd", "find", "git")


def first_word(call, approve):
    """The answer most people write first: the deny list, then a first-word allow-list over
    shlex.split. It reads `ls && rm -rf src` as `ls`, and `cat run.sh | bash` as `cat`."""
    command = (call.get("input") or {}).get("command") if call["name"] == "bash" else None
    if command is None:
        return None
    if first_match(command, DENY_LIST, commands_only=True):
        return "denied"
    try:
        words = shlex.split(command)
    except ValueError:
        words = []
    if words and words[0] in FIRST_WORDS and not (words[0] == "find" and "-exec" in words):
        return None
    try:
        return None if approve(call) is True else "not approved"
    except Exception:  # noqa: BLE001
        return "could not ask"


def _first_words_then_ask(call, approve, reads_only):
    """The deny list, then `reads_only(command)` for a run without asking, then approve."""
    command = (call.get("input") or {}).get("command") if call["name"] == "bash" else None
    if command is None:
        return None
    if first_match(command, DENY_LIST, commands_only=True):
        return "denied"
    if reads_only(command):
        return None
    try:
        return None if approve(call) is True else "not approved"
    except Exception:  # noqa: BLE001
        return "could not ask"


def _safe_first_words(text):
    """Each command's first word is on FIRST_WORDS, splitting on ; && || | & and new lines."""
    parts = [shlex.split(part, comments=True) for part in re.split(r"&&|\|\||[;|&\n]", text) if part.strip()]
    return all(words and words[0] in FIRST_WORDS for words in parts)


def metacharacters(call, approve):
    """A first-word allow-list plus a deny list of metacharacters: ; & | > ` and $ ask. It forgets a new line
    (a second command) and <( ) (a command run to make a file name)."""
    def reads_only(command):
        try:
            first = shlex.split(command)[:1]
        except ValueError:
            return False
        return first and first[0] in FIRST_WORDS and not any(ch in command for ch in ";&|>`$")
    return _first_words_then_ask(call, approve, reads_only)


def no_process_substitution(call, approve):
    """Every command's first word checked (split on ; && || | & and new lines), and $( ), backticks and >
    ask; it forgets <( ), a command bash runs to make a file name."""
    def reads_only(command):
        try:
            return _safe_first_words(command) and not re.search(r"\$\(|`|>", command)
        except ValueError:
            return False
    return _first_words_then_ask(call, approve, reads_only)


def trusts_quotes(call, approve):
    """The same, over the command with quoted text and here-doc bodies blanked out, as if they were only
    text: bash runs $( ) inside double quotes and in an unquoted here-doc."""
    def reads_only(command):
        text = re.sub(r"<<-?\s*(\w+)\n.*?\n\1(\n|$)", "<<here-doc\n", command, flags=re.S)
        text = re.sub(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"", "''", text)
        try:
            return _safe_first_words(text) and not re.search(r"\$\(|`|>|<\(", text)
        except ValueError:
            return False
    return _first_words_then_ask(call, approve, reads_only)


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
    Mistake("a first-word allow-list over shlex.split", first_word,
            "ran without asking; expected: was refused after asking: `ls && rm -rf src` starts with a command "
            "that only reads, but `rm -rf src` after `&&` is a command too"),
    Mistake("a first-word allow-list and a deny list of metacharacters", metacharacters,
            "`sed -i d notes.txt` after a new line is a command too"),
    Mistake("every command's first word, but not <( )", no_process_substitution,
            "`<(touch build.log)` runs first: bash runs it to make a file name"),
    Mistake("every command's first word, outside quotes and here-docs", trusts_quotes,
            "`$(touch x.txt)` runs first, inside the command: bash runs it inside double quotes and here-docs too"),
    Mistake("asks about every command", asks_for_everything,
            "was refused after asking; expected: ran without asking: it asks even about `ls`"),
)
