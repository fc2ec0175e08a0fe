"""The words of the message views, in the student's language, for Python and the browser alike.

Motto: one sentence, one template: the text picture and view.js fill the same one.

    labels()  ──> FramesWidget.labels (synced) ──> view.js say("totals", {messages, blocks, tokens})
       │            templates with {fields}, filled in the browser with formatted numbers;
       │            a count's template is a pair [one, other]: say("messages", {n}, count) picks
       └──────────> textpicture.picture() / compare.py fill the same templates with tr(msgid, **fields)
    kind_names()    a block kind (an identifier: data-kind, CSS) -> the name the legend shows

Every template is a tr() message read when a view is made (never at import), so a view made
under LESSONS_LANG=zh (or in lessons/zh) is drawn in Chinese; view.js keeps the English
templates only for a model saved before labels existed.

Example: labels()["totals"] -> "{messages} · {blocks} · {tokens} tokens"
         labels()["messages"] -> ["{n} message", "{n} messages"]   (zh: ["{n} 条消息", "{n} 条消息"])
         totals_line(3, 4, 1050, window=900) -> "3 messages · 4 blocks · 1,050 tokens · 116.7% of the 900-token window"
         totals_line(1, 1, 12) -> "1 message · 1 block · 12 tokens"

Not modeled: plural forms of token counts (a block costs at least PER_BLOCK tokens, so no view
shows "1 tokens"); languages with more than two forms (i18n.trn).
"""

from __future__ import annotations

from ..i18n import tr, trn


def labels() -> dict[str, str]:
    """Every template view.js shows, by the key it uses: say("key", {fields})."""
    return {
        "totals": tr("{messages} · {blocks} · {tokens} tokens"),
        # a count's pair [one, other], {n} left for the browser (trn's forms for 1 and for 2)
        "messages": [trn("{n} message", "{n} messages", k, n="{n}") for k in (1, 2)],
        "blocks": [trn("{n} block", "{n} blocks", k, n="{n}") for k in (1, 2)],
        "of_window": tr("{percent}% of the {window}-token window"),
        "threshold": tr("threshold {n}"),
        "window": tr("window {n}"),
        "threshold_tokens": tr("threshold {n} tokens"),
        "window_tokens": tr("window {n} tokens"),
        "row": tr("message {message} · {kind} · {tokens} tokens · {text}"),
        "strip": tr("tokens sent per request (click a column)"),
        "column": tr("request {request}: {tokens} tokens"),
        "column_compacted": tr("request {request}: {tokens} tokens (after a compaction)"),
        "play": tr("Play"),
        "pause": tr("Pause"),
        "speed": tr("Play speed"),
        "frame": tr("frame"),
        "no_frames": tr("no frames"),
    }


def kind_names() -> dict[str, str]:
    """The name shown for each block kind (legend, row tooltips, the text picture's columns).
    Example (zh): kind_names()["tool_result"] -> "工具结果" """
    return {"user": tr("user"), "assistant": tr("assistant"), "tool_use": tr("tool_use"),
            "tool_result": tr("tool_result"), "error": tr("error"), "summary": tr("summary"),
            "placeholder": tr("placeholder"), "persisted": tr("persisted"), "marker": tr("marker")}


def totals_line(messages: int, blocks: int, total: int, *, window=None, threshold=None) -> str:
    """A frame's totals, as the browser's `.lk-total` line reads (view.js builds the same).
    Example: totals_line(3, 4, 1050, threshold=250) -> "3 messages · 4 blocks · 1,050 tokens · threshold 250"
             totals_line(1, 1, 12) -> "1 message · 1 block · 12 tokens" """
    parts = [tr("{messages} · {blocks} · {tokens} tokens", messages=trn("{n} message", "{n} messages", messages),
                blocks=trn("{n} block", "{n} blocks", blocks), tokens=f"{total:,}")]
    if window:
        parts.append(tr("{percent}% of the {window}-token window",
                        percent=f"{100 * total / window:.1f}", window=f"{window:,}"))
    if threshold:
        parts.append(tr("threshold {n}", n=f"{threshold:,}"))
    return " · ".join(parts)


def limit_text(name: str, value: int) -> str:
    """The line where a frame crosses its window or threshold. Example: ("window", 900) -> "window 900 tokens" """
    if name == "window":
        return tr("window {n} tokens", n=f"{value:,}")
    if name == "threshold":
        return tr("threshold {n} tokens", n=f"{value:,}")
    raise ValueError(f"a limit is 'window' or 'threshold', got {name!r}")


def event_text(event: dict, note: str = "") -> str:
    """A compaction banner: the layer (an identifier), its numbers, then the stage's own note.
    Example: {'layer': 'micro', 'tokens_before': 900, 'tokens_after': 300, ...}
      -> 'micro: 900 → 300 tokens, 9 → 9 messages'"""
    text = tr("{layer}: {tokens_before} → {tokens_after} tokens, {messages_before} → {messages_after} messages",
              layer=event.get("layer"), tokens_before=f"{event.get('tokens_before') or 0:,}",
              tokens_after=f"{event.get('tokens_after') or 0:,}",
              messages_before=event.get("messages_before") or 0, messages_after=event.get("messages_after") or 0)
    return text + (f" · {note}" if note else "")
