from . import loop
from .files import (
    EDIT_FILE,
    FILE_TOOLS,
    LIST_DIR,
    LIST_LIMIT,
    READ_FILE,
    READ_LIMIT,
    WRITE_FILE,
    edit_file,
    list_dir,
    read_file,
    write_file,
)
from .loop import BASH, Agent, agent_loop, default_tools
from .registry import Tool, ToolRegistry
from .sandbox import relative_name, resolve_in
from .schema import check_input, schema_problem

__all__ = ["BASH", "EDIT_FILE", "FILE_TOOLS", "LIST_DIR", "LIST_LIMIT", "READ_FILE", "READ_LIMIT",
           "WRITE_FILE", "Agent", "Tool", "ToolRegistry", "agent_loop", "check_input",
           "default_tools", "edit_file", "list_dir", "read_file", "relative_name", "resolve_in",
           "schema_problem", "write_file"]

# The package's help is the stage's own docstring (loop.py), plus where to read on.
__doc__ = loop.__doc__ + "\nRead loop.py, then registry.py, schema.py, sandbox.py and files.py.\n"
