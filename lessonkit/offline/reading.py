"""Read a conversation, in whatever shape it reaches the model, as a list of events.

A conversation reaches the offline model in three shapes:

  * as Messages-API messages (the normal case, and Claude Code's way of asking
    for a summary: the history, then one more user message with instructions);
  * as a JSON dump pasted into one user message (the s06 seed does
    `json.dumps(messages)[:80000]`: the dump may be cut mid-message);
  * as role-labelled lines (the s08 seed's SummaryBuffer prompt:
    `USER: ...`, `  [Tool Calls: read_file]`, `  [Tool Results: ...]`).

Each becomes the same flat list of `Event`s, which the policy and the
summariser read. Example:
  [{"role": "user", "content": "hi"}] -> [Event(role="user", kind="request", text="hi")]

Not modeled: images and documents (they read as "[image]").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

ARTIFACT = re.compile(
    r"^\s*(\[(compacted|reactive compact|snipped|summary|conversation summary|对话摘要|"
    r"context summary|emergency)|this session is being continued|<summary>|"
    r"(##\s*)?(1\.\s*)?user requests:?\s*$)", re.I | re.M)
PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "notebook_path", "dir", "directory")
COMMAND_KEYS = ("command", "cmd", "script")


@dataclass
class Event:
    role: str                 # "user" or "assistant"
    kind: str                 # request | summary | text | call | result
    text: str = ""
    tool: str = ""
    input: dict = field(default_factory=dict)
    is_error: bool = False
    call_id: str = ""


def is_artifact(text: str) -> bool:
    """True for text a compaction layer wrote (a summary, a snip marker)."""
    return bool(ARTIFACT.search(text[:400]))


def block_text(content) -> str:
    """Flatten message or tool_result content to text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for b in content:
        if isinstance(b, str):
            parts.append(b)
        elif b.get("type") == "text":
            parts.append(b.get("text", ""))
        elif b.get("type") == "tool_result":
            parts.append(block_text(b.get("content")))
        elif b.get("type") in ("image", "document"):
            parts.append(f"[{b['type']}]")
    return "\n".join(parts)


def from_messages(messages: list) -> list[Event]:
    """Events from Messages-API dicts."""
    events, names = [], {}
    for msg in messages:
        role, content = msg.get("role"), msg.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for b in content or []:
            kind = b.get("type") if isinstance(b, dict) else None
            if kind == "text" and b.get("text", "").strip():
                text = b["text"]
                if role == "user":
                    events.append(Event(role, "summary" if is_artifact(text) else "request", text))
                else:
                    events.append(Event(role, "text", text))
            elif kind == "tool_use":
                names[b.get("id")] = b.get("name", "tool")
                events.append(Event(role, "call", tool=b.get("name", "tool"),
                                    input=b.get("input") or {}, call_id=b.get("id", "")))
            elif kind == "tool_result":
                cid = b.get("tool_use_id", "")
                events.append(Event(role, "result", block_text(b.get("content")),
                                    tool=names.get(cid, "tool"), is_error=bool(b.get("is_error")),
                                    call_id=cid))
    return events


_ROLE_OBJ = re.compile(r'\{\s*"role"\s*:')


def from_json_dump(text: str) -> list[Event]:
    """Events from a (possibly truncated) JSON dump of messages inside a prompt."""
    decoder, messages = json.JSONDecoder(), []
    for m in _ROLE_OBJ.finditer(text):
        try:
            obj, _ = decoder.raw_decode(text, m.start())
        except ValueError:
            continue  # the dump was cut inside this message
        if isinstance(obj, dict) and obj.get("role") in ("user", "assistant"):
            messages.append(obj)
    return from_messages(messages)


_LINE = re.compile(r"^(USER|ASSISTANT|SYSTEM|Human|Assistant|User)\s*:\s?(.*)$")
_LABELLED = re.compile(r"^(USER|ASSISTANT): ", re.M)
_CALLS = re.compile(r"^\s*\[Tool Calls:\s*(.*)\]\s*$")
_RESULTS = re.compile(r"^\s*\[Tool Results:\s*(.*)\]\s*$")
_CALL = re.compile(r"(\w+)(?:\((.*?)\))?(?:,\s*|$)")


def from_labelled_lines(text: str) -> list[Event]:
    """Events from `USER: ...` / `[Tool Calls: ...]` / `[Tool Results: ...]` lines."""
    events, role = [], "user"
    for line in text.splitlines():
        if m := _CALLS.match(line):
            for name, args in _CALL.findall(m.group(1)):
                events.append(Event("assistant", "call", tool=name, input=_parse_args(args)))
        elif m := _RESULTS.match(line):
            events.append(Event("user", "result", m.group(1), is_error="error" in m.group(1).lower()))
        elif m := _LINE.match(line):
            role = "assistant" if m.group(1).lower() == "assistant" else "user"
            if m.group(2).strip():
                kind = "text" if role == "assistant" else "request"
                events.append(Event(role, kind, m.group(2)))
        elif line.strip() and events and events[-1].kind in ("request", "text"):
            events[-1].text += "\n" + line
    return events


def _parse_args(args: str) -> dict:
    """'path=a.py, mode="r"' -> {'path': 'a.py', 'mode': 'r'}"""
    out = {}
    for key, value in re.findall(r"(\w+)\s*=\s*('[^']*'|\"[^\"]*\"|[^,]+)", args or ""):
        out[key] = value.strip().strip("'\"")
    return out


def read_conversation(messages: list) -> tuple[list[Event], str]:
    """Split a request into (the conversation's events, the final instruction text).

    The instruction is the last user message's text. If it embeds the conversation
    (a JSON dump or labelled lines), that is what is read; otherwise the messages
    before it are the conversation.
    """
    if not messages:
        return [], ""
    last = messages[-1]
    instruction = block_text(last.get("content")) if last.get("role") == "user" else ""
    embedded = []
    if "## Messages to Summarize" in instruction or _LABELLED.search(instruction):
        body = instruction.split("## Messages to Summarize", 1)[-1]
        embedded = from_labelled_lines(body)
    elif _ROLE_OBJ.search(instruction):
        embedded = from_json_dump(instruction)
    previous = previous_summary(instruction)
    head = [Event("user", "summary", previous)] if previous else []
    if embedded:
        return from_messages(messages[:-1]) + head + embedded, instruction
    rest = dict(last, content=[b for b in last.get("content") if isinstance(b, dict)
                               and b.get("type") == "tool_result"]) \
        if isinstance(last.get("content"), list) else None
    earlier = messages[:-1] + ([rest] if rest and rest["content"] else [])
    return from_messages(earlier) + head, instruction


def previous_summary(text: str) -> str:
    """The `## Previous Summary` section of a rolling-summary prompt, if any."""
    m = re.search(r"##\s*Previous Summary\s*\n(.*?)(?=\n##\s|\nIncorporate|\Z)", text, re.S)
    return m.group(1).strip() if m else ""


def call_path(call: Event) -> str:
    """The file path a tool call works on, if it names one."""
    for key in PATH_KEYS:
        value = call.input.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def call_command(call: Event) -> str:
    """The shell command a tool call runs, if it is one."""
    for key in COMMAND_KEYS:
        value = call.input.get(key)
        if isinstance(value, str) and value:
            return value
    return ""
