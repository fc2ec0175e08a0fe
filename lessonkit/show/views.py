"""Message-list view: one coloured bar per content block, as wide as its tokens, steppable in time.

Motto: see the context: what fills it, how full it is, and what compaction did to it.

    messages ──> bars() ──> [Bar(msg, kind, tokens, text), ...] ──> encode() ──> FramesWidget model
    or frames    (bars.py: what a message list is made of)          each block once, frames as runs
                                                                        │
    the browser (lessonkit/show/widget/view.js) draws a frame and steps Slider / Play / speed itself;
    text/plain is picture() (textpicture.py): a line per message with a Unicode bar, no widgets needed

    MessageListView(history)      frame k = the first k messages      (view(history) says the same)
    timeline(recorder)            frame k = request k, a saw-tooth strip on a token axis, banners
    compare(before, after)        one layer's effect, side by side, rewritten blocks outlined
    side_by_side(left, right, t)  two conversations (a parent, its subagent) next to each other, nothing outlined

Example: print(view([{"role": "user", "content": "hi"}]).text_at(1)) ->
    MessageListView · message 1/1 · 1 messages · 7 tokens
      1 messages · 1 blocks · 7 tokens
          0 user      ████████████████████       7  user              hi

DOM contract (the browser tests rely on it): a view's root is `.lk-view` (`.lk-msgview` with a
frame slider, `.lk-compare` for two panes); each bar is `.lk-bar` with `data-kind` and
`data-tokens`; the totals line `.lk-total` ("<N> messages ..." in English) holds its numbers in
`data-messages` and `data-blocks`; the slider is the range input `.lk-frame-slider`, Play the
button `.lk-frame-play` (`aria-pressed` "true" while playing), its speed the select `.lk-speed`,
the frame label `.lk-frame-label`; a timeline's strip is `.lk-strip` (a `.lk-col` per request).
Every word is in the language the view was made in (lessonkit/show/viewtext.py).

`bars` is re-exported here: the lessons import it with the views (`from lessonkit.show.views import bars`).

Not modeled: editing the history from the view.
"""

from __future__ import annotations

import itertools
import re

from ..i18n import tr, trn
from .bars import bars, encode, head_runs, kind_model
from .textpicture import event_text, picture
from .viewtext import labels

__all__ = ["MessageListView", "bars", "compare", "refused_tokens", "side_by_side", "timeline", "view"]

PLAY_STEPS = 100      # a full Play takes about this many steps, however long the history


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
            self.runs = [head_runs(runs, src.ends[i]) for i in range(n)]
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


def side_by_side(left, right, titles, **options):
    """Two conversations next to each other, nothing outlined: not one history before and after a layer, so
    no block of one is "gone" from the other. Example: side_by_side(parent, child, ("parent", "child"))"""
    from .compare import CompareView

    return CompareView(left, right, titles=titles, diff=False, **options)


def compare(before, after, titles=None, **options):
    """Two message lists side by side, changes outlined (see lessonkit/show/compare.py); titles
    default to "before" and "after" in the student's language.
    Example: compare(h, snip(h), ("before", "snip")) -> a CompareView"""
    from .compare import CompareView

    return CompareView(before, after, titles=titles, **options)
