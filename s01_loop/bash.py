"""The one tool of s01: run a shell command in the workspace, safely for the loop.

A timeout, a non-zero exit or a missing shell never raises out of `run_bash`:
the caller gets the output text and a `failed` flag, and the model reads what
happened. `bash()` is the same call shaped as a tool handler: output, or a
`ToolError` carrying the output.

    command ──> bash -c (own process group, cwd=workspace, no stdin)
                   │ stdout+stderr, interleaved, read as it comes until bash exits:
                   │ the first OUTPUT_CAP characters kept, the rest counted
                   ├─ exits 0          -> (output, False)   (background jobs are killed)
                   ├─ exits N          -> (output + "[exit code N]", True)
                   ├─ runs > timeout   -> the whole group is killed ->
                   │                      (output + "[timed out after T s]", True)
                   └─ Ctrl-C (KeyboardInterrupt) -> the whole group is killed (in a
                                          `finally`), and the interrupt goes on up

Example: run_bash("echo hi; exit 3", cwd=".") -> ("hi\n[exit code 3]", True)

Not modeled: a sandbox (the command can touch anything the user can: s02 checks
the file tools' paths and s03 adds a deny list), interactive commands, background
jobs (killed when the command ends), Windows (process groups are POSIX).
Processes that leave the group (`setsid cmd &`, a double fork into a new session)
are out of the group kill's reach. The call never waits for them: it returns when
bash exits and closes its end of the output pipe. When one still holds that pipe,
it is found by the MARK variable in its environment (/proc, Linux, same user) and
killed. One that let go of the output (`setsid cmd >/dev/null &`) or cleared its
environment (`env -i`) is not found: that needs cgroups or a container.
"""

from __future__ import annotations

import os
import secrets
import select
import signal
import subprocess
import sys
import time

from .history import check_int, check_type

TIMEOUT_S = 30
OUTPUT_CAP = 50_000      # characters the model sees
CHUNK = 65_536           # bytes read at a time
POLL_S = 0.02            # how often the exit is checked while the output is quiet
DRAIN_S = 0.05           # after the exit, how long to wait for the rest of the output
MARK = "LESSONS_BASH_CALL"  # an environment variable every process of one call inherits

BASH_TOOL = {
    "name": "bash",
    "description": "Run a shell command in the workspace folder and return its output "
                   "(stdout and stderr). Long output is cut.",
    "input_schema": {"type": "object",
                     "properties": {"command": {"type": "string", "description": "the command to run"}},
                     "required": ["command"]},
}


class ToolError(ValueError):
    """A tool failed in a way the model should hear about (never crashes the loop).

    A ValueError, as every refusal of bad input in the kit is: a tool called with a
    path that is not a string is refused the same way a caller's bad history is.
    """


def cap_output(text: str, cap: int | None = OUTPUT_CAP) -> str:
    """Cut text longer than `cap`, saying how much was cut.

    Example: cap_output('abcdef', 3) -> 'abc\\n[... 3 more characters cut]';
             cap_output('abcd', 3) -> 'abc\\n[... 1 more character cut]'
    """
    check_type(text, str, "text")
    if cap is not None:
        check_int(cap, "cap", 0)
    if cap is None or len(text) <= cap:
        return text
    cut = len(text) - cap
    return text[:cap] + f"\n[... {cut} more character{'' if cut == 1 else 's'} cut]"


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
    """Read the output as it comes until bash exits (or the deadline); return the bytes dropped.

    Read here, not on a thread: a process that left the group may hold the pipe open for
    ever, and a reader blocked on it would outlive the call (a thread and a descriptor each).
    """
    fd, dropped, ended = proc.stdout.fileno(), 0, False
    os.set_blocking(fd, False)
    exited = _exit_fd(proc)  # readable once bash exits: no polling delay (Linux 5.3+)
    try:
        while proc.poll() is None and (left := deadline - time.monotonic()) > 0:
            wait_on = ([] if ended else [fd]) + ([] if exited is None else [exited])
            if not wait_on:  # bash closed its output but runs on, and there is no pidfd: just wait
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


def run_bash(command: str, *, cwd, timeout: float = TIMEOUT_S, cap: int | None = OUTPUT_CAP,
             preexec_fn=None, env: dict | None = None) -> tuple[str, bool]:
    """Run `command` with bash in `cwd`; return (output, failed). Never raises for the command's sake
    (an interrupt, Ctrl-C, still propagates, after the command's whole group is killed).

    preexec_fn, env: for a caller that confines the command (s03's sandbox): run in the child before
    bash starts (if it fails, the command does not run), and variables added to its environment."""
    if not isinstance(command, str) or not command.strip():
        return "bash: the command is empty", True
    token = secrets.token_hex(8)  # marks this call's processes, even those that leave its group
    try:
        proc = subprocess.Popen(["bash", "-c", command], cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                                env={**os.environ, **(env or {}), MARK: token}, preexec_fn=preexec_fn)
    except (OSError, subprocess.SubprocessError) as exc:  # no bash, or the confinement failed: not run
        return f"bash: cannot run: {exc}", True
    kept = bytearray()
    keep = 4 * cap if cap is not None else sys.maxsize  # a character is at most 4 bytes of UTF-8
    try:
        # 1. Read the output as it comes (a chatty command can neither fill memory nor block on a
        #    full pipe) until bash exits or the timeout passes.
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
    # 3. Tell the model what happened, in the output itself.
    output = bytes(kept).decode("utf-8", "replace")
    if dropped:  # more came than we kept: cut at the cap, and count both
        output = output[:cap] + f"\n[... {len(output) - cap} more characters and {dropped} more bytes cut]"
    else:
        output = cap_output(output, cap)
    sep = "" if not output or output.endswith("\n") else "\n"
    if timed_out:
        return output + f"{sep}[timed out after {timeout:g} s]", True
    if proc.returncode:
        return output + f"{sep}[exit code {proc.returncode}]", True
    return output, False


def bash(command: str, *, cwd, timeout: float = TIMEOUT_S, cap: int | None = OUTPUT_CAP,
         preexec_fn=None, env: dict | None = None) -> str:
    """`run_bash` as a tool handler: the output, or ToolError(output) when the command failed."""
    output, failed = run_bash(command, cwd=cwd, timeout=timeout, cap=cap, preexec_fn=preexec_fn, env=env)
    if failed:
        raise ToolError(output)
    return output
