"""The consequence metric on a small hand-made session whose answer is known."""

from __future__ import annotations

import pytest

from arena.measures.consequences import Checker, find_needs
from arena.replay import replay
from arena.run import run_arena
from arena.sessions.session import session_from
from arena.strategies.baselines import NoCompaction, ObservationMasking

LINE = "def compute_total(items): return sum(item.price for item in items)"


def call(k: int, name: str, inp: dict, result: str, text: str = "") -> list:
    head = [{"type": "text", "text": text}] if text else []
    return [{"role": "assistant", "content": head + [{"type": "tool_use", "id": f"t{k}", "name": name, "input": inp}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": result}]}]


def hand_made() -> list:
    """t0 reads a.py; t1 runs pytest; t2..t5 read other files; t6 edits a.py quoting a line of t0's
    result; t7 runs pytest again. Needs: t0 at turn 6 (re-read of a.py's path, and the quote),
    t1 at turn 7 (re-run). Nothing else is ever needed again."""
    m = [{"role": "user", "content": "Fix the total in src/a.py"}]
    m += call(0, "Read", {"file_path": "src/a.py"}, f"import math\n{LINE}\n")
    m += call(1, "Bash", {"command": "pytest -x"}, "FAILED test_total - AssertionError: 3 != 4")
    for k, name in enumerate("bcde", start=2):
        m += call(k, "Read", {"file_path": f"src/{name}.py"}, f"x_{name} = {k}  # a value used nowhere else")
    m += call(6, "Edit", {"file_path": "src/a.py", "old_string": LINE, "new_string": LINE + " + 1"}, "ok")
    m += call(7, "Bash", {"command": "pytest  -x"}, "1 passed")
    m.append({"role": "assistant", "content": [{"type": "text", "text": "Fixed."}]})
    return m


def test_the_needs_of_the_hand_made_session_are_the_known_ones():
    needs = find_needs(session_from("hand", hand_made()))
    assert sorted((t, item, why) for t, item, why, _ in needs.needs) == [
        (6, "t0", "quote"), (6, "t0", "re-read"), (7, "t1", "re-run")]
    assert needs.items == 2 and needs.moments == 2


@pytest.mark.parametrize("n,lost", [(1, 2), (5, 2), (6, 0), (10, 0)])
def test_each_strategy_is_charged_the_needed_items_it_had_removed(n, lost):
    # masking-n keeps the newest n results. At turn 6 (results t0..t5) t0 is the 6th newest: masked
    # for n <= 5; at turn 7 (t0..t6) t1 is the 6th newest: the same. One need per (request, result).
    session = session_from("hand", hand_made())
    rows, _ = run_arena([session], ["none"])
    assert (rows[0].needed_lost, rows[0].needed) == (0, 2)
    checker = Checker(find_needs(session))
    replay(session, lambda: ObservationMasking(n), probe=checker)
    assert len(checker.removed) == lost, checker.removed


def test_a_summary_that_keeps_the_quoted_line_keeps_what_was_needed():
    session = session_from("hand", hand_made())
    needs = find_needs(session)
    checker = Checker(needs)
    summary = [{"role": "user", "content": f"Summary: a.py holds\n{LINE}\nand pytest failed."}]
    checker(6, summary)
    assert [(t, item, why) for t, item, why in checker.removed] == [(6, "t0", "quote,re-read")]
    assert NoCompaction().name == "none"


def test_a_need_quoted_only_is_met_by_a_summary_that_kept_the_line():
    m = hand_made()
    m[13]["content"][0]["input"] = {"file_path": "notes.md", "content": LINE}   # a Write quoting t0, no re-read
    needs = find_needs(session_from("hand", m))
    assert sorted((t, item, why) for t, item, why, _ in needs.needs)[0] == (6, "t0", "quote")
    checker = Checker(needs)
    checker(6, [{"role": "user", "content": f"Summary: a.py holds\n{LINE}"}])
    assert checker.removed == [] and checker.checked == 1
    checker(6, [{"role": "user", "content": "Summary: a.py defines compute_total"}])
    assert [item for _, item, _ in checker.removed] == ["t0"]


def test_the_goal_of_issue_14_is_called_per_run_and_part():
    from arena.measures.metrics import Row
    from arena.measures.spread import goal_lines

    def r(name, cost, lost, over=0):
        return Row("s", name, 10, cost, 0, 0, 0, 0, 0, 0, 0, 1000, over, 0, 1.0, {}, 0.0,
                   needed_lost=lost, needed=9)

    base = [r("none", 10.0, 0), r("cheap", 5.0, 4), r("recommended", 5.04, 2), r("big", 4.0, 0, over=3)]
    assert "cost met (1/1 runs)" in goal_lines({"main": base})[0]                # within 1 %, 'big' over
    assert "under 60 % of none and Claude Code's own compaction: met (1/1 runs)" in goal_lines({"main": base})[0]
    worse = [*base[:2], r("recommended", 5.2, 2), base[3]]
    assert "cost NOT MET (0/1 runs)" in goal_lines({"main": worse})[0]
    spread = {"main": base, "x2": [*base[:2], r("recommended", 5.2, 2), base[3]]}
    assert "cost NOT MET (1/2 runs)" in goal_lines(spread)[0]
    dear = [r("none", 10.0, 0), r("other", 9.0, 0), r("recommended", 8.0, 5)]
    assert "n/a" in goal_lines({"main": dear})[0]


def test_the_oracle_is_a_bound_not_a_rival_in_either_goal():
    """Bug: the goal checks counted the oracle (a hindsight schedule no one can run) as a rival, so
    every session read 'cheaper: ..., oracle' and 'cost NOT MET'."""
    from arena.measures.frontier import forgetting_lines
    from arena.measures.goal import goal_check
    from arena.measures.metrics import Row
    from arena.measures.spread import goal_lines

    def r(name, cost, lost):
        return Row("s", name, 10, cost, 0, 0, 0, 0, 0, 0, 0, 1000, 0, 0, 1.0, {}, 1.0, needed_lost=lost, needed=9)

    rows = [r("none", 10.0, 0), r("other", 9.0, 0), r("recommended", 8.0, 2), r("oracle", 7.0, 5)]
    assert "cost met (1/1 runs)" in goal_lines({"main": rows})[0]
    assert "oracle" not in goal_lines({"main": rows})[0]
    assert goal_check(rows)[0].startswith("s: met with key-fact recall, met with output recall · $8.00, cheapest")
    assert forgetting_lines(rows) == []


@pytest.mark.parametrize("summaries", [0, 1])
def test_the_oracle_is_called_a_bound_only_for_the_pipelines_own_clearing(summaries):
    """Bug: the page called the oracle 'a lower bound for every strategy here' whenever none cost less, and
    said 'it bounds' every strategy that cost more; by construction it bounds only the schedules of the
    pipeline's own clearing (not a strategy that summarises, the pipeline included when it summarised)."""
    from arena.measures.frontier import bound_lines
    from arena.measures.metrics import Row

    def r(name, cost, calls=0):
        return Row("s", name, 10, cost, 0, 0, 0, 0, 0, calls, 0, 1000, 0, 0, 1.0, {}, 1.0, needed_lost=0, needed=9)

    rows = [r("none", 10.0), r("api-compact", 8.5, 1), r("recommended", 8.0, summaries), r("oracle", 7.0)]
    (line,) = bound_lines(rows)
    assert "every strategy" not in line and "observation" in line and "only the pipeline's own clearing" in line
    assert ("the recommended pipeline, which only cleared here" in line) is (summaries == 0)
    cheaper = [*rows[:3], r("oracle", 8.2)]
    (line,) = bound_lines(cheaper)
    assert "NOT a bound for recommended" in line and "api-compact" not in line.split("which cost less")[0]
