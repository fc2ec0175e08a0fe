"""The arena's price table: what a request's usage costs in dollars.

Motto: tokens are not money until you say which tokens.

    usage ──> input_tokens                x input price        (uncached, after the last breakpoint)
              cache_creation_input_tokens x cache-write price  (5-minute cache: 1.25 x input)
              cache_read_input_tokens     x cache-read price   (0.1 x input)
              output_tokens               x output price

Prices are US dollars per million tokens: the list prices of Claude Sonnet 4.5, the
model of the two Claude Code traces (Sonnet 4 and 4.6 have the same row), from
Anthropic's pricing page, https://platform.claude.com/docs/en/about-claude/pricing
("Model pricing": base input $3, 5m cache writes $3.75, 1h cache writes $6, cache
hits & refreshes $0.30, output $15), checked on 2026-11-30 against a stored copy of the
page (its zh-CN edition, same table). The multipliers are the
page's own: a 5-minute cache write is 1.25x input, a cache read 0.1x. Requests above
200K input tokens are not priced at a long-context rate: the arena's window is 200K,
and a request over it is reported as over the window, not priced higher.

Prices decide more than the total: the recommended pipeline's batch size comes from
the ratio cache write / cache read (recommended.py). Other prices: Prices(...).

Example: cost({"input_tokens": 1_000_000}) -> 3.0
         cost({"cache_read_input_tokens": 1_000_000, "output_tokens": 1_000}) -> 0.315

Not modeled: the 1-hour cache (write x2), batch discounts, regional multipliers.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..i18n import tr

PRICING_PAGE = "https://platform.claude.com/docs/en/about-claude/pricing"


def source() -> str:
    """Where the prices come from, for results.md, in the student's language."""
    return tr("Claude Sonnet 4.5 list prices, {url} ($3 input, $3.75 5-minute cache write, $0.30 cache read, "
              "$15 output per million tokens; checked 2026-11-30 on a stored copy of the page)", url=PRICING_PAGE)


@dataclass(frozen=True)
class Prices:
    """Dollars per million tokens of each kind."""
    input: float = 3.00
    cache_write: float = 3.75
    cache_read: float = 0.30
    output: float = 15.00

    def cost(self, usage: dict) -> float:
        """Dollars for one request's usage dict (missing kinds count as 0)."""
        return (usage.get("input_tokens", 0) * self.input
                + usage.get("cache_creation_input_tokens", 0) * self.cache_write
                + usage.get("cache_read_input_tokens", 0) * self.cache_read
                + usage.get("output_tokens", 0) * self.output) / 1_000_000


SONNET = Prices()


def cost(usage: dict, prices: Prices = SONNET) -> float:
    """Dollars for a usage dict at the default (Sonnet) prices."""
    return prices.cost(usage)
