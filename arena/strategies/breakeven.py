"""Does a rewrite of the history pay for itself? The break-even rule for clearing.

Motto: a clearing is an investment: one cache write now, a smaller read on every later request.

    before:  [ prefix ..... r1 r2 r3 ....... new ]      this request reads old tail (r1..) from the cache
    after:   [ prefix ..... ·  ·  r3 ....... new ]      it writes the new tail instead

    cost    = new_tail x write - old_tail x read        (this request, once; what arrived this turn is
                                                         written either way and left out of both tails)
    saving  = (old_tail - new_tail) x read x remaining  (every later request reads fewer tokens)
    fire  <=> saving > cost,  or the window demands it

How many requests remain is unknown. The prior is Gott's / the Lindy rule: having
run t requests, the session is as likely to end within t more as to go beyond, so
the median remaining length is t, and "expected remaining" here is that median,
`lindy(t) = t`. It is conservative (the mean under that prior is unbounded) and it
needs no knowledge of the future: a clearing early in a session must pay back in
few requests, one late in a long session may take longer. A strategy that knows
better (a test, an oracle) passes its own `remaining`.

Example: gain 5,000 tokens, old tail 30,000, new tail 25,000, 40 requests so far, Sonnet prices:
    cost   = 25,000 x $3.75/M - 30,000 x $0.30/M = $0.0848
    saving =  5,000 x $0.30/M x 40              = $0.0600   -> does not fire (it would after 57 requests)

Not modeled: the cache's 5-minute TTL (a pause in the session makes every read a write anyway).
"""

from __future__ import annotations

from dataclasses import dataclass

from lessonkit.i18n import tr

from ..bills.prices import SONNET, Prices


def lindy(turns_so_far: int) -> float:
    """The median remaining length after `turns_so_far` requests, under the Lindy prior. lindy(40) -> 40"""
    return float(max(0, turns_so_far))


@dataclass(frozen=True)
class Decision:
    """One rewrite considered: its numbers, in tokens and dollars, and whether it fired."""
    turn: int
    gain: int            # tokens every later request no longer reads
    old_tail: int        # tokens from the first rewritten block to the end, before (read from the cache)
    new_tail: int        # the same, after (written to the cache)
    remaining: float     # expected remaining requests
    cost: float          # dollars: this request's extra for the rewrite
    saving: float        # dollars: gain x read price x remaining
    fired: bool
    forced: bool = False  # the window demanded it, whatever the sums

    def line(self) -> str:
        """Example: 'turn 40: clear 5,000 tokens: cost $0.0848 vs saving $0.0600 over 40 requests -> wait'"""
        verdict = tr("fire (the window demands it)") if self.forced else (tr("fire") if self.fired else tr("wait"))
        return tr("turn {turn}: clear {gain} tokens: cost ${cost} vs saving ${saving} over {remaining} requests "
                  "-> {verdict}", turn=self.turn, gain=f"{self.gain:,}", cost=f"{self.cost:.4f}",
                  saving=f"{self.saving:.4f}", remaining=f"{self.remaining:,.0f}", verdict=verdict)


def rewrite_cost(old_tail: int, new_tail: int, prices: Prices = SONNET) -> float:
    """Dollars a rewrite adds to this request: the new tail written instead of the old one read."""
    return (new_tail * prices.cache_write - old_tail * prices.cache_read) / 1_000_000


def saving(gain: int, remaining: float, prices: Prices = SONNET) -> float:
    """Dollars saved by reading `gain` fewer tokens on each of `remaining` later requests."""
    return gain * prices.cache_read * remaining / 1_000_000


def decide(turn: int, old_tail: int, new_tail: int, remaining: float, *, prices: Prices = SONNET,
           force: bool = False) -> Decision:
    """The break-even decision for one rewrite. Example: decide(40, 30_000, 25_000, 40).fired -> False"""
    gain = old_tail - new_tail
    cost, save = rewrite_cost(old_tail, new_tail, prices), saving(gain, remaining, prices)
    return Decision(turn, gain, old_tail, new_tail, remaining, cost, save, force or save > cost, force)


def break_even_requests(old_tail: int, new_tail: int, prices: Prices = SONNET) -> float:
    """How many later requests a rewrite needs to pay back. Example: (30_000, 25_000) -> 56.5"""
    gain = old_tail - new_tail
    if gain <= 0:
        return float("inf")
    return max(0.0, rewrite_cost(old_tail, new_tail, prices) / saving(gain, 1, prices))
