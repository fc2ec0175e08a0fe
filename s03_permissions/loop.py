"""s03 · Permissions: the rules decide when to ask; an OS sandbox decides what a command can touch.

Motto: the rules decide when to ask the user; the kernel decides what a command can touch.

    ask ──> messages ──> client.messages.create ──> assistant turn ──> end_turn? return text
               ^                                          │ tool_use
               │                                          v
               │                     permission(call)                  <- new in s03
               │                       deny list          -> error result, never run
               │                       read-only          -> run, sandboxed: writes nothing, no network
               │                       anything else      -> approve(call)? no: error result
               │                                               yes: run, sandboxed: writes the workspace only
               │                       (no sandbox here)  -> every command asks, and says why once
               └──── one user message with every tool_result ──────┘

New in s03: `permission(call)` runs before every tool call (rules.py: DENY_LIST,
`check_permission`); a bash command runs unasked only if a real shell parser
(tree-sitter-bash) and an allow-list of programs with their read-only flags
find that every part of it only reads (lessonkit/base/readonly.py: `classify`). Anything
else asks `approve(call)`, on the terminal by default; a refusal reaches the
model as an `is_error` result. The rules only decide when to ask: every bash
command runs in an OS sandbox (lessonkit/base/sandbox.py: Landlock and namespaces), so a
command the parser misjudged as read-only still cannot write, and no command,
approved or not, can write the agent's own folders (s05's results, s06's
transcripts). Where the sandbox is not there (checked by a real confined
command, never assumed), every command asks; `sandbox=False` forces that path.
Builds on s02: the registry, the sandboxed file tools, the loop.
Not modeled: remembered answers ("always allow this"), per-project rule files,
reading (a sandboxed command reads anything the user can, and the model sees
it), what an approved command does inside the workspace (that is what the
user said yes to). s04 turns this hard-coded check into a hook.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from lessonkit.base.readonly import Verdict, classify  # the parser's guess: armour, not the idea
from lessonkit.base.sandbox import Policy, confine, probe  # the kernel's enforcement: armour too
from s01_loop import OUTPUT_CAP, ToolError, bash, check_history, tool_result
from s02_tools import BASH, FILE_TOOLS, ToolRegistry
from s02_tools import Agent as ToolsAgent

from .rules import DENY_LIST, ask_on_terminal, check_permission, command_of

# What a read-only command gets instead of writing: a private temp dir, no caches, no optional locks.
READ_ONLY_ENV = {"PYTHONDONTWRITEBYTECODE": "1", "PYTEST_ADDOPTS": "-p no:cacheprovider",
                 "GIT_OPTIONAL_LOCKS": "0"}
TEMP_VARS = ("TMPDIR", "TMP", "TEMP", "XDG_CACHE_HOME")  # each points at the private temp dir


class Agent(ToolsAgent):
    """The s02 agent with a permission check. `approve(call) -> bool`: only True allows.

    Example: Agent(client, workspace=ws, approve=never_approve).ask("Run `sed -i d notes.txt`")
      -> notes.txt is unchanged; the model read "Permission denied: ... (`sed -i` edits files in place) ..."
    """

    def __init__(self, client, *, approve=ask_on_terminal, deny_list=DENY_LIST, sandbox: bool | None = None,
                 registry=None, **options):
        if not callable(approve):
            raise TypeError(f"approve must be a function of the tool call, got {type(approve).__name__}")
        if sandbox not in (None, True, False):
            raise ValueError(f"sandbox must be None (use it if it is there), True or False, got {sandbox!r}")
        if registry is None:  # s02's tools, with the bash handler that runs commands in the sandbox
            registry = ToolRegistry([replace(BASH, handler=self.bash_tool), *FILE_TOOLS])
        super().__init__(client, registry=registry, **options)
        self.approve = approve
        self.deny_list = tuple(deny_list)
        self.sandbox = sandbox      # None: probed on the first command; False: never (every command asks)
        self._granted: dict = {}    # call id -> "read" (ran unasked) or "workspace" (approved)
        self._grant = "read"        # the grant of the call running now (strictest between calls)
        self._told = False          # has the agent said why every command asks?

    def sandboxed(self) -> tuple[bool, str]:
        """(is the OS sandbox used, why): probed by a real confined command, once per process."""
        if self.sandbox is False:
            return False, "switched off by sandbox=False"
        found = probe()
        if self.sandbox is True and not found.ok:
            raise RuntimeError(f"sandbox=True, but there is no OS sandbox here: {found.why}")
        return found.ok, found.why

    def classify(self, command: str) -> Verdict:
        """s03's classifier, where a sandbox backs it; without one, every command asks (said once)."""
        used, why = self.sandboxed()
        if used:
            return classify(command)
        if self._told:
            return Verdict(False, "no OS sandbox: every command asks")
        self._told = True
        self.emit("sandbox", available=False, why=why)
        return Verdict(False, f"there is no OS sandbox here, {why}: every command asks, since the rules "
                              "alone cannot stop a command they misjudge")

    def permission(self, call: dict) -> str | None:
        """None if the call may run, else why not (s04 replaces this with PreToolUse hooks).
        A bash call that may run is granted "read" (unasked) or "workspace" (the user said yes)."""
        answers = []

        def approve(c):
            answers.append(self.approve(c))
            return answers[-1]
        reason = check_permission(call, approve, deny_list=self.deny_list, read_only=self.classify)
        if reason is None and command_of(call) is not None:
            self._granted[call.get("id")] = "workspace" if answers and answers[-1] is True else "read"
        return reason

    def run_tool(self, block: dict) -> dict:
        """Check first; a refused call becomes an error result and never reaches its tool."""
        reason = self.permission(block)
        if reason is not None:
            return tool_result(block, reason, is_error=True)
        return self.run_allowed(block)

    def run_allowed(self, block: dict) -> dict:
        """Run a call that passed the check: s02's dispatch, errors as results, with the call's grant.
        A call s03's check never saw (s04 with its permission hook removed) runs as an approved one:
        the workspace, never the record folders."""
        self._grant = self._granted.pop(block.get("id"), "workspace")
        try:
            return super().run_tool(block)
        finally:
            self._grant = "read"

    def record_dirs(self) -> list[Path]:
        """The agent's own record folders, read-only to every command (s05 and s06 name theirs)."""
        return []

    def bash_tool(self, workspace: Path, command: str, cap: int | None = OUTPUT_CAP) -> str:
        """s01's bash, in the sandbox: a read grant writes only a private temp dir, a workspace
        grant the workspace too; the record folders never. Without a sandbox: s01's bash as it was."""
        if not self.sandboxed()[0]:
            return bash(command, cwd=workspace, cap=cap)
        private = tempfile.mkdtemp(prefix="s03-tmp-")
        try:
            writes = self._grant == "workspace"
            policy = Policy(writable=(private, *([workspace] if writes else [])), network=writes,
                            read_only=tuple(str(d) for d in self.record_dirs() if d.is_dir()))
            env = dict.fromkeys(TEMP_VARS, private) | ({} if writes else READ_ONLY_ENV)
            try:
                preexec, close = confine(policy)
            except OSError as exc:  # fail closed: a sandbox that cannot be set up runs nothing
                raise ToolError(f"bash: the sandbox could not be set up ({exc}); the command did not run") from exc
            try:
                return bash(command, cwd=workspace, cap=cap, preexec_fn=preexec, env=env)
            finally:
                close()
        finally:
            shutil.rmtree(private, ignore_errors=True)


def agent_loop(messages: list, *, client, **options) -> str:
    """The s03 loop as one function: run `messages` (ending with a user turn) to the end."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    return Agent(client, **options).loop(messages)
