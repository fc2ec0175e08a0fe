"""Run a command so that nothing it starts outlives the call: its whole process tree is killed.

s01's bash tool is three lines of idea (run the command, give the model its output, say how
it ended); this module is the operating-system work under those lines, which no stage
teaches and every stage needs: a tool call that leaves a process behind would go on
writing to the workspace, or hold the output pipe open for ever.

    argv ──> own process group (start_new_session), cwd, no stdin, MARK=<token> in its env
               │ stdout+stderr, interleaved, read as it comes (no thread: select on the pipe
               │ and on a pidfd that wakes when the command exits), the first `keep` bytes kept
               ├─ exits            -> the group is killed (background jobs left behind)
               ├─ runs > timeout   -> the group is killed, timed_out=True
               ├─ Ctrl-C           -> the group is killed (in a `finally`), the interrupt goes on up
               └─ someone still holds the pipe after the exit: a process that left the group
                  (`setsid cmd &`) -> found by MARK=<token> in /proc/<pid>/environ, killed

Example: run_tree(["bash", "-c", "echo hi; exit 3"], cwd=".", timeout=5, keep=100)
  -> Finished(output=b'hi\\n', dropped=0, timed_out=False, returncode=3)

Not modeled: a process that let go of the output and left the group (`setsid cmd >/dev/null &`)
or cleared its environment (`env -i`): that needs cgroups or a container. Windows (process
groups are POSIX); the /proc search is Linux and same-user only.
"""

from __future__ import annotations

import os
import secrets
import select
import signal
import subprocess
import time
from dataclasses import dataclass

CHUNK = 65_536           # bytes read at a time
POLL_S = 0.02            # how often the exit is checked while the output is quiet (no pidfd)
DRAIN_S = 0.05           # after the exit, how long to wait for the rest of the output
MARK = "LESSONS_BASH_CALL"  # an environment variable every process of one call inherits


@dataclass(frozen=True)
class Finished:
    """How a command ended: the bytes kept, the bytes dropped past `keep`, and why it stopped."""
    output: bytes
    dropped: int
    timed_out: bool
    returncode: int


def _take(fd: int, keep: int, kept: bytearray) -> tuple[int, bool]:
    """Read what the pipe holds now, keeping `keep` bytes in all: (bytes dropped, end of output?)."""
    dropped = 0
    while True:
        try:
            chunk = os.read(fd, CHUNK)
        except BlockingIOError:  # nothing more for now
            return dropped, False
        if not chunk:  # every writer has closed it
            return dropped, True
        room = max(keep - len(kept), 0)
        kept += chunk[:room]
        dropped += max(len(chunk) - room, 0)


def _exit_fd(proc: subprocess.Popen) -> int | None:
    """A descriptor that becomes readable when `proc` exits (a pidfd), or None where there is none."""
    try:
        return os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        return None


def _read_until_exit(proc: subprocess.Popen, deadline: float, keep: int, kept: bytearray) -> int:
    """Read the output as it comes until the command exits (or the deadline); return the bytes dropped.

    Read here, not on a thread: a process that left the group may hold the pipe open for
    ever, and a reader blocked on it would outlive the call (a thread and a descriptor each).
    """
    fd, dropped, ended = proc.stdout.fileno(), 0, False
    os.set_blocking(fd, False)
    exited = _exit_fd(proc)  # readable once the command exits: no polling delay (Linux 5.3+)
    try:
        while proc.poll() is None and (left := deadline - time.monotonic()) > 0:
            wait_on = ([] if ended else [fd]) + ([] if exited is None else [exited])
            if not wait_on:  # the output is closed but the command runs on, and there is no pidfd: wait
                time.sleep(min(left, POLL_S))
                continue
            ready = select.select(wait_on, [], [], left if exited is not None else min(left, POLL_S))[0]
            if fd in ready:
                more, ended = _take(fd, keep, kept)
                dropped += more
    finally:
        if exited is not None:
            os.close(exited)
    return dropped


def _drain_rest(fd: int, keep: int, kept: bytearray) -> tuple[int, bool]:
    """After the exit: what is still in the pipe, waiting at most DRAIN_S for its end (bounded:
    an escaped process may keep it open for ever). Returns (bytes dropped, reached the end?)."""
    dropped, deadline = 0, time.monotonic() + DRAIN_S
    while (left := deadline - time.monotonic()) > 0 and select.select([fd], [], [], left)[0]:
        more, ended = _take(fd, keep, kept)
        dropped += more
        if ended:
            return dropped, True
    return dropped, False


def _kill_marked(token: str, rounds: int = 3) -> int:
    """SIGKILL every process whose environment carries MARK=token: the call's processes that left
    its group (Linux: /proc/<pid>/environ, same user only). Returns how many were killed."""
    needle, killed = f"{MARK}={token}".encode(), 0
    for _ in range(rounds):  # again, in case one forked while we looked
        found = []
        for pid in os.listdir("/proc") if os.path.isdir("/proc") else ():
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    if needle in f.read().split(b"\0"):
                        found.append(int(pid))
            except (OSError, ValueError):
                continue  # not a process, gone already, or another user's
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except OSError:
                pass
        if not found:
            break
    return killed


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the command and everything it started (they share its process group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# The agent's commands write no bytecode: Python reuses a .pyc while the source keeps its size and its
# mtime's second, so a fix written the second after a test run (a - b -> a + b) ran the old code.
FRESH_SOURCE = {"PYTHONDONTWRITEBYTECODE": "1"}


def run_tree(argv: list[str], *, cwd, timeout: float, keep: int, preexec_fn=None,
             env: dict | None = None) -> Finished:
    """Run `argv` in `cwd` for at most `timeout` seconds, keeping the first `keep` bytes of its
    output; kill everything it started before returning. Raises OSError if it cannot start
    (and lets an interrupt, Ctrl-C, go on up, after the kill). preexec_fn and env are for a caller
    that confines the command (s03's sandbox): run in the child before it starts, and variables
    added to its environment; a failing preexec_fn raises SubprocessError and nothing runs."""
    token = secrets.token_hex(8)  # marks this call's processes, even those that leave its group
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            env={**os.environ, **FRESH_SOURCE, **(env or {}), MARK: token}, preexec_fn=preexec_fn)
    kept = bytearray()
    try:
        # 1. Read the output as it comes (a chatty command can neither fill memory nor block on a
        #    full pipe) until the command exits or the timeout passes.
        dropped = _read_until_exit(proc, time.monotonic() + timeout, keep, kept)
        timed_out = proc.poll() is None
        # 2. Kill the whole group: past the timeout, the command and its children; after the exit,
        #    the background jobs left behind. Then take what is left in the pipe, briefly.
        _kill_group(proc)
        proc.wait()
        more, ended = _drain_rest(proc.stdout.fileno(), keep, kept)
        dropped += more
        if not ended:  # someone outside the group still holds the output: a process that escaped
            _kill_marked(token)
    finally:  # also on an interrupt (Ctrl-C, "Interrupt kernel"): nothing of the command runs on
        _kill_group(proc)
        proc.wait()
        proc.stdout.close()
    return Finished(bytes(kept), dropped, timed_out, proc.returncode)
