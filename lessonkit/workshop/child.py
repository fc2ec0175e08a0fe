"""The grading child: its own user, namespaces, filesystem, limits, and nothing left behind.

    with Child(kit_root, user=(uid, gid), memory_mb=..., base=run folder, isolated=True) as child:   (judge.py)
      unshare --pid --fork --kill-child --mount-proc --net --ipc --uts  python -I -B <kit_root>/.../harness.py FD
        PID 1 of a PID namespace of its own: it sees and can signal only its own processes, and every
        process it starts dies with it; no network but its own unconfigured loopback; requests on stdin
        cwd and HOME a fresh private folder; env PATH, HOME, LANG (ENV_KEEP) and a marker
        the harness imports what it needs, enters its jail (jail.py: the Python, its kit copy, its
        folders), then drops to `user`: a uid of UIDS no other process on the machine uses (run_user)
        RLIMIT_AS, output and process caps
      child.send(request); child.receive(deadline) -> one JSON line from the pipe FD
      then its process group is killed: the namespace's first process, and with it every process inside

Not root (or no namespaces): the child runs as you (or as its uid, when root), without the namespaces;
kill_all (sessions.py) sweeps what it left; the judge says so in each row's detail.

Example: with Child(kit_root, user=None, memory_mb=2048) as c: c.send({"cells": [[3, "x = 1", True]], "names": []})
  -> c.receive(deadline) == {"cell": 3}
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .kitcopy import kit_imports
from .sessions import _registry, kill_all, started

OUTPUT_BYTES = 1 << 20
MESSAGE_BYTES = 64 << 20  # one line from the child: a large history, not an endless one
PROCESSES = 64            # per grading uid (as root): enough for a cell that forks, not for a fork bomb
UIDS = range(1_800_000_000, 1_800_000_512)   # one per grading child at a time, no account needed
NAMESPACES = ("--pid", "--fork", "--kill-child", "--mount-proc", "--net", "--ipc", "--uts")   # unshare(1)
ENV_KEEP = {"LANG": "C.UTF-8", "LESSONS_PROGRESS": "off", "LESSONS_BACKEND": "offline"}


class Gone(BaseException):
    """The child ended, timed out or broke the protocol: no answer can be judged (never a case's failure)."""


def uid_range() -> range:
    """The grading uids: UIDS, or WORKSHOP_GRADER_UIDS=FIRST-LAST; refused when an account uses one of them.
    Example: WORKSHOP_GRADER_UIDS=2000000000-2000000099 -> range(2000000000, 2000000100)"""
    import pwd

    spec = os.environ.get("WORKSHOP_GRADER_UIDS", "").strip()
    uids = UIDS
    if spec:
        try:
            first, last = (int(x) for x in spec.split("-", 1))
        except ValueError:
            raise ValueError(f"WORKSHOP_GRADER_UIDS={spec!r}: write FIRST-LAST, e.g. 1800000000-1800000511") from None
        if not 1000 <= first <= last < 2**32 - 1:
            raise ValueError(f"WORKSHOP_GRADER_UIDS={spec!r}: uids from 1000 to 4294967294, FIRST <= LAST")
        uids = range(first, last + 1)
    taken = sorted(a.pw_name for a in pwd.getpwall() if a.pw_uid in uids)
    if taken:
        raise ValueError(f"the grading uids {uids.start}-{uids.stop - 1} include accounts ({', '.join(taken[:5])}): "
                         "set WORKSHOP_GRADER_UIDS to a range no account uses")
    return uids


@contextlib.contextmanager
def run_user():
    """(uid, gid) of a uid no other process on the machine uses, held while the block runs; None when not root."""
    folder = _registry() if os.geteuid() == 0 else None
    if folder is None:
        yield None
        return
    uids = uid_range()
    for uid in uids:
        handle = open(folder / f"uid-{uid}.lock", "a+", encoding="utf-8")  # noqa: SIM115 (held while the run lasts)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            continue
        try:
            yield uid, uid
        finally:
            handle.close()
        return
    raise RuntimeError(f"all {len(uids)} grading uids are in use")


def can_isolate() -> bool:
    """Whether children can run in namespaces of their own: root, with unshare(1)."""
    return os.geteuid() == 0 and shutil.which("unshare") is not None


@functools.lru_cache(maxsize=1)
def can_run_python() -> bool:
    """Whether an unprivileged user can start this interpreter and read its library (a pyenv under
    /root cannot be): if not, the child starts as root and drops to its uid before any student code."""
    try:
        return subprocess.run([sys.executable, "-I", "-c", "import shlex, json"], user=65534, group=65534,
                              extra_groups=[], capture_output=True, timeout=60, cwd="/").returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


class Child:
    """One grading child (see the module's docstring)."""

    def __init__(self, kit_root: Path, *, user, memory_mb: int, base: Path, isolated: bool = False):
        self.kit_root, self.user, self.memory_mb, self.base = Path(kit_root), user, memory_mb, Path(base)
        self.isolated = isolated and user is not None
        self.cell, self.buffer, self.proc = 0, b"", None

    def __enter__(self):
        self.tmp = tempfile.mkdtemp(prefix="grade-", dir=self.base)
        os.chmod(self.tmp, 0o700)
        if self.user is not None:
            os.chown(self.tmp, *self.user)
        nonce = secrets.token_hex(16)
        self.marker = f"LESSONS_GRADE_RUN={nonce}"
        env = {**ENV_KEEP, "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": self.tmp, "TMPDIR": self.tmp,
               "LESSONS_GRADE_RUN": nonce}
        self.job = {"user": list(self.user) if self.user else None, "preload": kit_imports(self.kit_root),
                    "limits": {"memory": self.memory_mb << 20, "output": OUTPUT_BYTES,
                               "processes": PROCESSES if self.user else 0}}
        self.read, write = os.pipe()
        self.out_path = Path(self.tmp) / "output.txt"
        harness = [sys.executable, "-I", "-B", str(self.kit_root / "lessonkit" / "workshop" / "harness.py"), str(write)]
        if self.isolated:   # namespaces of its own; the harness drops to the user inside its jail
            folder = Path(tempfile.mkdtemp(prefix="jail-", dir=self.base))
            self.job["jail"] = {"folder": str(folder), "write": [self.tmp, *self.shared]}
            with open(self.out_path, "wb") as out:
                self.proc = subprocess.Popen([shutil.which("unshare"), *NAMESPACES, *harness], stdin=subprocess.PIPE,
                                             stdout=out, stderr=subprocess.STDOUT, cwd=self.tmp, env=env,
                                             pass_fds=(write,), start_new_session=True)
            os.close(write)
            return self
        direct = self.user is not None and can_run_python()
        if direct:
            self.job["user"], self.job["preload"] = None, ()
        with open(self.out_path, "wb") as out:  # registered before another job's sweep can see it (sessions.py)
            extra = {"user": self.user[0], "group": self.user[1], "extra_groups": []} if direct else {}
            self.proc = started(lambda: subprocess.Popen(
                harness, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT, cwd=self.tmp, env=env,
                pass_fds=(write,), start_new_session=True, **extra))
        os.close(write)
        return self

    shared: tuple = ()   # folders the child may write besides its own (the cases' sandboxes)

    def send(self, item: dict) -> None:
        try:
            self.proc.stdin.write((json.dumps(item) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise Gone(self.ended()) from None

    def receive(self, deadline: float, what: str = "") -> dict:
        """The next JSON object the child sent; Gone when it ends first or the deadline passes."""
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                try:
                    item = json.loads(line)
                except ValueError:
                    continue
                if isinstance(item, dict):
                    if isinstance(item.get("cell"), int) and len(item) == 1:
                        self.cell = item["cell"]
                    return item
            left = deadline - time.monotonic()
            if left <= 0:
                if what.startswith("before"):
                    raise Gone(f"the grading process did not start: {what}")
                raise Gone(f"timed out after {self.timeout_s:g} s " + (what or f"in cell {self.cell}"))
            ready, _, _ = select.select([self.read], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.read, 1 << 20)
            if not chunk:
                raise Gone(self.ended())
            self.buffer += chunk
            if len(self.buffer) > MESSAGE_BYTES:
                raise Gone(f"the grading process sent more than {MESSAGE_BYTES >> 20} MB at once")

    timeout_s = 0.0

    def ended(self) -> str:
        """Why the child is gone: its exit status and the last line it printed."""
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        why = f"the grading process ended ({_signal(code)})"
        from ..base.safe_files import read_tail

        try:   # never through a link the child put in its place
            tail = read_tail(self.out_path, 2000).decode("utf-8", "replace").strip().splitlines()
        except OSError:
            tail = []
        return why + (f": {tail[-1][:200]}" if tail else "")

    def __exit__(self, *exc):
        with contextlib.suppress(OSError):
            os.close(self.read)
        with contextlib.suppress(OSError, ValueError):
            self.proc.stdin.close()
        if self.isolated:   # the namespace's first process dies, and the kernel kills every process inside
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        else:
            kill_all(self.proc.pid, self.user, self.marker)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        shutil.rmtree(self.tmp, ignore_errors=True)
        return False


def _signal(code) -> str:
    if code is None:
        return "did not stop"
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"
