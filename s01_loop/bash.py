"""The one tool of s01: run a shell command in the workspace, safely for the loop.

A timeout, a non-zero exit or a missing shell never raises out of `run_bash`:
the caller gets the output text and a `failed` flag, and the model reads what
happened. `bash()` is the same call shaped as a tool handler: output, or a
`ToolError` carrying the output.

    command ──> bash -c (own process group, cwd=workspace, no stdin)
                   │ stdout+stderr, interleaved, read as it comes:
                   │ the first OUTPUT_CAP characters kept, the rest counted
                   ├─ exits 0          -> (output, False)   (background jobs are killed)
                   ├─ exits N          -> (output + "[exit code N]", True)
                   └─ runs > timeout   -> the whole group is killed ->
                                          (output + "[timed out after T s]", True)

Example: run_bash("echo hi; exit 3", cwd=".") -> ("hi\n[exit code 3]", True)

Not modeled: a sandbox (the command can touch anything the user can: s02 checks
the file tools' paths and s03 adds a deny list), interactive commands, background
jobs (killed when the command ends), Windows (process groups are POSIX).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

TIMEOUT_S = 30
OUTPUT_CAP = 50_000      # characters the model sees
CHUNK = 65_536           # bytes read at a time

BASH_TOOL = {
    "name": "bash",
    "description": "Run a shell command in the workspace folder and return its output "
                   "(stdout and stderr). Long output is cut.",
    "input_schema": {"type": "object",
                     "properties": {"command": {"type": "string", "description": "the command to run"}},
                     "required": ["command"]},
}


class ToolError(Exception):
    """A tool failed in a way the model should hear about (never crashes the loop)."""


def cap_output(text: str, cap: int | None = OUTPUT_CAP) -> str:
    """Cut text longer than `cap`, saying how much was cut.

    Example: cap_output('abcdef', 3) -> 'abc\\n[... 3 more characters cut]'
    """
    if cap is None or len(text) <= cap:
        return text
    return text[:cap] + f"\n[... {len(text) - cap} more characters cut]"


def _drain(stream, keep: int, kept: bytearray, dropped: list) -> None:
    """Read `stream` to its end: keep the first `keep` bytes, count the rest in dropped[0]."""
    while chunk := stream.read1(CHUNK):
        room = max(keep - len(kept), 0)
        kept += chunk[:room]
        dropped[0] += max(len(chunk) - room, 0)


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the command and everything it started (they share its process group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_bash(command: str, *, cwd, timeout: float = TIMEOUT_S,
             cap: int | None = OUTPUT_CAP) -> tuple[str, bool]:
    """Run `command` with bash in `cwd`; return (output, failed). Never raises for the command's sake."""
    if not isinstance(command, str) or not command.strip():
        return "bash: the command is empty", True
    try:
        proc = subprocess.Popen(["bash", "-c", command], cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        return f"bash: cannot run: {exc}", True
    # 1. Read the output on a thread, so a chatty command can neither fill memory nor block on a full pipe.
    kept, dropped = bytearray(), [0]
    keep = 4 * cap if cap is not None else sys.maxsize  # a character is at most 4 bytes of UTF-8
    reader = threading.Thread(target=_drain, args=(proc.stdout, keep, kept, dropped), daemon=True)
    reader.start()
    # 2. Wait for the exit; past the timeout, kill the whole group (children hold the pipe open too).
    #    Once bash has exited, what is left of its group is background jobs: they go too.
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    _kill_group(proc)
    proc.wait()
    reader.join(timeout=2)  # a process that left the group may still hold the pipe: stop waiting
    if not reader.is_alive():
        proc.stdout.close()
    # 3. Tell the model what happened, in the output itself.
    output = bytes(kept).decode("utf-8", "replace")
    if dropped[0]:  # more came than we kept: cut at the cap, and count both
        output = output[:cap] + f"\n[... {len(output) - cap} more characters and {dropped[0]} more bytes cut]"
    else:
        output = cap_output(output, cap)
    sep = "" if not output or output.endswith("\n") else "\n"
    if timed_out:
        return output + f"{sep}[timed out after {timeout:g} s]", True
    if proc.returncode:
        return output + f"{sep}[exit code {proc.returncode}]", True
    return output, False


def bash(command: str, *, cwd, timeout: float = TIMEOUT_S, cap: int | None = OUTPUT_CAP) -> str:
    """`run_bash` as a tool handler: the output, or ToolError(output) when the command failed."""
    output, failed = run_bash(command, cwd=cwd, timeout=timeout, cap=cap)
    if failed:
        raise ToolError(output)
    return output
