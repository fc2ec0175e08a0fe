"""lessonkit.show.diff, stagecode and diffview: what a stage adds to the one before, from the code."""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

from lessonkit.show import diff
from lessonkit.show.diff import stage_diff
from lessonkit.show.diffview import Code, side_by_side
from lessonkit.show.stagecode import stages

ROOT = Path(__file__).resolve().parent.parent
LESSONS = ROOT / "lessons"

OLD = {
    "__init__.py": "from .core import LIMIT, MODE, Agent, helper\n",
    "core.py": '''\
        """Old core."""
        LIMIT = 10
        MODE = "plain"


        def helper(x):
            return x


        class Agent:
            def run(self, x):
                return helper(x)

            def stop(self):
                return "stopped"
        ''',
}
NEW = {
    "__init__.py": "from .core import LIMIT, Agent, helper\nfrom .extra import EXTRA, shout\n",
    "core.py": '''\
        """New core: a louder agent."""
        from s91_alpha import Agent as OldAgent
        from s91_alpha.core import helper

        LIMIT = 20


        class Agent(OldAgent):
            STYLE = "loud"

            def run(self, x):
                return helper(x).upper()

            def shout(self):
                return "HEY"
        ''',
    "extra.py": '''\
        """Extra things: a new file."""
        EXTRA = {"b", "a", "c"}


        def shout(text):
            return text.upper()
        ''',
}


def write_stage(root: Path, name: str, files: dict) -> None:
    (root / name).mkdir()
    for file, text in files.items():
        (root / name / file).write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """Two small stages, s91_alpha and s92_beta, importable; forgotten again afterwards."""
    write_stage(tmp_path, "s91_alpha", OLD)
    write_stage(tmp_path, "s92_beta", NEW)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.split(".")[0] in ("s91_alpha", "s92_beta")]:
        del sys.modules[name]


def test_new_files_overrides_and_constants_come_from_the_code(fake):
    d = stage_diff("s91_alpha", "s92_beta", root=fake)
    files = {f.name: f for f in d.files}
    assert [f.name for f in d.files] == ["extra.py", "core.py", "__init__.py"]   # new files first
    assert files["extra.py"].new and not files["core.py"].new
    assert files["extra.py"].defines == ["def shout"] and files["extra.py"].doc == "Extra things: a new file."
    [run] = files["core.py"].overrides
    assert run.name == "Agent.run"
    assert (run.old.where, run.old.line, run.new.line) == ("s91_alpha/core.py", 11, 11)
    assert run.old.text == "def run(self, x):\n    return helper(x)\n"                   # dedented, as written
    assert run.new.text == "def run(self, x):\n    return helper(x).upper()\n"
    assert files["core.py"].added == ["Agent.shout"]
    constants = {c.name: (c.old, c.value) for f in d.files for c in f.constants}
    assert constants == {"LIMIT": ("10", "20"), "Agent.STYLE": (None, "'loud'"),
                         "EXTRA": (None, "{'a', 'b', 'c'}")}                              # a set, sorted
    assert d.headline() == ("s92_beta adds to s91_alpha: 1 new file, 1 overridden method, 1 new method, "
                            "1 changed constant, 2 new constants")


def test_the_diff_follows_the_code(fake):
    """Nothing is written by hand: change the new stage, and the diff changes with it."""
    core = fake / "s92_beta" / "core.py"
    core.write_text(core.read_text(encoding="utf-8").replace("LIMIT = 20", "LIMIT = 10"), encoding="utf-8")
    d = stage_diff("s91_alpha", "s92_beta", root=fake)
    assert "LIMIT" not in {c.name for f in d.files for c in f.constants}      # same value: not a change


def test_plain_text_puts_the_two_versions_side_by_side(fake):
    text = stage_diff("s91_alpha", "s92_beta", root=fake).text(width=80)
    assert text.splitlines()[0].startswith("s92_beta adds to s91_alpha:")
    assert "== s92_beta/extra.py (new file, " in text
    assert "   LIMIT = 10 -> 20   [s92_beta/core.py:5]" in text
    rows = text[text.index("overrides Agent.run:"):].splitlines()[1:4]
    assert re.match(r"   s91_alpha/core.py:11-12 +\| s92_beta/core.py:11-12$", rows[0])
    assert re.match(r"   def run\(self, x\): +\| def run\(self, x\):$", rows[1])
    assert re.match(r"       return helper\(x\) +\|     return helper\(x\).upper\(\)$", rows[2])
    assert all(len(line) <= 80 for line in text.splitlines() if "|" in line)


def test_side_by_side_cuts_long_lines_to_the_width():
    left = Code("a/x.py", 1, "x = '" + "a" * 200 + "'\n")
    right = Code("b/x.py", 5, "y = 1\n")
    rows = side_by_side(left, right, width=60)
    assert rows[0].startswith("a/x.py:1-1") and rows[0].endswith("| b/x.py:5-5")
    assert all(len(r) <= 60 for r in rows) and "…" in rows[1]


def test_the_notebook_view_is_collapsible_coloured_and_stable(fake):
    d = stage_diff("s91_alpha", "s92_beta", root=fake)
    html = d._repr_html_()
    assert html.count("<details>") == len(d.files) == 3
    assert "<summary><code>s92_beta/extra.py</code> (new, " in html
    assert '<span class="k">def</span>' in html                         # pygments' colouring
    assert str(fake) not in html and str(ROOT) not in html              # relative paths only
    assert html == stage_diff("s91_alpha", "s92_beta", root=fake)._repr_html_()
    assert repr(d).splitlines() == [d.headline(), "  extra.py: new, 1 constant",
                                    "  core.py: 1 overridden, 1 new method, 2 constants",
                                    "  __init__.py: same name, nothing overridden"]


@pytest.mark.parametrize("stage", stages()[1:])
def test_every_stage_has_something_to_show(stage):
    d = stage_diff(stage)
    assert d.old == stages()[stages().index(stage) - 1]
    assert d.counts()["overridden"] >= 1 and d.counts()["new files"] >= 1
    assert all(o.new.where.startswith(stage + "/") for f in d.files for o in f.overrides)
    assert all(not o.old.where.startswith(stage + "/") for f in d.files for o in f.overrides)


def test_s06_shows_prepare_beside_s05s_and_the_new_layers():
    d = stage_diff("s05_budget", "s06_compact")
    assert {f.name for f in d.files if f.new} == {"auto.py", "micro.py", "summary.py", "transcript.py"}
    prepare = next(o for f in d.files for o in f.overrides if o.name == "Agent.prepare")
    assert prepare.old.where == "s05_budget/agent.py" and prepare.new.where == "s06_compact/agent.py"
    layers = next(c for f in d.files for c in f.constants if c.name == "Agent.LAYERS")
    assert (layers.old, layers.value) == ("('budget',)", "('budget', 'micro', 'auto')")


def test_the_command_line(capsys):
    assert diff.main(["s05_budget", "s06_compact", "--width", "100"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("s06_compact adds to s05_budget: 4 new files")
    assert diff.main(["s06_compact", "--width", "100"]) == 0 and capsys.readouterr().out == out
    assert diff.main(["s99_nothing"]) == 2
    assert capsys.readouterr().err == ("error: unknown stage 's99_nothing': use one of "
                                       + ", ".join(stages()) + "\n")
    assert diff.main(["s01_loop"]) == 2
    assert "s01_loop is the first stage" in capsys.readouterr().err


@pytest.mark.parametrize("stage", stages()[1:])
def test_each_stage_notebook_opens_with_the_diff(stage):
    cells = json.loads((LESSONS / f"{stage}.ipynb").read_text(encoding="utf-8"))["cells"]
    first_code = next(c for c in cells if c["cell_type"] == "code")
    previous = stages()[stages().index(stage) - 1]
    source = "".join(first_code["source"])
    setup = source.split("\n\nfrom lessonkit.show.diff", 1)[0] if "\n\nfrom lessonkit.show.diff" in source else ""
    assert setup in ("", "from lessonkit.show.lesson import start\n\n"
                         "start()   # the lesson's setup: an interrupt shows one line (%tb: its traceback)"), setup
    assert source[len(setup):].lstrip("\n").startswith(   # after the one-line setup, the diff comes first
        f'from lessonkit.show.diff import stage_diff\n\nstage_diff("{previous}", "{stage}")')


def test_a_constant_holding_functions_shows_no_address():
    """s02's TYPES maps names to lambdas: their repr held `at 0x7f...`, a new text on every run."""
    from lessonkit.show.stagecode import _stable

    shown = _stable({"string": lambda v: isinstance(v, str), "n": [len]})
    assert " at 0x" not in shown and shown.startswith("{'string': <function ")


ENGLISH_DIFF_WORDS = re.compile(r"\b(adds|new|files?|overridden|overrides|methods?|constants?|changed|lines|"
                                r"also in|same name|nothing|replaced|where|error)\b")


def test_the_diff_reads_in_chinese_with_the_same_numbers(fake, monkeypatch):
    """Bug: a Chinese lesson opened with 's06_compact adds to s05_budget: 4 new files, ...'."""
    shown = {}
    for language in ("en", "zh"):
        monkeypatch.setenv("LESSONS_LANG", language)
        d = stage_diff("s91_alpha", "s92_beta", root=fake)
        shown[language] = {"headline": d.headline(), "text": d.text(width=80), "repr": repr(d),
                           "html": re.sub(r"<style>.*?</style>|<[^>]+>", " ", d._repr_html_(), flags=re.S)}
    zh, en = shown["zh"], shown["en"]
    assert zh["headline"] == ("s92_beta 在 s91_alpha 的基础上：新增 1 个文件，覆盖 1 个方法，新增 1 个方法，"
                              "改动 1 个常量，新增 2 个常量")
    assert "== s92_beta/extra.py （新文件，" in zh["text"] and "（s91_alpha 里也有，" in zh["text"]
    assert "   LIMIT = 10 -> 20   [s92_beta/core.py:5]" in zh["text"] and "'loud'（新增）" in zh["text"]
    assert "   新增：Agent.shout" in zh["text"] and "   覆盖 Agent.run：" in zh["text"]
    assert zh["repr"].splitlines()[1:] == ["  extra.py: 新文件，1 个常量", "  core.py: 覆盖 1 个，新增 1 个方法，2 个常量",
                                           "  __init__.py: 同名文件，没有覆盖任何东西"]
    assert "常量" in zh["html"] and "位置" in zh["html"] and "s91_alpha（被替换的）" in zh["html"]
    for key in en:
        code = re.sub(r"(def|class|return) .*", "", zh[key])  # the code shown stays as written
        assert not ENGLISH_DIFF_WORDS.search(code.replace("Extra things: a new file", "")), (key, zh[key])
        assert sorted(re.findall(r"\d+", zh[key])) == sorted(re.findall(r"\d+", en[key])), key


def test_the_command_line_speaks_chinese(capsys, monkeypatch):
    monkeypatch.setenv("LESSONS_LANG", "zh")
    assert diff.main(["s05_budget", "s06_compact", "--width", "100"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("s06_compact 在 s05_budget 的基础上：新增 4 个文件，")
    assert "== s06_compact/agent.py （s05_budget 里也有，" in out
    assert "s06 · 压缩：三层" in out  # the stage's title, translated where the kit has it
    assert diff.main(["s99_nothing"]) == 2 and capsys.readouterr().err.startswith("出错：unknown stage")
