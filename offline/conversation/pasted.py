"""The conversation a summary request holds: the messages before it, or one pasted into its prompt.

    messages [..., user "<instruction>"]  ──> read_conversation ──> (events, the instruction)
      the instruction embeds `USER: ...` / `[Tool Calls: ...]` lines  -> from_labelled_lines (the s08 seed)
      the instruction embeds a JSON dump of messages (maybe cut off)  -> from_json_dump (the s06 seed)
      neither                                                        -> the messages before it
      a `## Previous Summary` section                                 -> a summary event first

Example: read_conversation([{"role": "user", "content": "USER: hi\nASSISTANT: hello\n\nSummarize."}])
  -> ([Event("user", "request", "hi"), Event("assistant", "text", "hello\n\nSummarize.")], "USER: hi\n...")

Not modeled: a dump cut inside a block other than text or tool_result (that block is dropped).
"""

from __future__ import annotations

import json
import re

from .calls import ERROR_LINE
from .reading import Event, from_messages, is_artifact


def read_conversation(messages: list) -> tuple[list[Event], str]:
    """Split a request into (the conversation's events, the final instruction text).

    The instruction is the last user message's own text. If it embeds the
    conversation (a JSON dump or labelled lines), that is what is read; otherwise
    the messages before it (and any tool results beside it) are the conversation.
    """
    if not messages:
        return [], ""
    last = messages[-1]
    content = last.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    texts = [b for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
    instruction = texts[-1].get("text", "") if texts and last.get("role") == "user" else ""
    embedded = []
    if "## Messages to Summarize" in instruction or _LABELLED.search(instruction):
        body = instruction.split("## Messages to Summarize", 1)[-1]
        embedded = from_labelled_lines(body)
    elif _MESSAGE_START.search(instruction):
        embedded = from_json_dump(instruction)
    previous = previous_summary(instruction)
    head = [Event("user", "summary", previous)] if previous else []
    if embedded:
        return from_messages(messages[:-1]) + head + embedded, instruction
    # The last message's tool results and any text before the instruction are conversation too.
    rest = [b for b in content or [] if not (texts and b is texts[-1])] if last.get("role") == "user" else content
    earlier = messages[:-1] + ([dict(last, content=rest)] if rest else [])
    return from_messages(earlier) + head, instruction


def previous_summary(text: str) -> str:
    """The `## Previous Summary` section of a rolling-summary prompt, if any."""
    m = re.search(r"##\s*Previous Summary\s*\n(.*?)(?=\n##\s|\nIncorporate|\Z)", text, re.DOTALL)
    return m.group(1).strip() if m else ""


_MESSAGE_START = re.compile(r'\{\s*"(?:role|content)"\s*:')
_BLOCK_START = re.compile(r'\{\s*"(?:type|tool_use_id|id|text|name)"\s*:')
_PARTIAL_STRING = r'"%s"\s*:\s*"((?:[^"\\]|\\.)*)'


def _partial_string(chunk: str, key: str) -> str | None:
    """The (possibly cut) JSON string value of `key` in a cut-off chunk."""
    m = re.search(_PARTIAL_STRING % key, chunk)
    if not m:
        return None
    raw = m.group(1)
    for trim in range(7):  # the cut may fall inside an escape such as \u4e0a
        try:
            return json.loads(f'"{raw[:len(raw) - trim]}"')
        except ValueError:
            continue
    return None


def _salvage(chunk: str) -> dict | None:
    """What can be read of a message the dump cut off: its role and its complete blocks."""
    role = re.search(r'"role"\s*:\s*"(user|assistant)"', chunk)
    if not role:
        return None
    first = re.search(r'"content"\s*:\s*(["\[])', chunk)
    if first and first.group(1) == '"':  # string content, cut: keep what there is
        content = _partial_string(chunk, "content")
        return {"role": role.group(1), "content": (content or "") + " [cut]"}
    blocks, decoder, done = [], json.JSONDecoder(), 0
    for m in _BLOCK_START.finditer(chunk):
        if m.start() < done:
            continue
        try:
            obj, done = decoder.raw_decode(chunk, m.start())
        except ValueError:  # the block the dump ends in: keep its ids and the text so far
            part = {k: _partial_string(chunk[m.start():], k) for k in ("type", "id", "name", "tool_use_id")}
            body = _partial_string(chunk[m.start():], "content") or _partial_string(chunk[m.start():], "text")
            if part["type"] == "tool_result" and part["tool_use_id"]:
                blocks.append({"type": "tool_result", "tool_use_id": part["tool_use_id"],
                               "content": (body or "") + " [cut]"})
            elif part["type"] == "text" and body:
                blocks.append({"type": "text", "text": body + " [cut]"})
            break
        if isinstance(obj, dict) and obj.get("type"):
            blocks.append(obj)
    return {"role": role.group(1), "content": blocks} if blocks else None


def from_json_dump(text: str) -> list[Event]:
    """Events from a (possibly truncated) JSON dump of messages inside a prompt."""
    decoder, messages, done = json.JSONDecoder(), [], 0
    starts = [m.start() for m in _MESSAGE_START.finditer(text)]
    for k, at in enumerate(starts):
        if at < done:
            continue  # inside a message already read
        try:
            obj, done = decoder.raw_decode(text, at)
        except ValueError:  # the dump was cut inside this message
            end = next((s for s in starts[k + 1:] if s > at), len(text))
            obj = _salvage(text[at:end])
        if isinstance(obj, dict) and obj.get("role") in ("user", "assistant"):
            messages.append(obj)
    return from_messages(messages)


_LINE = re.compile(r"^(USER|ASSISTANT|SYSTEM|Human|Assistant|User|System)\s*:\s?(.*)$")
_LABELLED = re.compile(r"^(USER|ASSISTANT): ", re.MULTILINE)
_CALLS = re.compile(r"^\s*\[Tool Calls:\s*(.*)\]\s*$")
_RESULTS = re.compile(r"^\s*\[Tool Results:\s*(.*)\]\s*$")
_CALL = re.compile(r"(\w+)(?:\((.*?)\))?(?:,\s*|$)")


def from_labelled_lines(text: str) -> list[Event]:
    """Events from `USER: ...` / `[Tool Calls: ...]` / `[Tool Results: ...]` lines.

    Calls get ids L1, L2, ...; a results line answers the oldest unanswered call.
    """
    events, role, open_calls = [], "user", []
    for line in text.splitlines():
        if m := _CALLS.match(line):
            for name, args in _CALL.findall(m.group(1)):
                call_id = f"L{sum(e.kind == 'call' for e in events) + 1}"
                events.append(Event("assistant", "call", tool=name, input=_parse_args(args), call_id=call_id))
                open_calls.append(events[-1])
        elif m := _RESULTS.match(line):
            call = open_calls.pop(0) if open_calls else None
            events.append(Event("user", "result", m.group(1), tool=call.tool if call else "tool",
                                is_error=bool(ERROR_LINE.search(m.group(1))),
                                call_id=call.call_id if call else ""))
        elif m := _LINE.match(line):
            role = m.group(1).lower()
            body = m.group(2)
            if body.strip():
                kind = {"assistant": "text", "system": "summary"}.get(role, "request")
                if kind != "text" and is_artifact(body):
                    kind = "summary"
                events.append(Event("assistant" if role == "assistant" else "user", kind, body))
            if role == "assistant":  # a new turn: calls left unanswered stay so
                open_calls = []
        elif line.strip() and events and events[-1].kind in ("request", "text", "summary", "note"):
            events[-1].text += "\n" + line
    return [e for e in events if not (e.kind == "summary" and not e.text.strip())]


def _parse_args(args: str) -> dict:
    """'path=a.py, mode="r"' -> {'path': 'a.py', 'mode': 'r'}; '{"path": "a.py"}' -> {'path': 'a.py'}"""
    args = (args or "").strip()
    if args.startswith("{"):
        try:
            value = json.loads(args)
            return value if isinstance(value, dict) else {}
        except ValueError:
            pass
    out = {}
    for key, value in re.findall(r"(\w+)\s*=\s*('[^']*'|\"[^\"]*\"|[^,]+)", args):
        out[key] = value.strip().strip("'\"")
    return out
