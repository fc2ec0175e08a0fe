"""What every reader shares: a message builder that pairs calls with results, and the errors.

Motto: a log is a stream of events; the API wants alternating, paired messages.

    events ──> Builder.assistant(texts, calls, usage)        consecutive lines of one response merge
               Builder.result(call id, text, is_error)       parallel results: one user message
               Builder.user(text, marker)                    a later user turn (or a compaction summary)
                    │
                    v finish(task)
    messages (roles alternate, every tool_use answered in the next message, no orphan result),
    markers [{message_index, ...}], usage per assistant message, notes (what was dropped)

A reader raises ReaderError("FILE:LINE: reason") for what it cannot parse; what it
can parse but the API would not take (an unanswered call, an orphan result) is
dropped and counted in the notes, as the traces' own converter does.

Example: b = Builder(); b.assistant(["hi"], [("t1", "bash", {"command": "ls"})]);
         b.result("t1", "a.py"); b.finish("list files")
  -> [{"role": "user", "content": "list files"}, {"role": "assistant", ...}, {"role": "user", ...}]
"""

from __future__ import annotations

import json
import re

from lessonkit.i18n import tr

from ..session import SessionError

ID = re.compile(r"^[A-Za-z0-9_-]+$")


class ReaderError(SessionError):
    """A raw log the kit cannot read, with the file and line: 'session.jsonl:12: not JSON (...)'."""


def where(path, line: int | None = None) -> str:
    name = getattr(path, "name", str(path))
    return f"{name}:{line}" if line else name


def json_lines(path, notes: list | None = None) -> list[tuple[int, dict]]:
    """(line number, object) for every non-empty line; ReaderError naming the first bad one.
    A file holding one JSON array of objects (a session saved as chat.json) gives (element number, object).
    A last line cut short (no newline after it: a log copied while its session still wrote it) is left
    out, and `notes` (if given) says so; a bad line anywhere else is refused."""
    out = []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReaderError(f"{where(path)}: cannot read ({exc.__class__.__name__})") from None
    if text.lstrip().startswith("["):
        try:
            whole = json.loads(text)
        except ValueError:
            whole = None
        if isinstance(whole, list):
            for n, value in enumerate(whole, 1):
                if not isinstance(value, dict):
                    raise ReaderError(f"{where(path)}: element {n} of the array: expected a JSON object, "
                                      f"got {type(value).__name__}")
                out.append((n, value))
            if not out:
                raise ReaderError(f"{where(path)}: an empty array: no line to read")
            return out
    rows = text.splitlines()
    for n, line in enumerate(rows, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            if n == len(rows) and not text.endswith("\n") and out:
                if notes is not None:
                    notes.append(tr("line {n} cut short (the log was still being written): left out", n=n))
                break
            raise ReaderError(f"{where(path, n)}: not a JSON line ({exc.msg}); expected one JSON object per "
                              f"line") from None
        if not isinstance(value, dict):
            raise ReaderError(f"{where(path, n)}: expected a JSON object, got {type(value).__name__}")
        out.append((n, value))
    if not out:
        raise ReaderError(f"{where(path)}: empty log")
    return out


def json_file(path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ReaderError(f"{where(path)}: cannot read ({exc.__class__.__name__})") from None
    except ValueError as exc:
        raise ReaderError(f"{where(path, exc.lineno)}: not valid JSON ({exc.msg})") from None


def prompt_beside(path) -> str | None:
    """The task prompt saved beside a log that does not record it: <log>.prompt.txt or prompt.txt."""
    for candidate in (path.with_suffix(".prompt.txt"), path.parent / "prompt.txt"):
        if candidate.is_file() and candidate != path:
            return candidate.read_text(encoding="utf-8", errors="replace")
    return None


MISSING_TASK = "[the task prompt is not recorded in this log]"


def task_or_stand_in(path, builder) -> str:
    """prompt_beside(path), or a one-line stand-in (and a note saying so)."""
    task = prompt_beside(path)
    if task is None:
        builder.notes.append(tr("the task prompt is not in the log (no prompt.txt beside it): a stand-in is sent"))
    return MISSING_TASK if task is None else task


def text_of(content) -> str:
    """Text of a string or a list of parts (Anthropic or OpenAI style); images become a marker."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for p in content if isinstance(content, list) else [content]:
        if isinstance(p, str):
            parts.append(p)
        elif isinstance(p, dict) and (p.get("type") == "text" or "text" in p and "type" not in p):
            parts.append(str(p.get("text", "")))
        elif isinstance(p, dict) and p.get("type") in ("image", "image_url"):
            parts.append("[image omitted]")
        elif isinstance(p, dict):
            parts.append(json.dumps(p, ensure_ascii=False))
    return "\n".join(parts)


def arguments(raw) -> dict:
    """A tool call's arguments as an object (a JSON string parsed; anything else kept raw)."""
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if raw else {}
    except (TypeError, ValueError):
        return {"raw_arguments": raw}
    return value if isinstance(value, dict) else {"value": value}


class Builder:
    """Messages in the API's shape, built from a log's events (see the module docstring)."""

    def __init__(self, prefix: str = "log"):
        self.messages, self.markers, self.usage, self.notes = [], [], {}, []
        self.repeats: dict | list = {}     # assistant message index -> usages of later requests on the same
                                           # history (a retry, a response re-sent): after finish, per turn
        self.prefix, self.ids, self.count = prefix, {}, 0
        self.dropped = {"unanswered tool_use": 0, "orphan tool_result": 0}
        self.open_key = None               # the response id of the last assistant message

    def _id(self, original) -> str:
        if original in self.ids:
            return self.ids[original]
        new = original if isinstance(original, str) and ID.match(original) and original not in \
            self.ids.values() else None
        while new is None or new in self.ids.values():
            self.count += 1
            new = f"toolu_{self.prefix}_{self.count:04d}"
        if original is not None:
            self.ids[original] = new
        return new

    def _append(self, role: str, blocks: list) -> None:
        if not blocks:
            return
        if self.messages and self.messages[-1]["role"] == role:
            self.messages[-1]["content"].extend(blocks)
        else:
            self.messages.append({"role": role, "content": list(blocks)})

    def assistant(self, texts=(), calls=(), usage: dict | None = None, key=None) -> list[str]:
        """One response's text and calls (lines of one response, split by the log, merge back).

        `usage` is the logged usage of the request that produced it: kept for the message it starts.
        `key` is the response's id (Claude Code's message.id): a line of the response already open, even
        after tool results the log wrote between its lines (parallel calls: call, result, call, result
        under one id), joins that response; its results join the one user message after it."""
        blocks = [{"type": "text", "text": t} for t in texts if isinstance(t, str) and t.strip()]
        ids = []
        for original, name, args in calls:
            ids.append(self._id(original))
            blocks.append({"type": "tool_use", "id": ids[-1], "name": name or "tool", "input": arguments(args)})
        msgs = self.messages
        if key is not None and key == self.open_key and len(msgs) >= 2 and msgs[-2]["role"] == "assistant" \
                and msgs[-1]["role"] == "user" and all(b.get("type") == "tool_result" for b in msgs[-1]["content"]):
            msgs[-2]["content"].extend(blocks)   # the same request: one assistant message, one usage
            return ids
        if key is not None and self.open_key is not None and key != self.open_key and msgs \
                and msgs[-1]["role"] == "assistant" and isinstance(usage, dict):
            # another request on the same history (no user line between: a retry, a response sent again):
            # billed as a request of its own at this turn; a text it repeats is not added twice
            said = {b.get("text") for b in msgs[-1]["content"] if b.get("type") == "text"}
            blocks = [b for b in blocks if b.get("type") != "text" or b["text"] not in said]
            self.repeats.setdefault(len(msgs) - 1, []).append(usage)
        if blocks or key is not None:
            self.open_key = key
        new = not self.messages or self.messages[-1]["role"] != "assistant"
        self._append("assistant", blocks)
        if blocks and new and isinstance(usage, dict):
            self.usage[len(self.messages) - 1] = usage
        return ids

    def usage_for_last(self, usage: dict) -> bool:
        """The usage of a request logged after its response (Codex's token_count): the last assistant
        message's, or, if that already has one, a further request on the same history. False if none."""
        index = next((i for i in range(len(self.messages) - 1, -1, -1) if self.messages[i]["role"] == "assistant"),
                     None)
        if index is None:
            return False
        if index in self.usage:
            self.repeats.setdefault(index, []).append(usage)
        else:
            self.usage[index] = usage
        return True

    def result(self, original, text: str, is_error: bool = False) -> None:
        """A tool result for the call `original` (the log's own id)."""
        if original not in self.ids:
            self.dropped["orphan tool_result"] += 1
            return
        block = {"type": "tool_result", "tool_use_id": self.ids[original], "content": text or "(no output)"}
        if is_error:
            block["is_error"] = True
        self._append("user", [block])

    def user(self, text: str, marker: dict | None = None) -> None:
        if isinstance(text, str) and text.strip():
            self._append("user", [{"type": "text", "text": text}])
            if marker is not None:
                self.markers.append({**marker, "message_index": len(self.messages) - 1})

    def finish(self, task: str | None) -> tuple[list, list, list]:
        """(messages, markers, usage per assistant message); pairing repaired, drops counted in notes."""
        msgs = self.messages
        if task is not None and task.strip():
            if msgs and msgs[0]["role"] == "user":
                msgs[0]["content"].insert(0, {"type": "text", "text": task})
            else:
                msgs.insert(0, {"role": "user", "content": [{"type": "text", "text": task}]})
                self.markers = [{**m, "message_index": m["message_index"] + 1} for m in self.markers]
                self.usage = {i + 1: u for i, u in self.usage.items()}
                self.repeats = {i + 1: u for i, u in self.repeats.items()}
        for i, m in enumerate(msgs):        # every call answered by the next message, every result asked
            if m["role"] == "assistant":
                answered = {b.get("tool_use_id") for b in (msgs[i + 1]["content"] if i + 1 < len(msgs) else [])
                            if b.get("type") == "tool_result"}
                kept = [b for b in m["content"] if b["type"] != "tool_use" or b["id"] in answered]
                self.dropped["unanswered tool_use"] += len(m["content"]) - len(kept)
                m["content"] = kept
            elif i:
                asked = {b.get("id") for b in msgs[i - 1]["content"] if b.get("type") == "tool_use"}
                kept = [b for b in m["content"] if b.get("type") != "tool_result" or b["tool_use_id"] in asked]
                self.dropped["orphan tool_result"] += len(m["content"]) - len(kept)
                m["content"] = [b for b in kept if b.get("type") == "tool_result"] + \
                               [b for b in kept if b.get("type") != "tool_result"]
        out, moved = [], {}                 # emptied messages go, same-role neighbours merge
        for i, m in enumerate(msgs):
            if not m["content"]:
                continue
            if out and out[-1]["role"] == m["role"]:
                out[-1]["content"].extend(m["content"])
            else:
                out.append(m)
            moved[i] = len(out) - 1
        markers = [{**k, "message_index": moved[k["message_index"]]} for k in self.markers
                   if k["message_index"] in moved]
        usage, repeats = {}, {}
        for i in sorted(set(self.usage) | set(self.repeats)):
            if i not in moved:
                continue
            later = ([self.usage[i]] if i in self.usage else []) + self.repeats.get(i, [])
            if moved[i] not in usage and later:   # two responses merged into one message: the second a repeat
                usage[moved[i]], later = later[0], later[1:]
            repeats.setdefault(moved[i], []).extend(later)
        turns = [i for i, m in enumerate(out) if m["role"] == "assistant"]
        self.repeats = [repeats.get(i, []) for i in turns]
        unanswered, orphans = self.dropped["unanswered tool_use"], self.dropped["orphan tool_result"]
        self.notes += [tr("dropped {n} unanswered tool_use", n=unanswered)] * bool(unanswered)
        self.notes += [tr("dropped {n} orphan tool_result", n=orphans)] * bool(orphans)
        return out, markers, [usage.get(i) for i in turns]
