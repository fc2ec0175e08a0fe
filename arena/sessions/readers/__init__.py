"""arena.sessions.readers: the raw logs people have, read into sessions the arena replays.

Motto: bring your own session: the log your agent already wrote is the benchmark.

    file ──> detect ──> claude.py   Claude Code ~/.claude/projects/*/*.jsonl, Agent SDK stream-json
                        codex.py    codex exec --json, Codex CLI rollouts (~/.codex/sessions/**/rollout-*.jsonl)
                        chat.py     mini-swe-agent *.traj.json, OpenHands llm_completions/*.json
                   └──> None: a converted trace (a JSON list of messages): sessions.load_trace
         ──> session.session_from(name, messages, meta): checked as the API checks a request

Each reader keeps the system prompt and tools it finds, the logged usage per
request (Claude Code) or in total (Codex), and Claude Code's own compactions; it
refuses what it cannot parse with a ReaderError naming the file and the line (or
the message, in a JSON document). Replay your own Claude Code session:

    python -m arena --no-generated --traces ~/.claude/projects/<project>/<session>.jsonl

Example: read(Path("session.jsonl")) -> Session("session", messages, usage=[...], prefix_tokens=...)
"""

from __future__ import annotations

import json
from pathlib import Path

from ..session import session_from
from .build import ReaderError

__all__ = ["FORMATS", "ReaderError", "detect", "read"]

FORMATS = ("claude-code", "codex-exec", "codex-rollout", "mini-swe-agent", "openhands")
CLAUDE_TYPES = {"user", "assistant", "system", "result"}          # lines that decide: a Claude Code log
CLAUDE_OTHER = {"summary", "last-prompt", "progress", "file-history-snapshot", "queue-operation", "attachment",
                "custom-title", "tag", "x-state"}                 # Claude Code lines that carry no message
ROLLOUT_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
ROLLOUT_ITEMS = {"message", "function_call", "function_call_output", "reasoning", "custom_tool_call",
                 "custom_tool_call_output", "local_shell_call", "web_search_call"}   # rollouts before the wrapper


def _kind_of_line(value) -> str | None:
    """The format one JSON line decides, or None for a line that decides nothing (Claude Code's summary,
    last-prompt, snapshot and other lines without a message; a rollout's state record)."""
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    if isinstance(kind, str) and kind.split(".")[0] in ("thread", "turn", "item", "error"):
        return "codex-exec"
    if kind in ROLLOUT_TYPES and "payload" in value:
        return "codex-rollout"
    if kind in ROLLOUT_ITEMS and "message" not in value:
        return "codex-rollout"
    if kind in CLAUDE_TYPES:
        return "claude-code"
    return None


def claude_array(whole) -> bool:
    """True for a Claude Code session saved as one JSON array of its lines (as a Stop hook writes chat.json)."""
    return isinstance(whole, list) and any(isinstance(v, dict) and v.get("type") in ("user", "assistant")
                                           and isinstance(v.get("message"), dict) for v in whole[:50])


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
        return "claude-code" if claude_array(whole) else None
    if isinstance(whole, dict) and "type" not in whole:
        if path.name.endswith(".traj.json") or "info" in whole or "trajectory_format" in whole:
            return "mini-swe-agent"
        if "messages" in whole and {"response", "kwargs"} & set(whole):
            return "openhands"
        if "instructions" in whole and "id" in whole:           # a rollout's first line, before the wrapper
            return "codex-rollout"
        return None
    first, seen = None, []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            if path.suffix == ".json":
                return None                  # a broken JSON document: the trace loader says why
            raise ReaderError(f"{path.name}:{n}: not JSON nor JSON lines ({exc.msg}); expected one JSON "
                              f"object per line") from None
        first = first or n
        found = _kind_of_line(value)
        if found:
            return found
        if isinstance(value, dict) and "instructions" in value and "id" in value and "timestamp" in value:
            return "codex-rollout"           # a rollout's session line, before the type/payload wrapper
        kind = value.get("type") if isinstance(value, dict) else None
        if isinstance(kind, str) and len(seen) < 3 and kind not in seen:
            seen.append(kind)
    if first is None:
        raise ReaderError(f"{path.name}: empty file")
    got = ", ".join(repr(k) for k in seen) or "no 'type'"
    raise ReaderError(f"{path.name}:{first}: not a log format the arena reads (no line carries a message; types "
                      f"seen: {got}); expected a Claude Code session (user/assistant lines), Codex "
                      f"(exec --json events or a rollout), mini-swe-agent, OpenHands or a converted trace")


def read(path, *, truncate: bool = True):
    """A Session from a raw log (any of FORMATS); ReaderError naming the file and line if unreadable."""
    from .chat import read_miniswe, read_openhands
    from .claude import read_claude
    from .codex import read_codex, read_rollout

    path = Path(path)
    fmt = detect(path)
    if fmt is None:
        raise ReaderError(f"{path.name}: a converted trace, not a raw log: load it with sessions.load_trace")
    reader = {"claude-code": read_claude, "codex-exec": read_codex, "codex-rollout": read_rollout,
              "mini-swe-agent": read_miniswe,
              "openhands": read_openhands}[fmt]
    name, messages, meta = reader(path)
    session = session_from(name, messages, meta, source=str(path), truncate=truncate)
    session.notes = list(meta.get("reader_notes") or []) + session.notes
    return session
