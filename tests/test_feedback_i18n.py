"""Exercise feedback in both languages: every check speaks Chinese under LESSONS_LANG=zh.

For every exercise (each Exercise in lessonkit/exercises, and the arena's), the report on the
starter and on each plausible wrong answer is checked twice, in English and in Chinese: the
Chinese report has the same cases failing, carries the same numbers, and its sentences (the
header, each case's name, each failure's reason) read in Chinese once code is set aside;
every case name and hint the check can show has a Chinese entry.
"""

from __future__ import annotations

import re

import pytest

from arena import exercise as arena
from lessonkit.exercises.checks import Case, check
from lessonkit.i18n import catalog
from tests.test_exercises import EXERCISES

# What is code in a report line: quoted or bracketed text, identifiers with _ . / ( ) = etc., CamelCase
# names (ToolError), values.
CODE = re.compile(r"""'[^']*'|"[^"]*"|`[^`]*`|\[[^\]]*\]|\{[^}]*\}|<[^>]*>|\b[A-Z][a-z]+[A-Z]\w*"""
                  r"""|[\w$./\\:-]*[_./\\=<>()\[\]$][\w$./\\:()<>=\[\]-]*|\d[\d,.]*""")
CJK = re.compile(r"[\u3400-\u9fff]")
WORD = re.compile(r"[A-Za-z]+")
MIN_SHARE = 0.5


def chinese_share(text: str) -> float:
    """How much of `text`'s prose (code set aside) is Chinese: CJK characters against Latin words
    counted as two characters each (a Chinese word is about two characters).
    Example: chinese_share("content 为空：API 会拒绝") -> 5 / (5 + 2*2); any English sentence -> 0.0"""
    prose = CODE.sub(" ", text)
    cjk = len(CJK.findall(prose))
    words = len(WORD.findall(prose))
    return cjk / (cjk + 2 * words) if cjk + words else 1.0


def numbers(text: str) -> list[str]:
    """The numbers a report says, in any order, temporary folders aside (each run has its own).
    Example: "✗ f: 3/5 cases pass" -> ['3', '5']"""
    return sorted(re.findall(r"\d+", re.sub(r"/tmp/[^'\"\s]*", "", text)))


def without_exception_text(reason: str) -> str:
    """A reason with the text of a raised exception or of the API's refusal set aside: Python's and
    the API's words, quoted as they are, not the kit's.
    Example: "抛出了 ZeroDivisionError：division by zero（…）" -> 抛出了 ZeroDivisionError（…）"""
    return re.sub(r"(抛出了 \w+|被拒绝)：[ -~]*", r"\1", reason)


def assert_chinese_report(en, zh, label: str) -> None:
    """`zh` is `en`'s report in Chinese: same verdict, same failing cases, same numbers, Chinese prose.
    `en` and `zh` are (CheckResult, its report as shown in that language)."""
    (en, en_text), (zh, zh_text) = en, zh
    assert bool(en) == bool(zh) and len(en.failures) == len(zh.failures), label
    assert numbers(en_text) == numbers(zh_text), f"{label}: numbers differ\n{en_text}\n---\n{zh_text}"
    assert chinese_share(en_text) == 0.0, f"{label}: the English report has Chinese in it\n{en_text}"
    lines = zh_text.splitlines()
    assert chinese_share(lines[0]) >= MIN_SHARE, f"{label}: header not in Chinese: {lines[0]}"
    for name, reason in zh.failures:
        problem = without_exception_text(reason)
        shown = catalog("zh").get(name, name)
        assert chinese_share(shown) >= MIN_SHARE, f"{label}: case name {name!r} has no Chinese"
        assert chinese_share(problem) >= MIN_SHARE, f"{label}: reason not in Chinese:\n{reason}"


def both(monkeypatch, run):
    """run() and its report under LESSONS_LANG=en, then under LESSONS_LANG=zh."""
    out = []
    for language in ("en", "zh"):
        monkeypatch.setenv("LESSONS_LANG", language)
        result = run()
        out.append((result, result.report()))
    return out


ANSWERS = [(key, "starter", None) for key in EXERCISES] + [
    (key, m.slip, m.fn) for key, ex in EXERCISES.items() for m in ex.mistakes]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("key, slip, fn", ANSWERS, ids=[f"{k}:{s}" for k, s, _ in ANSWERS])
def test_each_wrong_answer_gets_the_same_report_in_chinese(monkeypatch, key, slip, fn):
    ex = EXERCISES[key]
    en, zh = both(monkeypatch, lambda: ex.check(fn or ex.starter_function()))
    assert_chinese_report(en, zh, f"{key}: {slip}")


@pytest.mark.parametrize("key", EXERCISES)
def test_every_case_and_hint_has_chinese(key):
    ex = EXERCISES[key]
    with ex.setup() as env:
        texts = [case.name for case in ex.cases(env)]
    missing = [t for t in [*texts, *ex.hints] if t not in catalog("zh")]
    assert not missing, f"{key}: no Chinese for {missing}"
    english = [catalog("zh")[t] for t in texts if chinese_share(catalog("zh")[t]) < MIN_SHARE]
    english += [catalog("zh")[t] for t in ex.hints if not CJK.search(catalog("zh")[t])]  # the last is mostly code
    assert not english, f"{key}: Chinese entries that read as English: {english}"


def test_hints_read_in_chinese(monkeypatch):
    from lessonkit.exercises import Hint

    monkeypatch.setenv("LESSONS_LANG", "zh")
    for ex in EXERCISES.values():
        for i, text in enumerate(ex.hints, 1):
            shown, prefix = repr(Hint(i, len(ex.hints), text)), f"提示 {i}/{len(ex.hints)}："
            assert shown.startswith(prefix) and CJK.search(shown[len(prefix):]), shown  # the last is mostly code


def test_the_core_messages_in_both_languages(monkeypatch):
    cases = [Case("doubles 2", (2,), expect=4)]
    monkeypatch.setenv("LESSONS_LANG", "en")
    assert check(lambda x: 5, cases, title="double", echo=False).report() == (
        "✗ double: 0/1 cases pass\n  ✗ doubles 2: returned 5, expected 4")
    assert check(lambda x: {}["k"], cases, echo=False).failures[0][1] == "raised KeyError: 'k'"
    monkeypatch.setenv("LESSONS_LANG", "zh")
    assert check(lambda x: 5, cases, title="double", echo=False).report() == (
        "✗ double：1 个用例通过 0 个\n  ✗ doubles 2：返回了 5，期望的是 4")
    assert check(lambda x: {}["k"], cases, echo=False).failures[0][1] == "抛出了 KeyError：'k'"
    assert check(lambda x: 4, cases, title="double", echo=False).report() == "✓ double：1 个用例通过 1 个"


def test_the_share_tells_english_from_chinese():
    assert chinese_share("returned ../outside.txt instead of raising ToolError: it leads outside") == 0.0
    assert chinese_share("返回了 ../outside.txt，而没有抛出 ToolError：它通向工作区之外") == 1.0
    assert chinese_share("content 为空：API 会拒绝") == 5 / 9


# ---------------------------------------------------------------- the arena's exercise

@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The smallest generated session (as in test_arena.py)."""
    from arena.sessions.generated import generate
    from arena.sessions.session import session_from

    return session_from("tiny", generate(tmp_path_factory.mktemp("gen"), files=2, lines=30, bugs=1))


ARENA = [("starter", None)] + [(m.slip, m.fn) for m in arena.MISTAKES]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("slip, fn", ARENA, ids=[s for s, _ in ARENA])
def test_the_arena_reports_in_chinese(monkeypatch, tiny, slip, fn):
    en, zh = both(monkeypatch, lambda: arena.check(fn or arena.starter_function(), tiny, window=5_000))
    assert_chinese_report(en, zh, f"arena: {slip}")


def test_the_arena_hints_read_in_chinese(monkeypatch):
    missing = [t for t in arena.HINTS if t not in catalog("zh")]
    assert not missing, missing
    monkeypatch.setenv("LESSONS_LANG", "zh")
    for i in range(1, len(arena.HINTS) + 1):
        shown = str(arena.climb(arena.HINTS, arena.batched_clearing, [0], i))
        assert shown.startswith(f"提示 {i}/3：") and CJK.search(shown[len("提示 1/3："):]), shown


def test_every_slip_s08_can_name_has_chinese():
    """s08's estimate check names the slip that gives the student's number: each has a Chinese entry."""
    from lessonkit.exercises.s08_compact4 import SLIPS

    missing = [text for _, text in SLIPS if text not in catalog("zh")]
    assert not missing, missing


def test_every_arena_case_has_chinese(monkeypatch):
    monkeypatch.setenv("LESSONS_LANG", "zh")
    texts = [case.name for case in arena._cases(None, arena.BUDGET)]
    missing = [t for t in texts if t not in catalog("zh") and not CJK.search(t)]
    assert not missing, missing
