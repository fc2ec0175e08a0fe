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
read. Kinds: request (a user's own words), summary (text a compaction layer
wrote: a summary, a snip or truncation marker), note (a program's note beside
tool results: "<reminder>...", "[...]", "Note: ..."), text (assistant words),
call, result.

Example: [{"role": "user", "content": "hi"}] -> [Event(role="user", kind="request", text="hi")]

Not modeled: images and documents (they read as "[image]").
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from dataclasses import dataclass, field

from ..i18n import tr

ARTIFACT = re.compile(
    r"^\s*(\[(compacted|reactive compact|snipped|summary|conversation summary|对话摘要|"
    r"context summary|emergency|truncated)|this session is being continued|<summary>|"
    r"(##\s*)?(1\.\s*)?(user requests|用户请求)[:：]?\s*$)", re.IGNORECASE | re.MULTILINE)
# User text beside tool results that a program wrote (a hook's reminder), not the user's request.
NOTE = re.compile(r"^\s*(<[\w-]+>|\[|(note|reminder|hook|system)\b)", re.IGNORECASE)
PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "notebook_path", "dir", "directory")
COMMAND_KEYS = ("command", "cmd", "script")
STEP = re.compile(r"\((\d+)/(\d+)\)")  # the policy's step counter, "(3/12)"
ERROR_LINE = re.compile(r"(Traceback|Error\b|Exception\b|error:|ERROR|FAILED|failed|No such file|"
                        r"not found|denied|refused|exit code [1-9]|\[exit_code: [1-9])")
SEEN = re.compile(r"^Seen (`[^`\n]+`|\S+): (.+)$", re.MULTILINE)  # the policy's notes on results
DEFINES = re.compile(r"^\s*(?:export\s+)?(?:async\s+)?(?:def|class|function|fn|func|fun)\s+([A-Za-z_]\w*)",
                     re.MULTILINE)


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
            parts.append(str(b.get("text") or ""))
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
                events.append(Event(role, "result", block_text(b.get("content")),
                                    tool=names.get(cid, "tool"), is_error=bool(b.get("is_error")),
                                    call_id=cid))
    return events


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


def call_path(call: Event) -> str:
    """The file path a tool call works on, if it names one.

    Shell commands count when they are the simple ones the policy writes:
    `cat x`, `ls -la x`, `... printf ... > x`, `python3 -c <edit script> x old new`.
    """
    for key in PATH_KEYS:
        value = call.input.get(key)
        if isinstance(value, str) and value:
            return value
    command = call_command(call)
    if not command or "\n" in command:
        return ""
    try:
        argv = shlex.split(command)
    except ValueError:
        return ""
    if len(argv) == 2 and argv[0] in ("cat", "head", "tail"):
        return argv[1]
    if argv and argv[0] == "ls":
        return next((a for a in argv[1:] if not a.startswith("-")), "")
    if len(argv) >= 2 and argv[-2] == ">" and "printf" in argv:
        return argv[-1]
    if len(argv) == 6 and argv[0].startswith("python") and argv[1] == "-c" and "write_text" in argv[2]:
        return argv[3]
    return ""


def call_command(call: Event) -> str:
    """The shell command a tool call runs, if it is one."""
    for key in COMMAND_KEYS:
        value = call.input.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def call_target(call: Event) -> str:
    """What a call works on, for a report: its command, path or pattern (else its tool name)."""
    pattern = call.input.get("pattern")
    return call_command(call) or call_path(call) or (pattern if isinstance(pattern, str) else "") or call.tool


VERBS = (("read", "read"), ("view", "read"), ("cat", "read"), ("write", "written"),
         ("create", "written"), ("edit", "edited"), ("patch", "edited"), ("replace", "edited"),
         ("list", "listed"), ("ls", "listed"), ("glob", "listed"), ("grep", "searched"))
_SHELL_VERBS = ((r"(cat|head|tail|less|more)\b", "read"), (r"(ls|find|tree)\b", "listed"),
                (r"(grep|rg)\b", "searched"), (r"(sed -i|python3? -c .*write_text)", "edited"),
                (r"(mkdir -p \S+ && )?printf .*> ", "written"))


def call_verb(call: Event) -> str:
    """What a call did to its path: read, written, edited, listed, searched (or 'used by <tool>')."""
    command = call_command(call)
    if command:
        for pattern, verb in _SHELL_VERBS:
            if re.match(r"\s*" + pattern, command):
                return verb
        return "ran"
    name = call.tool.lower()
    return next((verb for key, verb in VERBS if key in name), f"used by {call.tool}")


# One `ls -l` entry (mode, links, owner, group, size, month day time-or-year, name), on its own
# line or inside a listing folded onto one line.
LS_LONG = re.compile(r"(?<!\S)[-dlcbps][-rwxsStT]{9}[@+.]?\s+\d+\s+\S+\s+\S+\s+[\d,]+\s+"
                     r"\w{3}\s+\d{1,2}\s+[\d:]{4,5}\s+(\S+)")
MODE = re.compile(r"[-dlcbps][-rwxsStT]{9}[@+.]?\s")


def listing_names(text: str) -> list[str]:
    """The entries a listing names: `ls -l` lines' names, else one name per line; a listing
    folded onto one line (the s08 summary prompt's `[Tool Results: a.py b.py]`) names each word.
    Notes such as "(empty directory)" or "[... 3 more entries not shown]" are not entries.
    Example: 'a.py\nsrc/' -> ['a.py', 'src/']; '. .. a.py b.py' (`ls -a`, folded) -> ['a.py', 'b.py']
    """
    names = LS_LONG.findall(text)
    if not names:
        lines = [ln.strip() for ln in text.splitlines()
                 if ln.strip() and not ln.strip().startswith(("total ", "[", "("))]
        if len(lines) == 1 and not MODE.match(lines[0]):
            names = lines[0].split()
        else:  # other long formats: the last word
            names = [ln.split()[-1] if MODE.match(ln) else ln for ln in lines]
    return [name for name in names if name not in (".", "..")]


def listing(text: str, limit: int = 50, language: str = "en") -> str:
    """A folder listing in one line. Example: 'a.py\nsrc/' -> '2 entries: a.py, src/' ('2 项：a.py, src/' in zh)"""
    names = listing_names(text)
    more = tr(" (+{n} more)", language=language, n=len(names) - limit) if len(names) > limit else ""
    if language == "en":
        return f"{len(names)} entr{'y' if len(names) == 1 else 'ies'}: {', '.join(names[:limit])}{more}"
    return tr("{n} entries: {names}{more}", language=language, n=len(names), names=", ".join(names[:limit]),
              more=more)


def error_line(text: str) -> str:
    """The line that says what went wrong. Example: 'Traceback ...\nKeyError: x' -> 'KeyError: x'"""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    raised = [ln for ln in lines if re.match(r"^[\w.]*(Error|Exception|Failure|Interrupt)\b", ln)]
    if raised:
        return raised[-1]
    hits = [ln for ln in lines if ERROR_LINE.search(ln) and not ln.startswith("Traceback")]
    return hits[0] if hits else (lines[0] if lines else "")


def describe(text: str, language: str = "en") -> str:
    """A one-line description of a file or an output. Example: 'def f():\\n  pass' -> '2 lines, defines f'"""
    lines = len(text.splitlines())
    unit = tr("line", language=language) if lines == 1 else tr("lines", language=language)
    names = list(dict.fromkeys(DEFINES.findall(text)))
    if names:
        more = tr(" (+{n} more)", language=language, n=len(names) - 6) if len(names) > 6 else ""
        return tr("{lines} {unit}, defines {names}{more}", language=language, lines=lines, unit=unit,
                  names=", ".join(names[:6]), more=more)
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if not first:
        return tr("empty", language=language)
    return tr("{lines} {unit}: {first}", language=language, lines=lines, unit=unit,
              first=first[:80] + ("…" if len(first) > 80 else ""))
