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
page, https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing":
base input, 5m cache writes, 1h cache writes, cache hits & refreshes, output), and
of the model pages for the rows the stored copy of the table cuts off (SOURCES),
checked on 2026-12-04. Most rows read the cache at 0.1x input; Opus 5.5, Sonnet 5.5
and Fable / Mythos 5.1 at less (0.05x, 0.025x): each row states its own read price.
Haiku 5.5 is priced by prompt length (Prices.long). A model the table does not hold
is never priced silently (for_model: a warning naming it and the price used). A usage
without the `cache_creation` split (logs before Claude Code 2.1.1x) counts every write
as a 5-minute write.

Prices decide more than the total: the recommended pipeline's batch size comes from
the ratio cache write / cache read (recommended.py).

Example: cost({"input_tokens": 1_000_000}) -> 3.0
         for_model("claude-opus-4-20250514").output -> 75.0
         for_model("claude-opus-4-6").cost({"cache_creation_input_tokens": 10**6,
             "cache_creation": {"ephemeral_1h_input_tokens": 10**6}}) -> 10.0

Codex CLI's OpenAI models have rows of their own (OPENAI, SOURCES["openai"]): OpenAI caches every prompt
by itself and charges nothing to write it, so a row's cache write is its input price and its cache read
the cached-input price; an OpenAI model the table does not hold is billed at GPT-5's, with the warning.

Not modeled: batch discounts, regional multipliers, long-context rates, data residency.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lessonkit.i18n import tr

PRICING_PAGE = "https://platform.claude.com/docs/en/about-claude/pricing"
CHECKED = "2026-12-04"
SOURCES = {   # where each row was read (stored copies of Anthropic's pages, searched on CHECKED)
    "table": PRICING_PAGE + ' ("Model pricing": Fable 5.1, Mythos 5.1, Fable 5, Mythos 5, Opus 5, 4.8, 4.7, 4.6, '
             '4.5, 4.1, 4, Sonnet 4.6, 4.5, 4, 3.7, Haiku 4.5, 3.5, Opus 3, Haiku 3)',
    "claude-opus-5-5": "https://platform.claude.com/docs/zh-CN/models/opus-5-5/overview "
                       "($4 / $5 / $8 / $0.20 / $20)",
    "claude-sonnet-5": "https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview "
                       "($2 / $2.50 / $4 / $0.20 / $10)",
    "claude-sonnet-5-5": "https://platform.claude.com/docs/zh-CN/models/sonnet-5-5/overview ($2 / $2.50 / $4 / $10; "
                         "its cache read, $0.20 there, was cut to $0.10 on 2026-10-07: the pricing page as quoted by "
                         "the changelogs of kurofune/claudit v1.9.2 and phuryn/claude-usage v1.5.7, "
                         "checked 2026-12-01)",
    "claude-haiku-5-5": "https://platform.claude.com/docs/zh-CN/models/haiku-5-5/overview (by prompt length: up to "
                        "100,000 tokens $0.10 / $0.125 / $0.20 / $0.01 / $0.50, over it $0.50 / $0.625 / $1.00 / "
                        "$0.05 / $2.50 on every token of the request; the cache-read figures as quoted by "
                        "kurofune/claudit v1.9.2)",
}


@dataclass(frozen=True)
class Prices:
    """Dollars per million tokens of each kind (cache_write: the 5-minute write).

    `long` / `long_above`: the row that prices a whole request whose prompt (input + cache writes + cache
    reads) is over `long_above` tokens (Haiku 5.5's two bands)."""
    input: float = 3.00
    cache_write: float = 3.75
    cache_read: float = 0.30
    output: float = 15.00
    cache_write_1h: float = 6.00
    long: Prices | None = None
    long_above: int = 0

    def for_prompt(self, prompt: int) -> Prices:
        """The row that prices a request with this many prompt tokens."""
        return self.long if self.long is not None and prompt > self.long_above else self

    def cost(self, usage: dict) -> float:
        """Dollars for one request's usage dict (missing kinds count as 0; 1-hour writes at their price)."""
        written = usage.get("cache_creation_input_tokens", 0) or 0
        split = usage.get("cache_creation")
        hour = int(split.get("ephemeral_1h_input_tokens") or 0) if isinstance(split, dict) else 0
        hour = min(hour, written)
        read, fresh = usage.get("cache_read_input_tokens", 0) or 0, usage.get("input_tokens", 0) or 0
        row = self.for_prompt(fresh + written + read)
        return (fresh * row.input + (written - hour) * row.cache_write + hour * row.cache_write_1h
                + read * row.cache_read + (usage.get("output_tokens", 0) or 0) * row.output) / 1_000_000


def _row(base: float, output: float, read: float | None = None) -> Prices:
    """A row of the page: 5m write 1.25x, 1h write 2x of the base input price; read 0.1x unless stated."""
    return Prices(base, round(base * 1.25, 4), round(base * 0.1, 4) if read is None else read, output, base * 2)


SONNET = _row(3.00, 15.00)
OPUS_45 = _row(5.00, 25.00)
OPUS_4 = _row(15.00, 75.00)
FABLE = _row(10.00, 50.00, 1.00)
FABLE_51 = _row(10.00, 50.00, 0.25)
MODELS = {                                # family -> Prices; each row as the pages say (SOURCES), read CHECKED
    "claude-fable-5-1": FABLE_51,
    "claude-mythos-5-1": FABLE_51,
    "claude-fable-5": FABLE,
    "claude-mythos-5": FABLE,
    "claude-opus-5-5": _row(4.00, 20.00, 0.20),        # cache read 0.05x
    "claude-opus-5": OPUS_45,
    "claude-opus-4-8": OPUS_45,
    "claude-opus-4-7": OPUS_45,
    "claude-opus-4-6": OPUS_45,
    "claude-opus-4-5": OPUS_45,
    "claude-opus-4-1": OPUS_4,
    "claude-opus-4": OPUS_4,
    "claude-opus-4-0": OPUS_4,
    "claude-3-opus": OPUS_4,
    "claude-sonnet-5-5": _row(2.00, 10.00, 0.10),      # cache read 0.05x since 2026-10-07
    "claude-sonnet-5": _row(2.00, 10.00, 0.20),
    "claude-sonnet-4-6": SONNET,
    "claude-sonnet-4-5": SONNET,
    "claude-sonnet-4": SONNET,
    "claude-sonnet-4-0": SONNET,
    "claude-3-7-sonnet": SONNET,
    "claude-haiku-5-5": Prices(0.10, 0.125, 0.01, 0.50, 0.20, Prices(0.50, 0.625, 0.05, 2.50, 1.00), 100_000),
    "claude-haiku-4-5": _row(1.00, 5.00),
    "claude-3-5-haiku": Prices(0.80, 1.00, 0.08, 4.00, 1.60),
    "claude-3-haiku": Prices(0.25, 0.30, 0.03, 1.25, 0.50),
}
OPENAI_PAGES = "https://developers.openai.com/api/docs/models/<model> (\"Text tokens\": input, cached input, output)"
SOURCES["openai"] = (
    OPENAI_PAGES + ": gpt-5, gpt-5-codex, gpt-5.1 $1.25 / $0.125 / $10; gpt-5-mini $0.25 / $0.025 / $2; "
    "codex-mini-latest $1.50 / $0.375 / $6; gpt-5.2, gpt-5.2-codex, gpt-5.3-codex $1.75 / $0.175 / $14, "
    "gpt-5.4 $2.50 / $0.25 / $15, gpt-4.1 $2 / $0.50 / $8 (those as GitHub's Copilot price table quotes "
    "OpenAI's page, github/docs data/tables/copilot/models-and-pricing.yml); gpt-5.5 $5 / $0.50 / $30 "
    "(OpenAI's page as read on 2026-11-05 by the api-evangelist post of 2026-11-06); checked 2026-12-07")


def _openai(base: float, cached: float, output: float) -> Prices:
    """An OpenAI row: every prompt is cached by the provider itself at no charge beyond the input price
    (a 'write' costs the input price), a cached token costs `cached`."""
    return Prices(base, base, cached, output, base)


GPT_5 = _openai(1.25, 0.125, 10.00)
OPENAI = {                                 # what Codex CLI runs (its rollouts name the model per turn)
    "gpt-5": GPT_5, "gpt-5-codex": GPT_5, "gpt-5.1": GPT_5, "gpt-5.1-codex": GPT_5, "gpt-5.1-codex-max": GPT_5,
    "gpt-5-mini": _openai(0.25, 0.025, 2.00), "gpt-5.1-codex-mini": _openai(0.25, 0.025, 2.00),
    "gpt-5-codex-mini": _openai(0.25, 0.025, 2.00), "codex-mini": _openai(1.50, 0.375, 6.00),
    "gpt-5.2": _openai(1.75, 0.175, 14.00), "gpt-5.2-codex": _openai(1.75, 0.175, 14.00),
    "gpt-5.3-codex": _openai(1.75, 0.175, 14.00), "gpt-5.4": _openai(2.50, 0.25, 15.00),
    "gpt-5.5": _openai(5.00, 0.50, 30.00), "gpt-4.1": _openai(2.00, 0.50, 8.00),
}
MODELS.update(OPENAI)
FREE = {"<synthetic>"}    # Claude Code's own stand-in replies (an API error shown as a message): no request
_DATED = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2}|latest|v\d+(:\d+)?)$")
_PREFIX = re.compile(r"^(?:[a-z]{2}\.)?(?:anthropic[./]|openai/)?")     # Bedrock / Vertex / router prefixes


class UnknownModel(ValueError):
    """A model the price table does not hold."""


UNPRICED: dict = {}       # model id -> the price it was billed at: filled while billing, printed by the report


def family(model) -> str | None:
    """The table's key for a model id: 'claude-opus-4-1-20250805' -> 'claude-opus-4-1'; None if unknown."""
    if not isinstance(model, str):
        return None
    name, before = _PREFIX.sub("", model.strip().lower().split("[")[0]).replace("@", "-"), None
    while name != before:                      # "...-20250929-v1:0": the version, then the date
        name, before = _DATED.sub("", name), name
    return name if name in MODELS else None


def for_model(model, default: Prices = SONNET, *, strict: bool = False) -> Prices:
    """The list prices of `model` (a dated or undated id). A model not logged (None) is priced at
    `default`; a model the table does not know raises UnknownModel with `strict`, else is priced at
    `default` and recorded in UNPRICED with a warning naming it and the price used (never silently)."""
    key = family(model)
    if key:
        return MODELS[key]
    if model is None or model in FREE:
        return default
    if strict:
        raise UnknownModel(f"{model}: no list price in the arena's table ({PRICING_PAGE}, checked {CHECKED})")
    used = GPT_5 if _openai_like(model) else default      # an OpenAI model at GPT-5's, not at a Claude's
    if model not in UNPRICED:
        import warnings

        UNPRICED[model] = used
        warnings.warn(unpriced_line(model, used), stacklevel=2)
    return used


def _openai_like(model) -> bool:
    """An OpenAI model id the table does not hold. Example: 'gpt-5.6-sol' -> True, 'claude-x' -> False"""
    name = _PREFIX.sub("", str(model).strip().lower())
    return bool(re.match(r"(gpt-|o\d|codex)", name))


def unpriced_in(sessions) -> dict:
    """The models of `sessions` the table does not hold -> the price each was billed at.

    Example: sessions logging 'claude-opus-4-7' and 'mystery-1' -> {'mystery-1': SONNET}"""
    models = {m for s in sessions for m in s.models if m is not None and m not in FREE}
    return {m: UNPRICED.get(m, GPT_5 if _openai_like(m) else SONNET) for m in sorted(models) if family(m) is None}


def unpriced_line(model: str, used: Prices) -> str:
    """The loud line for a model the table does not hold."""
    return tr("WARNING: model {model} has no list price in the arena's table: billed at ${input} input / "
              "${output} output per million tokens ({like}'s), which may be wrong", model=model,
              input=f"{used.input:g}", output=f"{used.output:g}", like="GPT-5" if used is GPT_5 else "Sonnet 4.5")


def source() -> str:
    """Where the prices come from, for results.md, in the student's language."""
    return tr("each request at its own model's list price, {url} and the model pages (checked {date}): Fable / "
              "Mythos 5 and 5.1 $10 / $50 (cache read $1 and $0.25); Opus 5.5 $4 / $20 (read 0.05x); Opus 4.5 "
              "to 5 $5 / $25; Opus 3, 4, 4.1 $15 / $75; Sonnet 5 and 5.5 $2 / $10 (read $0.20 and $0.10); "
              "Sonnet 3.7 to 4.6 $3 / $15; Haiku 5.5 $0.10 / $0.50 up to 100K prompt tokens, $0.50 / $2.50 "
              "over; Haiku 4.5 $1 / $5; Haiku 3.5 $0.80 / $4; Haiku 3 $0.25 / $1.25 per million tokens; "
              "5-minute cache write 1.25x input, 1-hour write 2x, read 0.1x unless stated; a request whose "
              "model is not logged at Sonnet 4.5's; a model the table does not hold is billed at Sonnet 4.5's "
              "with a warning naming it", url=PRICING_PAGE, date=CHECKED) + " " + tr(
        "OpenAI models (Codex CLI's) at OpenAI's list prices (the model pages, checked {date}): gpt-5, gpt-5-codex, "
        "gpt-5.1 and its codex models $1.25 input / $0.125 cached input / $10 output; gpt-5.2 and the 5.2 / 5.3 "
        "codex models $1.75 / $0.175 / $14; gpt-5.4 $2.50 / $0.25 / $15; gpt-5.5 $5 / $0.50 / $30; OpenAI caches "
        "every prompt by itself, so a cache write costs the input price", date="2026-12-07")


def cost(usage: dict, prices: Prices = SONNET) -> float:
    """Dollars for a usage dict at the default (Sonnet) prices."""
    return prices.cost(usage)
