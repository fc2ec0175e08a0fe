"""Static charts of a run, for readers who cannot run widgets: the saw-tooth and the cache.

Motto: the context grows with every request and falls at every compaction.

    tokens ▲        window ─────────────────────────────────
           │    threshold - - - - - - - - - - - - - - - - - -
           │        /|        /|
           │      /  |micro /  |auto          one line per run, one point per request,
           │    /    ▼    /    ▼              an arrow per compaction (before -> after)
           └────────────────────────────> request

Example: sawtooth(rec, window=8_000, threshold=6_000) -> Figure (displays as a PNG)
         sawtooth({"s06": rec6, "s08": rec8}) -> both runs on one axes
         cache_chart(rec) -> stacked bars per request: cache read / cache write / uncached

Built on matplotlib's object API (Figure + Agg canvas): no pyplot state, no window,
nothing drawn at import. A run is a Recorder, its frames, or a list of token counts.

Not modeled: output tokens on the saw-tooth, time on the x axis (requests are the clock).
"""

from __future__ import annotations

import io

from matplotlib.figure import Figure

RUN_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
CACHE_COLOURS = {"cache read": "#0072B2", "cache write": "#E69F00", "uncached": "#999999"}
SIZE = (9.0, 3.6)       # inches
DPI = 100
MAX_LABELS = 12         # label the largest drops of each run, at most this many
LABEL_ROWS = 3          # staggered rows of drop labels above the data


def _say(text: str, **fields) -> str:
    """A chart's words in the lesson's language (lessonkit.i18n), in English when no installed
    font draws Chinese: a chart never shows empty boxes. Example (zh): "request" -> "请求"."""
    from lessonkit.i18n import catalog, lang
    from lessonkit.i18n.fonts import cjk_font

    language = lang()
    if language != "en" and cjk_font() is None:
        language = "en"
    said = catalog(language).get(text, text)
    return said.format(**fields) if fields else said


def _fonts(fig) -> None:
    """Draw every text of the chart with a font that has Chinese glyphs, when the lesson is Chinese."""
    from lessonkit.i18n import lang
    from lessonkit.i18n.fonts import cjk_font

    font = cjk_font() if lang() != "en" else None
    if font:
        from matplotlib.text import Text

        for text in fig.findobj(Text):
            text.set_fontfamily([font, "DejaVu Sans"])


class Chart(Figure):
    """A Figure that shows itself as a PNG in Jupyter, with or without pyplot."""

    def _repr_png_(self) -> bytes:
        return self.png()

    def png(self) -> bytes:
        """The chart as PNG bytes, the same bytes for the same data and matplotlib version."""
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
        return buf.getvalue()


def series(run) -> tuple[list[int], list[tuple[int, dict]]]:
    """Tokens per request and (request, compaction event) pairs of one run; a request the API
    refused as too long counts what the API counted (above the window), not the kit's estimate.
    Example: series([100, 250, 90]) -> ([100, 250, 90], [])"""
    from .views import refused_tokens

    frames = list(getattr(run, "frames", run))
    if all(isinstance(f, (int, float)) for f in frames):
        return [int(f) for f in frames], []
    if not all(hasattr(f, "tokens") for f in frames):
        raise TypeError("a run is a Recorder, a list of its frames, or a list of token counts")
    events = [(f.request, e) for f in frames for e in f.compactions]
    return [refused_tokens(f) or f.tokens for f in frames], events


def _runs(runs, labels) -> list[tuple[str, object]]:
    """Normalise one run, a list of runs or {label: run} to [(label, run), ...], each label in the
    lesson's language when the catalog has it (as a title is). Example: {"s05 (budget)": rec} ->
    [("s05 (budget)", rec)] in English, [("s05（预算）", rec)] in zh."""
    if isinstance(runs, dict):
        return [(_say(str(k)), v) for k, v in runs.items()]
    items = [] if hasattr(runs, "frames") else list(runs)
    single = (hasattr(runs, "frames") or not items or isinstance(items[0], (int, float))
              or hasattr(items[0], "tokens"))
    group = [runs] if single else items
    labels = list(labels or [])
    default = _say("tokens sent") if len(group) == 1 else _say("run {n}", n="{}")
    return [(_say(str(labels[i])) if i < len(labels) else default.format(i + 1), r) for i, r in enumerate(group)]


def _limits(ax, window, threshold) -> None:
    if threshold:
        ax.axhline(threshold, color="#777777", linestyle="--", linewidth=1.2,
                   label=_say("threshold {n}", n=f"{threshold:,}"))
    if window:
        ax.axhline(window, color="#000000", linewidth=1.2, label=_say("context window {n}", n=f"{window:,}"))


def sawtooth(runs, *, window=None, threshold=None, labels=None, title="Tokens sent per request") -> Chart:
    """Tokens per request, one line per run, an arrow per compaction; the largest drops
    are labelled with their layers, tokens before -> after."""
    fig = Chart(figsize=SIZE)
    ax = fig.add_subplot()
    top, labelled, guides = max(window or 0, threshold or 0), 0, []
    for i, (label, run) in enumerate(_runs(runs, labels)):
        colour = RUN_COLOURS[i % len(RUN_COLOURS)]
        values, events = series(run)
        top = max([top, *values, *(e.get("tokens_before") or 0 for _, e in events)])
        xs = list(range(1, len(values) + 1))
        ax.plot(xs, values, color=colour, marker="o", markersize=3, linewidth=1.4, label=label)
        drops: dict = {}  # x -> [layers, first before, last after]: one label per gap
        for request, e in events:
            before, after = e.get("tokens_before") or 0, e.get("tokens_after") or 0
            x = request - 0.5
            ax.annotate("", xy=(x, after), xytext=(x, before),
                        arrowprops={"arrowstyle": "-|>", "color": colour, "linewidth": 1.2})
            drop = drops.setdefault(x, [[], before, after])
            drop[0].append(str(e.get("layer")))
            drop[2] = after
        biggest = sorted(drops.items(), key=lambda d: (d[1][2] - d[1][1], d[0]))[:MAX_LABELS]
        for x, (layers, before, after) in sorted(biggest):
            # Labels sit in a band above the data, in LABEL_ROWS staggered rows, so neighbours
            # and the title never overlap them; a dotted guide leads down to the arrow.
            row = labelled % LABEL_ROWS
            labelled += 1
            y = 0.97 - 0.075 * row
            ax.annotate(f"{'+'.join(layers)} {before:,}→{after:,}", xy=(x, y),
                        xycoords=("data", "axes fraction"), fontsize=7, color=colour,
                        ha="center", va="top")
            guides.append((x, max(before, after), y - 0.06, colour))
    _limits(ax, window, threshold)
    ax.set_xlabel(_say("request"))
    ax.set_ylabel(_say("tokens sent"))
    ax.set_title(_say(title))
    ax.set_ylim(0, (top or 1) * (1.45 if labelled else 1.08))  # the data stays under the label band
    for x, low, high, colour in guides:  # a dotted guide from each drop up to its label
        ax.vlines(x, low, high * ax.get_ylim()[1], colors=colour, linestyles=":", linewidth=0.6, alpha=0.6)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=4, fontsize=8, frameon=False)
    _fonts(fig)
    fig.tight_layout()
    return fig


def cache_split(usage: dict | None) -> tuple[int, int, int]:
    """(cache read, cache write, uncached) input tokens of one usage dict.
    Example: {'input_tokens': 50, 'cache_read_input_tokens': 900} -> (900, 0, 50)"""
    usage = usage or {}
    return (usage.get("cache_read_input_tokens") or 0, usage.get("cache_creation_input_tokens") or 0,
            usage.get("input_tokens") or 0)


def cache_chart(run, *, title="Prompt cache per request") -> Chart:
    """Stacked bars per request from `usage`: read from the cache, written to it, uncached;
    a dotted line where a compaction rewrote the history (the cache misses after it)."""
    frames = list(getattr(run, "frames", run))
    if not all(hasattr(f, "usage") for f in frames):
        raise TypeError("cache_chart() needs a Recorder or its frames (it reads each frame's usage)")
    splits = [cache_split(f.usage) for f in frames]
    xs = list(range(1, len(frames) + 1))
    fig = Chart(figsize=SIZE)
    ax = fig.add_subplot()
    bottom = [0] * len(frames)
    for k, (name, colour) in enumerate(CACHE_COLOURS.items()):
        heights = [s[k] for s in splits]
        ax.bar(xs, heights, bottom=bottom, color=colour, label=_say(name), width=0.8)
        bottom = [b + h for b, h in zip(bottom, heights)]
    for f in frames:
        if f.compactions:
            ax.axvline(f.request - 0.5, color="#CC79A7", linestyle=":", linewidth=1.2)
            ax.annotate("+".join(str(e.get("layer")) for e in f.compactions), xy=(f.request - 0.5, 0.98),
                        xycoords=("data", "axes fraction"), fontsize=7, color="#CC79A7",
                        ha="right", va="top", rotation=90)
    total = sum(bottom)
    read = sum(s[0] for s in splits)
    ax.set_title(_say("{title} (cache read {share}% of input)", title=_say(title),
                      share=f"{100 * read / total if total else 0:.0f}"))
    ax.set_ylim(0, max(bottom, default=0) * 1.3 or 1)  # room for the layer names at the top
    ax.set_xlabel(_say("request"))
    ax.set_ylabel(_say("input tokens"))
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    _fonts(fig)
    fig.tight_layout()
    return fig
