"""Before/after of one compaction layer on the same history, side by side.

Motto: a layer is what it changed: outline the blocks it rewrote and the ones it dropped.

    before ──bars()──┐                         ┌── pane "before": gone blocks outlined
                     ├── diff_marks(b, a) ─────┤
    after  ──bars()──┘   matched by (kind,      └── pane "after": new/rewritten blocks outlined
                         tokens, text)              + one line: messages, tokens, saved %

Example: CompareView(history, micro_compact(copy_of_history), titles=("before", "micro")).text
  -> "before 23 messages, 5,537 tokens → micro 23 messages, 2,274 tokens (saved 3,263, 58.9%); ..."

Not modeled: moves (a block that only changed place counts as unchanged).
"""

from __future__ import annotations

import html

from .views import Bar, bars, render


def _bars_and_count(side):
    """A history, a recorded Frame or a list of Bars -> (bars, number of messages)."""
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


class CompareView:
    """Before/after of one layer on the same history, side by side, changes outlined.
    Example: CompareView(history, micro_compacted(history), titles=("before", "micro"))"""

    def __init__(self, before, after, *, titles=("before", "after"), window=None, threshold=None):
        import ipywidgets as w

        (b_bars, b_n), (a_bars, a_n) = _bars_and_count(before), _bars_and_count(after)
        gone, changed = diff_marks(b_bars, a_bars)
        b_tok, a_tok = sum(b.tokens for b in b_bars), sum(b.tokens for b in a_bars)
        scale = max((b.tokens for b in b_bars + a_bars), default=1) or 1
        full = max(b_tok, a_tok, window or 0, threshold or 0) or 1
        change = f"{abs(b_tok - a_tok) / b_tok:.1%}" if b_tok else "0%"
        change = f"saved {b_tok - a_tok:,}, {change}" if a_tok <= b_tok else f"grew by {a_tok - b_tok:,}, {change}"
        self.text = (f"{titles[0]} {b_n} messages, {b_tok:,} tokens → {titles[1]} {a_n} messages, "
                     f"{a_tok:,} tokens ({change}); "
                     f"{len(changed)} blocks new or rewritten, {len(gone)} gone")
        self.delta = w.HTML(f'<div class="lk-compare-delta" style="font-weight:bold">'
                            f'{html.escape(self.text)}</div>')
        panes = []
        for title, side, n, marks in ((titles[0], b_bars, b_n, gone), (titles[1], a_bars, a_n, changed)):
            head = f'<div class="lk-title" style="font-weight:bold">{html.escape(str(title))}</div>'
            value = render(side, n_messages=n, window=window, threshold=threshold, scale=scale,
                           full=full, header=head, marks=marks)
            panes.append(w.HTML(value, layout=w.Layout(width="50%")))
        self.before, self.after = panes
        self.widget = w.VBox([self.delta, w.HBox(panes)])
        self.widget.add_class("lk-compare")

    def _repr_mimebundle_(self, **kwargs):
        data = self.widget._repr_mimebundle_(**kwargs)
        data["text/plain"] = f"CompareView({self.text})"
        return data
