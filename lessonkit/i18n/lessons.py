"""Build the Chinese lessons from the English ones and a translation file per lesson.

Motto: the English notebook is the source; the Chinese one is generated, never edited.

    lessons/s06_compact.ipynb ─┐
                               ├──> build ──> lessons/zh/s06_compact.ipynb ──> executed in lessons/zh/
    lessons/i18n/zh/s06_compact.json ─┘        (markdown translated, code cells byte-identical)

A translation file maps each markdown cell's stable id to the English text it was translated
from and its translation:

    {"lesson": "s06_compact",
     "cells": {"s06-00": {"en": "# s06 · Compaction ...", "zh": "# s06 · 压缩 (compaction) ..."}}}

A cell whose English text is not the `en` it was translated from is *stale*; a markdown cell
with no entry is *missing*. `problems()` names both, cell by cell, and `build()` refuses to
write a notebook that has any, so a Chinese lesson never shows an old sentence. Code cells are
copied as they are: what a student runs is the same program in both languages, and what it
prints is translated by `lessonkit.i18n.tr` because the Chinese lesson's kernel starts in
`lessons/zh/`.

Example: problems(Path("lessons/s01_loop.ipynb"), "zh")
  -> []                                           (every markdown cell translated, none stale)
  -> ["s01_loop: cell s01-04 is stale (its English changed since it was translated)"]

Not modeled: translating code cells or their comments (they stay as written), raw cells.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

LESSONS = Path(__file__).resolve().parents[2] / "lessons"


def translation_path(english: Path, language: str) -> Path:
    """Where the translation file of one English lesson lives. Example: s01_loop -> i18n/zh/s01_loop.json"""
    return english.parent / "i18n" / language / f"{english.stem}.json"


def target_path(english: Path, language: str) -> Path:
    """Where the generated lesson goes. Example: lessons/s01_loop.ipynb -> lessons/zh/s01_loop.ipynb"""
    return english.parent / language / english.name


def read_json(path: Path) -> dict:
    """A JSON file, or a one-line ValueError naming it."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not readable as JSON ({exc})") from None


def source_of(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def translations(english: Path, language: str) -> dict[str, dict]:
    """The translation entries of one lesson, by cell id ({} when there is no file yet)."""
    data = read_json(translation_path(english, language))
    cells = data.get("cells", {})
    if not isinstance(cells, dict):
        raise ValueError(f"{translation_path(english, language)}: 'cells' must be an object of cell id -> entry")
    return cells


def problems(english: Path, language: str) -> list[str]:
    """Every markdown cell of `english` that has no current translation, one line each."""
    nb = read_json(english)
    if not nb:
        return [f"{english}: no such notebook"]
    entries = translations(english, language)
    out = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "markdown":
            continue
        cid = cell.get("id")
        entry = entries.get(cid)
        if not cid:
            out.append(f"{english.stem}: a markdown cell has no id (re-save it with nbformat >= 4.5)")
        elif not isinstance(entry, dict) or not isinstance(entry.get(language), str):
            out.append(f"{english.stem}: cell {cid} is missing (no translation)")
        elif entry.get("en") != source_of(cell):
            out.append(f"{english.stem}: cell {cid} is stale (its English changed since it was translated)")
    known = {c.get("id") for c in nb.get("cells", [])}
    out += [f"{english.stem}: cell {cid} is translated but no longer in the English lesson"
            for cid in entries if cid not in known]
    return out


# Han, kana, CJK punctuation and full-width forms: a markdown line break between two of them renders
# as a space ("然后停下。 必须…"), so the build joins such hard-wrapped lines; so it does where one side is
# full-width punctuation ("。 `show`", "**文件工具** （"), which takes no space beside it in Chinese
_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\u3000-\u303f]")
_CJK_PUNCT = re.compile(r"[\u3000-\u303f\ufe30-\ufe4f\uff00-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]")
_BLOCK = ("#", "|", ">", "```", "    ", "\t")  # a line that starts one of these is not a paragraph's continuation
_LIST = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")  # a line that starts a list item
_MARKUP = "*_"  # emphasis around a word: what a reader sees beside the break is the character inside it


def _joins(prev: str, line: str) -> bool:
    """Whether the break between two lines of one paragraph renders as a space that Chinese must not have:
    between two CJK characters, or beside full-width punctuation (emphasis marks looked through)."""
    last, first = prev.rstrip(_MARKUP)[-1:], line.lstrip().lstrip(_MARKUP)[:1]
    if not last or not first:
        return False
    return bool((_CJK.match(last) and _CJK.match(first)) or _CJK_PUNCT.match(last) or _CJK_PUNCT.match(first))


def join_wrapped(text: str) -> str:
    """Join the hard-wrapped lines of a paragraph where the break falls between two CJK characters or
    beside CJK punctuation (a continuation's indent goes too); code fences, headings, tables, list items
    and blank lines are left alone.
    Example: join_wrapped("然后停下。\n必须先问。") -> "然后停下。必须先问。"
             join_wrapped("然后重复。\n`show` 打印") -> "然后重复。`show` 打印"
             join_wrapped("用 `ls`\nand more") -> unchanged (no CJK character or punctuation at the break)"""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append(line)
            continue
        prev = out[-1] if out else ""
        if (not fenced and prev.strip() and line.strip() and not prev.lstrip().startswith(_BLOCK)
                and not line.lstrip().startswith(_BLOCK) and not _LIST.match(line) and _joins(prev, line)):
            out[-1] = prev.rstrip() + line.lstrip()
        else:
            out.append(line)
    return "\n".join(out)


def generate(english: Path, language: str) -> dict:
    """The translated notebook (not executed): markdown from the translations, code cells copied.

    Raises ValueError listing the problems when any cell is missing or stale."""
    found = problems(english, language)
    if found:
        raise ValueError("; ".join(found))
    nb = read_json(english)
    entries = translations(english, language)
    out = copy.deepcopy(nb)
    for cell in out["cells"]:
        if cell.get("cell_type") == "markdown":
            text = entries[cell["id"]][language]
            cell["source"] = join_wrapped(text) if language == "zh" else text
        elif cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
    out["metadata"].pop("widgets", None)
    out["metadata"]["lessons_language"] = language
    return out


def build(english: Path, language: str, *, execute=None) -> Path:
    """Write the generated lesson next to its siblings in `lessons/<language>/`, then run
    `execute(path)` on it if given (the command passes lessonkit.cli.notebooks.execute)."""
    target = target_path(english, language)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(generate(english, language), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    if execute is not None:
        execute(target)
    return target


def english_lessons(root: Path = LESSONS) -> list[Path]:
    """The English lesson notebooks, in lesson order."""
    return sorted(root.glob("*.ipynb"))
