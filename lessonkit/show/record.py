"""Recorder: an agent run as frames, one per API request, for the views, charts and tables.

Motto: record what was sent, not what you remember sending.

    Agent(..., on_event=recorder)
      "request"  ──> a new Frame: a Bar per block (kind, tokens, preview) [+ a deep copy]
      "response" ──> frame.usage (a plain dict), frame.stop_reason
      "tool"     ──> frame.tools += {name, is_error, tokens}
      "error"    ──> frame.error  ("BadRequestError: prompt is too long: ...")
      "compact"  ──> held, then attached to the NEXT frame: what changed before that request

Example: rec = Recorder(); Agent(client, on_event=rec).ask("list the files")
  -> rec.table()[0] == {'request': 1, 'messages': 1, 'tokens': 9, 'input': 705, ...}

Memory: a frame keeps its Bars, not the messages, and a Bar that did not change is the
same object in every frame (2,000 unchanged messages cost a tuple of 2,000 pointers).
Recorder(keep_messages=True) also keeps a deep copy of every request's messages.

Not modeled: streaming events, clocks (summaries print no ids, addresses or times).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from .. import tokens
from ..i18n import tr
from . import textwidth
from .bars import KINDS, message_bars

COLUMNS = ("request", "messages", "tokens", "input", "cache_read", "cache_write", "output", "stop",
           "compactions")


@dataclass
class Frame:
    """One API request: what was sent (as bars), what came back, what happened around it."""
    request: int                  # 1-based number of the request in the run
    bars: tuple                   # bars.Bar per content block of the messages sent
    n_messages: int
    tokens: int                   # lessonkit.tokens.count_messages of the messages sent
    usage: dict | None = None     # the response's usage, as a plain dict
    stop_reason: str | None = None
    error: str | None = None      # the request failed: "<ExceptionType>: <API message>"
    compactions: list = field(default_factory=list)  # compact events just before this request
    tools: list = field(default_factory=list)        # tools run after this response
    messages: list | None = None  # a deep copy, with Recorder(keep_messages=True)

    @property
    def kinds(self) -> dict:
        """Tokens per kind. Example: {'user': 12, 'tool_result': 3400, ...}"""
        out = dict.fromkeys(KINDS, 0)
        for b in self.bars:
            out[b.kind] += b.tokens
        return out

    def row(self) -> dict:
        """The frame as plain values for a table (no ids, addresses or times)."""
        usage = self.usage or {}
        return {"request": self.request, "messages": self.n_messages, "tokens": self.tokens,
                "input": usage.get("input_tokens"), "cache_read": usage.get("cache_read_input_tokens"),
                "cache_write": usage.get("cache_creation_input_tokens"),
                "output": usage.get("output_tokens"),
                "stop": self.stop_reason or ("error" if self.error else None),
                "compactions": "; ".join(compaction_text(c) for c in self.compactions)}


def compaction_text(event: dict) -> str:
    """One compaction in a few words.

    Example: {'layer': 'micro', 'tokens_before': 9000, 'tokens_after': 2000} -> 'micro 9,000->2,000'
    """
    return f"{event.get('layer')} {event.get('tokens_before') or 0:,}->{event.get('tokens_after') or 0:,}"


def plain_usage(usage) -> dict | None:
    """An SDK Usage (or a dict) as a plain dict without None values."""
    if usage is None:
        return None
    if hasattr(usage, "model_dump"):
        return usage.model_dump(mode="json", exclude_none=True)
    return {k: v for k, v in dict(usage).items() if v is not None}


def error_text(error) -> str:
    """The API's own message for an SDK error.

    Example: BadRequestError -> 'BadRequestError: prompt is too long: 2100 tokens > 2000 maximum'
    """
    body = getattr(error, "body", None)
    message = None
    if isinstance(body, dict):
        inner = body.get("error")
        message = inner.get("message") if isinstance(inner, dict) else body.get("message")
    return f"{type(error).__name__}: {message or error}"


def _parts(message, names: dict):
    """The plain values a message's Bars depend on, or None when they cannot be listed cheaply.

    Leaves only (strings, numbers, flags), never the dicts: a block rewritten in place
    (micro-compact sets block["content"]) changes a leaf, so the message is recounted.
    Example: {'role': 'user', 'content': 'hi'} -> ['user', 'hi']
    """
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    parts = [message.get("role"), content if not isinstance(content, list) else len(content)]
    if not isinstance(content, list):
        return parts
    for block in content:
        if not isinstance(block, dict):
            return None
        kind = block.get("type")
        parts += (kind, block.get("text"), block.get("is_error"), block.get("name"), block.get("id"))
        if kind == "tool_use":
            arg = block.get("input")
            if not isinstance(arg, dict) or not all(isinstance(v, (str, int, float)) for v in arg.values()):
                return None
            parts += (len(arg), *arg.items())
        elif kind == "tool_result":
            inner = block.get("content")
            parts += (names.get(block.get("tool_use_id")), inner if not isinstance(inner, list) else len(inner))
            for sub in inner if isinstance(inner, list) else ():
                if not isinstance(sub, dict) or sub.get("type") not in ("text", "image"):
                    return None
                parts += (sub.get("type"), sub.get("text"))
        elif kind not in ("text", "image"):
            return None
    return parts


class BarMemo:
    """bars.bars() for a history that mostly grows: a message whose values are unchanged
    at the same position reuses its Bars (the same objects), others are recounted.
    Example: memo(h); h.append(m); memo(h) -> counts only m"""

    def __init__(self):
        self._memo: list = []    # per position: (parts, bars, tool_use names)
        self._shared: dict = {}  # one object per distinct Bar

    def __call__(self, messages) -> tuple:
        names, out, memo, old = {}, [], [], self._memo
        for i, message in enumerate(messages):
            parts = _parts(message, names)
            hit = old[i] if i < len(old) else None
            if parts is not None and hit is not None and hit[0] == parts:
                found, uses = hit[1], hit[2]
                names.update(uses)
            else:
                found = tuple(self._shared.setdefault(b, b) for b in message_bars(i, message, names))
                content = message.get("content")
                uses = [(b.get("id"), b.get("name", "?")) for b in content
                        if isinstance(b, dict) and b.get("type") == "tool_use"] if isinstance(content, list) else []
            memo.append((parts, found, uses))
            out += found
        self._memo = memo
        return tuple(out)


class Recorder:
    """An `on_event` observer that turns a run into frames. Example: Agent(client, on_event=Recorder())

    keep_messages: also keep a deep copy of each request's messages (frame.messages).
    on_event: another observer to pass every event on to.
    """

    def __init__(self, *, keep_messages: bool = False, on_event=None):
        self.keep_messages, self.on_event = keep_messages, on_event
        self.frames: list[Frame] = []
        self.compactions: list[dict] = []  # every compaction of the run, in order
        self.pending: list[dict] = []      # compactions not yet followed by a request
        self.errors: list[dict] = []       # every error event: {"request": n, "error": text}
        self._bars = BarMemo()             # unchanged messages keep their Bar objects

    def __call__(self, kind: str, data: dict) -> None:
        handler = getattr(self, "_on_" + kind, None)
        if handler:
            handler(data)
        if self.on_event:
            self.on_event(kind, data)

    def _on_request(self, data) -> None:
        messages = data.get("messages") or []
        frame_bars = self._bars(messages)
        for event in self.pending:
            event["request"] = len(self.frames) + 1
        self.frames.append(Frame(request=len(self.frames) + 1, bars=frame_bars,
                                 n_messages=len(messages), tokens=sum(b.tokens for b in frame_bars),
                                 compactions=self.pending,
                                 messages=copy.deepcopy(messages) if self.keep_messages else None))
        self.pending = []

    def _on_response(self, data) -> None:
        response = data.get("response")
        if self.frames and response is not None:
            self.frames[-1].usage = plain_usage(getattr(response, "usage", None))
            self.frames[-1].stop_reason = getattr(response, "stop_reason", None)

    def _on_tool(self, data) -> None:
        call, result = data.get("call") or {}, data.get("result") or {}
        if self.frames:
            self.frames[-1].tools.append({
                "name": call.get("name"), "is_error": bool(result.get("is_error")),
                "tokens": tokens.count_block(result) if result else 0})

    def _on_error(self, data) -> None:
        """A failed request marks its own frame; an error between requests (a summary call that
        failed, a hook) is kept in `errors` with the number of the request that comes next."""
        text, last = error_text(data.get("error")), self.frames[-1] if self.frames else None
        if last is not None and last.stop_reason is None and last.error is None:
            last.error = text
            self.errors.append({"request": last.request, "error": text})
        else:
            self.errors.append({"request": len(self.frames) + 1, "error": text})

    def _on_compact(self, data) -> None:
        event = {k: data.get(k) for k in ("layer", "tokens_before", "tokens_after",
                                          "messages_before", "messages_after")}
        event["note"] = str(data.get("note") or "")
        event["request"] = None  # set when the next request is recorded
        self.compactions.append(event)
        self.pending.append(event)

    # ---- reading the run --------------------------------------------------------
    def __len__(self):
        return len(self.frames)

    def __bool__(self):  # an empty Recorder is still an observer: `if self.on_event:` must be true
        return True

    def __iter__(self):
        return iter(self.frames)

    def __getitem__(self, i):
        return self.frames[i]

    def table(self) -> list[dict]:
        """One row of plain values per request (see COLUMNS)."""
        return [f.row() for f in self.frames]

    def summary(self) -> str:
        """The table as fixed-width text, the same on every run. Example: print(rec.summary())"""
        return format_table(self.table())


def headings() -> dict[str, str]:
    """The kit's column names (a Frame's row, a Bar's fields) as a table heads them, in the
    student's language; the rows keep the names as keys. Example (zh): headings()["tokens"] -> "token 数" """
    return {"request": tr("request"), "messages": tr("messages"), "tokens": tr("tokens"),
            "input": tr("input"), "cache_read": tr("cache_read"), "cache_write": tr("cache_write"),
            "output": tr("output"), "stop": tr("stop"), "compactions": tr("compactions"),
            "msg": tr("msg"), "kind": tr("kind"), "text": tr("text")}


def format_table(rows, columns=COLUMNS) -> str:
    """Rows of plain values as aligned text; None prints as '-'. A column the kit names (see
    headings()) is headed in the student's language, any other by its own name; a "kind" column's
    block kinds read as the view names them (tool_use, in Chinese 工具调用); columns line up in
    cells, a Chinese character taking two.

    Example: format_table([{'request': 1, 'tokens': 9}], ('request', 'tokens'))
      -> 'request  tokens\\n      1       9'
    """
    from .viewtext import kind_names  # a block's kind as the view names it, so view and table say the same

    names, kinds = headings(), kind_names()
    head = [names.get(c, c) for c in columns]
    cells = [[("-" if r.get(c) is None else kinds.get(r.get(c), str(r.get(c))) if c == "kind" else str(r.get(c)))
              for c in columns] for r in rows]
    widths = [max([textwidth.width(h)] + [textwidth.width(row[i]) for row in cells]) for i, h in enumerate(head)]
    numeric = [all(row[i] == "-" or row[i].lstrip("-").isdigit() for row in cells)
               for i in range(len(columns))]

    def line(values):
        return "  ".join(textwidth.rjust(v, w) if num else textwidth.ljust(v, w)
                         for v, w, num in zip(values, widths, numeric)).rstrip()

    return "\n".join([line(head)] + [line(row) for row in cells])
