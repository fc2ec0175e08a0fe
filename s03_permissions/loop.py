"""s03 · Permissions: read-only commands run, everything else asks first.

Motto: the model proposes, the harness disposes; what it cannot prove harmless, the user decides.

    ask ──> messages ──> client.messages.create ──> assistant turn ──> end_turn? return text
               ^                                          │ tool_use
               │                                          v
               │                     permission(call)                  <- new in s03
               │                       deny list          -> error result, never run
               │                       read-only          -> run_allowed(call)  (s02's dispatch)
               │                       anything else      -> approve(call)? yes: run; no: error result
               └──── one user message with every tool_result ──────┘

New in s03: `permission(call)` runs before every tool call (rules.py: DENY_LIST,
`check_permission`); a bash command runs unasked only if a real shell parser
(tree-sitter-bash) and an allow-list of programs with their read-only flags
find that every part of it only reads (readonly.py: `classify`). Anything
else asks `approve(call)`, on the terminal by default; a refusal reaches the
model as an `is_error` result. Nothing needs to name the agent's own folders
(s05's results, s06's transcripts): a command that can write them asks.
Builds on s02: the registry, the sandboxed file tools, the loop.
Not modeled: remembered answers ("always allow this"), per-project rule files,
what a read-only program reads (a `pytest` runs the conftest.py an approved
command wrote). These rules are a guard rail against a model's mistakes, not
a sandbox against an adversary: for that, run the agent in a container,
under seccomp or in a VM. s04 turns this hard-coded check into a hook.
"""

from __future__ import annotations

from s01_loop import check_history, tool_result
from s02_tools import Agent as ToolsAgent

from .rules import DENY_LIST, ask_on_terminal, check_permission


class Agent(ToolsAgent):
    """The s02 agent with a permission check. `approve(call) -> bool`: only True allows.

    Example: Agent(client, workspace=ws, approve=never_approve).ask("Run `sed -i d notes.txt`")
      -> notes.txt is unchanged; the model read "Permission denied: ... (`sed -i` edits files in place) ..."
    """

    def __init__(self, client, *, approve=ask_on_terminal, deny_list=DENY_LIST, **options):
        if not callable(approve):
            raise TypeError(f"approve must be a function of the tool call, got {type(approve).__name__}")
        super().__init__(client, **options)
        self.approve = approve
        self.deny_list = tuple(deny_list)

    def permission(self, call: dict) -> str | None:
        """None if the call may run, else why not (s04 replaces this with PreToolUse hooks)."""
        return check_permission(call, self.approve, deny_list=self.deny_list)

    def run_tool(self, block: dict) -> dict:
        """Check first; a refused call becomes an error result and never reaches its tool."""
        reason = self.permission(block)
        if reason is not None:
            return tool_result(block, reason, is_error=True)
        return self.run_allowed(block)

    def run_allowed(self, block: dict) -> dict:
        """Run a call that passed the check: s02's dispatch, errors as results."""
        return super().run_tool(block)


def agent_loop(messages: list, *, client, **options) -> str:
    """The s03 loop as one function: run `messages` (ending with a user turn) to the end."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    return Agent(client, **options).loop(messages)
