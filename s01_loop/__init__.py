from . import loop
from .bash import BASH_TOOL, OUTPUT_CAP, TIMEOUT_S, ToolError, bash, cap_output, run_bash
from .history import (
    check_client,
    check_history,
    check_int,
    check_message,
    check_path,
    check_type,
    history_problem,
    shown,
)
from .loop import (
    INTERRUPTED,
    MAX_TOKENS,
    MAX_TURNS,
    SYSTEM,
    Agent,
    agent_loop,
    assistant_message,
    final_text,
    to_dict,
    tool_result,
)

__all__ = ["BASH_TOOL", "INTERRUPTED", "MAX_TOKENS", "MAX_TURNS", "OUTPUT_CAP", "SYSTEM", "TIMEOUT_S",
           "Agent", "ToolError", "agent_loop", "assistant_message", "bash", "cap_output", "check_history",
           "check_client", "check_int", "check_message", "check_path", "check_type", "shown",
           "final_text", "history_problem", "run_bash", "to_dict", "tool_result"]

# The package's help is the stage's own docstring (loop.py), plus where to read on.
__doc__ = loop.__doc__ + "\nRead loop.py, then bash.py and history.py.\n"
