"""lessonkit.arena.readers: the raw logs people have, read into sessions the arena replays.

Motto: bring your own session: the log your agent already wrote is the benchmark.

    file ──> detect ──> claude.py   Claude Code ~/.claude/projects/*/*.jsonl, Agent SDK stream-json
                        codex.py    codex exec --json
                        chat.py     mini-swe-agent *.traj.json, OpenHands llm_completions/*.json
                   └──> None: a converted trace (a JSON list of messages): sessions.load_trace
         ──> session.session_from(name, messages, meta): checked as the API checks a request

Each reader keeps the system prompt and tools it finds, the logged usage per
request (Claude Code) or in total (Codex), and Claude Code's own compactions; it
refuses what it cannot parse with a ReaderError naming the file and the line (or
the message, in a JSON document). Replay your own Claude Code session:

    python -m lessonkit.arena --no-generated --traces ~/.claude/projects/<project>/<session>.jsonl

Example: read(Path("session.jsonl")) -> Session("session", messages, usage=[...], prefix_tokens=...)
"""

from __future__ import annotations

import json
from pathlib import Path

from ..session import session_from
from .build import ReaderError

__all__ = ["FORMATS", "ReaderError", "detect", "read"]

FORMATS = ("claude-code", "codex-exec", "mini-swe-agent", "openhands")
CLAUDE_TYPES = {"user", "assistant", "system", "summary", "result", "progress", "file-history-snapshot",
                "queue-operation", "attachment"}


def detect(path) -> str | None:
    """The log format of `path`, or None for a converted trace (a JSON list of messages)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReaderError(f"{path.name}: cannot read ({exc.__class__.__name__})") from None
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, list):
        return None
    if isinstance(whole, dict) and "type" not in whole:
        if path.name.endswith(".traj.json") or "info" in whole or "trajectory_format" in whole:
            return "mini-swe-agent"
        if "messages" in whole and {"response", "kwargs"} & set(whole):
            return "openhands"
        return None
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            first = json.loads(line)
        except ValueError as exc:
            if path.suffix == ".json":
                return None                  # a broken JSON document: the trace loader says why
            raise ReaderError(f"{path.name}:{n}: not JSON nor JSON lines ({exc.msg})") from None
        kind = first.get("type") if isinstance(first, dict) else None
        if isinstance(kind, str) and kind.split(".")[0] in ("thread", "turn", "item", "error"):
            return "codex-exec"
        if kind in CLAUDE_TYPES:
            return "claude-code"
        raise ReaderError(f"{path.name}:{n}: not a log format the arena reads (first type {kind!r}); "
                          f"it reads {', '.join(FORMATS)} and converted traces")
    raise ReaderError(f"{path.name}: empty file")


def read(path, *, truncate: bool = True):
    """A Session from a raw log (any of FORMATS); ReaderError naming the file and line if unreadable."""
    from .chat import read_miniswe, read_openhands
    from .claude import read_claude
    from .codex import read_codex

    path = Path(path)
    fmt = detect(path)
    if fmt is None:
        raise ReaderError(f"{path.name}: a converted trace, not a raw log: load it with sessions.load_trace")
    reader = {"claude-code": read_claude, "codex-exec": read_codex, "mini-swe-agent": read_miniswe,
              "openhands": read_openhands}[fmt]
    name, messages, meta = reader(path)
    session = session_from(name, messages, meta, source=str(path), truncate=truncate)
    session.notes = list(meta.get("reader_notes") or []) + session.notes
    return session
