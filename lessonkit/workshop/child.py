"""Running one notebook's answers in a child: its user, environment, limits, and nothing left behind.

    run_child(kit, cells, checks, user=..., timeout=..., memory_mb=...)
      python -I -B <kit copy>/lessonkit/workshop/harness.py FD   the job on stdin
        cwd and HOME a fresh private temporary folder; env PATH, HOME, LANG (ENV_KEEP) and a nonce
        as `lessons-grader` when the grader is root (grader_user); RLIMIT_AS, output, process caps
      <- one JSON line per verdict on the pipe FD, each carrying the nonce (others are ignored)
      then kill_all (sessions.py): its process group, every process with the run's marker, (as root) the user's

Example: run_child(kit, [(3, "while True: pass")], checks, user=None, timeout=10, memory_mb=2048)
  -> [{"nonce": "49ff...", "cell": 3}, {"fatal": "timed out after 10 s in cell 3"}]
"""

from __future__ import annotations

import functools
import json
import os
import pwd
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .kitcopy import Kit, kit_imports
from .sessions import kill_all, started

OUTPUT_BYTES = 1 << 20
PROCESSES = 64            # per grading user (as root): enough for a cell that forks, not for a fork bomb
GRADER_USER = "lessons-grader"
ENV_KEEP = {"LANG": "C.UTF-8", "LESSONS_PROGRESS": "off", "LESSONS_BACKEND": "offline"}


def grader_user() -> tuple[int, int] | None:
    """(uid, gid) to grade as: None when not root (the child keeps your uid); else lessons-grader,
    created as a system user if missing (or nobody when it cannot be)."""
    if os.geteuid() != 0:
        return None
    for attempt in range(2):
        try:
            entry = pwd.getpwnam(GRADER_USER)
            return entry.pw_uid, entry.pw_gid
        except KeyError:
            if attempt == 0 and shutil.which("useradd"):
                subprocess.run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                                "--shell", "/usr/sbin/nologin", GRADER_USER], capture_output=True, check=False)
    entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


@functools.lru_cache(maxsize=4)
def can_run_python(user: tuple[int, int]) -> bool:
    """Whether the grading user can start this interpreter and read its library (a pyenv under
    /root cannot be): if not, the child starts as root and drops to the user before any student code."""
    try:
        return subprocess.run([sys.executable, "-I", "-c", "import shlex, json"], user=user[0], group=user[1],
                              extra_groups=[], capture_output=True, timeout=60, cwd="/").returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def run_child(kit: Kit, cells, checks, *, user, timeout: float, memory_mb: int) -> list[dict]:
    """Run the harness on one notebook's exercise cells; the verdict lines it sent (or one error)."""
    nonce = secrets.token_hex(16)
    marker = f"LESSONS_GRADE_RUN={nonce}"
    with tempfile.TemporaryDirectory(prefix="grade-", dir=kit.base) as tmp:
        os.chmod(tmp, 0o700)
        if user is not None:
            os.chown(tmp, *user)
        env = {**ENV_KEEP, "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": tmp, "TMPDIR": tmp,
               "LESSONS_GRADE_RUN": nonce}
        job = {"nonce": nonce, "cells": cells, "checks": checks, "user": list(user) if user else None,
               "preload": kit_imports(kit.root),
               "limits": {"memory": memory_mb << 20, "output": OUTPUT_BYTES, "processes": PROCESSES if user else 0}}
        read, write = os.pipe()
        out_path = Path(tmp) / "output.txt"
        direct = user is not None and can_run_python(tuple(user))
        if direct:
            job["user"], job["preload"] = None, ()
        with open(out_path, "wb") as out:  # registered before another job's sweep can see it (sessions.py)
            extra = {"user": user[0], "group": user[1], "extra_groups": []} if direct else {}
            child = started(lambda: subprocess.Popen(
                [sys.executable, "-I", "-B", str(kit.root / "lessonkit" / "workshop" / "harness.py"), str(write)],
                stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT, cwd=tmp, env=env, pass_fds=(write,),
                start_new_session=True, **extra))
        os.close(write)
        lines, buffer, cell, timed_out = [], b"", 0, False
        try:
            child.stdin.write(json.dumps(job).encode())
            child.stdin.close()
        except BrokenPipeError:
            pass
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read], [], [], left)
            if not ready:
                continue
            chunk = os.read(read, 65536)
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    item = json.loads(line)
                except ValueError:
                    continue
                if isinstance(item, dict) and item.get("nonce") == nonce:
                    lines.append(item)
                    cell = item.get("cell", cell)
            if len(buffer) > OUTPUT_BYTES:
                buffer = b""
        os.close(read)
        kill_all(child.pid, user, marker)
        try:
            code = child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        if timed_out:
            return lines + [{"fatal": f"timed out after {timeout:g} s in cell {cell}"}]
        if not any(item.get("done") for item in lines) and not any("error" in i and "verdict" not in i
                                                                    for i in lines):
            tail = out_path.read_bytes()[-2000:].decode("utf-8", "replace").strip().splitlines()
            why = f"the grading process ended ({_signal(code)})"
            if tail:
                why += f": {tail[-1][:200]}"
            return lines + [{"fatal": why}]
        return lines


def _signal(code) -> str:
    if code is None:
        return "did not stop"
    if code < 0:
        name = signal.Signals(-code).name
        return f"killed by {name}"
    return f"exit code {code}"
