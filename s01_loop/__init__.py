# Re-exported from lessonkit.base (what every stage needs but none teaches), so that
# `from s01_loop import check_history` keeps working in later stages, tests and lessons.
from lessonkit.base.arguments import check_client, check_int, check_path, check_type, short_repr
from lessonkit.base.history_shape import check_history, check_message, history_problem

from . import loop
from .bash import BASH_TOOL, OUTPUT_CAP, TIMEOUT_S, ToolError, bash, cap_output, run_bash
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
           "check_client", "check_int", "check_message", "check_path", "check_type", "short_repr",
           "final_text", "history_problem", "run_bash", "to_dict", "tool_result"]

# The package's help is the stage's own docstring (loop.py), plus where to read on.
__doc__ = loop.__doc__ + "\nRead loop.py, then bash.py; what they stand on is in lessonkit/base/.\n"
