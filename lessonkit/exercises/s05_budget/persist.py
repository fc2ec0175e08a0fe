"""s05 exercise 1: persist a big tool output to disk and give the context a preview.

    persist_large_output("toolu_1", output, directory=d, threshold=30_000, preview_chars=2_000)
      len(output) <= threshold  -> output itself (nothing written)
      longer                    -> d/<tool_use_id>.txt holds all of it, and the context gets:

        <persisted-output>
        Full output: d/toolu_1.txt (108,000 characters, 1,500 lines)
        Preview (first 1,944 characters):
        <at most preview_chars of its start, cut after a newline if one is near the end>
        ...
        </persisted-output>

Each call of the student's function gets a fresh box (a temporary folder, persist_box.py) holding
an empty `results/`; the report names files relative to the box ("results/toolu_1.txt",
"escape.txt"), never the temporary folder.

Every hint comes from the failure itself, never from the case (persist_verdicts.py): a function
that made the folder but cut the preview wrong hears about the preview, not about the folder
("raised FileNotFoundError ...: create the folder first" only when that is what happened).

The starter is the seed's persist_large_output (seed 003) with the sizes as parameters:
the folder must already exist, the id is used as a file name as it is, the preview is
cut in the middle of a line, and a preview is persisted again.

Example: exercise.check(first_lines) -> ✗ persist_large_output: 5/8 cases pass
  ✗ a 108,000-character output (and 2 more cases like it): the preview has 72 characters: show at
    least 80% of preview_chars (2,000) when the output is that long

Reference: s05_budget.persist_large_output.
"""

from __future__ import annotations

import re
from pathlib import Path

from lessonkit.i18n import tr
from s05_budget import persist_large_output, preview

from .. import Case, Exercise, Mistake
from .persist_box import run_with, sandbox
from .persist_verdicts import CLOSE, OPEN, kept, persisted, persisted_apart

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

BIG = "".join(f"line {i:05d} " + "x" * 60 + "\n" for i in range(1_500))   # 108,000 characters
WIDE = "上下文压缩" * 20 + "\n"                                               # 100 characters a line
RAGGED = BIG + "the last line has no newline"                                # 1,501 lines
OTHER = BIG.replace("x", "y")                                                  # as long as BIG, another output
PROGRESS = "".join(f"step {i:04d} " + "".join(f"\r{p:3d}%" for p in range(0, 101, 10)) + " done\n"
                   for i in range(800))                                        # a progress bar: \r inside lines
LONG_ID = "toolu_01" + "A7bQ9x" * 15                                           # 98 characters
ALREADY = (f"{OPEN}\nFull output: results/toolu_0.txt (108,000 characters, 1,500 lines)\n"
           f"Preview (first 864 characters):\n{BIG[:864]}...\n{CLOSE}")        # 1,001 characters


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
        Case("a last line without a newline", ("toolu_5", RAGGED, *default), persisted(RAGGED)),
        Case("two ids that differ before a '/'", ((("toolu_6", BIG), ("run/toolu_6", OTHER)), None, *default),
             persisted_apart((("toolu_6", BIG), ("run/toolu_6", OTHER)))),
        Case("two ids that differ in '/' and '_'", ((("run/toolu_7", BIG), ("run_toolu_7", OTHER)), None, *default),
             persisted_apart((("run/toolu_7", BIG), ("run_toolu_7", OTHER)))),
        Case("two long ids that differ only at the end", (((LONG_ID + "1", BIG), (LONG_ID + "2", OTHER)), None,
                                                          *default),
             persisted_apart(((LONG_ID + "1", BIG), (LONG_ID + "2", OTHER)))),
        Case("an output with carriage returns (a progress bar)", ("toolu_8", PROGRESS, *default),
             persisted(PROGRESS)),
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


def _counted(path, output: str, head: str, lines: int) -> str:
    return (f"{OPEN}\nFull output: {path} ({len(output):,} characters, {lines:,} lines)\n"
            f"Preview (first {len(head):,} characters):\n{head}\n...\n{CLOSE}")


def basename_lines(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """os.path.basename as the sanitiser (ids that differ before a '/' share a file), and the lines
    counted as split('\n') counts them: one too many when the output ends with a newline."""
    import os

    if len(output) <= threshold or output.startswith(OPEN):
        return output
    Path(directory).mkdir(parents=True, exist_ok=True)
    path = Path(directory) / f"{os.path.basename(tool_use_id)}.txt"
    path.write_text(output, encoding="utf-8")
    return _counted(path, output, preview(output, preview_chars), len(output.split("\n")))


def newline_lines(tool_use_id, output, *, directory, threshold=30_000, preview_chars=2_000):
    """Right but for the line count: newlines counted, a last line without one left out."""
    if len(output) <= threshold or output.startswith(OPEN):
        return output
    path = _careful(tool_use_id, output, directory)
    return _counted(path, output, preview(output, preview_chars), output.count("\n"))


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
    Mistake("basename as the sanitiser, lines off by one", basename_lines, "were given the same file"),
    Mistake("a last line without a newline not counted", newline_lines,
            "(its last line has no newline): count the newlines, plus one"),
)

HINTS = (
    "Four things can go wrong: where the file goes (the folder may not exist; the id comes from the "
    "model), what goes in it (all of the output, as UTF-8), what the block says (the file's path, "
    "then a preview), and when to do nothing (short outputs, and outputs that already are a preview).",
    "Path(directory).mkdir(parents=True, exist_ok=True); turn the id into a safe name with "
    "re.sub(r'[^A-Za-z0-9_.-]', '_', id), and when that changed the id, add a hash of the whole id "
    "(two ids must never share a file); keep an output that starts with '<persisted-output>'. "
    "For the preview: head = output[:preview_chars]; cut = head.rfind('\\n') + 1; keep head[:cut] "
    "when cut >= 0.8 * preview_chars.",
    "if len(output) <= threshold or output.startswith('<persisted-output>'): return output. Make the "
    "folder; safe = the id with unsafe characters as '_', plus '-' + hashlib.sha256(id.encode()).hexdigest()"
    "[:12] if that is not the id; write path = directory / (safe + '.txt') with encoding='utf-8', and return "
    "f'<persisted-output>\\nFull output: {path}\\nPreview:\\n{head}\\n...\\n</persisted-output>'.",
)

exercise = Exercise(name="persist_large_output", task=TASK, starter=STARTER, reference=persist_large_output,
                    cases=cases, setup=sandbox, adapt=run_with, hints=HINTS, mistakes=MISTAKES)
