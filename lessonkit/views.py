"""Message-list view: one coloured bar per content block, as wide as its tokens, steppable in time.

Motto: see the context: what fills it, how full it is, and what compaction did to it.

    messages ──> bars() ──> [Bar(msg, kind, tokens, text), ...] ──> encode() ──> FramesWidget model
    or frames    classify() every block                             each block once, frames as runs
                                                                        │
    the browser (lessonkit/widget/view.js) draws a frame and steps Slider / Play / speed itself;
    text/plain is picture(): a line per message with a Unicode bar, readable with no widgets at all

    MessageListView(history)      frame k = the first k messages      (view(history) says the same)
    timeline(recorder)            frame k = request k, a saw-tooth strip on a token axis, banners
    compare(before, after)        one layer's effect, side by side, rewritten blocks outlined

Example: bars([{"role": "user", "content": "hi"}]) -> [Bar(msg=0, kind='user', tokens=4, text='hi')]

DOM contract (the browser tests rely on it): a view's root is `.lk-view` (`.lk-msgview` with a
frame slider, `.lk-compare` for two panes); each bar is `.lk-bar` with `data-kind` and
`data-tokens`; the totals line `.lk-total` ("<N> messages ..." in English) holds its numbers in
`data-messages` and `data-blocks`; the slider is the range input `.lk-frame-slider`, Play the
button `.lk-frame-play` (`aria-pressed` "true" while playing), its speed the select `.lk-speed`,
the frame label `.lk-frame-label`; a timeline's strip is `.lk-strip` (a `.lk-col` per request).
Every word is in the language the view was made in (lessonkit/viewtext.py).

Not modeled: images' pixels (a block of PER_IMAGE tokens), editing the history from the view.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import NamedTuple

from . import textwidth, tokens
from .i18n import tr, trn
from .viewtext import event_text as _event_text
from .viewtext import kind_names, labels, limit_text, totals_line

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
PLAY_STEPS = 100      # a full Play takes about this many steps, however long the history
TEXT_ROWS = 24        # the text picture shows at most this many messages (the first and the last)
TEXT_BAR = 20         # characters of the text picture's widest bar
EIGHTHS = "▏▎▍▌▋▊▉█"  # a bar's last character, in eighths of a cell
# In the browser: the same colours, but markers take the theme's text colour (black on white,
# white on dark), so they show in every theme.
CSS_COLOURS = {**PALETTE, "marker": "var(--jp-ui-font-color1, currentColor)"}


def kind_model() -> list:
    """The widget's kinds: [name, css colour, shown name] per kind, in KINDS order (a block's
    kind is its index). Example: kind_model()[0] -> ['user', '#0072B2', 'user']"""
    names = kind_names()
    return [[k, CSS_COLOURS[k], names[k]] for k in KINDS]


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
                    _short(content) if content else tr("(empty)"))]
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


def event_text(event: dict) -> str:
    """A compaction banner; the note after "·" is the stage's own text, shortened.
    Example: {'layer': 'micro', 'tokens_before': 900, ...} -> 'micro: 900 → 300 tokens, ...'"""
    return _event_text(event, _short(str(event.get("note") or "")))


def encode(groups) -> tuple[list, list]:
    """Frames of Bars, compactly: (blocks, runs per frame). Each distinct (bar, first block of its
    message?) is one block [msg, kind number, tokens, text, first]; a frame is runs [start, count]
    of block numbers. Example: encode([[a], [a, b]]) -> ([[0, 0, 4, 'hi', 1], [...]], [[[0, 1]], [[0, 2]]])"""
    code = {k: i for i, k in enumerate(KINDS)}
    index: dict = {}
    blocks: list = []
    out = []
    for group in groups:
        runs: list = []
        previous, used = None, set()
        for b in group:
            key = (b, b.msg != previous)
            previous = b.msg
            i = index.get(key)
            if i is None or i in used:  # new, or the same block twice in one frame
                i = len(blocks)
                blocks.append([b.msg, code[b.kind], b.tokens, b.text, int(key[1])])
                index.setdefault(key, i)
            used.add(i)
            if runs and runs[-1][0] + runs[-1][1] == i:
                runs[-1][1] += 1
            else:
                runs.append([i, 1])
        out.append(runs)
    return blocks, out


def _head(runs: list, n: int) -> list:
    """The first n block positions of a frame's runs. Example: _head([[0, 5], [9, 2]], 6) -> [[0, 5], [9, 1]]"""
    out = []
    for start, count in runs:
        if n <= 0:
            break
        out.append([start, min(count, n)])
        n -= count
    return out


def text_bar(value: int, scale: int, width: int = TEXT_BAR) -> str:
    """A Unicode bar, `width` cells for `scale`, in eighths. Example: text_bar(3, 8, 2) -> '▋ '"""
    eighths = round(8 * width * min(value, scale) / scale) if scale else 0
    eighths = max(eighths, 1 if value else 0)
    whole, rest = divmod(eighths, 8)
    return ("█" * whole + (EIGHTHS[rest - 1] if rest else "")).ljust(width)


def sparkline(values, current: int, width: int = 60) -> str:
    """Tokens per request as one line of ▁..█ (at most `width` cells, the largest per cell),
    the current request's cell shown as ●. Example: sparkline([1, 4, 8], 1) -> '▁●█'"""
    values = list(values)
    if not values:
        return ""
    per = -(-len(values) // width)
    cells = [max(values[i:i + per]) for i in range(0, len(values), per)]
    top = max(cells) or 1
    line = ["▁▂▃▄▅▆▇█"[int(7 * v / top)] if v else " " for v in cells]
    line[min(current // per, len(line) - 1)] = "●"
    return "".join(line)


def picture(frame_bars, *, n_messages=None, title="", events=(), window=None, threshold=None,
            marks=None, strip=None) -> str:
    """A frame as text, for where widgets do not render (before the kernel runs, GitHub, a
    terminal, nbval): a line per message (index, role, a bar scaled to its tokens, tokens, kinds,
    a short label), the compaction banners, and lines where the window and threshold are crossed.
    marks: {bar position: "changed" | "gone"} (+ / - before the message); strip: (totals, current).
    Example: picture(bars(msgs), title="3 messages") ->
      "3 messages\n  3 messages · 3 blocks · 57 tokens\n     0 user      ████…    12  user  fix it\n..."""
    frame_bars = list(frame_bars)
    marks = marks or {}
    groups: list = []  # per message: [msg, tokens, kinds, bars, mark]
    for pos, b in enumerate(frame_bars):
        if not groups or groups[-1][0] != b.msg:
            groups.append([b.msg, 0, [], [], ""])
        g = groups[-1]
        g[1] += b.tokens
        g[3].append(b)
        if b.kind not in g[2]:
            g[2].append(b.kind)
        g[4] = g[4] or {"changed": "+", "gone": "-"}.get(marks.get(pos), "")
    total = sum(g[1] for g in groups)
    n_messages = len(groups) if n_messages is None else n_messages
    lines = [title] if title else []
    lines += [f"  ▌ {event_text(e)}" for e in events]
    if strip and len(strip[0]) > 1:
        lines.append(f"  {tr('tokens per request')}  {sparkline(strip[0], strip[1])}")
    lines.append("  " + totals_line(n_messages, len(frame_bars), total, window=window, threshold=threshold))
    names = kind_names()
    scale = max((g[1] for g in groups), default=1) or 1
    limits = sorted((v, k) for k, v in (("threshold", threshold), ("window", window)) if v)
    shown = set(range(len(groups))) if len(groups) <= TEXT_ROWS else (
        set(range(TEXT_ROWS // 4)) | set(range(len(groups) - (TEXT_ROWS - TEXT_ROWS // 4), len(groups))))
    running, skipped = 0, [0, 0]
    for k, (msg, tok, kinds, group_bars, mark) in enumerate(groups):
        running += tok
        if k not in shown:
            skipped[0] += 1
            skipped[1] += tok
        else:
            if skipped[0]:
                lines.append(f"  {'⋮':>5} " + trn("{n} message, {tokens} tokens", "{n} messages, {tokens} tokens",
                                                    skipped[0], n=f"{skipped[0]:,}", tokens=f"{skipped[1]:,}"))
                skipped = [0, 0]
            role = names["assistant" if {"assistant", "tool_use"} & set(kinds) else "user"]
            label = max(group_bars, key=lambda b: b.tokens).text
            kinds = "+".join(names[k] for k in ([k for k in kinds if k not in ("user", "assistant")] or kinds))
            lines.append(f"{mark or ' '} {msg:>5} {textwidth.ljust(role, 9)} {text_bar(tok, scale)} {tok:>7,}  "
                         f"{textwidth.ljust(textwidth.cut(kinds, 16), 16)}  {label[:36]}".rstrip())
        while limits and running > limits[0][0]:
            value, name = limits.pop(0)
            lines.append(f"  {'─' * 5} {limit_text(name, value)} {'─' * 20}")
    return "\n".join(lines)


REFUSED = re.compile(r"prompt is too long: (\d+) tokens")


def refused_tokens(frame) -> int | None:
    """The tokens the API counted in a request it refused as too long, else None.
    Example: a frame with error 'BadRequestError: prompt is too long: 2100 tokens > 2000 maximum' -> 2100"""
    found = REFUSED.search(getattr(frame, "error", None) or "")
    return int(found.group(1)) if found else None


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
        # a refused request is drawn at the API's own count ("prompt is too long: N tokens")
        self.strip_totals = [refused_tokens(f) or f.tokens for f in items] if self.recorded else []

    def __len__(self):
        return len(self.frames)

    def get(self, i: int):
        """Frame i (1-based) as (bars, n_messages, label, events)."""
        bars_ = (self.frames[i - 1].bars if self.recorded else
                 self.all[:self.ends[i - 1]] if self.prefixes else self.frames[i - 1])
        return (bars_, *self.meta(i)[:3])

    def meta(self, i: int):
        """Frame i (1-based) as (n_messages, label, events, tokens), without copying its bars."""
        n = len(self.frames)
        if self.recorded:
            f = self.frames[i - 1]
            extra = (f" · {f.stop_reason}" if f.stop_reason else "") + (f" · {f.error}" if f.error else "")
            return f.n_messages, tr("request {i}/{n}", i=f.request, n=n) + extra, f.compactions, f.tokens
        if self.prefixes:
            if not hasattr(self, "_running"):  # tokens of the first k blocks, once
                self._running = list(itertools.accumulate((b.tokens for b in self.all), initial=0))
            return i, tr("message {i}/{n}", i=i, n=n), (), self._running[self.ends[i - 1]]
        return self.sizes[i - 1], tr("history {i}/{n}", i=i, n=n), (), self.totals[i - 1]


class MessageListView:
    """A message list to step through in time, drawn in the browser from its model.
    Example: MessageListView(messages, window=200_000) -> Play, speed and a slider (frame k shows
    messages[:k]) over the bars; view.show(3) steps it; print(view.text_at(3)) is the text picture.

    source: a list of messages, a list of histories, a Recorder or its frames (one per request).
    """

    def __init__(self, source, *, window=None, threshold=None, frame=None, interval=300):
        from .widget import FramesWidget

        self.source, self.window, self.threshold = _Source(source), window, threshold
        n = len(self.source)
        src = self.source
        totals = src.totals
        if src.prefixes:  # one history: encode it once, frame k is its first ends[k - 1] blocks
            self.blocks, (runs,) = encode([src.all])
            self.runs = [_head(runs, src.ends[i]) for i in range(n)]
        else:
            self.blocks, self.runs = encode(src.frames[i].bars if src.recorded else src.frames[i]
                                            for i in range(n))
        compacted = [k for k, f in enumerate(src.frames) if f.compactions] if src.recorded else []
        lo = 1 if n else 0
        start = n if frame is None else min(max(frame, lo), n)
        rows = []
        for i in range(1, n + 1):
            n_messages, _, events, _ = src.meta(i)
            rows.append([self.runs[i - 1], n_messages, self.label_at(i), [event_text(e) for e in events], []])
        strip = src.strip_totals if src.recorded and n > 1 else []
        self.widget = FramesWidget(
            kinds=kind_model(), labels=labels(), blocks=self.blocks, frames=rows, totals=strip,
            compacted=compacted, window=window or 0, threshold=threshold or 0,
            scale=src.largest_bar or 1, full=max(max(totals, default=0), window or 0, threshold or 0) or 1,
            frame=start, interval=interval, step=max(1, n // PLAY_STEPS))
        self.widget.add_class("lk-widget")

    @property
    def frame(self) -> int:
        """The frame shown (1-based), in the browser too: the slider and Play set it."""
        return self.widget.frame

    def show(self, i: int) -> None:
        """Step to frame i (1-based), as moving the slider does. Example: view.show(1)"""
        n = len(self.source)
        self.widget.frame = min(max(i, 1 if n else 0), n)

    def label_at(self, i: int) -> str:
        """The frame label. Example: 'message 3/10 · 3 messages · 57 tokens'"""
        n_messages, label, events, frame_tokens = self.source.meta(i) if len(self.source) else (
            0, tr("no frames"), (), 0)
        text = tr("{label} · {messages} · {tokens} tokens", label=label,
                  messages=trn("{n} message", "{n} messages", n_messages), tokens=f"{frame_tokens:,}")
        layers = ", ".join(str(e.get("layer", "?")) for e in events)
        return text + (" · " + tr("after {layers}", layers=layers) if events else "")

    def text_at(self, i: int) -> str:
        """Frame i as a text picture (see picture()), headed by its label."""
        frame_bars, n_messages, _, events = self.source.get(i) if len(self.source) else ([], 0, "", ())
        strip = (self.source.strip_totals, i - 1) if self.source.recorded else None
        return picture(frame_bars, n_messages=n_messages, title=f"MessageListView · {self.label_at(i)}",
                       events=events, window=self.window, threshold=self.threshold, strip=strip)

    def __len__(self):
        return len(self.source)

    def __repr__(self):
        return self.text_at(self.frame)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget.bundle(self.text_at(self.frame))


def view(history, **options) -> MessageListView:
    """A view of one history (frame k = its first k messages). Example: view(agent.messages, window=8_000)"""
    return MessageListView(history, **options)


def timeline(recorder, *, window=None, threshold=None, **options) -> MessageListView:
    """Every API request of a run as one frame, with a saw-tooth strip and compaction banners.
    Example: timeline(rec, window=8_000, threshold=6_000) -> a MessageListView over rec.frames"""
    frames = getattr(recorder, "frames", recorder)
    if not all(hasattr(f, "bars") for f in frames):
        raise TypeError("timeline() needs a Recorder or its frames; for a history use MessageListView")
    return MessageListView(frames, window=window, threshold=threshold, **options)


def compare(before, after, titles=None, **options):
    """Two message lists side by side, changes outlined (see lessonkit/compare.py); titles
    default to "before" and "after" in the student's language.
    Example: compare(h, snip(h), ("before", "snip")) -> a CompareView"""
    from .compare import CompareView

    return CompareView(before, after, titles=titles, **options)
