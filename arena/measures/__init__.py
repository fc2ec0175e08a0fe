"""arena.measures: what the arena measures and claims, per strategy and session.

    metrics.py       cost, tokens, cache, peak, invalid requests, key-fact recall
    probes.py        output recall: the recent tool output each request still shows
    consequences.py  needed results removed when the recorded agent needed them
    goal.py          the goal per session: cheapest among those that fit, recall kept
    spread.py        the goal across the counter's spread
    frontier.py      regret against the oracle; cost against memory, the Pareto front

Example: goal_check(rows) -> one line per session: is the goal met there, part by part, and if not, why not
"""
