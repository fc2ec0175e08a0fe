"""What a message list is made of: one Bar per content block, its kind, its tokens, a preview.

Motto: every block is drawn, as wide as it costs, in the colour of what it is.

    messages ──> bars() ──> [Bar(msg, kind, tokens, text), ...] ──> encode() ──> (blocks, runs per frame)
                 message_bars() per message                          each distinct block once;
                 classify() every block: user · assistant ·          a frame is runs [start, count]
                   tool_use · tool_result · error · summary ·        of block numbers (the widget's
                   placeholder · persisted · marker                  model, lessonkit/show/widget)

The views (views.py, compare.py), the text picture (textpicture.py) and the recorder (record.py)
all draw from these Bars; the tokens of a history's Bars add up to tokens.count_messages().

Example: bars([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}])
           -> [Bar(msg=0, kind='user', tokens=7, text='hi'), Bar(msg=1, kind='assistant', tokens=7, text='ok')]
         encode([[hi], [hi, ok]]) -> ([[0, 0, 7, 'hi', 1], [1, 1, 7, 'ok', 1]], [[[0, 1]], [[0, 2]]])

Not modeled: images' pixels (a block of PER_IMAGE tokens).
"""

from __future__ import annotations

import json
from typing import NamedTuple

from .. import tokens
from ..i18n import tr
from .viewtext import kind_names

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


def one_line(text: str) -> str:
    """One line of at most PREVIEW characters. Example: one_line('a\\n  b') -> 'a b'"""
    line = " ".join(text[:PREVIEW * 3].split())
    if len(line) > PREVIEW:
        line = line[:PREVIEW - 1] + "…"
    return line.encode("utf-8", "replace").decode("utf-8")


def _preview(block, names: dict) -> str:
    """What a block says, in one line: text, `tool: input` or `tool: result`."""
    if isinstance(block, str):
        return one_line(block)
    kind = block.get("type")
    if kind == "text":
        return one_line(block.get("text") or "")
    if kind == "tool_use":
        arg = block.get("input") or {}
        values = list(arg.values()) if isinstance(arg, dict) else [arg]
        shown = values[0] if len(values) == 1 and isinstance(values[0], str) else json.dumps(
            arg, ensure_ascii=False, sort_keys=True)
        return one_line(f"{block.get('name', '?')}: {shown}")
    if kind == "tool_result":
        name = names.get(block.get("tool_use_id"))
        return one_line((f"{name} → " if name else "") + _lead(block.get("content")))
    return one_line(str(kind))


def message_bars(i: int, message: dict, names: dict) -> list[Bar]:
    """The Bars of message i; `names` maps tool_use ids to tool names (updated here)."""
    if not isinstance(message, dict):
        raise TypeError(f"message {i} is a {type(message).__name__}, not a dict")
    role, content = message.get("role"), message.get("content")
    if not content or isinstance(content, str):  # a string is one text block, counted as the API does
        return [Bar(i, classify(content or "", role), tokens.PER_MESSAGE + tokens.count_content(content),
                    one_line(content) if content else tr("(empty)"))]
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


def encode(groups) -> tuple[list, list]:
    """Frames of Bars, compactly: (blocks, runs per frame). Each distinct (bar, first block of its
    message?) is one block [msg, kind number, tokens, text, first]; a frame is runs [start, count]
    of block numbers. Example: encode([[a], [a, b]]) -> ([[0, 0, 7, 'hi', 1], [...]], [[[0, 1]], [[0, 2]]])"""
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


def head_runs(runs: list, n: int) -> list:
    """The first n block positions of a frame's runs. Example: head_runs([[0, 5], [9, 2]], 6) -> [[0, 5], [9, 1]]"""
    out = []
    for start, count in runs:
        if n <= 0:
            break
        out.append([start, min(count, n)])
        n -= count
    return out
