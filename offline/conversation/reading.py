"""Read a conversation, in whatever shape it reaches the model, as a list of events.

A conversation reaches the offline model in three shapes:

  * as Messages-API messages (the normal case, and Claude Code's way of asking
    for a summary: the history, then one more user message with instructions);
  * as a JSON dump pasted into one user message (the s06 seed does
    `json.dumps(messages, default=str)[:80000]`: the dump may be cut mid-message,
    and SDK blocks may appear as their repr strings);
  * as role-labelled lines (the s08 seed's SummaryBuffer prompt:
    `USER: ...`, `  [Tool Calls: read_file]`, `  [Tool Results: ...]`).

Each becomes the same flat list of `Event`s, which the policy and the summariser
read: this file reads messages; pasted.py finds the conversation in a summary request (a
dump or labelled lines) and reads it; calls.py reads what a call did and what its result
says. Kinds: request (a user's own words), summary (text a compaction layer wrote: a
summary, a snip or truncation marker), note (a program's note beside tool results:
"<reminder>...", "[...]", "Note: ..."), text (assistant words), call, result.

Example: [{"role": "user", "content": "hi"}] -> [Event(role="user", kind="request", text="hi")]

Not modeled: images and documents (they read as "[image]").
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field

ARTIFACT = re.compile(
    r"^\s*(\[(compacted|reactive compact|snipped|summary|conversation summary|对话摘要|"
    r"context summary|emergency|truncated)|this session is being continued|<summary>|"
    r"(##\s*)?(1\.\s*)?(user requests|用户请求)[:：]?\s*$)", re.IGNORECASE | re.MULTILINE)
# User text beside tool results that a program wrote (a hook's reminder), not the user's request.
NOTE = re.compile(r"^\s*(<[\w-]+>|\[|(note|reminder|hook|system)\b)", re.IGNORECASE)
STEP = re.compile(r"\((\d+)/(\d+)\)")  # the policy's step counter, "(3/12)"
SEEN = re.compile(r"^Seen (`[^`\n]+`|\S+): (.+)$", re.MULTILINE)  # the policy's notes on results
# --- wrapper text: what a client wraps around the user's words or a tool's output, not part of them.
# Claude Code's <system-reminder> blocks (in user text and inside tool results), and smolagents' tool output,
# sent back as user text "Call id: call_1\nObservation:\nhi" (its tool calls were assistant text).
REMINDER = re.compile(r"<system-reminder>.*?(</system-reminder>|\Z)", re.DOTALL)
# Its output (or its error) sent back as user text: one "[Call id: X]\nObservation:\n..." / "Error:\n..." section per
# call, several in one message when the calls ran together; an error ends with smolagents' "Now let's retry: ...".
OBSERVED = re.compile(r"(?:\A|\n)[ \t]*(?:Call id:[ \t]*(\S+)[ \t]*\n)?[ \t]*(Observation|Error):[ \t]*\n?")
RETRY = re.compile(r"\s*Now let's retry:.*\Z", re.DOTALL)
CALLING = re.compile(r"^\s*Calling tools:\s*\n(\[.*\])\s*\Z", re.DOTALL)  # smolagents' tool calls, as text


def text_calls(text: str) -> list[tuple[str, str, dict]]:
    """smolagents' tool calls written as assistant text, as (id, name, input).

    Example: "Calling tools:\n[{'id': 'call_1', 'type': 'function', 'function': {'name': 'bash',
              'arguments': {'command': 'ls'}}}]" -> [("call_1", "bash", {"command": "ls"})]
    """
    found = CALLING.match(text)
    if not found:
        return []
    try:
        calls = ast.literal_eval(found.group(1))
    except (ValueError, SyntaxError):
        return []
    out = []
    for call in calls if isinstance(calls, list) else ():
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            args = fn.get("arguments")
            out.append((_id(call.get("id")), fn["name"], args if isinstance(args, dict) else {}))
    return out


def observations(text: str) -> list[tuple[str, str, bool]]:
    """smolagents' tool outputs sent back as user text, as (call id or "", output, is_error); [] for other text.

    Example: "Call id: call_1\nObservation:\nhi\n\nCall id: call_2\nError:\nno such file\nNow let's retry: ..."
      -> [("call_1", "hi", False), ("call_2", "no such file", True)]
    """
    heads = list(OBSERVED.finditer(text))
    if not heads or text[:heads[0].start()].strip():
        return []  # the text must open with a section: a request that mentions "Observation:" is a request
    out = []
    for k, head in enumerate(heads):
        body = text[head.end():heads[k + 1].start() if k + 1 < len(heads) else len(text)]
        failed = head.group(2) == "Error"
        out.append((head.group(1) or "", (RETRY.sub("", body) if failed else body).strip(), failed))
    return out


def _unanswered(events: list) -> list:
    """The newest run of call events that no result has answered yet, oldest first."""
    answered = {e.call_id for e in events if e.kind == "result" and e.call_id}
    calls = []
    for e in reversed(events):
        if e.kind == "call":
            calls.append(e)
        elif calls:
            break
    return [c for c in reversed(calls) if c.call_id not in answered or not c.call_id]


def unwrap(text: str) -> str:
    """The text without Claude Code's <system-reminder> blocks.

    Example: "hi<system-reminder>x</system-reminder>" -> "hi"
    """
    return REMINDER.sub("", text).strip() if "<system-reminder>" in text else text


@dataclass
class Event:
    role: str                 # "user" or "assistant"
    kind: str                 # request | summary | note | text | call | result
    text: str = ""
    tool: str = ""
    input: dict = field(default_factory=dict)
    is_error: bool = False
    call_id: str = ""


def is_artifact(text: str) -> bool:
    """True for text a compaction layer wrote (a summary, a snip marker)."""
    return bool(ARTIFACT.search(text[:400]))


def block_text(content, *, results: bool = True) -> str:
    """Flatten message or tool_result content to text (without tool results if results=False)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):  # a pasted history may hold one block where a list belongs
        content = [content]
    elif not isinstance(content, (list, tuple)):  # ... or a number: tool_result content 7
        return str(content)
    parts = []
    for b in content:
        if isinstance(b, str):
            parts.append(b)
        elif not isinstance(b, dict):
            continue
        elif b.get("type") == "text":
            text = unwrap(str(b.get("text") or ""))
            if text or "<system-reminder>" not in str(b.get("text")):  # a block of only a reminder: nothing
                parts.append(text)
        elif b.get("type") == "tool_result" and results:
            parts.append(block_text(b.get("content")))
        elif b.get("type") in ("image", "document"):
            parts.append(f"[{b['type']}]")
    return "\n".join(parts)


def _sdk_repr(text: str) -> dict | None:
    """A block from its SDK repr. Example: "TextBlock(text='hi', type='text')" -> {'text': 'hi', 'type': 'text'}"""
    if not re.match(r"^\w*Block\(", text):
        return None
    try:
        call = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError):
        return None
    out = {}
    for kw in getattr(call, "keywords", []):
        try:
            out[kw.arg] = ast.literal_eval(kw.value)
        except (ValueError, SyntaxError):
            continue  # e.g. caller=DirectCaller(...): not needed
    return out if out.get("type") else None


def _id(value) -> str:
    """A block id as a string, whatever a pasted history holds. Example: 7 -> '7', None -> ''"""
    return value if isinstance(value, str) else "" if value is None else json.dumps(value)


def from_messages(messages: list) -> list[Event]:
    """Events from Messages-API dicts."""
    events, names = [], {}
    for msg in messages:
        if not isinstance(msg, dict):
            continue
        role, content = msg.get("role"), msg.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        content = [(_sdk_repr(b) or {"type": "text", "text": b}) if isinstance(b, str) else b
                   for b in (content if isinstance(content, list) else [])]
        with_results = any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
        for b in content:
            kind = b.get("type") if isinstance(b, dict) else None
            if kind == "text" and str(b.get("text", "")).strip():
                text = str(b["text"])
                if role == "user" and "<system-reminder>" in text:  # wrapper text: not the user's words
                    text = unwrap(text)
                    if not text:
                        continue
                observed = observations(text) if role == "user" else []
                pending = _unanswered(events) if observed else []
                if observed and (pending or not any(failed for _, _, failed in observed)):
                    # smolagents' tool output: the results of the calls its last assistant text made ("Error:"
                    # only after calls: a user's own "Error: the build fails" is a request)
                    for k, (cid, output, failed) in enumerate(observed):
                        call = next((c for c in pending if cid and c.call_id == cid), None) or \
                            (pending[k] if k < len(pending) else None)
                        events.append(Event(role, "result", output, tool=call.tool if call else "tool",
                                            is_error=failed, call_id=call.call_id if call else cid))
                    continue
                if role != "user" and text_calls(text):  # smolagents: calls written as text
                    for cid, name, args in text_calls(text):
                        names[cid] = name
                        events.append(Event(role, "call", tool=name, input=args, call_id=cid))
                    continue
                if role != "user":
                    events.append(Event(role, "text", text))
                elif is_artifact(text):
                    events.append(Event(role, "summary", text))
                else:
                    note = with_results and bool(NOTE.match(text))
                    events.append(Event(role, "note" if note else "request", text))
            elif kind == "tool_use":  # a pasted history may hold any JSON value here: keep strings
                name = b.get("name") if isinstance(b.get("name"), str) else "tool"
                names[_id(b.get("id"))] = name
                events.append(Event(role, "call", tool=name,
                                    input=b.get("input") if isinstance(b.get("input"), dict) else {},
                                    call_id=_id(b.get("id"))))
            elif kind == "tool_result":
                cid = _id(b.get("tool_use_id"))
                events.append(Event(role, "result", unwrap(block_text(b.get("content"))),
                                    tool=names.get(cid, "tool"), is_error=bool(b.get("is_error")),
                                    call_id=cid))
    return events
