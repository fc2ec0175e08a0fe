"""The dispatch map: tool name -> (the JSON schema the model sees, the handler that runs it).

Example: ToolRegistry([READ_FILE]).dispatch("read_file", {"path": "a.py"}, ws) -> "print(1)\n"
         ToolRegistry([READ_FILE]).dispatch("read_file", {}, ws) -> ToolError("read_file: 'path' is required")
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from s01_loop import ToolError, short_repr

from .schema import check_input, schema_problem


@dataclass(frozen=True)
class Tool:
    """One tool: what the model is told (name, description, schema) and what runs (handler)."""
    name: str
    description: str
    input_schema: dict
    handler: Callable[..., str]  # handler(workspace, **input) -> output text, or raises ToolError for the model

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.replace("_", "").replace("-", "").isalnum():
            raise ValueError(f"tool name {short_repr(self.name)} must be letters, digits, '_' or '-'")
        problem = schema_problem(self.input_schema)
        if problem or self.input_schema.get("type") != "object":
            raise ValueError(f"tool {self.name!r}: {problem or 'input_schema must have type object'}")
        if not callable(self.handler):
            raise TypeError(f"tool {self.name!r}: handler must be callable")

    def spec(self) -> dict:
        """The tool as the Messages API wants it: {'name', 'description', 'input_schema'}."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}


class ToolRegistry:
    """An ordered name -> Tool map that checks input and dispatches calls."""

    def __init__(self, tools=()):
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> Tool:
        """Register a tool; a second tool with the same name is an error."""
        if not isinstance(tool, Tool):
            raise TypeError(f"expected a Tool, got {type(tool).__name__}")
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    def remove(self, name: str) -> Tool:
        """Unregister a tool by name and return it."""
        if name not in self._tools:
            raise KeyError(f"no tool named {name!r}")
        return self._tools.pop(name)

    def __contains__(self, name) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[dict]:
        """What the model is offered, in registration order."""
        return [t.spec() for t in self._tools.values()]

    def dispatch(self, name: str, tool_input: dict, workspace: Path) -> str:
        """Check the call, then run its handler. Raises ToolError for anything the model should hear."""
        tool = self._tools.get(name)
        if tool is None:  # 1. a name the model made up: tell it which tools there are
            raise ToolError(f"unknown tool {name!r}: the tools are {', '.join(self._tools) or 'none'}")
        error = check_input(tool.input_schema, tool_input)
        if error:  # 2. input that does not fit the schema: an error it can fix, not a TypeError in the handler
            raise ToolError(f"{name}: {error}")
        return tool.handler(workspace, **tool_input)  # 3. run it (one at a time; bash has its own timeout)
