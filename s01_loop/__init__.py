"""s01_loop: the agent loop and its one tool, bash. Read loop.py, then bash.py."""

from .bash import BASH_TOOL, run_bash
from .loop import Agent, ToolError, agent_loop, assistant_message, final_text, to_dict

__all__ = ["Agent", "BASH_TOOL", "ToolError", "agent_loop", "assistant_message", "final_text",
           "run_bash", "to_dict"]
