"""s02 exercise 2 (build): a new tool, find_text: the handler the agent runs when the model calls it.

    FIND_TEXT = Tool("find_text", description, input_schema, find_text)   the definition (given: what
      the model reads, and a schema whose `required` makes the registry refuse a call without `text`)
    find_text(workspace, text, path=".")  (the student writes it) every line of the UTF-8 files under
      `path` (a folder or one file, inside the workspace) that contains `text`, as "src/b.py:3: the line"
        - names relative to the workspace, lines counted from 1, files in sorted order
        - a path outside the workspace, or a file reached through a symlink out of it: refused or
          skipped (s02's resolve_in decides), never read
        - a binary (not UTF-8) file is skipped; no match says so in words; at most MAX_HITS lines,
          then one line saying how many more

Each case runs the student's function the way the agent runs a tool: as the handler of FIND_TEXT's
definition, registered in a real s02 agent's registry beside the file tools, called through
`agent.run_tool(tool_use block)` in a workspace made for the check (a symlink out of it, a binary
file, a big file), so a handler that raises or a result that leaks a path shows as the tool_result
the model would read. The verdict says what the result got wrong, from the result.

The starter is a plausible first try: Path(workspace) / path (no sandbox), rglob and read_text
(symlinks followed, binary files crash it), enumerate from 0, absolute file names, "" when nothing
matches, and no cap.

Example: tool_exercise.check(find_text) -> ✓ find_text: 11/11 cases pass

Reference: find_text below (there is no find_text in s02: the student adds it).
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from pathlib import Path

import s02_tools  # find_text calls s02_tools.resolve_in: its import never rebinds a student's own resolve_in
from lessonkit.i18n import tr
from s01_loop import ToolError
from s02_tools import Tool, resolve_in

from .. import Case, Exercise, Mistake
from ..checks import translated

MAX_HITS = 100  # lines a find_text result holds at most: the rest is counted, not sent
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # the API's rule for a tool's name
EMPTY = "(no output)"  # what s01's run_tool sends for an empty output
PYTHON_ERROR = re.compile(r"^[A-Z]\w*(?:Error|Exception): ")  # how run_tool shows an exception that is not ToolError


def find_text(workspace, text: str, path: str = ".") -> str:
    """Every line of the UTF-8 files under `path` that contains `text`, as 'file:line: the line'.

    Example: find_text(ws, "TODO") -> "a.py:1: x = 1  # TODO: name\\nsrc/b.py:1: # TODO fix"
    """
    root, top = Path(workspace).resolve(), s02_tools.resolve_in(workspace, path)  # inside, or ToolError
    if not top.exists():
        raise ToolError(f"find_text: {path} does not exist")
    hits = []
    for file in sorted([top] if top.is_file() else top.rglob("*")):
        try:
            real = s02_tools.resolve_in(workspace, str(file))  # a symlink out of the workspace is never read
            lines = real.read_text(encoding="utf-8").splitlines() if real.is_file() else []
        except (ToolError, UnicodeDecodeError, OSError):
            continue  # outside the workspace, binary, or unreadable: skipped
        name = file.relative_to(root).as_posix()  # as the model names it for read_file
        hits += [f"{name}:{n}: {line}" for n, line in enumerate(lines, 1) if text in line]
    if not hits:
        return f"no line under {path} contains {text!r}"
    more = len(hits) - MAX_HITS
    return "\n".join(hits[:MAX_HITS]) + (f"\n... and {more} more lines" if more > 0 else "")


FIND_TEXT = Tool(
    "find_text",
    "Find the lines of the workspace's text files that contain a text. Returns 'file:line: the line' for "
    "each, files in sorted order. Use it to find where something is mentioned before reading whole files.",
    {"type": "object", "additionalProperties": False, "required": ["text"],
     "properties": {"text": {"type": "string", "description": "the exact text to find (case matters)"},
                    "path": {"type": "string", "description": "a folder or a file to search in (default: .)"}}},
    find_text)

STARTER = '''\
from pathlib import Path


def find_text(workspace, text, path="."):
    """Lines of the files under `path` that contain `text`, as 'file:line: the line'."""
    hits = []
    for file in sorted((Path(workspace) / path).rglob("*")):
        if file.is_file():
            for n, line in enumerate(file.read_text().splitlines()):
                if text in line:
                    hits.append(f"{file}:{n}: {line}")
    return "\\n".join(hits)
'''

TASK = """Build a tool's handler: find_text(workspace, text, path=".") returns every line of the UTF-8
files under `path` (a folder or a file, inside the workspace) that contains `text`, as
"src/b.py:3: the line": names relative to the workspace, lines counted from 1, files sorted.
A path outside the workspace raises ToolError; a file reached through a symlink out of it, or a
binary file, is skipped; no match says so in words; at most 100 lines, then "... and N more lines"."""


@contextlib.contextmanager
def check_box():
    """A workspace for the check, and an s02 agent in it (its run_tool is how the model's call runs).

        <tmp>/outside.txt           "TODO: a secret outside the workspace"
        <tmp>/ws/a.py               x = 1  # TODO: name
        <tmp>/ws/src/b.py           # TODO fix / ok
        <tmp>/ws/notes.md           todo, lower case (case matters)
        <tmp>/ws/data.bin           bytes that are not UTF-8, with TODO in them
        <tmp>/ws/link.txt -> ../outside.txt
        <tmp>/ws/big/log.txt        250 lines with TODO
    """
    from offline import OfflineModel, offline_client
    from s02_tools import Agent

    with tempfile.TemporaryDirectory(prefix="lk-s02-tool-") as tmp:
        top = Path(tmp).resolve()
        ws = top / "ws"
        (ws / "src").mkdir(parents=True)
        (ws / "big").mkdir()
        (top / "outside.txt").write_text("TODO: a secret outside the workspace\n", encoding="utf-8")
        (ws / "a.py").write_text("x = 1  # TODO: name\nprint(x)\n", encoding="utf-8")
        (ws / "src" / "b.py").write_text("# TODO fix\nok\n", encoding="utf-8")
        (ws / "notes.md").write_text("nothing todo here\n", encoding="utf-8")
        (ws / "data.bin").write_bytes(b"\x89PNG\xff\xfeTODO\x00\x01")
        (ws / "link.txt").symlink_to(top / "outside.txt")
        (ws / "big" / "log.txt").write_text("".join(f"step {i}: TODO later\n" for i in range(250)),
                                            encoding="utf-8")
        yield Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws)


class Result:
    """The tool_result the model reads: its text, and whether it is an error."""

    def __init__(self, text: str, is_error: bool = False):
        self.text, self.is_error = text, is_error


def run_with(fn, agent):
    """The student's handler as the cases call it: a tool input -> the Result the model reads, the call run
    by the agent through FIND_TEXT's definition with fn as its handler."""
    tool = Tool(FIND_TEXT.name, FIND_TEXT.description, FIND_TEXT.input_schema, fn)

    def run(tool_input):
        registry = agent.registry
        if tool.name in registry:
            registry.remove(tool.name)
        registry.add(tool)
        block = agent.run_tool({"type": "tool_use", "id": "toolu_check", "name": tool.name, "input": tool_input})
        content = block.get("content")
        text = content if isinstance(content, str) else "".join(
            b.get("text", "") for b in content or [] if isinstance(b, dict))
        return Result(text.replace(str(agent.workspace.parent), "<tmp>"), bool(block.get("is_error")))
    return run


def lines_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def why_lines(got: list[str], want: list[str]) -> str:
    """Why the lines found are not the lines expected, from how they differ. Empty when unsure."""
    if any(line.startswith(("/", "<tmp>")) for line in got):
        return tr("name each file relative to the workspace, as the model names it for read_file "
                  "(src/b.py), not by its full path: the full path also shows where the workspace is")
    shifted = [re.sub(r":(\d+):", lambda m: f":{int(m.group(1)) + 1}:", line, count=1) for line in got]
    if shifted == want:
        return tr("the line numbers are one too small: count lines from 1, as editors and `sed -n` do "
                  "(enumerate(lines, 1))")
    if any("secret outside" in line for line in got):
        return tr("link.txt is a symlink to a file outside the workspace, and its line was read: check each "
                  "file with resolve_in and skip the ones it refuses")
    names = [line.split(":", 1)[0] for line in got]
    if names and all("/" not in n for n in names) and any("/" in w.split(":", 1)[0] for w in want):
        return tr("src/b.py is named by its file name alone: name each file by its path relative to the workspace "
                  "(two folders may hold files of one name, and read_file needs the path)")
    if sorted(got) == sorted(want):
        return tr("the right lines in another order: sort the files, and keep each file's lines in order")
    return ""


def found(*want: str):
    """A verdict: the result lists exactly these lines."""
    def verdict(got: Result) -> str | None:
        if got.is_error:
            problem = tr("the model read an error: {text}", text=_error(got.text))
            if "UnicodeDecodeError" in got.text:
                return tr("{problem}: data.bin is not UTF-8 text: skip a file read_text cannot decode "
                          "(catch UnicodeDecodeError)", problem=problem)
            return problem
        lines = lines_of(got.text)
        if lines == list(want):
            return None
        problem = tr("the result has {got}, expected {want}", got=_short(" | ".join(lines)),
                     want=_short(" | ".join(want)))
        why = why_lines(lines, list(want))
        return tr("{problem}: {hint}", problem=problem, hint=why) if why else problem
    return verdict


def refused(why: str):
    """A verdict: the call is refused (an error result the model reads), with nothing read."""
    def verdict(got: Result) -> str | None:
        if got.is_error and not PYTHON_ERROR.match(got.text):
            return None
        if got.is_error:  # a Python exception, not a ToolError: a bug the model cannot act on
            return tr("the model read {text}: {why}", text=_error(got.text), why=translated(why))
        return tr("the result is {got}, expected an error result: {why}", got=_short(got.text), why=translated(why))
    return verdict


def says_none(got: Result) -> str | None:
    """A verdict: no line matches, and the result says so in words."""
    if got.is_error:
        return tr("the model read an error: {text}: finding nothing is an answer, not a failure", text=_error(got.text))
    if not got.text.strip() or got.text.strip() == EMPTY:
        return tr("the result is empty (the model reads {empty}): it cannot tell 'nothing found' from a tool that "
                  "printed nothing: say that no line contains the text", empty=repr(EMPTY))
    if lines_of(got.text) and ":" in lines_of(got.text)[0] and "secret" in got.text:
        return tr("the result has {got}: link.txt is a symlink out of the workspace: check each file with "
                  "resolve_in and skip the ones it refuses", got=_short(got.text))
    if re.match(r"^[\w./-]+:\d+: ", got.text):
        return tr("the result has {got}, where no line contains the text as it was given: the search is for the "
                  "exact text (case matters: 'todo' is not 'TODO')", got=_short(got.text))
    return None


def capped(got: Result) -> str | None:
    """A verdict: 250 matching lines come back as MAX_HITS lines and one that counts the rest."""
    if got.is_error:
        return tr("the model read an error: {text}", text=_error(got.text))
    lines = lines_of(got.text)
    hits = [line for line in lines if "log.txt:" in line]
    if len(hits) > MAX_HITS:
        return tr("the result has all {n} matching lines: every one goes into the context; send the first "
                  "{max} and say how many more there are", n=len(hits), max=MAX_HITS)
    if len(hits) < MAX_HITS or not re.search(r"\b150\b", lines[-1] if lines else ""):
        return tr("the result has {n} lines and ends {last}, expected the first {max} and a line saying 150 more",
                  n=len(hits), last=_short(lines[-1] if lines else ""), max=MAX_HITS)
    return None


def _error(text: str) -> str:
    """An error result as a report names it: an exception by its type (its words are Python's), a
    ToolError's message cut short. Example: "UnicodeDecodeError: 'utf-8' codec ..." -> "UnicodeDecodeError" """
    return text.split(":", 1)[0] if PYTHON_ERROR.match(text) else _short(text[:80])


def _short(text: str) -> str:
    text = repr(text)
    return text if len(text) <= 90 else text[:89] + "…"


def cases(agent=None) -> list[Case]:
    """No case carries a fixed `why` for a wrong list of lines: why_lines says it from the lines."""
    return [
        Case("every line that mentions # TODO", ({"text": "# TODO", "path": "."},),
             found("a.py:1: x = 1  # TODO: name", "src/b.py:1: # TODO fix")),
        Case("only under src", ({"text": "TODO", "path": "src"},), found("src/b.py:1: # TODO fix")),
        Case("one file", ({"text": "x", "path": "a.py"},), found("a.py:1: x = 1  # TODO: name", "a.py:2: print(x)")),
        Case("a path outside the workspace", ({"text": "TODO", "path": ".."},),
             refused("`..` leads out of the workspace: resolve_in(workspace, path) refuses it")),
        Case("a folder that does not exist", ({"text": "TODO", "path": "nope"},),
             refused("there is no folder nope: say so, so the model can look for the right one")),
        Case("a symlink to a file outside", ({"text": "secret"},), says_none),
        Case("no line mentions it", ({"text": "nothing-here"},), says_none),
        Case("case matters", ({"text": "TODO", "path": "notes.md"},), says_none),
        Case("250 matching lines", ({"text": "TODO later", "path": "big"},), capped),
    ]


# ---- plausible wrong answers ---------------------------------------------------------------

def _walk(workspace, text, path, *, name, start=1, follow=False, skip_binary=True, cap=True, empty=False,
          sandbox=True):
    """The reference's walk with one slip switched on (each flag names one)."""
    top = resolve_in(workspace, path) if sandbox else (Path(workspace) / path).resolve()
    if not top.exists():
        raise ToolError(f"find_text: {path} does not exist")
    hits = []
    for file in sorted([top] if top.is_file() else top.rglob("*")):
        if not file.is_file():
            continue
        if not follow:
            try:
                resolve_in(workspace, str(file))
            except ToolError:
                continue
        try:
            lines = file.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            if not skip_binary:
                raise
            continue
        hits += [f"{name(file)}:{n}: {line}" for n, line in enumerate(lines, start) if text in line]
    if not hits:
        return "" if empty else f"no line under {path} contains {text!r}"
    more = len(hits) - MAX_HITS
    return "\n".join(hits[:MAX_HITS] if cap else hits) + (f"\n... and {more} more lines" if cap and more > 0 else "")


def _name(workspace):
    import os

    root = Path(workspace).resolve()
    return lambda file: Path(os.path.relpath(file, root)).as_posix()


def joins_the_path(workspace, text, path="."):
    """Right in every way but the sandbox: Path(workspace) / path, so '..' reads outside."""
    return _walk(workspace, text, path, name=_name(workspace), sandbox=False, follow=True)


def follows_links(workspace, text, path="."):
    """Checks the folder, but reads every file rglob finds: a symlink to a file outside too."""
    return _walk(workspace, text, path, name=_name(workspace), follow=True)


def reads_binary(workspace, text, path="."):
    """Reads every file as UTF-8: a binary file raises UnicodeDecodeError."""
    return _walk(workspace, text, path, name=_name(workspace), skip_binary=False)


def from_zero(workspace, text, path="."):
    """Counts lines with enumerate(lines): from 0."""
    return _walk(workspace, text, path, name=_name(workspace), start=0)


def full_paths(workspace, text, path="."):
    """Names each file by its full path."""
    return _walk(workspace, text, path, name=str)


def silent_when_none(workspace, text, path="."):
    """Returns "" when no line matches."""
    return _walk(workspace, text, path, name=_name(workspace), empty=True)


def no_cap(workspace, text, path="."):
    """Returns every matching line, however many."""
    return _walk(workspace, text, path, name=_name(workspace), cap=False)


MISTAKES = (
    Mistake("no sandbox: Path(workspace) / path", joins_the_path, "`..` leads out of the workspace"),
    Mistake("a symlink to a file outside is read", follows_links, "link.txt is a symlink"),
    Mistake("a binary file crashes it", reads_binary, "data.bin is not UTF-8 text"),
    Mistake("lines counted from 0", from_zero, "the line numbers are one too small"),
    Mistake("full paths", full_paths, "name each file relative to the workspace"),
    Mistake("nothing found is an empty result", silent_when_none, "the result is empty"),
    Mistake("no cap on the lines", no_cap, "send the first 100 and say how many more"),
)

HINTS = (
    "A tool is two things the model sees (a description that says when to use it, a schema that says "
    "what to pass) and one it does not (the handler). The handler runs on text the model wrote: the "
    "path, like read_file's, must stay inside the workspace, and every file it opens may be anything.",
    "top = resolve_in(workspace, path); for each file of sorted(top.rglob('*')) (or [top] for a file), check "
    "it with resolve_in too and skip a ToolError; read_text(encoding='utf-8') and skip a UnicodeDecodeError; "
    "enumerate(lines, 1); name it file.relative_to(Path(workspace).resolve()).",
    "No match: return a sentence that says so. More than 100 lines: the first 100 and "
    "f'... and {n} more lines'. A missing path: raise ToolError saying it does not exist.",
)



tool_exercise = Exercise(name="find_text", task=TASK, starter=STARTER, reference=find_text, cases=cases,
                         setup=check_box, adapt=run_with, hints=HINTS, mistakes=MISTAKES)
