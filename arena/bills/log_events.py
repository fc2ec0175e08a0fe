"""What the log states each request held and read, taken as events of the session: sizes, excess, cache loss.

Motto: the log is the measurement: read the session's events off it, apply them alike to every strategy.

    clean growth steps (bills/model.py): (counted new blocks by kind c, logged growth g, request t)
        the step's own ratio r_t = g / (plain tokens of c): every block new at step t counts r_t x its
        plain tokens (bill.KindMemo's per-block weights), so a replay of what was sent holds, request by
        request, the size the log states, and a strategy that clears a block removes that block's share
        unless the step is unexplained (g > UNEXPLAINED x the median step ratio x c): then its blocks count
        as the per-kind weights say (w . c, fitted on the other steps) and
        excess_t = g - w . c: what the new messages cannot hold (Claude Code's reminders, files it
                   attaches): a stand-in block
                   "[not in the log: n tokens of ...]" in the last user message before request t, carried
                   like other content (cached, cleared by no clearing, gone in a summary)
    cache events: request t read R_t of the cache (the log's cache_read_input_tokens), while the request
        before it left C_{t-1} tokens cached (its read + its write). R_t + MIN_TOKENS < C_{t-1} (and no
        compaction between): the cache lost what was written after request s = the last request with C_s <= R_t
        (s = -1: only the system prompt and tools, read before the first request, are left; -2: nothing).
        The replay evicts, before request t, every entry any strategy wrote after request s: a pause over
        the TTL, a rewrite mid-session, whatever the cause, as the log shows it.

    uncached tails: request t sent its newest n tokens uncached (the log's input_tokens, n >= MIN_TOKENS):
        n of each strategy's writes at t are uncached, and its next request writes them (uncached_tails)
    far reads: request t's new messages hold more than LOOKBACK blocks and still read all the request before
        left cached: the API found that entry, so the replay's cache looks back that far at t (found_far)

Why UNEXPLAINED = 3. The kit's counter gives 0.56 to 0.70 of the tokens the API logs, and the widest gap
between kinds it knows is CJK, about twice the counter's count: a step that grows more than three times
the median ratio holds content its new messages do not (the constant is set by that argument, not by a
bill error). Why MIN_TOKENS: the API caches nothing shorter than 1,024 tokens, so a read short by less than
that is no evidence the cache lost anything.

Example: steps ({"text": 100}, 150, 1), ({"text": 100}, 140, 2), ({"text": 100}, 2_150, 3), weights text 1.45
         -> median 1.5; step 3 grew 21.5x: unexplained -> ratios {1: 1.5, 2: 1.4, 3: 1.45}, excess {3: 2_005}
"""

from __future__ import annotations

from offline.api.cache import LOOKBACK, MIN_TOKENS

UNEXPLAINED = 3.0
CARRIER = "[not in the log: {n:,} tokens of what request {t} held beyond its new messages (the log's own size)]"
AFTER_COMPACTION = ("[not in the log: {n:,} tokens of what Claude Code sent after its compaction besides the "
                    "summary (files, reminders: the log's own size)]")


def unexplained(step: tuple, median: float = 1.0) -> bool:
    """True when a step grew more than UNEXPLAINED x `median` times what its new blocks count (plain counter).
    Example: ({"text": 100, "code": 0, "json": 0, "cjk": 0}, 400) -> True"""
    counts, growth = step[:2]
    return growth > UNEXPLAINED * median * sum(counts.values())


def median_ratio(found: list) -> float:
    """The median logged-per-counted ratio of the steps (1.0 without any)."""
    ratios = sorted(g / sum(c.values()) for c, g, *_ in found if sum(c.values()) > 0)
    return ratios[len(ratios) // 2] if ratios else 1.0


def step_ratios(found: list, weights: dict) -> tuple[dict, dict]:
    """({request t: ratio of its new blocks}, {request t: excess tokens}) from the steps (c, g, t): a step
    its blocks explain carries its whole growth in them; an unexplained one gives its blocks the per-kind
    `weights` (what such blocks count elsewhere in the log) and the rest to a stand-in."""
    median = median_ratio(found)
    ratios, excess = {}, {}
    for c, g, t in found:
        n = sum(c.values())
        if n <= 0:
            continue
        if not unexplained((c, g), median):
            ratios[t] = g / n
            continue
        expected = sum(weights.get(k, 1.0) * v for k, v in c.items())
        ratios[t] = expected / n
        if g - expected >= 1:
            excess[t] = round(g - expected)
    return ratios, excess


def carry(session, excess: dict) -> int:
    """Put the stand-in of each request's excess in the last user message before it; the tokens in all."""
    messages, carried = list(session.messages), 0
    for t, index in enumerate(session.turns):
        n = excess.get(t, 0)
        m = messages[index - 1] if index else None
        if n < 1 or not m or m.get("role") != "user":
            continue
        content = m["content"]
        content = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        messages[index - 1] = {**m, "content": content + [{"type": "text", "text": CARRIER.format(n=n, t=t)}]}
        carried += n
    session.messages = messages
    return carried


def cache_events(usage: list, cut: set, prefix: int, left: list | None = None) -> dict:
    """{request t: s}: before request t the cache lost every entry written after request s (see above).
    `usage`: the logged usage per request (what request s left cached: its read + its write); `cut`:
    requests with a compaction before them (their lower read is the compaction's, not a loss); `prefix`: the
    system prompt and tools; `left`: per turn, the usage of its last request (a retry after it: what the turn
    left cached), default `usage`. Example: cached [10_000, 12_000, 14_000], request 2 reads 3_000 = the
    prefix -> {2: -1}"""
    def cached(u):
        return int(u.get("cache_read_input_tokens") or 0) + int(u.get("cache_creation_input_tokens") or 0) \
            if isinstance(u, dict) else None
    held, out = [cached(u) for u in (left or usage)], {}
    for t in range(1, len(usage)):
        u, before = usage[t], held[t - 1]
        if not isinstance(u, dict) or before is None or t in cut:
            continue
        read = int(u.get("cache_read_input_tokens") or 0)
        if read + MIN_TOKENS >= before:
            continue
        kept = [s for s in range(t) if held[s] is not None and held[s] <= read]
        out[t] = kept[-1] if kept else (-1 if prefix and read >= prefix else -2)
    return out


def uncached_tails(usage: list) -> dict:
    """{request t: n}: request t sent its newest n tokens as uncached input (the log's input_tokens, where at
    least MIN_TOKENS: a request's few uncached tokens after its breakpoint are no such event). Replayed alike
    for every strategy (replay._tail): that many of its written tokens are uncached, and the next request
    writes them instead of reading them.
    Example: [{"input_tokens": 3}, {"input_tokens": 13_074}] -> {1: 13_074}"""
    return {t: int(u["input_tokens"]) for t, u in enumerate(usage)
            if isinstance(u, dict) and int(u.get("input_tokens") or 0) >= MIN_TOKENS}


def found_far(session, left: list, cut: set) -> set:
    """The requests t whose new messages hold more than LOOKBACK blocks and that still read all the request
    before left cached (the log's read): the API found that entry, however far back it was. Replayed alike
    for every strategy: for such a request the cache looks back as far as it must (replay.py).
    Example: 12 parallel results (25 new blocks) and a read of everything before -> {t}"""
    out, turns = set(), session.turns
    for t in range(1, min(len(turns), len(session.usage))):
        u, before = session.usage[t], left[t - 1]
        if t in cut or not isinstance(u, dict) or not isinstance(before, dict):
            continue
        blocks = sum(len(m["content"]) if isinstance(m.get("content"), list) else 1
                     for m in session.messages[turns[t - 1]:turns[t]])
        held = int(before.get("cache_read_input_tokens") or 0) + int(before.get("cache_creation_input_tokens") or 0)
        if blocks > LOOKBACK and int(u.get("cache_read_input_tokens") or 0) + MIN_TOKENS >= held:
            out.add(t)
    return out
