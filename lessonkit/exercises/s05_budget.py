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

The starter is the seed's persist_large_output (seed 003) with the sizes as parameters:
the folder must already exist, the id is used as a file name as it is, the preview is
cut in the middle of a line, and a preview is persisted again.

Reference: s05_budget.persist_large_output.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

from s05_budget import persist_large_output, persisted_path

from . import Case, Exercise

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
            return Outcome(error=f"raised {type(exc).__name__}" + (f": {message}" if message else ""))
        files = {p.relative_to(box).as_posix(): p.read_bytes() for p in sorted(box.rglob("*")) if p.is_file()}
        return Outcome(returned, files, box=box)
    return run


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def kept(output: str, because: str = "this output is not over the threshold, keep it in the context"):
    """A verdict: the output itself comes back, and nothing is written."""
    def verdict(got: Outcome) -> str | None:
        if got.error:
            return got.error
        if got.files:
            return f"wrote {', '.join(got.files)}: {because}"
        if got.returned != output:
            return f"returned {_short(got.returned)}, expected the output itself"
        return None
    return verdict


def preview_in(block: str, output: str, limit: int) -> tuple[str | None, str]:
    """The preview a block shows (the text after its "Preview" line), or None and why not.
    A newline the block adds after a preview cut mid-line is not part of it."""
    _, found, rest = block.partition("\nPreview")
    if not found or "\n" not in rest:
        return None, "the block has no 'Preview...' line followed by the preview"
    body = rest.split("\n", 1)[1].rsplit(CLOSE, 1)[0]
    for tail in ("...\n", "…\n"):
        if body.endswith(tail):
            body = body[:-len(tail)]
            break
    candidates = [c for c in (body, body[:-1] if body.endswith("\n") else None)
                  if c is not None and output.startswith(c)]
    if not candidates:
        return None, "the text after the 'Preview...' line is not the start of the output"
    return next((c for c in candidates if len(c) <= limit), candidates[0]), ""


def persisted(output: str, folder: str = "results", preview_chars: int = 2_000):
    """A verdict: one file in `folder` holds the whole output; the block names it and shows its start."""
    def verdict(got: Outcome) -> str | None:
        if got.error:
            return got.error
        if not got.files:
            return (f"wrote no file, returned {_short(got.returned)}: an output over the threshold "
                    "goes to disk")
        outside = [name for name in got.files if Path(name).parent.as_posix() != folder]
        if outside:
            return (f"wrote {', '.join(outside)}, outside {folder}/: the id comes from the model, make it "
                    "a safe file name (letters, digits, _ . -) so the file stays in the folder")
        (name, data), *more = got.files.items()
        if more:
            return f"wrote {len(got.files)} files ({', '.join(got.files)}): one output is one file"
        if data != output.encode("utf-8"):
            return f"{name} holds {len(data):,} bytes, not the output's {len(output.encode()):,} (as UTF-8)"
        if not isinstance(got.returned, str) or not got.returned.startswith(OPEN + "\n") \
                or not got.returned.rstrip().endswith(CLOSE):
            return f"returned {_short(got.returned)}: expected a block from '{OPEN}' to '{CLOSE}'"
        named = persisted_path(got.returned)
        if named is None or (got.box / named).resolve() != (got.box / name).resolve():
            return (f"the block names {named!r}, not the file it wrote ({name}): its second line is "
                    "'Full output: <path>'")
        head, problem = preview_in(got.returned, output, preview_chars)
        if head is None:
            return problem
        if len(head) > preview_chars:
            return f"the preview has {len(head):,} characters, more than preview_chars ({preview_chars:,})"
        near = output[:preview_chars].rfind("\n")
        whole = near >= 0 and near + 1 >= preview_chars * NEAR_LINE
        if whole and not head.endswith("\n"):
            n = head.count("\n")
            line = output.split("\n", n + 1)[n]
            shown = len(head) - (head.rfind("\n") + 1)
            return (f"the preview ends in the middle of line {n + 1} ({_short(line[:shown])}: {shown} of "
                    f"its {len(line)} characters): cut after the last newline when it is in the last 20% "
                    "of the preview")
        if len(head) < min(len(output), preview_chars) * NEAR_LINE:
            return (f"the preview has {len(head):,} characters: show at least 80% of preview_chars "
                    f"({preview_chars:,}) when the output is that long")
        return None
    return verdict


def cases(env=None) -> list[Case]:
    default = ("results", 30_000, 2_000)  # folder, threshold, preview_chars
    again = "it is already the preview of a persisted file (it starts with <persisted-output>): return it as it is"
    return [
        Case("a short output", ("toolu_1", "hello\n", *default), kept("hello\n"),
             why="it fits: the model reads it in the context"),
        Case("exactly at the threshold", ("toolu_1", "x" * 30_000, *default), kept("x" * 30_000),
             why="only an output longer than the threshold goes to disk"),
        Case("a 108,000-character output", ("toolu_big", BIG, *default), persisted(BIG),
             why="whole lines read better, and a number cut in half misleads the model"),
        Case("one long line", ("toolu_2", "x" * 50_000, *default), persisted("x" * 50_000),
             why="no newline to cut at: show preview_chars of it"),
        Case("the folder does not exist yet", ("toolu_1", BIG, "new/results", 30_000, 2_000),
             persisted(BIG, "new/results"),
             why="the first big output of a session finds no folder: create it, parents too"),
        Case("a tool_use_id with a path in it", ("../escape", BIG, *default), persisted(BIG),
             why="an id is text from outside; used as a path it writes anywhere"),
        Case("an output that is already a preview", ("toolu_3", ALREADY, "results", 1_000, 900),
             kept(ALREADY, again),
             why="persisting the preview again sends the model round in a loop of previews"),
        Case("non-ASCII text", ("toolu_4", WIDE * 200, "results", 10_000, 100),
             persisted(WIDE * 200, preview_chars=100),
             why="the file holds the output as UTF-8, byte for byte"),
    ]


exercise = Exercise(name="persist_large_output", task=TASK, starter=STARTER, reference=persist_large_output,
                    cases=cases, setup=sandbox, adapt=run_with)
