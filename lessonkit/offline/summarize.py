"""The offline model's summariser: an extractive summary of what is in the conversation.

Asked to summarise, the offline model reads the conversation (see reading.py) and
writes the six sections the seed's prompt asks for, each built from the events:

    1. User requests        every genuine user request, in order
    2. Technical concepts   tools used (with counts) and languages of the files
    3. Files and code       each path a tool touched: read / written / edited / listed,
                            with the names a read file defines (def/class/function)
    4. Errors and fixes     the first error line of each failed call, and the fix:
                            a later edit of a file it names, or a later clean run
    5. Pending tasks        a plan step counter (k/N) that is not finished, or a
                            request with no final answer after it
    6. Current work         the last assistant text and the last call

A previous summary in the conversation (a compacted history, or a rolling
`## Previous Summary`) is merged in first, so a summary of a summary keeps what
the first one kept. Lists are trimmed, oldest first, to fit `max_tokens`.

Example: [user "read a.py", call read_file(a.py), result "def f(): ..."]
  -> "1. User requests:\n- read a.py\n...3. Files and code:\n- a.py: read (defines f)..."

Not modeled: judgement. Nothing is inferred that the text does not say.
"""

from __future__ import annotations

import re
from collections import Counter

from .. import tokens
from .reading import Event, call_command, call_path, read_conversation

SECTIONS = ("User requests", "Technical concepts", "Files and code", "Errors and fixes",
            "Pending tasks", "Current work")
SUMMARY_WORDS = re.compile(r"summar|摘要|总结|riassun|sintesi|condens|compact", re.I)
ERROR_LINE = re.compile(r"(Traceback|Error\b|Exception\b|error:|ERROR|FAILED|failed|No such file|"
                        r"not found|denied|refused|exit code [1-9]|\[exit_code: [1-9])")
DEFINES = re.compile(r"^\s*(?:async\s+)?(?:def|class|function|fn|func)\s+([A-Za-z_]\w*)", re.M)
LANGS = {".py": "Python", ".ts": "TypeScript", ".js": "JavaScript", ".md": "Markdown",
         ".json": "JSON", ".rs": "Rust", ".go": "Go", ".kt": "Kotlin", ".java": "Java",
         ".sh": "shell", ".toml": "TOML", ".yaml": "YAML", ".yml": "YAML", ".txt": "text"}
STEP = re.compile(r"\((\d+)/(\d+)\)")
MAX_ITEM_CHARS = 240
_BY_LOWER = {s.lower(): s for s in SECTIONS}


def is_summary_request(body: dict) -> bool:
    """A request with no tools whose last user message asks for a summary."""
    messages = body.get("messages") or []
    if body.get("tools") or not messages or messages[-1].get("role") != "user":
        return False
    _, instruction = read_conversation(messages[-1:])
    return bool(SUMMARY_WORDS.search(instruction[:4000]))


def _one_line(text: str, limit: int = MAX_ITEM_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _previous_sections(events: list[Event]) -> dict[str, list[str]]:
    """Bullets of earlier summaries in the conversation, by section."""
    found = {s: [] for s in SECTIONS}
    for e in events:
        if e.kind != "summary":
            continue
        current = None
        for line in e.text.splitlines():
            head = re.match(r"^\s*(?:#+\s*)?(?:\d\.\s*)?([A-Za-z ]+):?\s*$", line)
            name = head.group(1).strip().lower() if head else ""
            if name in _BY_LOWER:
                current = _BY_LOWER[name]
            elif current and line.strip().startswith("- "):
                found[current].append(line.strip()[2:])
    return found


def _error_line(text: str) -> str:
    for line in text.splitlines():
        if ERROR_LINE.search(line):
            return _one_line(line, 160)
    return _one_line(text, 160)


def extract(events: list[Event]) -> dict[str, list[str]]:
    """The six sections' bullets for a list of events (previous summaries merged first)."""
    sections = _previous_sections(events)
    calls = {e.call_id: e for e in events if e.kind == "call"}
    files: dict[str, list[str]] = {}
    errors = []
    for index, e in enumerate(events):
        if e.kind == "request":
            sections["User requests"].append(_one_line(e.text))
        elif e.kind == "call":
            path, verb = call_path(e), _verb(e.tool)
            if path:
                files.setdefault(path, [])
                if verb not in files[path]:
                    files[path].append(verb)
        elif e.kind == "result":
            call = calls.get(e.call_id)
            if call and call_path(call) and _verb(call.tool) == "read":
                names = list(dict.fromkeys(DEFINES.findall(e.text)))[:6]
                if names:
                    files[call_path(call)].append("defines " + ", ".join(names))
            failed = e.is_error or (ERROR_LINE.search(e.text[:4000]) and not e.text.startswith("[Previous"))
            if failed:
                what = (call_command(call) or call_path(call) or call.tool) if call else e.tool
                errors.append((index, what, _error_line(e.text)))
    counts = Counter(e.tool for e in events if e.kind == "call")
    if counts:
        sections["Technical concepts"].append(
            "tools used: " + ", ".join(f"{name} x{n}" for name, n in counts.most_common()))
    langs = sorted({LANGS[m] for p in files for m in LANGS if p.endswith(m)})
    if langs:
        sections["Technical concepts"].append("languages: " + ", ".join(langs))
    commands = list(dict.fromkeys(call_command(e) for e in events if e.kind == "call" and call_command(e)))
    if commands:
        sections["Technical concepts"].append("commands run: " + "; ".join(f"`{_one_line(c, 80)}`"
                                                                            for c in commands[-8:]))
    for path, verbs in files.items():
        sections["Files and code"].append(f"{path}: {', '.join(verbs)}")
    for index, what, line in errors:
        sections["Errors and fixes"].append(f"`{_one_line(what, 80)}`: {line} -> {_fix(events, index, what)}")
    sections["Pending tasks"] += _pending(events)
    sections["Current work"] += _current(events)
    return {name: list(dict.fromkeys(items)) for name, items in sections.items()}


def _verb(tool: str) -> str:
    t = tool.lower()
    for key, verb in (("read", "read"), ("cat", "read"), ("write", "written"), ("create", "written"),
                      ("edit", "edited"), ("patch", "edited"), ("list", "listed"), ("ls", "listed"),
                      ("glob", "listed"), ("grep", "searched")):
        if key in t:
            return verb
    return f"used by {tool}"


def _fix(events: list[Event], index: int, what: str) -> str:
    """How a failed call was fixed later in the conversation, if it was."""
    for later in events[index + 1:]:
        if later.kind == "call" and call_path(later) and call_path(later) in what + " ".join(
                e.text for e in events[index:index + 1]) and _verb(later.tool) in ("edited", "written"):
            return f"fixed by editing {call_path(later)}"
    for i, later in enumerate(events[index + 1:], index + 1):
        if later.kind == "call" and (call_command(later) or call_path(later)) == what:
            result = next((r for r in events[i + 1:] if r.kind == "result" and r.call_id == later.call_id), None)
            if result and not result.is_error and not ERROR_LINE.search(result.text[:4000]):
                return "a later run succeeded"
    return "not fixed yet"


def _pending(events: list[Event]) -> list[str]:
    out = []
    steps = [STEP.findall(e.text) for e in events if e.kind in ("text", "summary")]
    last = next((s[-1] for s in reversed(steps) if s), None)
    if last and int(last[0]) < int(last[1]):
        out.append(f"plan in progress: ({last[0]}/{last[1]}) steps done")
    requests = [i for i, e in enumerate(events) if e.kind == "request"]
    if requests:
        tail = events[requests[-1] + 1:]
        if not tail or tail[-1].kind != "text":
            out.append("finish: " + _one_line(events[requests[-1]].text, 160))
    return out


def _current(events: list[Event]) -> list[str]:
    out = []
    text = next((e for e in reversed(events) if e.kind == "text"), None)
    if text:
        out.append("last said: " + _one_line(text.text, 200))
    call = next((e for e in reversed(events) if e.kind == "call"), None)
    if call:
        target = call_command(call) or call_path(call)
        out.append(f"last tool call: {call.tool}" + (f" `{_one_line(target, 120)}`" if target else ""))
    return out


def render(sections: dict[str, list[str]], analysis: str, tagged: bool) -> str:
    body = "\n\n".join(f"{i}. {name}:\n" + "\n".join(f"- {item}" for item in (sections[name] or ["(none)"]))
                       for i, name in enumerate(SECTIONS, 1))
    if not tagged:
        return body
    return f"<analysis>\n{analysis}\n</analysis>\n\n<summary>\n{body}\n</summary>"


def summarize(messages: list, max_tokens: int) -> str:
    """The summary text for a summarisation request's messages, fitted to max_tokens."""
    events, instruction = read_conversation(messages)
    sections = extract(events)
    kinds = Counter(e.kind for e in events)
    analysis = (f"The conversation has {kinds['request']} user request(s), {kinds['call']} tool call(s), "
                f"{len(sections['Errors and fixes'])} error(s) and {kinds['summary']} earlier summary(ies).")
    tagged = "<summary>" in instruction
    budget = max(64, int(max_tokens * 0.9))
    text = render(sections, analysis, tagged)
    # Trim the longest list, oldest items first, until the summary fits its budget.
    while tokens.count_text(text) > budget:
        name = max(SECTIONS, key=lambda s: len(sections[s]))
        if len(sections[name]) <= 1:
            break
        # Keep the first request (the task) and the latest; drop the oldest others.
        drop = 1 if name == "User requests" and len(sections[name]) > 2 else 0
        sections[name].pop(drop)
        text = render(sections, analysis, tagged)
    return text
