"""What a tool call did and what its result says, read back from an event.

    call  {"name": "bash", "input": {"command": "cat a.py"}}  ──> call_command "cat a.py", call_path "a.py",
                                                                 call_verb "read", call_target "cat a.py"
    result "a.py\nsrc/"                                        ──> listing "2 entries: a.py, src/"
    result "Traceback ...\nKeyError: x"                        ──> error_line "KeyError: x"
    a file's text "def f():\n  pass"                          ──> describe "2 lines, defines f"

Example: call_verb(Event("assistant", "call", tool="read_file", input={"path": "a.py"})) -> "read"

Not modeled: shell commands other than the simple ones the policy writes (their path is "").
"""

from __future__ import annotations

import re
import shlex

from lessonkit.base.readonly import is_read_only
from lessonkit.i18n import tr

from .reading import Event

PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "notebook_path", "dir", "directory")
COMMAND_KEYS = ("command", "cmd", "script")
ERROR_LINE = re.compile(r"(Traceback|Error\b|Exception\b|error:|ERROR|FAILED|failed|No such file|"
                        r"not found|denied|refused|exit code [1-9]|\[exit_code: [1-9])")
DEFINES = re.compile(r"^\s*(?:export\s+)?(?:async\s+)?(?:def|class|function|fn|func|fun)\s+([A-Za-z_]\w*)",
                     re.MULTILINE)


def call_path(call: Event) -> str:
    """The file path a tool call works on, if it names one.

    Shell commands count when they are the simple ones the policy writes:
    `cat x`, `ls -la x`, `... printf ... > x`, `python3 -c <edit script> x old new`.
    """
    for key in PATH_KEYS:
        value = call.input.get(key)
        if isinstance(value, str) and value:
            return value
    command = call_command(call)
    if not command or "\n" in command:
        return ""
    try:
        argv = shlex.split(command)
    except ValueError:
        return ""
    if len(argv) == 2 and argv[0] in ("cat", "head", "tail"):
        return argv[1]
    if argv and argv[0] == "ls":
        return next((a for a in argv[1:] if not a.startswith("-")), "")
    if len(argv) >= 2 and argv[-2] == ">" and "printf" in argv:
        return argv[-1]
    if len(argv) == 6 and argv[0].startswith("python") and argv[1] == "-c" and "write_text" in argv[2]:
        return argv[3]
    return ""


def call_command(call: Event) -> str:
    """The shell command a tool call runs, if it is one."""
    for key in COMMAND_KEYS:
        value = call.input.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def call_target(call: Event) -> str:
    """What a call works on, for a report: its command, path or pattern (else its tool name)."""
    pattern = call.input.get("pattern")
    return call_command(call) or call_path(call) or (pattern if isinstance(pattern, str) else "") or call.tool


VERBS = (("read", "read"), ("view", "read"), ("cat", "read"), ("write", "written"),
         ("create", "written"), ("edit", "edited"), ("patch", "edited"), ("replace", "edited"),
         ("list", "listed"), ("ls", "listed"), ("glob", "listed"), ("grep", "searched"))
_SHELL_VERBS = ((r"(cat|head|tail|less|more)\b", "read"), (r"(ls|find|tree)\b", "listed"),
                (r"(grep|rg)\b", "searched"), (r"(sed -i|python3? -c .*write_text)", "edited"),
                (r"(mkdir -p \S+ && )?printf .*> ", "written"))


def call_verb(call: Event) -> str:
    """What a call did to its path: read, written, edited, listed, searched (or 'used by <tool>')."""
    command = call_command(call)
    if command:
        for pattern, verb in _SHELL_VERBS:
            if re.match(r"\s*" + pattern, command):
                # a listing only reads: `find . -delete` ran (s03's classifier, lessonkit/base/readonly.py)
                return verb if verb != "listed" or is_read_only(command) else "ran"
        return "ran"
    name = call.tool.lower()
    return next((verb for key, verb in VERBS if key in name), f"used by {call.tool}")


# One `ls -l` entry (mode, links, owner, group, size, month day time-or-year, name), on its own
# line or inside a listing folded onto one line.
LS_LONG = re.compile(r"(?<!\S)[-dlcbps][-rwxsStT]{9}[@+.]?\s+\d+\s+\S+\s+\S+\s+[\d,]+\s+"
                     r"\w{3}\s+\d{1,2}\s+[\d:]{4,5}\s+(\S+)")
MODE = re.compile(r"[-dlcbps][-rwxsStT]{9}[@+.]?\s")


def listing_names(text: str) -> list[str]:
    """The entries a listing names: `ls -l` lines' names, else one name per line; a listing
    folded onto one line (the s08 summary prompt's `[Tool Results: a.py b.py]`) names each word.
    Notes such as "(empty directory)" or "[... 3 more entries not shown]" are not entries.
    Example: 'a.py\nsrc/' -> ['a.py', 'src/']; '. .. a.py b.py' (`ls -a`, folded) -> ['a.py', 'b.py']
    """
    names = LS_LONG.findall(text)
    if not names:
        lines = [ln.strip() for ln in text.splitlines()
                 if ln.strip() and not ln.strip().startswith(("total ", "[", "("))]
        if len(lines) == 1 and not MODE.match(lines[0]):
            names = lines[0].split()
        else:  # other long formats: the last word
            names = [ln.split()[-1] if MODE.match(ln) else ln for ln in lines]
    return [name for name in names if name not in (".", "..")]


def listing(text: str, limit: int = 50, language: str = "en") -> str:
    """A folder listing in one line. Example: 'a.py\nsrc/' -> '2 entries: a.py, src/' ('2 项：a.py, src/' in zh)"""
    names = listing_names(text)
    more = tr(" (+{n} more)", language=language, n=len(names) - limit) if len(names) > limit else ""
    if language == "en":
        return f"{len(names)} entr{'y' if len(names) == 1 else 'ies'}: {', '.join(names[:limit])}{more}"
    return tr("{n} entries: {names}{more}", language=language, n=len(names), names=", ".join(names[:limit]),
              more=more)


def error_line(text: str) -> str:
    """The line that says what went wrong. Example: 'Traceback ...\nKeyError: x' -> 'KeyError: x'"""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    raised = [ln for ln in lines if re.match(r"^[\w.]*(Error|Exception|Failure|Interrupt)\b", ln)]
    if raised:
        return raised[-1]
    hits = [ln for ln in lines if ERROR_LINE.search(ln) and not ln.startswith("Traceback")]
    return hits[0] if hits else (lines[0] if lines else "")


def describe(text: str, language: str = "en") -> str:
    """A one-line description of a file or an output. Example: 'def f():\\n  pass' -> '2 lines, defines f'"""
    lines = len(text.splitlines())
    unit = tr("line", language=language) if lines == 1 else tr("lines", language=language)
    names = list(dict.fromkeys(DEFINES.findall(text)))
    if names:
        more = tr(" (+{n} more)", language=language, n=len(names) - 6) if len(names) > 6 else ""
        return tr("{lines} {unit}, defines {names}{more}", language=language, lines=lines, unit=unit,
                  names=", ".join(names[:6]), more=more)
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if not first:
        return tr("empty", language=language)
    return tr("{lines} {unit}: {first}", language=language, lines=lines, unit=unit,
              first=first[:80] + ("…" if len(first) > 80 else ""))
