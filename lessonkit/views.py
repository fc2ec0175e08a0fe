"""Message-list view: one coloured bar per content block, as wide as its tokens, steppable in time.

Motto: see the context: what fills it, how full it is, and what compaction did to it.

    messages ──> bars() ──> [Bar(msg, kind, tokens, text), ...] ──> render() ──> one HTML string
    or frames    classify() every block                              gauge · totals · legend · rows
                                                                                 │
    Play ─jslink─ IntSlider ──observe──> HTML.value (and the frame Label) <──────┘
    (updates go through widget traits, never clear_output)

    MessageListView(history)      frame k = the first k messages
    timeline(recorder)            frame k = request k, a saw-tooth strip, compaction banners
    compare(before, after)        one layer's effect, side by side, rewritten blocks outlined

Example: bars([{"role": "user", "content": "hi"}]) -> [Bar(msg=0, kind='user', tokens=4, text='hi')]

DOM contract (a browser test relies on it): the view's root widget has class `lk-msgview`;
each bar is `.lk-bar` with `data-kind` (and `data-tokens`); the totals line `.lk-total` starts
"<N> messages"; the IntSlider has `lk-frame-slider`, the Play `lk-frame-play`, the frame Label
`lk-frame-label`. All bars stay in the DOM; the rows scroll (max-height) when they do not fit.

Not modeled: images' pixels (a block of PER_IMAGE tokens), editing the history from the view.
"""

from __future__ import annotations

import html
import json
from typing import NamedTuple

from . import tokens

KINDS = ("user", "assistant", "tool_use", "tool_result", "error", "summary", "placeholder",
         "persisted", "marker")
PALETTE = {"user": "#0072B2", "assistant": "#009E73", "tool_use": "#E69F00",  # Okabe-Ito colours
           "tool_result": "#56B4E9", "error": "#D55E00", "summary": "#CC79A7",
           "placeholder": "#BBBBBB", "persisted": "#F0E442", "marker": "#000000"}
SUMMARY_PREFIXES = ("[Compacted]", "[Reactive compact]", "[Summary]", "[对话摘要]",
                    "This session is being continued", "<summary>")
MARKER_PREFIXES = ("[snipped ", "[Truncated ")
PLACEHOLDER_PREFIX = "[Previous: used "
PERSISTED_PREFIX = "<persisted-output>"
PREVIEW = 60          # characters of text shown beside a bar
MAX_HEIGHT_PX = 420   # the rows scroll beyond this
PLAY_STEPS = 100      # a full Play takes about this many steps, however long the history
LIVE_DRAG_BARS = 1500  # with more bars than this, the slider redraws on release, not while dragging

_KIND_CSS = "".join(f".lk-msgs [data-kind={k}]{{background:{c}}}" for k, c in PALETTE.items())
STYLE = ("<style>.lk-msgs{font:12px/1.35 ui-monospace,Menlo,Consolas,monospace;color:#222}"
         f".lk-msgs .lk-rows{{max-height:{MAX_HEIGHT_PX}px;overflow-y:auto;border:1px solid #ddd}}"
         ".lk-msgs .lk-row{display:flex;align-items:center;height:15px;white-space:nowrap}"
         ".lk-msgs .lk-first{border-top:1px solid #eee}"
         ".lk-msgs .lk-i{flex:0 0 3.5em;text-align:right;padding-right:5px;color:#888}"
         ".lk-msgs .lk-track{flex:0 0 45%;height:11px}"
         ".lk-msgs .lk-bar{display:block;height:11px;min-width:1px}"
         ".lk-msgs .lk-t{flex:1 1 0;overflow:hidden;text-overflow:ellipsis;padding-left:6px}"
         ".lk-msgs .lk-gauge{position:relative;display:flex;height:16px;background:#f2f2f2;"
         "border:1px solid #bbb;margin:4px 0}"
         ".lk-msgs .lk-seg{display:block;height:100%}"
         ".lk-msgs .lk-mark{position:absolute;top:-4px;bottom:-4px;border-left:2px dashed #D55E00}"
         ".lk-msgs .lk-mark-window{border-left:2px solid #000}"
         ".lk-msgs .lk-line{font-size:11px;color:#D55E00;border-top:2px dashed #D55E00}"
         ".lk-msgs .lk-line-window{color:#000;border-top:2px solid #000}"
         ".lk-msgs .lk-legend{display:flex;flex-wrap:wrap;gap:10px;font-size:11px;margin:2px 0}"
         ".lk-msgs .lk-sw{display:inline-block;width:10px;height:10px;margin-right:3px}"
         ".lk-msgs .lk-event{background:#fbeff6;border-left:4px solid #CC79A7;padding:1px 6px}"
         ".lk-msgs .lk-changed{outline:2px solid #CC79A7;outline-offset:-2px}"
         ".lk-msgs .lk-gone{opacity:.4}" + _KIND_CSS + "</style>")


class Bar(NamedTuple):
    """One content block as the view draws it: message index, kind, tokens, a one-line preview."""
    msg: int
    kind: str
    tokens: int
    text: str


def _lead(content) -> str:
    """The first text of a content (a string or a list of blocks), for prefix checks."""
    if isinstance(content, str):
        return content
    for block in content or ():
        if isinstance(block, str):
            return block
        if block.get("type") == "text":
            return block.get("text") or ""
    return ""


def classify(block, role: str = "user") -> str:
    """The kind of one content block. Example: classify({'type': 'text', 'text': '[Summary] ...'}) -> 'summary'

    A tool_result that compaction rewrote shows as what it became (placeholder,
    persisted), even if it was an error; other is_error results are "error".
    """
    kind = "text" if isinstance(block, str) else block.get("type")
    if kind == "tool_use":
        return "tool_use"
    if kind == "tool_result":
        lead = _lead(block.get("content")).lstrip()
        if lead.startswith(PLACEHOLDER_PREFIX):
            return "placeholder"
        if lead.startswith(PERSISTED_PREFIX):
            return "persisted"
        return "error" if block.get("is_error") else "tool_result"
    if kind == "text":
        lead = (block if isinstance(block, str) else block.get("text") or "").lstrip()
        if lead.startswith(SUMMARY_PREFIXES):
            return "summary"
        if lead.startswith(MARKER_PREFIXES):
            return "marker"
        if lead.startswith(PLACEHOLDER_PREFIX):
            return "placeholder"
    return "assistant" if role == "assistant" else "user"


def _short(text: str) -> str:
    """One line of at most PREVIEW characters. Example: _short('a\\n  b') -> 'a b'"""
    line = " ".join(text[:PREVIEW * 3].split())
    if len(line) > PREVIEW:
        line = line[:PREVIEW - 1] + "…"
    return line.encode("utf-8", "replace").decode("utf-8")


def _preview(block, names: dict) -> str:
    """What a block says, in one line: text, `tool: input` or `tool: result`."""
    if isinstance(block, str):
        return _short(block)
    kind = block.get("type")
    if kind == "text":
        return _short(block.get("text") or "")
    if kind == "tool_use":
        arg = block.get("input") or {}
        values = list(arg.values()) if isinstance(arg, dict) else [arg]
        shown = values[0] if len(values) == 1 and isinstance(values[0], str) else json.dumps(
            arg, ensure_ascii=False, sort_keys=True)
        return _short(f"{block.get('name', '?')}: {shown}")
    if kind == "tool_result":
        name = names.get(block.get("tool_use_id"))
        return _short((f"{name} → " if name else "") + _lead(block.get("content")))
    return _short(str(kind))


def message_bars(i: int, message: dict, names: dict) -> list[Bar]:
    """The Bars of message i; `names` maps tool_use ids to tool names (updated here)."""
    if not isinstance(message, dict):
        raise TypeError(f"message {i} is a {type(message).__name__}, not a dict")
    role, content = message.get("role"), message.get("content")
    if not content or isinstance(content, str):  # a string is one text block, counted as the API does
        return [Bar(i, classify(content or "", role), tokens.PER_MESSAGE + tokens.count_content(content),
                    _short(content) if content else "(empty)")]
    out, overhead = [], tokens.PER_MESSAGE  # the message's overhead goes to its first block
    for block in content:
        if not isinstance(block, (dict, str)):
            raise TypeError(f"message {i} has a {type(block).__name__} block, not a dict")
        if isinstance(block, dict) and block.get("type") == "tool_use":
            names[block.get("id")] = block.get("name", "?")
        out.append(Bar(i, classify(block, role), overhead + tokens.count_block(block),
                       _preview(block, names)))
        overhead = 0
    return out


def bars(messages) -> list[Bar]:
    """One Bar per content block (a string content is one block); the tokens add up to
    tokens.count_messages(messages). Example: 2 messages of 1 block each -> 2 Bars"""
    out, names = [], {}
    for i, message in enumerate(messages):
        out += message_bars(i, message, names)
    return out


def _pct(part, whole) -> str:
    return f"{min(100.0, 100.0 * part / whole):.2f}%" if whole else "0%"


def _row(bar: Bar, first: bool, scale: int, mark: str = "") -> str:
    """One row: message index (on a message's first block), the bar, tokens and preview."""
    cls = "lk-row" + (" lk-first" if first else "") + (f" lk-{mark}" if mark else "")
    return (f'<div class="{cls}"><span class="lk-i">{bar.msg if first else ""}</span>'
            f'<span class="lk-track"><span class="lk-bar" data-kind="{bar.kind}" '
            f'data-tokens="{bar.tokens}" style="width:{_pct(bar.tokens, scale)}"></span></span>'
            f'<span class="lk-t">{bar.tokens:,} · {html.escape(bar.text)}</span></div>')


def event_html(event: dict) -> str:
    """A compaction banner. Example: {'layer': 'micro', 'tokens_before': 900, ...} -> '<div class="lk-event" ...'"""
    note, layer = _short(str(event.get("note") or "")), html.escape(str(event.get("layer")))
    return (f'<div class="lk-event" data-layer="{layer}">{layer}: {event.get("tokens_before") or 0:,} → '
            f'{event.get("tokens_after") or 0:,} tokens, {event.get("messages_before") or 0} → '
            f'{event.get("messages_after") or 0} messages{" · " + html.escape(note) if note else ""}</div>')


def render(frame_bars, *, n_messages=None, window=None, threshold=None, scale=None, full=None,
           events=(), header="", marks=None, cache=None) -> str:
    """One frame as self-contained HTML: style, header, events, gauge, totals, legend, rows.

    scale: tokens of a full-width bar (default: the largest bar); full: tokens of a full
    gauge (default: the largest of total, window, threshold); marks: {bar position: css
    suffix} ("changed", "gone"); cache: a dict reused between frames of one view.
    Example: render(bars(msgs), window=1000) -> '<style>…<div class="lk-total">2 messages · …'
    """
    frame_bars = frame_bars if isinstance(frame_bars, (list, tuple)) else list(frame_bars)
    if n_messages is None:
        n_messages = len({b.msg for b in frame_bars})
    per_kind = dict.fromkeys(KINDS, 0)
    for b in frame_bars:
        per_kind[b.kind] += b.tokens
    total = sum(per_kind.values())
    scale = scale or max((b.tokens for b in frame_bars), default=1) or 1
    full = full or max(total, window or 0, threshold or 0) or 1
    cache = {} if cache is None else cache
    marks = marks or {}
    limits = sorted((v, k) for k, v in (("threshold", threshold), ("window", window)) if v)

    out = [STYLE, '<div class="lk-msgs">', header, *(event_html(e) for e in events)]
    # the gauge: one segment per kind, to the same scale in every frame, plus the limits
    out.append('<div class="lk-gauge">')
    out += [f'<span class="lk-seg" data-kind="{k}" style="width:{_pct(v, full)}"></span>'
            for k, v in per_kind.items() if v]
    out += [f'<span class="lk-mark lk-mark-{k}" style="left:{_pct(v, full)}"></span>' for v, k in limits]
    out.append("</div>")
    line = f"{n_messages} messages · {len(frame_bars)} blocks · {total:,} tokens"
    if window:
        line += f" · {100 * total / window:.1f}% of the {window:,}-token window"
    if threshold:
        line += f" · threshold {threshold:,}"
    out.append(f'<div class="lk-total">{line}</div><div class="lk-legend">')
    out += [f'<span><span class="lk-sw" data-kind="{k}"></span>{k} {v:,}</span>'
            for k, v in per_kind.items()]
    out.append('</div><div class="lk-rows">')
    # the rows, with a line where the running total crosses the threshold and the window
    running, previous = 0, None
    for pos, b in enumerate(frame_bars):
        running += b.tokens
        while limits and running > limits[0][0]:
            value, name = limits.pop(0)
            out.append(f'<div class="lk-line lk-line-{name}">{name} {value:,} tokens</div>')
        key = (b, b.msg != previous, marks.get(pos, ""))
        row = cache.get(key)
        if row is None:
            row = cache[key] = _row(b, key[1], scale, key[2])
        out.append(row)
        previous = b.msg
    out.append("</div></div>")
    return "".join(out)


def strip_html(totals, current: int, *, window=None, threshold=None, compacted=()) -> str:
    """A small saw-tooth of tokens per request as inline SVG, `current` (0-based) highlighted;
    `compacted`: 0-based requests preceded by a compaction (a pink tick).
    Example: strip_html([100, 300, 50], 1, compacted=[2]) -> '<svg class="lk-strip" ...><rect .../>...'"""
    n, top = len(totals), max(max(totals, default=0), window or 0, threshold or 0) or 1
    svg = [(f'<svg class="lk-strip" viewBox="0 0 {n} 100" preserveAspectRatio="none" '
            'width="100%" height="60" style="display:block;background:#fafafa">')]
    for i, v in enumerate(totals):
        h = 100 * v / top
        fill = "#0072B2" if i == current else "#9ecae1"
        svg.append(f'<rect x="{i + 0.1:.1f}" y="{100 - h:.2f}" width="0.8" height="{h:.2f}" fill="{fill}"/>')
    for i in compacted:
        svg.append(f'<line class="lk-tick" x1="{i:.2f}" x2="{i:.2f}" y1="0" y2="100" stroke="#CC79A7" '
                   'stroke-width="2" vector-effect="non-scaling-stroke"/>')
    for value, colour in ((threshold, "#D55E00"), (window, "#000000")):
        if value:
            y = 100 - 100 * value / top
            svg.append(f'<line x1="0" x2="{n}" y1="{y:.2f}" y2="{y:.2f}" stroke="{colour}" '
                       'stroke-width="1.5" vector-effect="non-scaling-stroke"/>')
    return "".join(svg) + "</svg>"


class _Source:
    """Frames to step through: prefixes of one history, a list of histories, or recorded frames."""

    def __init__(self, source):
        items = list(getattr(source, "frames", source))
        self.recorded = bool(items) and all(hasattr(f, "bars") for f in items)
        self.prefixes = not self.recorded and (not items or isinstance(items[0], dict))
        self.frames = items if self.recorded or self.prefixes else [bars(h) for h in items]
        if self.prefixes:  # frame k is the first k messages: bars[:ends[k - 1]]
            self.all, self.ends = bars(items), [0] * len(items)
            for pos, b in enumerate(self.all):
                self.ends[b.msg] = pos + 1
        groups = ([f.bars for f in items] if self.recorded else [self.all] if self.prefixes
                  else self.frames)
        self.totals = ([f.tokens for f in items] if self.recorded else
                       [sum(b.tokens for b in g) for g in groups])
        self.largest_bar = max((b.tokens for g in groups for b in g), default=1)
        self.most_bars = max(map(len, groups), default=0)
        self.sizes = [] if self.recorded or self.prefixes else [len(h) for h in items]

    def __len__(self):
        return len(self.frames)

    def get(self, i: int):
        """Frame i (1-based) as (bars, n_messages, label, events)."""
        n = len(self.frames)
        if self.recorded:
            f = self.frames[i - 1]
            extra = (f" · {f.stop_reason}" if f.stop_reason else "") + (f" · {f.error}" if f.error else "")
            return f.bars, f.n_messages, f"request {f.request}/{n}{extra}", f.compactions
        if self.prefixes:
            return self.all[:self.ends[i - 1]] if i else [], i, f"message {i}/{n}", ()
        return self.frames[i - 1], self.sizes[i - 1], f"history {i}/{n}", ()


class MessageListView:
    """A message list to step through in time. Example: MessageListView(messages, window=200_000)
    -> a widget: Play + slider (frame k shows messages[:k]) over one HTML bar list.

    source: a list of messages, a list of histories, a Recorder or its frames (one per request).
    """

    def __init__(self, source, *, window=None, threshold=None, frame=None, interval=300):
        import ipywidgets as w

        self.source, self.window, self.threshold = _Source(source), window, threshold
        n = len(self.source)
        self._totals = self.source.totals
        self._scale = self.source.largest_bar or 1
        self._full = max(max(self._totals, default=0), window or 0, threshold or 0) or 1
        self._cache: dict = {}
        lo = 1 if n else 0
        start = n if frame is None else min(max(frame, lo), n)
        self.slider = w.IntSlider(value=start, min=lo, max=n, description="frame",
                                  continuous_update=self.source.most_bars <= LIVE_DRAG_BARS,
                                  layout=w.Layout(width="45%"))
        self.slider.add_class("lk-frame-slider")
        self.play = w.Play(value=start, min=lo, max=n, step=max(1, n // PLAY_STEPS), interval=interval)
        self.play.add_class("lk-frame-play")
        self.link = w.jslink((self.play, "value"), (self.slider, "value"))  # in the browser
        self.label = w.Label()
        self.label.add_class("lk-frame-label")
        self.html = w.HTML(layout=w.Layout(width="100%"))
        self.widget = w.VBox([w.HBox([self.play, self.slider, self.label]), self.html])
        self.widget.add_class("lk-msgview")
        self.slider.observe(self._on_frame, names="value")
        self.play.observe(self._on_pause, names="playing")
        self._on_frame({"new": start})

    def html_at(self, i: int) -> str:
        """The HTML of frame i (1-based), the same bytes on every run."""
        frame_bars, n_messages, _, events = self.source.get(i)
        header = ""
        if self.source.recorded and len(self.source) > 1:
            compacted = [k for k, f in enumerate(self.source.frames) if f.compactions]
            header = strip_html(self._totals, i - 1, window=self.window, threshold=self.threshold,
                                compacted=compacted)
        return render(frame_bars, n_messages=n_messages, window=self.window, threshold=self.threshold,
                      scale=self._scale, full=self._full, events=events, header=header, cache=self._cache)

    def label_at(self, i: int) -> str:
        """The frame label. Example: 'message 3/10 · 3 messages · 57 tokens'"""
        frame_bars, n_messages, label, events = self.source.get(i)
        text = f"{label} · {n_messages} messages · {sum(b.tokens for b in frame_bars):,} tokens"
        return text + (" · after " + ", ".join(e.get("layer", "?") for e in events) if events else "")

    def _on_frame(self, change) -> None:
        i = change["new"]
        self.html.value = self.html_at(i)
        self.label.value = self.label_at(i)

    def _on_pause(self, change) -> None:
        """Play stops when one more step would pass the end: finish on the last frame."""
        if not change["new"] and self.play.max - self.play.step < self.play.value < self.play.max:
            self.play.value = self.slider.value = self.play.max

    def show(self, i: int) -> None:
        """Step to frame i (1-based), as moving the slider does."""
        self.slider.value = i

    def __len__(self):
        return len(self.source)

    def _repr_mimebundle_(self, **kwargs):
        data = self.widget._repr_mimebundle_(**kwargs)
        data["text/plain"] = f"MessageListView({self.label.value})"
        return data


def timeline(recorder, *, window=None, threshold=None, **options) -> MessageListView:
    """Every API request of a run as one frame, with a saw-tooth strip and compaction banners.
    Example: timeline(rec, window=8_000, threshold=6_000) -> a MessageListView over rec.frames"""
    frames = getattr(recorder, "frames", recorder)
    if not all(hasattr(f, "bars") for f in frames):
        raise TypeError("timeline() needs a Recorder or its frames; for a history use MessageListView")
    return MessageListView(frames, window=window, threshold=threshold, **options)


def compare(before, after, titles=("before", "after"), **options):
    """Two message lists side by side, changes outlined (see lessonkit/compare.py).
    Example: compare(h, snip(h), ("before", "snip")) -> a CompareView"""
    from .compare import CompareView

    return CompareView(before, after, titles=titles, **options)
