"""Sessions for the arena: recorded Messages-API traces and raw logs, read from any folder.

Motto: replay what agents really did, not what we wish they had done.

    DIR/name.json                  a JSON list of messages (or {"messages": [...], "system", "tools"})
    DIR/meta/name.meta.json        optional: system prompt, tool schemas, compaction markers
    DIR/name.jsonl, *.traj.json    a raw log one of the readers knows (readers/): read, then calibrated
         │
         v
    Session (session.py): the history checked as the API checks a request, and what surrounds it

A converted trace and its meta file become a Session through session.session_from;
a raw log goes through its reader (readers.read), and its unrecorded prefix is
measured from its logged usage (calibration.with_prefix). A file that fails is
skipped with a one-line reason naming the file; nothing else stops.

Example: load_traces("../shared/traces") -> ([Session(...), ...], [("bad.json", "reason"), ...])
"""

from __future__ import annotations

import json
from pathlib import Path

from ..bills.calibration import with_prefix
from .readers import detect, read
from .session import Session, SessionError, session_from


def _meta_for(path: Path) -> dict:
    """The meta file beside a trace, if any. Example: traces/a.json -> traces/meta/a.meta.json's object"""
    for candidate in (path.parent / "meta" / f"{path.stem}.meta.json", path.with_suffix(".meta.json")):
        if candidate.is_file():
            try:
                meta = json.loads(candidate.read_text(encoding="utf-8"))
            except ValueError as exc:
                raise SessionError(f"{candidate.name}: not valid JSON ({exc})") from None
            return meta if isinstance(meta, dict) else {}
    return {}


def load_trace(path, *, truncate: bool = True) -> Session:
    """One trace file (converted, or a raw log the readers know) -> Session; SessionError with a reason."""
    path = Path(path)
    if path.is_file() and detect(path) is not None:
        session = with_prefix(read(path, truncate=truncate))
        session.subagents = [with_prefix(sub) for sub in session.subagents]
        return session
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SessionError(f"{path.name}: cannot read ({exc.__class__.__name__}: {exc})") from None
    except ValueError as exc:
        raise SessionError(f"{path.name}: not valid JSON ({exc})") from None
    return session_from(path.stem, data, _meta_for(path), source=str(path), truncate=truncate)


def load_traces(folder, *, truncate: bool = True) -> tuple[list[Session], list[tuple[str, str]]]:
    """Every *.json / *.jsonl trace or log in `folder` (sorted by name), or the one file `folder` names:
    (sessions, [(file, reason skipped)]). `truncate`: apply the harness's own output cut (harness.py).

    A session's subagents follow it in the list, each a session of its own (its own requests and cost;
    `Session.parent` names the session that started it), in file mode too; a subagent file that a
    session in the folder claims (readers/claude.py subagent_files) is read once, as that subagent."""
    folder = Path(folder)
    if folder.is_file():
        session = load_trace(folder, truncate=truncate)
        return [session, *session.subagents], []
    if not folder.is_dir():
        raise SessionError(f"--traces {folder}: no such file, and not a directory")
    sessions, skipped, claimed, found = [], [], set(), []
    for path in sorted([*folder.glob("*.json"), *folder.glob("*.jsonl")]):
        if path.name.endswith(".meta.json"):
            continue
        try:
            session = load_trace(path, truncate=truncate)
        except SessionError as exc:
            skipped.append((path.name, str(exc)))
            continue
        claimed |= {Path(p).resolve() for p in getattr(session, "subagent_files", [])}
        found.append((path, session))
    for path, session in found:
        if path.resolve() in claimed:
            continue                                        # read as a subagent of its session
        sessions += [session, *session.subagents]          # a subagent: its own requests, its own cost
    return sessions, skipped


def subagent_line(sessions: list) -> list[str]:
    """One line per session with subagents: how many, billed as sessions of their own, in its total."""
    from lessonkit.i18n import trn

    out = []
    for s in sessions:
        if s.subagents:
            out.append(trn("{name}: {n} subagent conversation billed as a session of its own and counted in "
                           "the session's total", "{name}: {n} subagent conversations billed as sessions of "
                           "their own and counted in the session's total", len(s.subagents), name=s.name))
    return out
