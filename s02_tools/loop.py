"""s02 · Tools: a dispatch map instead of an if, and file tools that stay in the workspace.

Motto: adding a tool is adding an entry to a map; the loop never changes.

    ask ──> messages ──> client.messages.create ──> assistant turn ──> end_turn? return text
               ^                                          │ tool_use
               │                                          v
               │                 registry.dispatch(name, input)   <- new in s02
               │                   unknown name / bad input -> error tool_result
               │                   bash | read_file | write_file | edit_file | list_dir
               │                          (file paths: resolve_in(workspace) first)
               └──── one user message with every tool_result ──────┘

New in s02: a `ToolRegistry` (registry.py) whose entries check their input against
a schema (schema.py); four file tools (files.py) that cannot leave the workspace
(sandbox.py). Only `execute` and `tools` change.
Builds on s01: the loop, `bash`, plain-dict history, error results.
Seed: the loop-and-hooks seed (s01 says what the seeds are).
Not modeled: a sandbox for bash (it can `cd ..`; s03 adds a deny list), tools
running in parallel, tool results too big for the context (s05).
"""

from __future__ import annotations

from pathlib import Path

from s01_loop import BASH_TOOL, bash, check_history
from s01_loop import Agent as LoopAgent

from .files import FILE_TOOLS
from .registry import Tool, ToolRegistry


def _bash(workspace: Path, command: str) -> str:
    return bash(command, cwd=workspace)  # s01's bash, as a handler: every handler takes the workspace


BASH = Tool(BASH_TOOL["name"], BASH_TOOL["description"],  # the same tool the model saw in s01
            {**BASH_TOOL["input_schema"], "additionalProperties": False}, _bash)  # no unknown keys


def default_tools() -> ToolRegistry:
    """A fresh registry with the s02 tools: bash, read_file, write_file, edit_file, list_dir."""
    return ToolRegistry([BASH, *FILE_TOOLS])  # a new map each time: agents share nothing


class Agent(LoopAgent):
    """The s01 agent with a tool registry. Example: Agent(client, workspace=ws).ask("List the files")"""

    def __init__(self, client, *, registry: ToolRegistry | None = None, **options):
        super().__init__(client, **options)
        self.registry = default_tools() if registry is None else registry  # name -> (schema, handler)

    @property
    def tools(self) -> list[dict]:
        """What the model is offered: the registry's tools, in order."""
        return self.registry.specs()  # the schemas only: the model never sees a handler

    def execute(self, name: str, tool_input: dict) -> str:
        """s01 had `if name == "bash"`; s02 looks the name up in the map."""
        return self.registry.dispatch(name, tool_input, self.workspace)  # check the input, run the handler


def agent_loop(messages: list, *, client, **options) -> str:
    """The s02 loop as one function: run `messages` (ending with a user turn) to the end."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    return Agent(client, **options).loop(messages)
