"""Why a persist_large_output answer is wrong: what it wrote, what its block says, how its preview is cut.

    kept(output)          the output itself comes back, and nothing is written
    persisted(output)     one file in the folder holds the whole output, and the block names it and
                          shows its start: at most preview_chars, cut after a newline near the end
    preview_in(block)     the preview a block shows, or None and why not

Example: persisted(BIG)(Outcome(block, {"results/toolu_big.txt": BIG.encode()}, box=box)) for a block
  whose preview is BIG[:2_000] -> "the preview ends in the middle of line 28 ('line 00027 xxx…x': 56 of
  its 71 characters): cut after the last newline when it is in the last 20% of the preview"
"""

from __future__ import annotations

import re
from pathlib import Path

from lessonkit.i18n import tr
from s05_budget import persisted_path

from .persist_box import Outcome

OPEN, CLOSE = "<persisted-output>", "</persisted-output>"
NEAR_LINE = 0.8
# the sizes a block may state on its 'Full output:' line: "(108,000 characters, 1,500 lines)"
SIZES = re.compile(r"^Full output: .*?\((\d[\d,]*) characters?, (\d[\d,]*) lines?\)\s*$", re.MULTILINE)
SHOWN = re.compile(r"^Preview \(first (\d[\d,]*) characters?\):", re.MULTILINE)  # the preview's stated size
UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")  # what a safe file name leaves out
BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # what str.splitlines() ends a line at, besides \n


def line_count(text: str) -> int:
    """Lines as an editor counts them: a last line without a newline counts too.
    Example: line_count("a\nb\n") -> 2, line_count("a\nb") -> 2, line_count("x") -> 1"""
    return text.count("\n") + (bool(text) and not text.endswith("\n"))


def sizes_problem(block: str, output: str) -> str:
    """What is wrong with the sizes a block states (empty when it states none, or right ones).
    Example: a block saying "1,501 lines" for a 1,500-line output -> "the block says 1,501 lines; ..." """
    found = SIZES.search(block[:4_000])
    if not found:
        return ""
    chars, lines = (int(g.replace(",", "")) for g in found.groups())
    if chars != len(output):
        problem = tr("the block says {got} characters; the output has {want}", got=f"{chars:,}",
                     want=f"{len(output):,}")
        why = (tr("that is its size in bytes: len(output) counts characters") if chars == len(output.encode())
               else tr("the output was stripped before it was counted: count every character, the newlines at "
                       "its ends too") if chars in (len(output.strip()), len(output.rstrip("\n")))
               else tr("len(output) counts the characters"))
        return tr("{problem}: {hint}", problem=problem, hint=why)
    if lines != line_count(output):
        if lines == len(output.splitlines()) and any(c in output for c in BREAKS):
            return tr("the block says {got} lines; the output has {want}: str.splitlines() also ends a line at "
                      "'\\r' (a progress bar's carriage return) and other separators: count the '\\n' only, as "
                      "wc -l and sed -n do", got=f"{lines:,}", want=f"{line_count(output):,}")
        ends = tr("it ends with a newline") if output.endswith("\n") else tr("its last line has no newline")
        return tr("the block says {got} lines; the output has {want} ({ends}): count the newlines, plus one "
                  "for a last line without one", got=f"{lines:,}", want=f"{line_count(output):,}", ends=ends)
    return ""


def collision_why(first: str, second: str, name: str) -> str:
    """Why a safe-name rule turned two ids into one file name, from how the two ids differ.
    Example: collision_why("run/toolu_6", "run_toolu_6", "run_toolu_6.txt")
      -> "replacing each unsafe character with '_' makes 'run/toolu_6' and 'run_toolu_6' one name: ..." """
    stem = Path(name).stem
    if any("/" in i and stem == i.rsplit("/", 1)[-1] for i in (first, second)):
        return tr("the name drops what comes before a '/' (basename): {a} and {b} differ only there",
                  a=_id(first), b=_id(second))
    if UNSAFE.sub("_", first) == UNSAFE.sub("_", second):
        return tr("replacing each unsafe character with '_' makes {a} and {b} one name: when the id had to be "
                  "changed, add a hash of the whole id to the name", a=_id(first), b=_id(second))
    at = next((i for i, (x, y) in enumerate(zip(first, second)) if x != y), min(len(first), len(second)))
    if at >= 8:
        return tr("{a} and {b} differ only from character {n} on: the name is made from the start of the id "
                  "alone (cut, or a hash of a part): hash the whole id", a=_id(first), b=_id(second),
                  n=at + 1)
    return tr("two different ids must never share a file")


def shown_problem(block: str, head: str, preview_chars: int) -> str:
    """What is wrong with the preview's stated size (empty when it states none, or the right one).
    Example: "Preview (first 2,000 characters):" over a 1,944-character preview -> "the block says ..." """
    found = SHOWN.search(block[:4_000])
    if not found or int(found.group(1).replace(",", "")) == len(head):
        return ""
    said = int(found.group(1).replace(",", ""))
    why = (tr("that is preview_chars, but the preview was cut at a newline") if said == preview_chars
           else tr("that is its size in bytes (UTF-8)") if said == len(head.encode("utf-8")) else "")
    problem = tr("the block says the preview has {said} characters; it shows {shown}: state len(preview), the "
                 "characters shown", said=f"{said:,}", shown=f"{len(head):,}")
    return tr("{problem}: {hint}", problem=problem, hint=why) if why else problem


def persisted_apart(pairs, folder: str = "results"):
    """A verdict for several calls in one box: each (id, output) gets a file of its own that keeps its
    output; two ids must never share a file (the second would overwrite the first's output)."""
    def verdict(got: Outcome) -> str | None:
        if got.error:
            return got.error
        named = [persisted_path(block) if isinstance(block, str) else None for block in got.returned]
        for (tool_use_id, output), block, name in zip(pairs, got.returned, named):
            if name is None:
                return tr("returned {got} for {id}: expected a block from '{open}' to '{close}'",
                          got=_short(block), id=repr(tool_use_id), open=OPEN, close=CLOSE)
            path = (got.box / name).resolve()
            if not path.is_file() or path.read_bytes() != output.encode("utf-8"):
                where = [i for (i, _), n in zip(pairs, named) if n and (got.box / n).resolve() == path]
                problem = tr("the ids {ids} were given the same file ({name}): the second output overwrote the "
                             "first, so the model reads the wrong output", ids=", ".join(map(_id, where)),
                             name=_short(Path(name).name))
                why = collision_why(*where[:2], Path(name).name) if len(where) > 1 else ""
                return tr("{problem}: {hint}", problem=problem, hint=why) if why else problem
        return None
    return verdict


def _id(tool_use_id: str) -> str:
    """An id as a report shows it: a long one by its two ends. Example: _id("toolu_01" + "x" * 90 + "1")
    -> "'toolu_01xx…xxx1'" """
    return repr(tool_use_id if len(tool_use_id) <= 24 else f"{tool_use_id[:10]}…{tool_use_id[-4:]}")


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
        wrong_sizes = sizes_problem(got.returned, output)
        if wrong_sizes:
            return wrong_sizes
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
        return shown_problem(got.returned, head, preview_chars) or None
    return verdict
