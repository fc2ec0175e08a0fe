"""Live progress records: every check a student runs appends its verdict to their own home.

    notebook cell: exercise.check(fn) ──record()──> work/.progress/<lesson>.jsonl   (one JSON line per run)
    {"lesson": "s01_loop", "exercise": "assistant_message", "passed": 2, "total": 5,
     "first": "a text answer (end_turn): content[0] is a TextBlock ...", "error": "",
     "attempt": 3, "time": "2026-12-02T09:14:03Z", "t": 1796202843.2, "lang": "en"}

A record is written only when the kernel runs in a student folder: a folder named `work`
(a home's `work/`), or a language folder inside one (`work/zh/`). LESSONS_PROGRESS names
another folder, or `off`. The committed lessons (cwd `lessons/`) and the tests write none.
Writing never breaks a check: a read-only home simply keeps no record.

Records are advisory: a student can write them (they are in the student's home). The room view
(`progress`) reads them and runs nothing; `verify` re-checks the answers and is the grade.

On a hub whose servers have LESSONS_ROOM_URL (the room service, lessonkit/workshop/roomservice.py),
each record also goes there, with the server's own hub token, in the background (REPORT_TIMEOUT_S):
the room view of a cluster, where no one can read the homes. A failed report changes nothing here.

The state of one exercise, from its records (`state_of`):

    not started   no record
    passed        the last record passes every case
    uses the reference  the last check ran the stage's own function (imported, or its code), not an answer
    error         the last check could not judge the function: it is not a function, or it raised
                  on every case (the message is the exception)
    stuck         the last STUCK_ATTEMPTS (3) records fail on the same first case, or the same
                  first case has failed for STUCK_MINUTES (10) or more (from the first of that run
                  until now: one failing check followed by ten quiet minutes is stuck too)
    trying        anything else: k/n cases, attempts, since when

Example: state_of([{"passed": 0, "total": 5, "first": "a", "t": 0}] * 3) -> ("stuck", ...)
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

FOLDER = ".progress"
STATES = ("not started", "trying", "stuck", "passed", "error", "uses the reference")
STUCK_ATTEMPTS = 3
STUCK_MINUTES = 10
MAX_TEXT = 300      # a record's texts are cut here: a record is a line, never a report
MAX_READ = 1 << 20  # a records file larger than this is read from its end only
REPORT_TIMEOUT_S = 5


def records_folder(cwd: Path | None = None) -> Path | None:
    """Where this kernel's checks record: LESSONS_PROGRESS, else <work>/.progress when the kernel
    runs in a student folder (work/ or work/<lang>/), else None (no record)."""
    chosen = os.environ.get("LESSONS_PROGRESS", "").strip()
    if chosen:
        return None if chosen.lower() == "off" else Path(chosen)
    here = Path(cwd) if cwd is not None else Path.cwd()
    if here.name == "work":
        return here / FOLDER
    from ..i18n import LANGS

    if here.parent.name == "work" and here.name in LANGS:
        return here.parent / FOLDER
    return None


def record(lesson: str, exercise: str, passed: int, total: int, first: str = "", error: str = "",
           *, folder: Path | None = None, now: float | None = None, reference: bool = False) -> Path | None:
    """Append one verdict to <folder>/<lesson>.jsonl; returns the file, or None when not recorded."""
    try:
        folder = folder if folder is not None else records_folder()
        if folder is None:
            return None
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{lesson}.jsonl"
        attempt = 1 + sum(1 for r in read(path) if r.get("exercise") == exercise)
        now = time.time() if now is None else now
        line = {"lesson": lesson, "exercise": exercise, "passed": int(passed), "total": int(total),
                "first": str(first)[:MAX_TEXT], "error": str(error)[:MAX_TEXT], "attempt": attempt,
                "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)), "t": round(now, 1),
                "lang": os.environ.get("LESSONS_LANG", "en") or "en"}
        if reference:
            line["reference"] = True
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
        report([line])
        return path
    except OSError:
        return None


def report(lines: list[dict], *, user: str | None = None, wait: bool = False):
    """Send records to the room service (LESSONS_ROOM_URL) with this server's hub token (JUPYTERHUB_API_TOKEN),
    or the instructor's (WORKSHOP_HUB_TOKEN) for another `user`; in a background thread unless `wait`.
    Returns the thread (None when there is no service to report to). Never raises."""
    import threading
    import urllib.request
    from urllib.parse import quote

    url = os.environ.get("LESSONS_ROOM_URL", "").strip()
    token = os.environ.get("WORKSHOP_HUB_TOKEN" if user else "JUPYTERHUB_API_TOKEN", "").strip()
    if not url.startswith(("http://", "https://")) or not token or not lines:
        return None
    target = url.rstrip("/") + "/records" + (f"?user={quote(user)}" if user else "")

    def send():
        request = urllib.request.Request(target, data=json.dumps(lines).encode(), method="POST",
                                         headers={"Authorization": f"token {token}",
                                                  "Content-Type": "application/json"})
        try:
            urllib.request.urlopen(request, timeout=REPORT_TIMEOUT_S).close()   # noqa: S310 - the hub's service
        except (OSError, ValueError):
            pass
    worker = threading.Thread(target=send, name="lessons-room-report", daemon=True)
    worker.start()
    if wait:
        worker.join(REPORT_TIMEOUT_S + 1)
    return worker


def read(path: Path, *, home=None) -> list[dict]:
    """The records in one file, oldest first; a broken line (a student's edit, a cut write) is skipped.
    Only a regular file is read (never a FIFO or a device), never through a link below `home`, and only
    its last MAX_READ bytes. Records before the last reset of an exercise are dropped (`reset`)."""
    from ..base.safe_files import read_tail

    try:
        data = read_tail(path, MAX_READ, home=home).decode("utf-8", "replace")
    except OSError:
        return []
    out = []
    for line in data.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("exercise"), str):
            if item.get("reset"):
                out = [r for r in out if r.get("exercise") != item["exercise"]]
                continue
            out.append(item)
    return out


def mark_reset(folder: Path, lesson: str, exercises, *, now: float | None = None, student: str | None = None) -> None:
    """A line per exercise saying it was started again: its older records no longer count (here, and in the
    room service when there is one: as the student, or as the instructor for `student`)."""
    folder.mkdir(parents=True, exist_ok=True)
    now = time.time() if now is None else now
    lines = [{"lesson": lesson, "exercise": name, "reset": True, "t": round(now, 1)} for name in exercises]
    with open(folder / f"{lesson}.jsonl", "a", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line) + "\n")
    report(lines, user=student, wait=True)


@dataclass(frozen=True)
class State:
    state: str          # one of STATES
    passed: int
    total: int
    attempts: int
    since: str          # time of the first record ("" when none)
    last: str           # time of the last record
    detail: str         # the first failing case, the error, or why there is no record


def _int(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _when(item) -> str:
    """A record's time as the room shows it, from its number `t` (never its text, which a student could
    fill with anything). Example: {"t": 0} -> "1970-01-01T00:00:00Z"; {} -> "" """
    t = _t(item)
    if not t or not 0 < t < 1e11:
        return ""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _t(item) -> float:
    try:
        return float(item.get("t", 0))
    except (TypeError, ValueError):
        return 0.0


def state_of(items: list[dict], *, stuck_attempts: int = STUCK_ATTEMPTS,
             stuck_minutes: float = STUCK_MINUTES, now: float | None = None) -> State:
    """One exercise's state from its records, oldest first (see the module docstring)."""
    if not items:
        return State("not started", 0, 0, 0, "", "", "")
    last = items[-1]
    passed, total = _int(last.get("passed")), _int(last.get("total"))
    common = dict(passed=passed, total=total, attempts=len(items), since=_when(items[0]), last=_when(last))
    if last.get("error"):
        return State("error", detail=str(last["error"]), **common)
    if last.get("reference"):
        return State("uses the reference", detail="the check ran the stage's own function", **common)
    if total and passed == total:
        return State("passed", detail="", **common)
    first = str(last.get("first", ""))
    run = 0
    for item in reversed(items):
        if str(item.get("first", "")) != first or item.get("error") or \
                (_int(item.get("total")) and _int(item.get("passed")) == _int(item.get("total"))):
            break
        run += 1
    now = _t(last) if now is None else now
    span = (max(_t(last), now) - _t(items[-run])) / 60 if run else 0   # failing since, up to now: quiet counts
    state = "stuck" if run >= stuck_attempts or span >= stuck_minutes else "trying"
    return State(state, detail=first, **common)
