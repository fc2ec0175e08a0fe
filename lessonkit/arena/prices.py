"""The arena's price table: what a request's usage costs in dollars, at its own model's price.

Motto: tokens are not money until you say which tokens, and whose.

    usage ──> input_tokens                         x input price     (uncached, after the last breakpoint)
              cache_creation_input_tokens          x cache-write price:
                 cache_creation.ephemeral_5m_...     5-minute write: 1.25 x input
                 cache_creation.ephemeral_1h_...     1-hour write:   2 x input
              cache_read_input_tokens              x cache-read price (0.1 x input)
              output_tokens                        x output price
    model   ──> MODELS[family] (the dated id "claude-opus-4-20250514" -> "claude-opus-4")

Prices are US dollars per million tokens, the list prices of Anthropic's pricing
page, https://platform.claude.com/docs/en/docs/about-claude/pricing ("Model
pricing": base input, 5m cache writes, 1h cache writes, cache hits & refreshes,
output), checked on 2026-12-02 against a stored copy of the page (its en and zh-CN
editions carry the same table). A usage without the `cache_creation` split (logs
before Claude Code 2.1.1x) counts every write as a 5-minute write. Requests above
200K input tokens are not priced at a long-context rate: the arena's window is 200K.

Prices decide more than the total: the recommended pipeline's batch size comes from
the ratio cache write / cache read (recommended.py).

Example: cost({"input_tokens": 1_000_000}) -> 3.0
         for_model("claude-opus-4-20250514").output -> 75.0
         for_model("claude-opus-4-6").cost({"cache_creation_input_tokens": 10**6,
             "cache_creation": {"ephemeral_1h_input_tokens": 10**6}}) -> 10.0

Not modeled: batch discounts, regional multipliers, long-context rates, data residency.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..i18n import tr

PRICING_PAGE = "https://platform.claude.com/docs/en/docs/about-claude/pricing"
CHECKED = "2026-12-02"


@dataclass(frozen=True)
class Prices:
    """Dollars per million tokens of each kind (cache_write: the 5-minute write)."""
    input: float = 3.00
    cache_write: float = 3.75
    cache_read: float = 0.30
    output: float = 15.00
    cache_write_1h: float = 6.00

    def cost(self, usage: dict) -> float:
        """Dollars for one request's usage dict (missing kinds count as 0; 1-hour writes at their price)."""
        written = usage.get("cache_creation_input_tokens", 0) or 0
        split = usage.get("cache_creation")
        hour = int(split.get("ephemeral_1h_input_tokens") or 0) if isinstance(split, dict) else 0
        hour = min(hour, written)
        return ((usage.get("input_tokens", 0) or 0) * self.input
                + (written - hour) * self.cache_write + hour * self.cache_write_1h
                + (usage.get("cache_read_input_tokens", 0) or 0) * self.cache_read
                + (usage.get("output_tokens", 0) or 0) * self.output) / 1_000_000


def _row(base: float, output: float) -> Prices:
    """A row of the page: 5m write 1.25x, 1h write 2x, read 0.1x of the base input price."""
    return Prices(base, round(base * 1.25, 4), round(base * 0.1, 4), output, base * 2)


SONNET = _row(3.00, 15.00)
MODELS = {                                # family -> Prices; the page's table, checked CHECKED
    "claude-opus-4-6": _row(5.00, 25.00),
    "claude-opus-4-5": _row(5.00, 25.00),
    "claude-opus-4-1": _row(15.00, 75.00),
    "claude-opus-4": _row(15.00, 75.00),
    "claude-sonnet-4-6": SONNET,
    "claude-sonnet-4-5": SONNET,
    "claude-sonnet-4": SONNET,
    "claude-3-7-sonnet": SONNET,
    "claude-haiku-4-5": _row(1.00, 5.00),
    "claude-3-5-haiku": Prices(0.80, 1.00, 0.08, 4.00, 1.60),
}
_DATED = re.compile(r"-(\d{8}|latest)$")


def family(model) -> str | None:
    """The table's key for a model id: 'claude-opus-4-1-20250805' -> 'claude-opus-4-1'; None if unknown."""
    if not isinstance(model, str):
        return None
    name = _DATED.sub("", model.strip().lower().split("[")[0])
    return name if name in MODELS else None


def for_model(model, default: Prices = SONNET) -> Prices:
    """The list prices of `model` (a dated or undated id); `default` for a model the table does not hold."""
    key = family(model)
    return MODELS[key] if key else default


def source() -> str:
    """Where the prices come from, for results.md, in the student's language."""
    return tr("each request at its own model's list price, {url} (checked {date}): Opus 4 / 4.1 $15 input, "
              "$75 output; Opus 4.5 / 4.6 $5 / $25; Sonnet 4 / 4.5 $3 / $15; Haiku 4.5 $1 / $5; Haiku 3.5 "
              "$0.80 / $4 per million tokens; 5-minute cache write 1.25x input, 1-hour write 2x, read 0.1x; "
              "a request whose model is not logged at Sonnet 4.5's", url=PRICING_PAGE, date=CHECKED)


def cost(usage: dict, prices: Prices = SONNET) -> float:
    """Dollars for a usage dict at the default (Sonnet) prices."""
    return prices.cost(usage)
