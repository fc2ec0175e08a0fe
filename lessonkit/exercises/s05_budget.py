"""s05 exercise: persist a big tool output to disk and give the context a preview.

    persist_large_output("toolu_1", output, directory=d, threshold=30_000, preview_chars=2_000)
      len(output) <= threshold  -> output itself (nothing written)
      longer                    -> d/<tool_use_id>.txt holds all of it, and the context gets:

        <persisted-output>
        Full output: d/toolu_1.txt (108,000 characters, 1,500 lines)
        Preview (first 1,944 characters):
        <at most preview_chars of its start, cut after a newline if one is near the end>
        ...
        </persisted-output>

Each call of the student's function gets a fresh box (a temporary folder) holding an
empty `results/`; the report names files relative to the box ("results/toolu_1.txt",
"escape.txt"), never the temporary folder.

Every hint comes from the failure itself, never from the case: a function that made
the folder but cut the preview wrong hears about the preview, not about the folder
("raised FileNotFoundError ...: create the folder first" only when that is what happened).

The starter is the seed's persist_large_output (seed 003) with the sizes as parameters:
the folder must already exist, the id is used as a file name as it is, the preview is
cut in the middle of a line, and a preview is persisted again.

Reference: s05_budget.persist_large_output.

2. `cache_exercise`: with_cache_breakpoint(messages), the request with one cache breakpoint
   (below). Reference: s05_budget.with_cache_breakpoint.
"""

from __future__ import annotations

import contextlib
import copy
import re
import tempfile
from pathlib import Path

from s05_budget import persist_large_output, persisted_path, preview, with_cache_breakpoint

from ..i18n import tr
from . import Case, Exercise, Mistake
from .checks import returned

STARTER = '''\
from pathlib import Path


def persist_large_output(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """`output` if it is short; else write it to directory/<tool_use_id>.txt and return a preview block."""
    if len(output) <= threshold:
        return output
    path = Path(directory) / f"{tool_use_id}.txt"
    path.write_text(output)
    return (
        f"<persisted-output>\\n"
        f"Full output: {path}\\n"
        f"Preview:\\n{output[:preview_chars]}\\n"
        f"</persisted-output>"
    )
'''

TASK = """Write persist_large_output(tool_use_id, output, *, directory, threshold=30_000,
preview_chars=2_000): an output of at most `threshold` characters comes back as it is;
a longer one is written whole to a file in `directory` (made if missing, named after the
id, never outside it) and replaced by a <persisted-output> block that names the file
and shows at most `preview_chars` of its start, cut after a newline when one is in the
last 20% of the preview. A block that already is such a preview is never persisted again."""

OPEN, CLOSE = "<persisted-output>", "</persisted-output>"
NEAR_LINE = 0.8
BIG = "".join(f"line {i:05d} " + "x" * 60 + "\n" for i in range(1_500))   # 108,000 characters
WIDE = "上下文压缩" * 20 + "\n"                                               # 100 characters a line
ALREADY = (f"{OPEN}\nFull output: results/toolu_0.txt (108,000 characters, 1,500 lines)\n"
           f"Preview (first 864 characters):\n{BIG[:864]}...\n{CLOSE}")        # 1,001 characters


@contextlib.contextmanager
def sandbox():
    """A temporary folder; each call of the student's function gets its own box in it."""
    with tempfile.TemporaryDirectory(prefix="lk-s05-") as tmp:
        yield Path(tmp).resolve()


class Outcome:
    """What the function returned (or raised), the files it wrote, relative to its box."""

    def __init__(self, returned=None, files=None, error: str | None = None, box: Path | None = None):
        self.returned, self.files, self.error, self.box = returned, files or {}, error, box


def run_with(fn, root: Path):
    """The student's fn as the cases call it: (tool_use_id, output, folder, threshold, preview) -> Outcome.
    `folder` is relative to a fresh box that holds an empty results/."""
    def run(tool_use_id, output, folder, threshold, preview_chars):
        box = Path(tempfile.mkdtemp(dir=root, prefix="box-"))
        (box / "results").mkdir()
        try:
            returned = fn(tool_use_id, output, directory=box / folder, threshold=threshold,
                          preview_chars=preview_chars)
        except Exception as exc:  # noqa: BLE001 -- reported without the temporary folder's name
            message = str(exc).splitlines()[0] if str(exc) else ""
            message = message.replace(f"{box}/", "").replace(str(box), ".")
            name = type(exc).__name__
            raised = (tr("raised {error}: {message}", error=name, message=message) if message
                      else tr("raised {error}", error=name))
            hint = error_hint(exc, box / folder)
            return Outcome(error=tr("{problem}: {hint}", problem=raised, hint=hint) if hint else raised)
        files = {p.relative_to(box).as_posix(): p.read_bytes() for p in sorted(box.rglob("*")) if p.is_file()}
        return Outcome(returned, files, box=box)
    return run


def error_hint(exc: Exception, directory: Path) -> str:
    """What an exception says about the code that raised it (empty when it says nothing sure).
    Example: FileNotFoundError while the folder is missing -> 'the folder does not exist yet ...: ...'"""
    if isinstance(exc, FileNotFoundError) and not directory.exists():
        return tr("the folder does not exist yet (the first big output of a session finds none): create "
                  "it first, parents too: Path(directory).mkdir(parents=True, exist_ok=True)")
    if isinstance(exc, (IsADirectoryError, NotADirectoryError, PermissionError)):
        return tr("the id is used as a path: make it a safe file name (letters, digits, _ . -)")
    if isinstance(exc, UnicodeError):
        return tr("write the file as UTF-8 (write_text(output, encoding='utf-8'))")
    return ""


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def kept(output: str, because: str | None = None):
    """A verdict: the output itself comes back, and nothing is written."""
    def verdict(got: Outcome) -> str | None:
        if got.error:
            return got.error
        if got.files:
            return tr("wrote {files}: {because}", files=", ".join(got.files), because=because or tr(
                "this output is not over the threshold, keep it in the context"))
        if got.returned != output:
            return tr("returned {got}, expected the output itself", got=_short(got.returned))
        return None
    return verdict


def preview_in(block: str, output: str, limit: int) -> tuple[str | None, str]:
    """The preview a block shows (the text after its "Preview" line), or None and why not.
    A newline the block adds after a preview cut mid-line is not part of it."""
    _, found, rest = block.partition("\nPreview")
    if not found or "\n" not in rest:
        return None, tr("the block has no 'Preview...' line followed by the preview")
    body = rest.split("\n", 1)[1].rsplit(CLOSE, 1)[0]
    for tail in ("...\n", "…\n"):
        if body.endswith(tail):
            body = body[:-len(tail)]
            break
    candidates = [c for c in (body, body[:-1] if body.endswith("\n") else None)
                  if c is not None and output.startswith(c)]
    if not candidates:
        return None, tr("the text after the 'Preview...' line is not the start of the output")
    return next((c for c in candidates if len(c) <= limit), candidates[0]), ""


def persisted(output: str, folder: str = "results", preview_chars: int = 2_000):
    """A verdict: one file in `folder` holds the whole output; the block names it and shows its start."""
    def verdict(got: Outcome) -> str | None:
        if got.error:
            return got.error
        if not got.files:
            return tr("wrote no file, returned {got}: an output over the threshold goes to disk",
                      got=_short(got.returned))
        outside = [name for name in got.files if Path(name).parent.as_posix() != folder]
        if outside:
            return tr("wrote {files}, outside {folder}/: the id comes from the model, make it "
                      "a safe file name (letters, digits, _ . -) so the file stays in the folder",
                      files=", ".join(outside), folder=folder)
        (name, data), *more = got.files.items()
        if more:
            return tr("wrote {n} files ({files}): one output is one file", n=len(got.files),
                      files=", ".join(got.files))
        if data != output.encode("utf-8"):
            return tr("{name} holds {n} bytes, not the output's {want} (as UTF-8): "
                      "write the whole output, as UTF-8 (write_text(output, encoding='utf-8'))",
                      name=name, n=f"{len(data):,}", want=f"{len(output.encode()):,}")
        if not isinstance(got.returned, str) or not got.returned.startswith(OPEN + "\n") \
                or not got.returned.rstrip().endswith(CLOSE):
            return tr("returned {got}: expected a block from '{open}' to '{close}'", got=_short(got.returned),
                      open=OPEN, close=CLOSE)
        named = persisted_path(got.returned)
        if named is None or (got.box / named).resolve() != (got.box / name).resolve():
            shown = named if named is None else named.replace(f"{got.box}/", "").replace(str(got.box), ".")
            return tr("the block names {named}, not the file it wrote ({name}): its second line is "
                      "'Full output: <path>'", named=repr(shown), name=name)
        head, problem = preview_in(got.returned, output, preview_chars)
        if head is None:
            return problem
        if len(head) > preview_chars:
            return tr("the preview has {n} characters, more than preview_chars ({limit})",
                      n=f"{len(head):,}", limit=f"{preview_chars:,}")
        near = output[:preview_chars].rfind("\n")
        whole = near >= 0 and near + 1 >= preview_chars * NEAR_LINE
        if whole and not head.endswith("\n"):
            n = head.count("\n")
            line = output.split("\n", n + 1)[n]
            shown = len(head) - (head.rfind("\n") + 1)
            return tr("the preview ends in the middle of line {line} ({text}: {shown} of its {length} "
                      "characters): cut after the last newline when it is in the last 20% of the preview",
                      line=n + 1, text=_short(line[:shown]), shown=shown, length=len(line))
        if len(head) < min(len(output), preview_chars) * NEAR_LINE:
            return tr("the preview has {n} characters: show at least 80% of preview_chars "
                      "({limit}) when the output is that long", n=f"{len(head):,}", limit=f"{preview_chars:,}")
        return None
    return verdict


def cases(env=None) -> list[Case]:
    """No case carries a fixed `why`: each verdict explains the failure it found."""
    default = ("results", 30_000, 2_000)  # folder, threshold, preview_chars
    at = tr("only an output longer than the threshold goes to disk: `len(output) <= threshold` keeps it")
    again = tr("it is already the preview of a persisted file (it starts with <persisted-output>): return it "
               "as it is, or the model goes round in a loop of previews")
    return [
        Case("a short output", ("toolu_1", "hello\n", *default), kept("hello\n")),
        Case("exactly at the threshold", ("toolu_1", "x" * 30_000, *default), kept("x" * 30_000, at)),
        Case("a 108,000-character output", ("toolu_big", BIG, *default), persisted(BIG)),
        Case("one long line", ("toolu_2", "x" * 50_000, *default), persisted("x" * 50_000)),
        Case("the folder does not exist yet", ("toolu_1", BIG, "new/results", 30_000, 2_000),
             persisted(BIG, "new/results")),
        Case("a tool_use_id with a path in it", ("../escape", BIG, *default), persisted(BIG)),
        Case("an output that is already a preview", ("toolu_3", ALREADY, "results", 1_000, 900),
             kept(ALREADY, again)),
        Case("non-ASCII text", ("toolu_4", WIDE * 200, "results", 10_000, 100),
             persisted(WIDE * 200, preview_chars=100)),
    ]


# ---- plausible wrong answers ---------------------------------------------------------------

def _block(path, output: str, head: str) -> str:
    return f"{OPEN}\nFull output: {path}\nPreview:\n{head}\n...\n{CLOSE}"


def seeds_persist(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """The seed (seed 003): no folder made, the id as a file name, the preview cut mid-line."""
    if len(output) <= threshold:
        return output
    path = Path(directory) / f"{tool_use_id}.txt"
    path.write_text(output, encoding="utf-8")
    return _block(path, output, output[:preview_chars])


def _careful(tool_use_id, output, directory):
    """Folder made, id made safe, file written: what the slips below share."""
    Path(directory).mkdir(parents=True, exist_ok=True)
    path = Path(directory) / (re.sub(r"[^A-Za-z0-9_.-]", "_", tool_use_id).strip(".") + ".txt")
    path.write_text(output, encoding="utf-8")
    return path


def first_lines(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """Everything right but the preview: cut at the FIRST newline."""
    if len(output) <= threshold or output.startswith(OPEN):
        return output
    head = output[:preview_chars]
    return _block(_careful(tool_use_id, output, directory), output, head[:head.find("\n") + 1] or head)


def next_newline(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """Cuts the preview after the NEXT newline: whole lines, but longer than preview_chars."""
    if len(output) <= threshold or output.startswith(OPEN):
        return output
    end = output.find("\n", preview_chars)
    return _block(_careful(tool_use_id, output, directory), output, output[:end + 1] if end >= 0
                  else output[:preview_chars])


def at_the_threshold(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """`>=` where `>` is meant: an output exactly at the threshold goes to disk."""
    if len(output) < threshold or output.startswith(OPEN):
        return output
    return _block(_careful(tool_use_id, output, directory), output, preview(output, preview_chars))


def persists_previews(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """Right in every way but one: a preview is persisted again."""
    if len(output) <= threshold:
        return output
    return _block(_careful(tool_use_id, output, directory), output, preview(output, preview_chars))


def id_as_path(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """Makes the folder and cuts the preview well, but uses the id as a path."""
    if len(output) <= threshold or output.startswith(OPEN):
        return output
    Path(directory).mkdir(parents=True, exist_ok=True)
    path = Path(directory) / f"{tool_use_id}.txt"
    path.write_text(output, encoding="utf-8")
    return _block(path, output, preview(output, preview_chars))


def names_another_file(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """Writes the file, but the block names a file that is not there."""
    if len(output) <= threshold or output.startswith(OPEN):
        return output
    path = _careful(tool_use_id, output, directory)
    return _block(path.with_name("output.txt"), output, preview(output, preview_chars))


def two_files(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """Keeps a backup copy beside the file."""
    if len(output) <= threshold or output.startswith(OPEN):
        return output
    path = _careful(tool_use_id, output, directory)
    (Path(directory) / "backup.txt").write_text(output, encoding="utf-8")
    return _block(path, output, preview(output, preview_chars))


MISTAKES = (
    Mistake("the seed: the folder must exist", seeds_persist,
            "raised FileNotFoundError: [Errno 2] No such file or directory: 'new/results/toolu_1.txt': the folder"),
    Mistake("the preview cut at the first newline", first_lines, "the preview has 72 characters: show at least 80%"),
    Mistake("the preview cut after the next newline", next_newline, "more than preview_chars (2,000)"),
    Mistake("`>=` where `>` is meant", at_the_threshold, "only an output longer than the threshold goes to disk"),
    Mistake("a preview persisted again", persists_previews, "it is already the preview of a persisted file"),
    Mistake("the id used as a path", id_as_path, "wrote escape.txt, outside results/"),
    Mistake("the block names another file", names_another_file, "the block names 'results/output.txt'"),
    Mistake("a backup copy beside the file", two_files, "wrote 2 files ("),
)

HINTS = (
    "Four things can go wrong: where the file goes (the folder may not exist; the id comes from the "
    "model), what goes in it (all of the output, as UTF-8), what the block says (the file's path, "
    "then a preview), and when to do nothing (short outputs, and outputs that already are a preview).",
    "Path(directory).mkdir(parents=True, exist_ok=True); turn the id into a safe name with "
    "re.sub(r'[^A-Za-z0-9_.-]', '_', id); keep an output that starts with '<persisted-output>'. "
    "For the preview: head = output[:preview_chars]; cut = head.rfind('\\n') + 1; keep head[:cut] "
    "when cut >= 0.8 * preview_chars.",
    "if len(output) <= threshold or output.startswith('<persisted-output>'): return output. Make the "
    "folder, write path = directory / (safe_id + '.txt') with encoding='utf-8', and return "
    "f'<persisted-output>\\nFull output: {path}\\nPreview:\\n{head}\\n...\\n</persisted-output>'.",
)

exercise = Exercise(name="persist_large_output", task=TASK, starter=STARTER, reference=persist_large_output,
                    cases=cases, setup=sandbox, adapt=run_with, hints=HINTS, mistakes=MISTAKES)


# ---- 2. the prompt-cache breakpoint ----------------------------------------------------------
#
#     with_cache_breakpoint(history) -> a NEW list: history[:-1] shared as they are, the last
#     message copied, its last markable block copied with "cache_control": {"type": "ephemeral"}
#     (a plain-string content becomes one text block; an empty one is left alone)
#
# The starter is the seed-style one-liner: it writes cache_control into the history itself,
# so every later request carries one more breakpoint (the API refuses a fifth), and a
# plain-string prompt crashes it. Reference: s05_budget.with_cache_breakpoint.

CACHE_STARTER = '''\
def with_cache_breakpoint(messages):
    """The request to send: `messages` with cache_control on the last block of the last message."""
    messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return messages
'''

CACHE_TASK = """Write with_cache_breakpoint(messages): a new list to send, whose last message's last
markable block (text, image, document, tool_use, tool_result) carries "cache_control":
{"type": "ephemeral"}. Never change `messages`: copy the last message (and the block
you mark), share the others. A plain-string content becomes one text block; an empty
string, an empty history, or a message with no markable block is left as it is."""

MARK = {"type": "ephemeral"}


def _turns(n: int) -> list:
    """A request, then n read_file turns; the last message is a user turn of tool results."""
    h = [{"role": "user", "content": "Read the files"}]
    for i in range(n):
        h += [{"role": "assistant", "content": [{"type": "text", "text": f"Reading ({i + 1})."},
                                                {"type": "tool_use", "id": f"toolu_{i:02d}", "name": "read_file",
                                                 "input": {"path": f"f{i}.py"}}]},
              {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i:02d}",
                                            "content": f"x = {i}\n"}]}]
    return h


def _two_results() -> list:
    h = _turns(1)
    h[-2]["content"].append({"type": "tool_use", "id": "toolu_09", "name": "list_dir", "input": {"path": "."}})
    h[-1]["content"].append({"type": "tool_result", "tool_use_id": "toolu_09", "content": "f0.py"})
    return h


def _with_note() -> list:
    """The last message ends with a block the API cannot mark (a redacted thinking block)."""
    h = _turns(1)
    h[-1]["content"].append({"type": "redacted_thinking", "data": "abc"})
    return h


class Sent:
    """What with_cache_breakpoint returned, and the history it was given, before and after."""

    def __init__(self, given: list, before: list, returned, error: str | None = None):
        self.given, self.before, self.returned, self.error = given, before, returned, error


def run_cache(fn, env=None):
    """The student's fn as the cases call it: history -> Sent."""
    def run(history):
        before = copy.deepcopy(history)
        try:
            return Sent(history, before, fn(history))
        except Exception as exc:  # noqa: BLE001 -- a crash is a result, reported with the history's shape
            message = str(exc).splitlines()[0] if str(exc) else ""
            name = type(exc).__name__
            return Sent(history, before, None, tr("raised {error}: {message}", error=name, message=message)
                        if message else tr("raised {error}", error=name))
    return run


def _marks(messages) -> list[tuple[int, int]]:
    """(message, block) positions that carry cache_control."""
    return [(i, k) for i, m in enumerate(messages) if isinstance(m, dict) and isinstance(m.get("content"), list)
            for k, b in enumerate(m["content"]) if isinstance(b, dict) and "cache_control" in b]


def _changed(before: list, after: list) -> str | None:
    """What the function changed in the history it was given, in words, or None."""
    if len(after) != len(before):
        return tr("the history now has {n} messages, it had {before}", n=len(after), before=len(before))
    for i, (a, b) in enumerate(zip(after, before)):
        if a != b:
            marks = [k for mi, k in _marks([a]) if mi == 0]
            if marks and not _marks([b]):
                return tr("changed messages[{i}] of the history it was given (block {k} gained cache_control)",
                          i=i, k=marks[0])
            return tr("changed messages[{i}] of the history it was given", i=i)
    return None


def sent_as(expected: list, *, shares: bool = True):
    """A verdict: the returned list equals `expected`, is a new list, the history is unchanged,
    and (with `shares`) every message but the last is the very object of the history."""
    def verdict(got: Sent) -> str | None:
        if got.error:
            content = got.before[-1]["content"] if got.before else None
            if not got.before:
                return tr("{error} on an empty history", error=got.error)
            if isinstance(content, str):
                return tr("{error} on a plain-string content", error=got.error)
            return tr("{error} on a list content", error=got.error)
        if not isinstance(got.returned, list):
            return tr("returned {kind}, expected a list of messages", kind=type(got.returned).__name__)
        changed = _changed(got.before, got.given)
        if changed:
            return tr("{changed}: the history is the agent's record; a breakpoint written into it stays, and "
                      "the API refuses a request with more than four", changed=changed)
        if got.returned is got.given:
            return tr("returned the history itself: return a new list (the request), so the history stays as it was")
        if got.returned != expected:
            want, have = _marks(expected), _marks(got.returned)
            if len(have) > 1:
                return tr("{n} blocks carry cache_control ({have}): one breakpoint, on the last "
                          "markable block of the last message", n=len(have), have=have)
            if have and want and have != want:
                return tr("cache_control is on block {k} of messages[{i}], expected block {want_k} of "
                          "messages[{want_i}]: the prefix ends at the LAST markable block",
                          k=have[0][1], i=have[0][0], want_k=want[0][1], want_i=want[0][0])
            if want and not have:
                if isinstance(got.given[-1]["content"], str):
                    return tr("no block carries cache_control: a plain-string content becomes one text block, "
                              "{shape}", shape="[{'type': 'text', 'text': ..., 'cache_control': ...}]")
                (i, k), = want
                kind = expected[i]["content"][k].get("type")
                return tr("no block carries cache_control: expected it on block {k} of messages[{i}] (a {kind}), "
                          "the last markable block of the last message", k=k, i=i, kind=kind)
            if have and not want:
                return tr("marked {have}, expected the request left as it is: an empty text block or a "
                          "block the API cannot mark is refused", have=have)
            return returned(got.returned, expected)
        if shares:
            copied = [i for i, (a, b) in enumerate(zip(got.returned[:-1], got.given[:-1])) if a is not b]
            if copied:
                return tr("copied {n} of the {total} messages before the last: share them "
                          "(only the last one changes; copying all of them costs O(n) per request)",
                          n=len(copied), total=len(got.given) - 1)
        return None
    return verdict


def _marked(h: list, k: int | None = -1) -> list:
    """h with cache_control on block k of its last message (a str content becomes one text block)."""
    h = copy.deepcopy(h)
    content = h[-1]["content"]
    if isinstance(content, str):
        h[-1]["content"] = [{"type": "text", "text": content, "cache_control": dict(MARK)}]
    else:
        content[k] = {**content[k], "cache_control": dict(MARK)}
    return h


def cache_cases(env=None) -> list[Case]:
    long = _turns(100)
    empty_text = _turns(1)[:1] + [{"role": "assistant", "content": ""}]
    return [
        Case("a plain-string prompt", ([{"role": "user", "content": "hi"}],), sent_as(_marked([{"role": "user",
                                                                                                "content": "hi"}]))),
        Case("a turn of tool results", (_turns(2),), sent_as(_marked(_turns(2)))),
        Case("two results in the last turn", (_two_results(),), sent_as(_marked(_two_results()))),
        Case("a last block the API cannot mark", (_with_note(),), sent_as(_marked(_with_note(), 0))),
        Case("an empty history", ([],), sent_as([])),
        Case("an empty string content", (empty_text,), sent_as(copy.deepcopy(empty_text))),
        Case("a 201-message history", (long,), sent_as(_marked(long))),
    ]


def marks_the_history(messages):
    """The starter: the mark goes into the history, which is returned as the request."""
    messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return messages


def marks_in_place(messages):
    """Copies the list and the last message, but marks the block the history holds."""
    out = list(messages)
    last = dict(out[-1])
    last["content"] = list(last["content"])
    last["content"][-1]["cache_control"] = {"type": "ephemeral"}
    out[-1] = last
    return out


def copies_everything(messages):
    """A deep copy of the whole history, then the mark: right, and O(n) per request."""
    out = copy.deepcopy(messages)
    if out and out[-1]["content"]:
        if isinstance(out[-1]["content"], str):
            out[-1]["content"] = [{"type": "text", "text": out[-1]["content"]}]
        for block in reversed(out[-1]["content"]):
            if block.get("type") in ("text", "image", "document", "tool_use", "tool_result"):
                block["cache_control"] = {"type": "ephemeral"}
                break
    return out


def marks_every_turn(messages):
    """A breakpoint on the last block of every user message."""
    out = []
    for m in messages:
        if m["role"] == "user" and isinstance(m["content"], list) and m["content"]:
            m = {**m, "content": [*m["content"][:-1], {**m["content"][-1], "cache_control": {"type": "ephemeral"}}]}
        out.append(m)
    return out + [] if messages else []


def first_block(messages):
    """Marks the first block of the last message."""
    if not messages or not isinstance(messages[-1]["content"], list) or not messages[-1]["content"]:
        return list(messages)
    last = messages[-1]
    return [*messages[:-1], {**last, "content": [{**last["content"][0], "cache_control": {"type": "ephemeral"}},
                                                 *last["content"][1:]]}]


def lists_only(messages):
    """Marks the last block of a list content; a plain-string content is sent unmarked."""
    if not messages or not isinstance(messages[-1]["content"], list):
        return list(messages)
    last = messages[-1]
    blocks = list(last["content"])
    for k in range(len(blocks) - 1, -1, -1):
        if blocks[k].get("type") in ("text", "image", "document", "tool_use", "tool_result"):
            blocks[k] = {**blocks[k], "cache_control": {"type": "ephemeral"}}
            break
    return [*messages[:-1], {**last, "content": blocks}]


def any_last_block(messages):
    """Marks the last block whatever its type, and turns an empty string into an empty text block."""
    if not messages:
        return []
    last = messages[-1]
    blocks = [{"type": "text", "text": last["content"]}] if isinstance(last["content"], str) else list(last["content"])
    blocks[-1] = {**blocks[-1], "cache_control": {"type": "ephemeral"}}
    return [*messages[:-1], {**last, "content": blocks}]


CACHE_MISTAKES = (
    Mistake("the starter: the mark written into the history", marks_the_history,
            "raised TypeError: 'str' object does not support item assignment on a plain-string content"),
    Mistake("a copy of the list, the block marked in place", marks_in_place,
            "changed messages[4] of the history it was given (block 0 gained cache_control)"),
    Mistake("a deep copy of everything", copies_everything, "copied 4 of the 4 messages before the last"),
    Mistake("a breakpoint on every turn", marks_every_turn, "blocks carry cache_control ([(2, 0), (4, 0)])"),
    Mistake("the first block marked", first_block, "cache_control is on block 0 of messages[2], expected block 1"),
    Mistake("a plain-string content left unmarked", lists_only, "no block carries cache_control: a plain-string"),
    Mistake("any last block marked, an empty text made", any_last_block, "expected the request left as it is"),
)

CACHE_HINTS = (
    "The history is the agent's record and is never changed: what you return is the request, a new list. "
    "Only its last message differs from the history's, and in it one block carries the mark.",
    "Build [*messages[:-1], new_last]: the earlier messages are shared, not copied. For new_last, copy the "
    "message and its content list; walk the blocks from the end and mark the first one whose type is "
    "text, image, document, tool_use or tool_result, as a new dict {**block, 'cache_control': ...}.",
    "if not messages: return []. content = messages[-1]['content']: a non-empty str becomes "
    "[{'type': 'text', 'text': content, 'cache_control': {...}}]; an empty one, or a list with no "
    "markable block, returns list(messages). Return [*messages[:-1], {**messages[-1], 'content': blocks}].",
)

cache_exercise = Exercise(name="with_cache_breakpoint", task=CACHE_TASK, starter=CACHE_STARTER,
                          reference=with_cache_breakpoint, cases=cache_cases, adapt=run_cache,
                          hints=CACHE_HINTS, mistakes=CACHE_MISTAKES)
