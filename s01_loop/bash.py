"""The one tool of s01: run a shell command in the workspace, safely for the loop.

A timeout, a non-zero exit or a missing shell never raises: the caller gets the
output text and a `failed` flag, and the model reads what happened.

Example: run_bash("echo hi; exit 3", cwd=".") -> ("hi\n[exit code 3]", True)

Not modeled: a sandbox (the command can touch anything the user can: see s02
for path checks and s03 for a deny list), interactive commands, background jobs.
"""

from __future__ import annotations

import subprocess

TIMEOUT_S = 30
OUTPUT_CAP = 50_000

BASH_TOOL = {
    "name": "bash",
    "description": "Run a shell command in the workspace folder and return its output "
                   "(stdout and stderr). Long output is cut.",
    "input_schema": {"type": "object",
                     "properties": {"command": {"type": "string", "description": "the command to run"}},
                     "required": ["command"]},
}


def cap_output(text: str, cap: int = OUTPUT_CAP) -> str:
    """Cut text longer than `cap`, saying how much was cut. Example: cap_output('abcdef', 3) -> 'abc\\n[... 3 more characters cut]'"""
    if cap is None or len(text) <= cap:
        return text
    return text[:cap] + f"\n[... {len(text) - cap} more characters cut]"


def run_bash(command: str, *, cwd, timeout: float = TIMEOUT_S, cap: int | None = OUTPUT_CAP) -> tuple[str, bool]:
    """Run `command` with bash in `cwd`; return (output, failed)."""
    if not isinstance(command, str) or not command.strip():
        return "bash: the command is empty", True
    try:
        proc = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        partial = (exc.stdout or b"").decode("utf-8", "replace")
        return cap_output(partial + f"\n[timed out after {timeout:g} s]", cap), True
    except OSError as exc:
        return f"bash: cannot run: {exc}", True
    output = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    if proc.returncode:
        output += f"{'' if output.endswith(chr(10)) or not output else chr(10)}[exit code {proc.returncode}]"
    return cap_output(output, cap), bool(proc.returncode)
