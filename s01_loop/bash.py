"""The one tool of s01, bash: a command run in the workspace, every outcome told as output.

Example: run_bash("echo hi; exit 3", cwd=".") -> ("hi\n[exit code 3]", True)
         run_bash("sleep 60", cwd=".", timeout=1) -> ("[timed out after 1 s]", True)
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


class ToolError(ValueError):  # a ValueError, as every refusal of bad input in the kit is
    """A tool failed in a way the model should hear about (never crashes the loop)."""


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
    """Run `command` with bash in `cwd`; return (output, failed). Never raises for the command (Ctrl-C does)."""
    # preexec_fn, env: for a caller that confines the command (s03's sandbox); if preexec_fn fails, nothing runs.
    # Not modeled: stdin (interactive commands), Windows (process groups are POSIX), a sandbox (s03).
    if not isinstance(command, str) or not command.strip():
        return "bash: the command is empty", True
    keep = 4 * cap if cap is not None else sys.maxsize  # a character is at most 4 bytes of UTF-8
    try:  # 1. run it in its own process group; at the end (exit, timeout or Ctrl-C) the whole group is killed
        done = run_tree(["bash", "-c", command], cwd=cwd, timeout=timeout, keep=keep, preexec_fn=preexec_fn, env=env)
    except (OSError, subprocess.SubprocessError) as exc:  # no bash, no folder, or confinement failed: not run
        return f"bash: cannot run: {exc}", True
    # 2. Tell the model what happened, in the output itself: stdout and stderr interleaved, as they came.
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
    return output, False  # background jobs it left running were killed with the group


def bash(command: str, *, cwd, timeout: float = TIMEOUT_S, cap: int | None = OUTPUT_CAP,
         preexec_fn=None, env: dict | None = None) -> str:
    """`run_bash` as a tool handler: the output, or ToolError(output) when the command failed."""
    output, failed = run_bash(command, cwd=cwd, timeout=timeout, cap=cap, preexec_fn=preexec_fn, env=env)
    if failed:
        raise ToolError(output)
    return output
