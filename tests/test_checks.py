"""lessonkit.exercises.checks: a check passes a right answer and names the case a wrong one fails."""

from __future__ import annotations

import pytest

from lessonkit.exercises.checks import Case, check

CASES = [Case("doubles 2", (2,), expect=4),
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


def test_failure_reason_shows_what_came_back_and_what_was_expected():
    result = check(lambda x: 5, CASES[:1], echo=False)
    assert result.failures == [("doubles 2", "returned 5, expected 4")]


def test_a_verdict_explains_the_failure_it_found():
    def doubled(result):
        if result == 4:
            return None
        return f"returned {result}, expected 4" + (": that is 2 * 3, not 2 * 2" if result == 6 else "")

    case = [Case("doubles 2", (2,), expect=doubled)]
    assert check(lambda x: x * 3, case, echo=False).failures == [
        ("doubles 2", "returned 6, expected 4: that is 2 * 3, not 2 * 2")]
    assert check(lambda x: x + 1, case, echo=False).failures == [("doubles 2", "returned 3, expected 4")]
    assert check(lambda x: {}["k"], case, echo=False).failures == [("doubles 2", "raised KeyError: 'k'")]


def test_a_case_has_no_fixed_why():
    """A why fixed per case would be said about every failure of it, also about a mistake not made."""
    with pytest.raises(TypeError, match="why"):
        Case("doubles 2", (2,), expect=4, why="2 * 2 is 4")


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
