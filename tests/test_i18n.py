"""lessonkit.i18n: the language choice, the lookup, and the Chinese lessons that cannot drift."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from lessonkit import i18n
from lessonkit.i18n import lang, tr
from lessonkit.i18n.lessons import english_lessons, generate, problems, source_of, target_path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["lessonkit", *sorted(p.name for p in ROOT.glob("s[0-9][0-9]_*") if p.is_dir())]


@pytest.fixture
def no_lang_env(monkeypatch, tmp_path):
    for var in ("LESSONS_LANG", *i18n.LOCALE_VARS):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    return monkeypatch


# ---------------------------------------------------------------- choosing the language

def test_english_without_any_setting(no_lang_env):
    assert lang() == "en"


@pytest.mark.parametrize("value, expected", [("zh", "zh"), ("ZH", "zh"), ("en", "en"), (" zh ", "zh")])
def test_lessons_lang_wins(no_lang_env, value, expected):
    no_lang_env.setenv("LANG", "zh_CN.UTF-8" if expected == "en" else "en_US.UTF-8")
    no_lang_env.setenv("LESSONS_LANG", value)
    assert lang() == expected


def test_a_bad_lessons_lang_is_a_one_line_error(no_lang_env):
    no_lang_env.setenv("LESSONS_LANG", "fr")
    with pytest.raises(ValueError, match=r"^LESSONS_LANG must be one of en, zh, got 'fr'$"):
        lang()


@pytest.mark.parametrize("var, value, expected", [
    ("LANG", "zh_CN.UTF-8", "zh"), ("LANG", "zh_TW.Big5", "zh"), ("LANG", "C", "en"),
    ("LC_ALL", "zh_CN.GBK", "zh"), ("LANG", "en_GB.UTF-8", "en"),
])
def test_the_locale_decides_otherwise(no_lang_env, var, value, expected):
    no_lang_env.setenv(var, value)
    assert lang() == expected


def test_a_kernel_started_in_lessons_zh_speaks_chinese(no_lang_env, tmp_path):
    folder = tmp_path / "course" / "zh"  # the lessons folder may be copied under any name
    folder.mkdir(parents=True)
    no_lang_env.chdir(folder)
    no_lang_env.setenv("LANG", "en_US.UTF-8")
    assert lang() == "en"  # a folder named zh with no lessons beside it says nothing
    (tmp_path / "course" / "s01_loop.ipynb").write_text("{}", encoding="utf-8")
    assert lang() == "zh"
    no_lang_env.chdir(tmp_path / "course")
    assert lang() == "en"


# ---------------------------------------------------------------- the lookup

def test_tr_fills_fields_in_either_language(no_lang_env):
    msgid = "{n} of {total} cases pass"
    assert tr(msgid, n=3, total=5) == "3 of 5 cases pass"
    zh = tr(msgid, n=3, total=5, language="zh")
    assert zh != "3 of 5 cases pass" and "3" in zh and "5" in zh


@pytest.mark.parametrize("n, english", [(0, "0 constants"), (1, "1 constant"), (2, "2 constants")])
def test_trn_picks_the_english_form_by_count_and_chinese_needs_one(no_lang_env, n, english):
    from lessonkit.i18n import trn

    one, many = "{n} constant", "{n} constants"
    assert trn(one, many, n) == english
    assert trn(one, many, n, language="zh") == i18n.catalog("zh")[one].format(n=n)
    assert trn("{n} line", "{n} lines", n, n="1,000") == ("1,000 line" if n == 1 else "1,000 lines")


def test_trn_refuses_what_is_not_a_count():
    from lessonkit.i18n import trn

    with pytest.raises(TypeError, match="counts with an int, got float"):
        trn("{n} line", "{n} lines", 1.0)


def test_tr_falls_back_to_english_for_an_unknown_message(no_lang_env):
    assert tr("no such message {x}", x=1, language="zh") == "no such message 1"


def test_a_message_kept_in_two_catalog_files_is_an_error(tmp_path, monkeypatch):
    (tmp_path / "zh").mkdir()
    (tmp_path / "zh" / "a.json").write_text('{"x": "甲", "y": "乙"}', encoding="utf-8")
    (tmp_path / "zh" / "b.json").write_text('{"y": "乙二"}', encoding="utf-8")
    monkeypatch.setattr(i18n, "CATALOG_DIR", tmp_path)
    i18n.catalog.cache_clear()
    try:
        with pytest.raises(ValueError, match="b.json: 1 message.s. already in another zh file, first 'y'"):
            i18n.catalog("zh")
        (tmp_path / "zh" / "b.json").write_text('{"z": "丙"}', encoding="utf-8")
        i18n.catalog.cache_clear()
        assert i18n.catalog("zh") == {"x": "甲", "y": "乙", "z": "丙"}
    finally:
        monkeypatch.undo()
        i18n.catalog.cache_clear()


def test_tr_refuses_what_is_not_a_message():
    with pytest.raises(TypeError, match="takes the English message as a str, got int"):
        tr(7)
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        tr("x", language="fr")


def kit_messages() -> dict[str, str]:
    """Every tr("...") message in the kit's code and the lessons' code cells -> where it is."""
    found: dict[str, str] = {}

    def scan(text: str, where: str) -> None:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return  # a notebook cell with IPython magics: no message in it
        for node in ast.walk(tree):
            name = getattr(node.func, "id", getattr(node.func, "attr", None)) if isinstance(node, ast.Call) else None
            if name == "trn":  # trn(singular, plural, n): the catalog keys it by the singular
                assert all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args[:2]), (
                    f"{where}:{node.lineno}: trn() needs the English singular and plural as literal strings")
                found.setdefault(node.args[0].value, f"{where}:{node.lineno}")
            if name == "tr":
                first = node.args[0] if node.args else None
                assert isinstance(first, ast.Constant) and isinstance(first.value, str), (
                    f"{where}:{node.lineno}: tr() needs the English message as a literal string")
                found.setdefault(first.value, f"{where}:{node.lineno}")

    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            scan(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    for nb in english_lessons(ROOT / "lessons"):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                scan(source_of(cell), f"{nb.name}[{cell['id']}]")
    return found


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_every_message_in_the_kit_has_a_chinese_translation():
    catalog = i18n.catalog("zh")
    missing = [f"{where}: {msgid!r}" for msgid, where in kit_messages().items() if msgid not in catalog]
    assert not missing, "no Chinese for:\n" + "\n".join(missing)


def test_every_translation_keeps_the_fields_of_its_message():
    import string

    def fields(text):
        return sorted({name for _, name, _, _ in string.Formatter().parse(text) if name})

    bad = [m for m, zh in i18n.catalog("zh").items() if fields(m) != fields(zh)]
    assert not bad, f"fields differ between English and Chinese: {bad}"


# ---------------------------------------------------------------- the Chinese lessons

LESSON_FILES = english_lessons(ROOT / "lessons")


@pytest.mark.parametrize("english", LESSON_FILES, ids=lambda p: p.stem)
def test_no_missing_or_stale_translation(english):
    assert problems(english, "zh") == []


@pytest.mark.parametrize("english", LESSON_FILES, ids=lambda p: p.stem)
def test_the_chinese_lesson_is_the_generated_one(english):
    """Code cells byte-identical to the English ones, markdown exactly the translations, in the
    same order with the same ids: lessons/zh is built, never edited by hand."""
    built = json.loads(target_path(english, "zh").read_text(encoding="utf-8"))
    expected = generate(english, "zh")
    assert [(c["id"], c["cell_type"], source_of(c)) for c in built["cells"]] == \
           [(c["id"], c["cell_type"], source_of(c)) for c in expected["cells"]]
    assert built["metadata"]["lessons_language"] == "zh"


def test_problems_name_the_cell(tmp_path):
    lesson = tmp_path / "lessons" / "s99_demo.ipynb"
    lesson.parent.mkdir()
    cells = [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": "Hello"},
             {"cell_type": "markdown", "id": "b", "metadata": {}, "source": "New text"},
             {"cell_type": "code", "id": "c", "metadata": {}, "source": "print(1)", "outputs": [],
              "execution_count": None}]
    lesson.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}),
                      encoding="utf-8")
    (tmp_path / "lessons" / "i18n" / "zh").mkdir(parents=True)
    (tmp_path / "lessons" / "i18n" / "zh" / "s99_demo.json").write_text(json.dumps(
        {"cells": {"a": {"en": "Hello", "zh": "你好"}, "gone": {"en": "x", "zh": "y"}}}), encoding="utf-8")
    assert problems(lesson, "zh") == [
        "s99_demo: cell b is missing (no translation)",
        "s99_demo: cell gone is translated but no longer in the English lesson",
    ]
    cells[0]["source"] = "Hello!"
    lesson.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}),
                      encoding="utf-8")
    assert "s99_demo: cell a is stale (its English changed since it was translated)" in problems(lesson, "zh")
    with pytest.raises(ValueError, match="cell a is stale"):
        generate(lesson, "zh")


# ---------------------------------------------------------------- a font for Chinese charts

def test_the_chinese_font_draws_chinese_or_is_none():
    from lessonkit.i18n.fonts import PREFERRED, cjk_font, covers

    name = cjk_font()
    if name is not None:
        from matplotlib import font_manager

        path = font_manager.findfont(font_manager.FontProperties(family=name), fallback_to_default=False)
        assert name in PREFERRED and covers(path)


def test_a_file_that_is_not_a_font_covers_nothing(tmp_path):
    from lessonkit.i18n.fonts import covers

    junk = tmp_path / "junk.ttf"
    junk.write_bytes(b"not a font")
    assert covers(str(junk)) is False
    assert covers(str(tmp_path / "missing.ttf")) is False


class FakeFont:
    """cjk_font() as setup sees it: the fonts found before and after an install (no real search)."""

    def __init__(self, *found):
        self.found, self.cleared = list(found), 0

    def __call__(self):
        return self.found[min(self.cleared, len(self.found) - 1)]

    def cache_clear(self):
        self.cleared += 1


def fake_system(monkeypatch, *, apt: bool, root: bool, codes=(0, 0)):
    """apt-get present or not, root or not, and a subprocess.run recording what apt-get is asked."""
    import os
    import shutil
    import subprocess

    calls = []

    def run(cmd, **kwargs):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, codes[len(calls) - 1], "", "")

    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/apt-get" if apt and name == "apt-get" else None)
    monkeypatch.setattr(os, "geteuid", lambda: 0 if root else 1000, raising=False)
    monkeypatch.setattr(subprocess, "run", run)
    return calls


@pytest.mark.parametrize("apt, root", [(False, True), (True, False), (False, False)],
                         ids=["no-apt", "not-root", "neither"])
def test_without_a_font_apt_or_root_setup_says_how_to_get_one(no_lang_env, apt, root):
    from lessonkit.i18n import fonts

    no_lang_env.setattr(fonts, "cjk_font", FakeFont(None))
    calls = fake_system(no_lang_env, apt=apt, root=root)
    line = fonts.ensure_cjk_font()
    assert calls == []                                   # nothing installed, nothing tried
    assert line == ("Chinese font: none found; charts keep English labels until one is installed (pip install "
                    "pylopdf-fonts-zh-cn, or as root: apt-get install fonts-wqy-microhei; on Windows and macOS "
                    "one is already there)")
    no_lang_env.setenv("LESSONS_LANG", "zh")
    assert fonts.ensure_cjk_font().startswith("中文字体：没有找到；")


def test_as_root_with_apt_setup_installs_the_debian_font(no_lang_env):
    from lessonkit.i18n import fonts

    no_lang_env.setattr(fonts, "cjk_font", FakeFont(None, "WenQuanYi Micro Hei"))
    calls = fake_system(no_lang_env, apt=True, root=True)
    assert fonts.ensure_cjk_font() == "Chinese font: WenQuanYi Micro Hei"
    assert [c[-1] for c in calls] == ["update", "fonts-wqy-microhei"] and calls[1][-4:-1] == [
        "install", "-y", "--no-install-recommends"]
    no_lang_env.setattr(fonts, "cjk_font", FakeFont(None))
    fake_system(no_lang_env, apt=True, root=True, codes=(100,))
    assert fonts.ensure_cjk_font().startswith(
        "Chinese font: none found and apt-get update failed (exit code 100); charts keep English labels")


def test_the_font_step_setup_runs_prints_one_line_and_never_fails(no_lang_env, capsys):
    from lessonkit.i18n import fonts

    no_lang_env.setattr(fonts, "cjk_font", FakeFont("Noto Sans SC"))
    assert fonts.main() == 0 and capsys.readouterr().out == "Chinese font: Noto Sans SC\n"

    def broken():
        raise RuntimeError("matplotlib's font cache is unreadable")

    no_lang_env.setattr(fonts, "ensure_cjk_font", broken)
    assert fonts.main() == 0
    assert capsys.readouterr().out == ("Chinese font: not checked (matplotlib's font cache is unreadable); "
                                       "charts keep English labels\n")


def test_the_pip_dependency_s_font_draws_chinese_where_no_system_font_does(monkeypatch):
    """pylopdf-fonts-zh-cn (pyproject's dependencies) ships Noto Sans SC: found with no system CJK font."""
    from matplotlib import font_manager

    from lessonkit.i18n import fonts

    shipped = fonts.packaged_font()
    assert shipped is not None and fonts.covers(shipped)
    assert fonts.packaged_font("no_such_font_package") is None
    monkeypatch.setattr(font_manager.fontManager, "ttflist", [])     # matplotlib knows no font
    monkeypatch.setattr(font_manager, "findSystemFonts", lambda *a, **k: [])
    fonts.cjk_font.cache_clear()
    try:
        assert fonts.cjk_font() == "Noto Sans SC"
    finally:
        monkeypatch.undo()
        fonts.cjk_font.cache_clear()


# ---------------------------------------------------------------- the stages' titles and mottos

STAGE_DOCS = ["s01_loop.loop", "s02_tools.loop", "s03_permissions.loop", "s04_hooks.loop",
              "s05_budget.agent", "s06_compact.agent", "s07_reactive.agent", "s08_compact4.agent"]


@pytest.mark.parametrize("name", STAGE_DOCS)
def test_every_stage_title_and_motto_reads_in_chinese(name, no_lang_env):
    import importlib

    from lessonkit.show.source import doc

    module = importlib.import_module(name)
    title, motto = module.__doc__.splitlines()[0].lstrip('"'), next(
        line for line in module.__doc__.splitlines() if line.startswith("Motto:"))
    assert doc(module) == module.__doc__  # English: the docstring as written
    no_lang_env.setenv("LESSONS_LANG", "zh")
    shown = doc(module)
    assert title not in shown and motto not in shown, f"{name}: title or motto has no Chinese in lessonkit/i18n/zh/"
    assert shown.count("\n") == module.__doc__.count("\n")  # the diagram and the rest unchanged


# ---------------------------------------------------------------- narration in the lessons' code cells

WORD = re.compile(r"(?<![\w.])[A-Za-z]+(?:'[a-z]+)?(?![\w.])")  # "request", "seed's"; not app_01, s05, .py
PHRASE_WORDS = 3  # this many words of letters in what one print() shows: an English sentence
SHOWN = ("print", "display")
CHARTS = ("sawtooth", "cache_chart")


def shown_text(node: ast.AST) -> list[str]:
    """The literal text an expression puts on the screen outside tr(): the parts of its string
    literals and f-strings, through if/else, and/or, +, %, comprehensions, str.join and str.format.
    An argument of any other call is that call's data (a prompt, a path, an error), not shown text.

    Example: `f"{n} files" if n else tr("none")` -> [" files"]
    """
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else []
    if isinstance(node, ast.JoinedStr):
        return [t for part in node.values for t in shown_text(part)]
    if isinstance(node, ast.FormattedValue):
        return shown_text(node.value)
    if isinstance(node, ast.IfExp):
        return shown_text(node.body) + shown_text(node.orelse)
    if isinstance(node, ast.BoolOp):
        return [t for value in node.values for t in shown_text(value)]
    if isinstance(node, ast.BinOp):
        return shown_text(node.left) + shown_text(node.right)
    if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
        return shown_text(node.elt)
    if isinstance(node, (ast.Tuple, ast.List)):
        return [t for elt in node.elts for t in shown_text(elt)]
    if isinstance(node, ast.Starred):
        return shown_text(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("join", "format"):
        return shown_text(node.func.value) + [t for arg in node.args for t in shown_text(arg)]
    return []  # a name, a subscript, tr(...) or another call: no literal text of its own


def untranslated_narration(cell_source: str) -> list[str]:
    """Each print()/display() in a code cell whose literal text is an English phrase outside tr().

    Example: 'print("breaker open:", flag)' -> []   (two words: a label)
             'print(f"the whole output of seq: {ok}")' -> ['line 1: "the whole output of seq: "']
    """
    try:
        tree = ast.parse(cell_source)
    except SyntaxError:
        return []  # IPython magics: no narration in them
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SHOWN:
            texts = [t for arg in [*node.args, *(k.value for k in node.keywords)] for t in shown_text(arg)]
            if sum(len(WORD.findall(t)) for t in texts) >= PHRASE_WORDS:
                found.append(f"line {node.lineno}: " + " ".join(repr(t) for t in texts if WORD.search(t)))
    return found


def lesson_narration(lesson: Path) -> list[str]:
    """Every untranslated narration line of one lesson, as 'lesson[cell id] line n: text'."""
    out = []
    for cell in json.loads(lesson.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code":
            out += [f"{lesson.stem}[{cell['id']}] {line}" for line in untranslated_narration(source_of(cell))]
    return out


@pytest.mark.parametrize("source, expected", [
    ('print("the whole output of seq:", ok)', 1),
    ('print(f"{n:,} characters in the context instead of {m:,}")', 1),
    ('print(x if ok else "snip never acted in this run")', 1),
    ('print("\\n".join(f"{k}: {v} messages, {t} tokens sent" for k, v, t in rows))', 1),
    ('display(f"before request {n}: the summary " + "failed")', 1),
    ('print(tr("the whole output of seq: {ok}", ok=ok))', 0),
    ('print(tr("{prompt} -> {answer}", prompt=p, answer=a) if a else "-")', 0),
    ('print("roles:", roles, "| stop:", stop)', 0),               # labels of one or two words
    ('print(agent.ask("Run `ls` and read every file here"))', 0),  # a prompt: the model's data
    ('print(format_table(rows, ("request", "tokens", "cache read")))', 0),
    ('x = "an English sentence kept as data"', 0),
    ('%time print("a magic cell is not Python at all")', 0),
])
def test_narration_is_found_by_what_a_print_shows(source, expected):
    assert len(untranslated_narration(source)) == expected


@pytest.mark.parametrize("english", LESSON_FILES, ids=lambda p: p.stem)
def test_no_lesson_prints_english_narration_outside_tr(english):
    """What a code cell prints is shared by the English and the Chinese lesson: a sentence in it
    must be tr("...") with its Chinese in lessonkit/i18n/zh/, or a Chinese student reads English."""
    found = lesson_narration(english)
    assert not found, "English narration outside tr(), wrap it in tr(...):\n" + "\n".join(found)


@pytest.mark.parametrize("english", LESSON_FILES, ids=lambda p: p.stem)
def test_every_chart_run_label_in_a_lesson_has_chinese(english):
    """A chart translates its runs' labels itself, as it does its title (tests/test_charts.py checks
    the titles), falling back to English when no font draws Chinese; so a lesson passes them as plain
    strings, {"s05 (budget)": rec}, and each with words in it needs an entry in the catalog."""
    catalog = i18n.catalog("zh")
    missing = []
    for cell in json.loads(english.read_text(encoding="utf-8"))["cells"]:
        try:
            tree = ast.parse(source_of(cell)) if cell["cell_type"] == "code" else None
        except SyntaxError:
            tree = None
        for node in ast.walk(tree) if tree else ():
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) in CHARTS
                    and node.args and isinstance(node.args[0], ast.Dict)):
                missing += [f"{english.stem}[{cell['id']}]: {k.value!r}" for k in node.args[0].keys
                            if isinstance(k, ast.Constant) and WORD.search(str(k.value)) and k.value not in catalog]
    assert not missing, "no Chinese for chart labels:\n" + "\n".join(missing)


def test_a_list_of_column_titles_keeps_its_parts_in_chinese():
    """A table's titles are one message, "keep|ideal|safe cut", split on "|" in the cell and zipped
    with the row's values: a translation with another number of parts would shift the columns."""
    bad = [m for m, zh in i18n.catalog("zh").items()
           if "|" in m and "{" not in m and " | " not in m and zh.count("|") != m.count("|")]
    assert not bad, f"a different number of '|' parts in Chinese: {bad}"
