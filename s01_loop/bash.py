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

How the command is run so that nothing it starts outlives the call (a process group
killed at the end, the output read as it comes, escaped processes hunted down) is not
this stage's idea: it is in lessonkit/base/processes.py, for the curious.

Not modeled: a sandbox (the command can touch anything the user can: s02 checks
the file tools' paths and s03 adds a deny list), interactive commands, background
jobs (killed when the command ends), Windows (process groups are POSIX), processes
that leave the group and let go of the output (see lessonkit/base/processes.py).
"""

from __future__ import annotations

import subprocess
import sys

from lessonkit.base.arguments import check_int, check_type  # one-line argument checks (not the idea)
from lessonkit.base.processes import run_tree  # kill the whole process tree (not the idea)

TIMEOUT_S = 30
OUTPUT_CAP = 50_000      # characters the model sees

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


def run_bash(command: str, *, cwd, timeout: float = TIMEOUT_S, cap: int | None = OUTPUT_CAP,
             preexec_fn=None, env: dict | None = None) -> tuple[str, bool]:
    """Run `command` with bash in `cwd`; return (output, failed). Never raises for the command's sake
    (an interrupt, Ctrl-C, still propagates, after the command's whole group is killed).

    preexec_fn, env: for a caller that confines the command (s03's sandbox): run in the child before
    bash starts (if it fails, the command does not run), and variables added to its environment."""
    if not isinstance(command, str) or not command.strip():
        return "bash: the command is empty", True
    keep = 4 * cap if cap is not None else sys.maxsize  # a character is at most 4 bytes of UTF-8
    try:  # 1. run it; when it ends (or times out, or Ctrl-C) everything it started is killed
        done = run_tree(["bash", "-c", command], cwd=cwd, timeout=timeout, keep=keep, preexec_fn=preexec_fn, env=env)
    except (OSError, subprocess.SubprocessError) as exc:  # no bash, no folder, or confinement failed: not run
        return f"bash: cannot run: {exc}", True
    # 2. Tell the model what happened, in the output itself.
    output = done.output.decode("utf-8", "replace")
    if done.dropped:  # more came than we kept: cut at the cap, and count both
        output = output[:cap] + f"\n[... {len(output) - cap} more characters and {done.dropped} more bytes cut]"
    else:
        output = cap_output(output, cap)
    sep = "" if not output or output.endswith("\n") else "\n"
    if done.timed_out:
        return output + f"{sep}[timed out after {timeout:g} s]", True
    if done.returncode:
        return output + f"{sep}[exit code {done.returncode}]", True
    return output, False


def bash(command: str, *, cwd, timeout: float = TIMEOUT_S, cap: int | None = OUTPUT_CAP,
         preexec_fn=None, env: dict | None = None) -> str:
    """`run_bash` as a tool handler: the output, or ToolError(output) when the command failed."""
    output, failed = run_bash(command, cwd=cwd, timeout=timeout, cap=cap, preexec_fn=preexec_fn, env=env)
    if failed:
        raise ToolError(output)
    return output
