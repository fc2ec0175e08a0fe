"""lessonkit.checks: a check passes a right answer and names the case a wrong one fails."""

from __future__ import annotations

import pytest

from lessonkit.checks import Case, check

CASES = [Case("doubles 2", (2,), expect=4, why="2 * 2 is 4"),
         Case("doubles -1", (-1,), expect=-2),
         Case("keeps its input", ([1, 2],), expect=lambda r: None if r == [1, 2, 1, 2] else f"got {r}")]


def double(x):
    return x * 2


def test_right_answer_passes(capsys):
    result = check(double, CASES)
    assert result and result.failures == []
    assert capsys.readouterr().out.startswith("✓ double: 3/3 cases pass")


@pytest.mark.parametrize("wrong, failing", [
    (lambda x: x + 2, {"doubles -1", "keeps its input"}),
    (lambda x: x ** 2, {"doubles -1", "keeps its input"}),
    (lambda x: 1 / 0, {"doubles 2", "doubles -1", "keeps its input"}),
])
def test_wrong_answer_names_each_failing_case(wrong, failing):
    result = check(wrong, CASES, title="double", echo=False)
    assert not result
    assert {name for name, _ in result.failures} == failing
    assert "✗ double:" in result.report()


def test_failure_reason_shows_input_effect_and_why():
    result = check(lambda x: 5, CASES[:1], echo=False)
    assert result.failures == [("doubles 2", "returned 5, expected 4 (2 * 2 is 4)")]


def test_exceptions_are_reported_in_one_line():
    result = check(lambda x: {}["missing"], CASES[:1], echo=False)
    assert result.failures[0][1].startswith("raised KeyError: 'missing'")


def test_inputs_are_not_mutated_across_cases():
    data = [1]
    check(lambda xs: xs.append(9) or xs, [Case("a", (data,), expect=[1, 9])], echo=False)
    assert data == [1]


def test_no_cases_is_an_error():
    with pytest.raises(ValueError, match="at least one case"):
        check(double, [])
