"""What a cassette must hold, and what to say when it does not: the checks lessonkit/backends/cassette.py runs.

    validate(entry, "c.jsonl:3")     a one-line ValueError naming file and line for a malformed entry
    explain_miss(...)                a strict replay's miss, in one line: the lesson, the first user text
                                     the recording does not have, and what to do
    cassette_path(conf, mode)        LESSONS_CASSETTE as a file: relative to the kit's root; a folder holds
                                     one cassette per lesson, <folder>/<the notebook's lesson>.jsonl

Example: validate({"key": "k", "status": "200x"}, "c.jsonl:3")
  -> ValueError("c.jsonl:3: status '200x' is not an HTTP status (a number such as 200)")
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def user_texts(data) -> list[str]:
    """The text of each user message that has some (tool results left out), cut at 200 characters.
    Example: {"messages": [{"role": "user", "content": "hi"}]} -> ["hi"]"""
    out = []
    for m in (data.get("messages") or []) if isinstance(data, dict) else []:
        if not isinstance(m, dict) or m.get("role") != "user":
            continue
        content = m.get("content")
        text = content if isinstance(content, str) else " ".join(
            b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")
        if text.strip():
            out.append(text[:200])
    return out


class CassetteMiss(BaseException):
    """A strict replay's miss: one line, shown as one line in a notebook (not a traceback through the SDK).
    A BaseException, so the SDK's retries and an agent loop's `except Exception` let it through."""

    def _render_traceback_(self):
        return [str(self)]


def validate(entry, where: str) -> None:
    """A one-line ValueError naming `where` (file:line) when `entry` is not a replayable answer."""
    def bad(problem):
        raise ValueError(f"{where}: {problem}")

    if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
        bad("not a cassette entry (a JSON object with a 'key')")
    if set(entry) <= {"key", "request"}:
        bad("only a key: an entry needs a status, headers and the recorded answer (body, events or text)")
    status = entry.get("status")
    if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
        bad(f"status {status!r} is not an HTTP status (a number such as 200)")
    headers = entry.get("headers", {})
    if not isinstance(headers, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        bad("headers must be an object of strings, e.g. {\"content-type\": \"application/json\"}")
    if any(k.lower() in ("content-encoding", "content-length", "transfer-encoding") for k in headers):
        bad("headers hold content-encoding/-length/transfer-encoding: a cassette stores the decoded body; drop them")
    answers = [k for k in ("body", "events", "text") if k in entry]
    if len(answers) != 1:
        bad("an entry needs exactly one of body, events or text (the recorded answer)")
    if "events" in entry:
        events = entry["events"]
        if not isinstance(events, list) or not events or not all(
                isinstance(e, dict) and ("data" in e or "text" in e) for e in events):
            bad("events must be a list of {\"event\": ..., \"data\": ...} (an event without data)")
    if "body" in entry and status == 200 and entry.get("request", {}).get("path", "/v1/messages") == "/v1/messages":
        body = entry["body"]
        if not isinstance(body, dict) or not isinstance(body.get("content"), list):
            bad("a 200 answer to /v1/messages needs a body with a content list")


def explain_miss(cassette: Path, entries: dict, path: str, body: bytes) -> str:
    """One line: the lesson, the request's first user text that the recording does not have, what to do."""
    try:
        users = user_texts(json.loads(body or b"null"))
    except ValueError:
        users = []
    best, recorded = -1, []
    for recorded_pairs in entries.values():
        request = recorded_pairs[0].get("request", {})
        if request.get("path", path) != path:
            continue
        theirs = request.get("users") or ([request["last"]] if request.get("last") else [])
        k = next((i for i, (a, b) in enumerate(zip(users, theirs)) if a[:200] != b[:200]), min(len(users),
                                                                                              len(theirs)))
        if k > best:
            best, recorded = k, theirs
    k = max(best, 0)
    mine = users[k] if k < len(users) else "(none: the request has fewer messages)"
    was = f" (recorded: {recorded[k][:80]!r})" if k < len(recorded) else ""
    return (f"cassette miss in {cassette.stem}: the request's user text {mine[:80]!r} is not in "
            f"{cassette.name}{was}: the lesson changed since it was recorded; replay without "
            f"LESSONS_REPLAY=strict (the offline model answers it) or ask for a cassette recorded from "
            f"this lesson")


def lesson_name(conf) -> str:
    """The lesson a notebook is: LESSONS_LESSON, else the notebook JupyterLab opened (JPY_SESSION_NAME,
    or IPython's __session__). Example: JPY_SESSION_NAME=/home/ada/work/s01_loop.ipynb -> "s01_loop"."""
    name = (conf.get("LESSONS_LESSON") or conf.get("JPY_SESSION_NAME") or "").strip()
    if not name:
        name = str(getattr(sys.modules.get("__main__"), "__session__", "") or "")
    return Path(name).name.removesuffix(".ipynb") if name else ""


def cassette_path(conf, mode: str) -> str:
    """LESSONS_CASSETTE as a file: a relative path is the kit's root's; a folder holds one cassette per
    lesson (<folder>/<lesson>.jsonl), chosen by the notebook that asks."""
    from .settings import REPO_ROOT, ConfigError

    given = (conf.get("LESSONS_CASSETTE") or "").strip()
    if not given:
        raise ConfigError(f"LESSONS_CASSETTE is not set: LESSONS_BACKEND={mode} needs a cassette file (.jsonl) "
                          "or a folder of them")
    path = Path(given).expanduser()
    path = path if path.is_absolute() else REPO_ROOT / path
    if path.is_dir() or given.endswith(("/", "\\")):
        lesson = lesson_name(conf)
        if not lesson:
            raise ConfigError(f"LESSONS_CASSETTE={given!r} is a folder, and which lesson asks is unknown: "
                              "open the notebook in JupyterLab, or set LESSONS_LESSON (e.g. s01_loop)")
        path = path / f"{lesson}.jsonl"
    return str(path)
