"""Before/after of one compaction layer on the same history, side by side.

Motto: a layer is what it changed: outline the blocks it rewrote and the ones it dropped.

    before ──bars()──┐                         ┌── pane "before": gone blocks outlined
                     ├── diff_marks(b, a) ─────┤   (side by side when both fit, else stacked)
    after  ──bars()──┘   matched by (kind,      └── pane "after": new/rewritten blocks outlined
                         tokens, text)              + one line: messages, tokens, saved %

Example: CompareView(history, micro_compact(copy_of_history), titles=("before", "micro")).text
  -> "before 23 messages, 5,537 tokens → micro 23 messages, 2,274 tokens (saved 3,263, 58.9%); ..."

One FramesWidget in mode "compare" (lessonkit/show/widget) holds both sides; its text/plain is
the one line and both sides as text pictures, + before a rewritten message, - before a gone one.

Not modeled: moves (a block that only changed place counts as unchanged).
"""

from __future__ import annotations

from ..i18n import tr, trn
from .bars import Bar, bars, encode, kind_model
from .textpicture import picture
from .viewtext import labels


def _bars_and_count(side, which: str = "first"):
    """A history, a recorded Frame or a list of Bars -> (bars, number of messages); anything else (None, a
    number, a string, one message) is a one-line TypeError naming the `which` side."""
    if isinstance(side, (str, bytes, dict)) or not (hasattr(side, "bars") or hasattr(side, "__iter__")):
        raise TypeError(f"compare() takes two message lists (or recorded frames): the {which} is "
                        f"{type(side).__name__}")
    if hasattr(side, "bars"):
        return list(side.bars), side.n_messages
    side = list(side)
    if side and isinstance(side[0], Bar):
        return side, len({b.msg for b in side})
    return bars(side), len(side)


def diff_marks(before: list, after: list) -> tuple[dict, dict]:
    """Which bars changed: after-bars not found in before ("changed": new summaries,
    placeholders, markers) and before-bars not found in after ("gone"), matched by
    (kind, tokens, text) whatever their position. Example: micro-compact -> the results it replaced"""
    def keys(side):
        return [(b.kind, b.tokens, b.text) for b in side]

    def unmatched(mine, theirs, mark):
        pool: dict = {}
        for k in theirs:
            pool[k] = pool.get(k, 0) + 1
        out = {}
        for pos, k in enumerate(mine):
            if pool.get(k):
                pool[k] -= 1
            else:
                out[pos] = mark
        return out

    kb, ka = keys(before), keys(after)
    return unmatched(kb, ka, "gone"), unmatched(ka, kb, "changed")


def caption(titles, b_n: int, b_tok: int, a_n: int, a_tok: int, changed: int, gone: int) -> str:
    """The one line over the two panes.
    Example: caption(("before", "micro"), 23, 5537, 23, 2274, 8, 8) -> "before 23 messages, 5,537 tokens →
      micro 23 messages, 2,274 tokens (saved 3,263, 58.9%); 8 blocks new or rewritten, 8 gone" """
    percent = f"{abs(b_tok - a_tok) / b_tok:.1%}" if b_tok else "0%"
    change = (tr("saved {tokens}, {percent}", tokens=f"{b_tok - a_tok:,}", percent=percent) if a_tok <= b_tok
              else tr("grew by {tokens}, {percent}", tokens=f"{a_tok - b_tok:,}", percent=percent))
    return tr("{before} {before_messages}, {before_tokens} tokens → {after} {after_messages}, {after_tokens} tokens "
              "({change}); {changed}, {gone} gone",
              before=titles[0], before_messages=trn("{n} message", "{n} messages", b_n), before_tokens=f"{b_tok:,}",
              after=titles[1], after_messages=trn("{n} message", "{n} messages", a_n), after_tokens=f"{a_tok:,}",
              change=change, changed=trn("{n} block new or rewritten", "{n} blocks new or rewritten", changed),
              gone=gone)


def pair_caption(titles, b_n: int, b_tok: int, a_n: int, a_tok: int) -> str:
    """The one line over two conversations that are not one history before and after a layer.
    Example: pair_caption(("parent", "child"), 4, 1051, 28, 2552)
      -> "parent 4 messages, 1,051 tokens · child 28 messages, 2,552 tokens: two conversations, side by side" """
    return tr("{left} {left_messages}, {left_tokens} tokens · {right} {right_messages}, {right_tokens} tokens: "
              "two conversations, side by side", left=titles[0], left_messages=trn("{n} message", "{n} messages", b_n),
              left_tokens=f"{b_tok:,}", right=titles[1], right_messages=trn("{n} message", "{n} messages", a_n),
              right_tokens=f"{a_tok:,}")


class CompareView:
    """Before/after of one layer on the same history, side by side, changes outlined; titles
    default to "before" and "after" in the student's language. With diff=False, two conversations
    (a parent and its subagent) side by side: nothing is outlined, the caption compares sizes only.
    Example: CompareView(history, micro_compacted(history), titles=("before", "micro"))"""

    def __init__(self, before, after, *, titles=None, window=None, threshold=None, diff=True):
        from .widget import FramesWidget

        titles = (tr("before"), tr("after")) if titles is None else titles
        if isinstance(titles, str) or len(titles) != 2:
            got = "a str" if isinstance(titles, str) else len(titles)
            raise TypeError(f"compare() takes two titles, one per side: got {got}")
        (b_bars, b_n), (a_bars, a_n) = _bars_and_count(before), _bars_and_count(after, "second")
        self.gone, self.changed = diff_marks(b_bars, a_bars) if diff else ({}, {})   # no "gone" across conversations
        self.titles, self.window, self.threshold = tuple(str(t) for t in titles), window, threshold
        self.sides = ((b_bars, b_n, self.gone), (a_bars, a_n, self.changed))
        b_tok, a_tok = sum(b.tokens for b in b_bars), sum(b.tokens for b in a_bars)
        self.text = (caption(self.titles, b_n, b_tok, a_n, a_tok, len(self.changed), len(self.gone)) if diff
                     else pair_caption(self.titles, b_n, b_tok, a_n, a_tok))
        blocks, runs = encode([b_bars, a_bars])
        frames = [[r, n, title, [], [[p, m] for p, m in sorted(marks.items())]]
                  for r, (_, n, marks), title in zip(runs, self.sides, self.titles)]
        self.widget = FramesWidget(
            mode="compare", kinds=kind_model(), labels=labels(), blocks=blocks, frames=frames,
            titles=list(self.titles), caption=self.text, window=window or 0, threshold=threshold or 0,
            scale=max((b.tokens for b in b_bars + a_bars), default=1) or 1,
            full=max(b_tok, a_tok, window or 0, threshold or 0) or 1)
        self.widget.add_class("lk-widget")

    def text_picture(self) -> str:
        """The comparison as text: the one line, then each side (see textpicture.picture)."""
        parts = [f"CompareView · {self.text}"]
        for title, (side, n, marks) in zip(self.titles, self.sides):
            parts.append(picture(side, n_messages=n, title=f"── {title}", window=self.window,
                                 threshold=self.threshold, marks=marks))
        return "\n".join(parts)

    def __repr__(self):
        return self.text_picture()

    def _repr_mimebundle_(self, **kwargs):
        return self.widget.bundle(self.text_picture())
