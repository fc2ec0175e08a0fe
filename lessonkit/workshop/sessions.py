"""The grading sessions running on this machine, so that one verify's clean-up spares another's.

A grading child runs in a session of its own. When it ends, kill_all sweeps up what it left: its
process group, every process carrying its run's marker, and (as root) every process of the grading
user outside a running session: a process that left its session and cleared its environment. Two
verify runs can overlap (two workers of the test suite, two instructors, a re-run while one still
grades), and a sweep must not take the other run's children for leftovers. So, as root, each running
session is a file in REGISTRY naming the verify process that owns it, and starting a child and
sweeping both hold one lock: a lock file's flock (between processes) taken under a threading lock
(between the jobs of one run).

    started(spawn) -> child      spawn() under the lock, its session registered before the lock is let go
    kill_all(pgid, user, marker) the sweep above, under the same lock; the session unregistered

Example: child = started(lambda: subprocess.Popen(..., start_new_session=True)); ...;
  kill_all(child.pid, (999, 995), "LESSONS_GRADE_RUN=49ff...") -> the session's file is gone, and
  every process of uid 999 outside a registered session, or with the marker, is killed

Not modeled: a verify that died without cleaning up leaves a stale file; its session counts as
running only while a process with the owner's pid exists.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import stat
import tempfile
import threading
from pathlib import Path

REGISTRY = Path("/run/lessons-grading")  # as root only: root's, not writable by the grading user
FALLBACK = Path(tempfile.gettempdir()) / "lessons-grading"  # where /run cannot be written
_THREADS = threading.Lock()


def _registry() -> Path | None:
    """The shared folder (as root), made if missing and refused if anyone but root can write it."""
    if os.geteuid() != 0:
        return None
    for folder in (REGISTRY, FALLBACK):
        try:
            folder.mkdir(mode=0o755, exist_ok=True)
        except OSError:
            continue
        info = folder.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
            raise RuntimeError(f"{folder} must be a folder only root can write to")
        return folder
    raise RuntimeError(f"neither {REGISTRY} nor {FALLBACK} can be made")


@contextlib.contextmanager
def _locked():
    """This process's jobs one at a time, and (as root) every verify on the machine too."""
    with _THREADS:
        folder = _registry()
        if folder is None:
            yield None
            return
        with open(folder / ".lock", "a+", encoding="utf-8") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield folder
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def _alive(pid: int) -> bool:
    """Whether a process with this pid exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True  # also when it is not ours to signal (PermissionError): it exists


def _running(folder: Path | None, own: set[int]) -> set[int]:
    """The sessions still grading: this process's, and those of other verify runs still alive."""
    if folder is None:
        return set(own)
    running = set(own)
    for entry in folder.iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError):
                if _alive(int(entry.read_text(encoding="utf-8"))):
                    running.add(int(entry.name))
    return running


_OWN: set[int] = set()  # the sessions of this process's children still grading


def started(spawn):
    """spawn() (a Popen in a new session) under the lock; its session registered before anyone sweeps."""
    with _locked() as folder:
        child = spawn()
        _OWN.add(child.pid)
        if folder is not None:
            (folder / str(child.pid)).write_text(str(os.getpid()), encoding="utf-8")
        return child


def kill_all(pgid: int, user, marker: str) -> None:
    """Nothing the child started survives: its process group; then every process carrying this
    run's marker in its environment, and (as root) every process of the grading user outside the
    sessions still grading, in this run or another (a process that left its session with setsid)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    with _locked() as folder:
        _OWN.discard(pgid)
        if folder is not None:
            with contextlib.suppress(FileNotFoundError):
                (folder / str(pgid)).unlink()
        running = _running(folder, _OWN)
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                session = int((entry / "stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[3])
                mine = user is not None and entry.stat().st_uid == user[0] and session not in running
                mine = mine or marker.encode() in (entry / "environ").read_bytes()
                if mine:
                    os.kill(int(entry.name), signal.SIGKILL)
            except (OSError, ValueError, IndexError):
                continue
