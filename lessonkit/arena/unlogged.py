"""What Claude Code adds to requests and its log never shows: fitted apart from the counter, carried as content.

Motto: a step the new messages cannot explain is not evidence about the counter.

    clean growth steps of the fitted part (bill.py): (counted new blocks by kind c, logged growth g)
        unexplained:  g > UNEXPLAINED x (the plain counter's tokens of the new blocks)
        the counter's per-kind weights w are fitted on the other steps only
        rate u = sum over the unexplained fitted steps of (g - w . c) / number of fitted steps
               (tokens per request: the expected unlogged addition, from the same fitted part)
    in the replay: every request from the second on carries u more tokens, a stand-in block
        "[not in the log: u tokens of additions per request ...]" in the last user message before it:
        carried in the history like other content (cached, cleared by no clearing, gone in a summary)

Why UNEXPLAINED = 3. The kit's counter gives 0.56 to 0.70 of the tokens the API logs (1.4 to 1.8 logged
tokens per counted one, calibration.py), and the widest gap between kinds it knows is CJK, about twice the
counter's count. A step that grows more than three times what its new messages count is beyond any
per-kind weight: something the log does not hold was added (on the Claude Code logs, file-change
reminders after an edit, by their place). Fitting the weights on such steps would turn that content into
a higher ratio for every block of that kind. The constant is set by that argument, not by the bill error.

Example: fitted steps [({"text": 100, ...}, 150), ({"text": 100, ...}, 2_150)] -> the second unexplained;
         w(text) = 1.5 from the first; rate = (2_150 - 150) / 2 = 1_000 tokens per request
"""

from __future__ import annotations

UNEXPLAINED = 3.0
CARRIER = "[not in the log: {n:,} tokens of additions per request (reminders; the expected rate)]"


def unexplained(step: tuple) -> bool:
    """True when a step grew more than UNEXPLAINED times what its new blocks count (plain counter).
    Example: ({"text": 100, "code": 0, "json": 0, "cjk": 0}, 400) -> True"""
    counts, growth = step
    return growth > UNEXPLAINED * sum(counts.values())


def rate(train: list, weights: dict) -> float:
    """Expected unlogged tokens per request: the unexplained steps' excess over the fitted counter,
    spread over all fitted steps. Example: see the module docstring -> 1000.0"""
    if not train:
        return 0.0
    excess = sum(max(0.0, g - sum(weights[k] * c[k] for k in c)) for c, g in train if unexplained((c, g)))
    return excess / len(train)


def carry(session, tokens: int) -> None:
    """Put a stand-in of `tokens` in the last user message before every request but the first."""
    if tokens < 1:
        return
    messages = list(session.messages)
    for index in session.turns[1:]:
        m = messages[index - 1]
        if m.get("role") != "user":
            continue
        content = m["content"]
        content = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        messages[index - 1] = {**m, "content": content + [{"type": "text", "text": CARRIER.format(n=tokens)}]}
    session.messages = messages
