"""The prompt set (offline/promptset.json), run for real: no case is wrong, each gets its labelled class.

The table in docs/offline-model.md is this run's counts (`python -m offline.promptset`).
"""

from __future__ import annotations

from collections import Counter

import pytest

from offline import promptset


def test_the_prompt_set_covers_every_rule_in_both_languages():
    cases = promptset.cases()
    groups = Counter(c["group"] for c in cases)
    assert 60 <= len(cases) <= 120 and len({c["id"] for c in cases}) == len(cases)
    assert {"outside", "typed", "refs", "clauses", "polite", "typos", "facts", "structured"} <= set(groups)
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in " ".join(c.get("turns", []))) for c in cases) >= 10
    assert {c["expect"] for c in cases} == {"served", "refused"}


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_no_case_is_wrong_and_each_gets_its_class(tmp_path):
    results = promptset.run()
    wrong = [(c["id"], seen[:300]) for c, got, seen in results if got == "wrong"]
    assert wrong == []
    assert [(c["id"], got) for c, got, _ in results if got != c["expect"]] == []
    assert "| **all** |" in promptset.table(results)


@pytest.mark.parametrize("case", [
    {"id": "t-escape", "group": "t", "turns": ["Append the line x to ../important.txt"], "expect": "refused"},
    {"id": "t-made-up", "group": "t", "via": "tool", "schema": {"type": "object", "properties": {
        "age": {"type": "integer"}}, "required": ["age"]}, "text": "Bob is 30", "expect": "served",
     "values": {"age": 31}},
])
def test_the_classifier_itself_can_say_wrong(tmp_path, case):
    """A case whose check does not hold is classed wrong (the check is not a test that cannot fail)."""
    if "schema" in case:
        assert promptset.run_case(case, tmp_path)[0] == "wrong"  # 30 is served, 31 was expected
    else:
        assert promptset.run_case(dict(case, expect="served", files={"notes.txt": "changed"}), tmp_path)[0] == \
            "refused"  # nothing changed and it said why: refused honestly, never counted served
