"""lessonkit.i18n: one small lookup for every sentence a student reads, in English or Chinese.

Motto: one source of truth per sentence; a translation that no longer matches it is an error.

    lang()               'en' or 'zh' (LESSONS_LANG, else a lesson folder named zh, else the locale)
    tr(msgid, **fields)  the sentence in the current language, with its {fields} filled in
    trn(one, many, n)    the same for a sentence about a count: `one` when n == 1, else `many`
    tr_lines(text)       a text whose lines that are messages are shown translated (docstrings)
        │
        v
    msgid (the English text) ──> lessonkit/i18n/zh/*.json ──> the Chinese text   (lang() == 'zh')
                             └─> itself                                          (lang() == 'en')

Messages are keyed by their English text, as gettext does: change the English and the key
changes, so a stale Chinese sentence cannot be shown; `tests/test_i18n.py` finds every
`tr("...")` in the kit and fails, naming the message, when the catalog lacks it. A language's
catalog is a folder of JSON files, one per part of the kit (kit.json, exercises.json, lessons.json,
view.json, arena.json ...), read together; a message kept in two files is an error.

The language is read when a message is made, never at import:
1. `LESSONS_LANG=en|zh` in the environment (anything else is a one-line ValueError);
2. otherwise 'zh' when the working directory is a folder named `zh` beside notebooks (a kernel
   starts in its notebook's folder, so `lessons/zh/*.ipynb` run in Chinese in JupyterLab, under
   nbval and wherever the lessons folder is copied);
3. otherwise the locale (`LC_ALL`, `LC_MESSAGES`, `LANG`): 'zh' for zh_*, else 'en'.

Example: tr("{n} of {total} cases pass", n=3, total=5)
  -> "3 of 5 cases pass"        (lang() == 'en')
  -> "5 个用例中通过 3 个"        (lang() == 'zh')

Plurals follow gettext's ngettext: trn("{n} line", "{n} lines", n) picks the English form by n
(one form for n == 1, the other for 0 and 2+); the catalog keys the message by its singular, and
Chinese, which has no plural, keeps one translation for every n.

Not modeled: languages with more than two plural forms, languages beyond en and zh.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

LANGS = ("en", "zh")
CATALOG_DIR = Path(__file__).resolve().parent
LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")


def lang() -> str:
    """The language to speak now: 'en' or 'zh' (see the module docstring for the order)."""
    chosen = os.environ.get("LESSONS_LANG", "").strip().lower()
    if chosen:
        if chosen not in LANGS:
            raise ValueError(f"LESSONS_LANG must be one of {', '.join(LANGS)}, got {chosen!r}")
        return chosen
    try:
        here = Path.cwd()
    except OSError:  # the working directory was deleted under us
        here = None
    if here is not None and here.name in LANGS and here.name != "en" and any(here.parent.glob("*.ipynb")):
        return here.name  # a lesson folder beside the English lessons (lessons/zh/)
    for var in LOCALE_VARS:
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


@functools.cache
def catalog(language: str) -> dict[str, str]:
    """The messages of one language, English text -> translation ({} for English)."""
    if language not in LANGS:
        raise ValueError(f"unknown language {language!r}: expected one of {', '.join(LANGS)}")
    if language == "en":
        return {}
    merged: dict[str, str] = {}
    for path in sorted((CATALOG_DIR / language).glob("*.json")):
        part = json.loads(path.read_text(encoding="utf-8"))
        twice = sorted(set(part) & set(merged))
        if twice:
            raise ValueError(f"{path.name}: {len(twice)} message(s) already in another {language} file, "
                             f"first {twice[0]!r}")
        merged.update(part)
    return merged


def tr(msgid: str, /, *, language: str | None = None, **fields) -> str:
    """`msgid` in the current language (or `language`), with `{fields}` filled in.

    A message missing from the catalog is shown in English (the test suite keeps that from
    shipping). Example: tr("request {n}", n=4, language="zh") -> "第 4 个请求"
    """
    if not isinstance(msgid, str):
        raise TypeError(f"tr() takes the English message as a str, got {type(msgid).__name__}")
    text = catalog(language or lang()).get(msgid, msgid)
    return text.format(**fields) if fields else text


def trn(singular: str, plural: str, n: int, /, *, language: str | None = None, **fields) -> str:
    """A message about `n` things: `singular` when n == 1, else `plural` (English), filled in with
    `{fields}` and `{n}` (unless given, e.g. as "1,234"). In another language the catalog entry of
    `singular` is used for every n (gettext's ngettext; Chinese has no plural forms).

    Example: trn("{n} line", "{n} lines", 1) -> "1 line"; trn("{n} line", "{n} lines", 0) -> "0 lines";
             trn("{n} line", "{n} lines", 2, language="zh") -> "2 行"
    """
    if not isinstance(singular, str) or not isinstance(plural, str):
        raise TypeError("trn() takes the English singular and plural as str")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"trn() counts with an int, got {type(n).__name__}")
    fields.setdefault("n", n)
    table = catalog(language or lang())
    text = table.get(singular) or (singular if n == 1 else plural)
    return text.format(**fields)


def tr_lines(text: str, /, *, language: str | None = None) -> str:
    """`text` with every line that is a message (stripped of its indent) translated, the rest as is.

    For texts written once in English with a few lines a student reads first, such as a stage's
    title and motto in its docstring. Example (zh): "s03 · Permissions: ...\n\nMotto: the model
    proposes, the harness disposes." -> "s03 · 权限：...\n\n格言：模型提议，框架决定。"
    """
    table = catalog(language or lang())
    if not table:
        return text
    out = []
    for line in text.split("\n"):
        key = line.strip()
        out.append(line.replace(key, table[key]) if key and key in table else line)
    return "\n".join(out)
