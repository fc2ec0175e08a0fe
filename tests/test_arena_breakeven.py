"""The break-even rule: a rewrite fires only when its saving over the remaining requests beats its cost."""

from __future__ import annotations

import pytest

from arena.bills.prices import SONNET
from arena.replay import replay
from arena.sessions.session import session_from
from arena.strategies.breakeven import break_even_requests, decide, lindy, rewrite_cost, saving
from arena.strategies.recommended import Recommended


def reads(turns: int, size: int = 300, edit: int = 100) -> list:
    """A task, then `turns` calls, each writing `edit` lines (inputs are never cleared) and reading
    `size` lines (results are), and an answer."""
    messages = [{"role": "user", "content": "Fix the failing tests in src/app.py please"}]
    for k in range(turns):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{k:03d}", "name": "bash",
             "input": {"command": f"cat src/m{k}.py", "content": "new line\n" * edit}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{k:03d}", "content": f"line {k} of m{k}\n" * size}]})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    return messages


def test_the_rule_in_dollars_matches_the_docstring_example():
    d = decide(40, 30_000, 25_000, 40)
    assert d.cost == pytest.approx(0.08475) and d.saving == pytest.approx(0.06) and not d.fired
    assert break_even_requests(30_000, 25_000) == pytest.approx(56.5)
    assert decide(40, 30_000, 25_000, 57).fired and not decide(40, 30_000, 25_000, 56).fired
    assert decide(40, 30_000, 25_000, 0, force=True).fired          # the window demands it
    assert rewrite_cost(10, 10) == pytest.approx((10 * 3.75 - 10 * 0.30) / 1e6)
    assert saving(1_000_000, 1, SONNET) == pytest.approx(0.30) and lindy(12) == 12.0


@pytest.mark.parametrize("tail,gain", [(20_000, 2_000), (50_000, 30_000), (4_000, 3_000)])
def test_a_rewrite_fires_exactly_when_the_remaining_requests_repay_it(tail, gain):
    n = break_even_requests(tail, tail - gain)
    assert not decide(1, tail, tail - gain, max(0.0, n - 0.5)).fired
    assert decide(1, tail, tail - gain, n + 0.5).fired


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_a_clearing_near_the_end_does_not_fire_and_one_early_does(tmp_path):
    messages = reads(70)
    session = session_from("s", messages)
    total = len(session.turns)
    known = lambda t: total - t          # an oracle that knows when the session ends  # noqa: E731
    oracle = replay(session, lambda: Recommended(remaining=known), workdir=tmp_path / "o")
    eager = replay(session, lambda: Recommended(break_even=False), workdir=tmp_path / "e")
    clears = lambda r: [t for t, layer in r.compactions if layer == "clear"]  # noqa: E731
    late = [t for t in clears(eager) if total - t <= 8]
    assert late, "the batch rule alone clears near the end"         # the audited failure
    assert clears(oracle) and min(clears(oracle)) < total // 2      # early clearings still fire
    assert not [t for t in clears(oracle) if total - t <= 8]        # the late one waits
    assert oracle.cost() < eager.cost()


def test_the_lindy_prior_waits_early_where_a_long_future_would_fire(tmp_path):
    session = session_from("s", reads(70))
    strategy = Recommended()
    replay(session, lambda: strategy, workdir=tmp_path)
    assert strategy.decisions, "the pipeline considered clearings"
    for d in strategy.decisions:                                   # remaining = requests so far
        assert d.remaining == d.turn and d.fired == (d.saving > d.cost or d.forced)
    waited = [d for d in strategy.decisions if not d.fired]
    assert all(d.cost >= d.saving for d in waited)
    assert "->" in strategy.decisions[0].line()
