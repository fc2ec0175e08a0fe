"""The text picture of a message list: a line per message with a Unicode bar, for where widgets
do not render (before the kernel runs, GitHub, a terminal, nbval).

Motto: the view reads the same with no JavaScript at all.

    frame's Bars ──> picture() ──> title
                                   ▌ compaction banners (event_text)
                                   tokens per request  ▁▂▅●▂▃   (sparkline, a timeline's strip)
                                   totals line (viewtext.totals_line)
                                   + / -  index  role  ██████▍  tokens  kinds  label   (text_bar)
                                   ───── window / threshold crossed ─────
    at most TEXT_ROWS messages: the first quarter and the last three, "⋮ N messages, T tokens" between

Example: print(picture(bars(msgs), title="3 messages")) ->
    3 messages
      3 messages · 3 blocks · 37 tokens
          0 user      █████████████████▏        12  user              fix the bug in app.py please
          1 assistant ████████████████████      14  tool_use          bash: pytest
          2 user      ███████████████▊          11  tool_result       bash → 1 failed
"""

from __future__ import annotations

from ..i18n import tr, trn
from . import textwidth
from .bars import one_line
from .viewtext import event_text as _event_text
from .viewtext import kind_names, limit_text, totals_line

TEXT_ROWS = 24        # the text picture shows at most this many messages (the first and the last)
TEXT_BAR = 20         # characters of the text picture's widest bar
EIGHTHS = "▏▎▍▌▋▊▉█"  # a bar's last character, in eighths of a cell


def event_text(event: dict) -> str:
    """A compaction banner; the note after "·" is the stage's own text, shortened.
    Example: {'layer': 'micro', 'tokens_before': 900, ...} -> 'micro: 900 → 300 tokens, ...'"""
    return _event_text(event, one_line(str(event.get("note") or "")))


def text_bar(value: int, scale: int, width: int = TEXT_BAR) -> str:
    """A Unicode bar, `width` cells for `scale`, in eighths. Example: text_bar(3, 8, 2) -> '▊ '"""
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
