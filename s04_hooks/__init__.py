"""s04_hooks: UserPromptSubmit / PreToolUse / PostToolUse / Stop hooks. Read loop.py, then registry.py."""

from .loop import Agent, agent_loop
from .registry import EVENTS, HookError, HookRegistry, hook_name, register_hook, trigger_hooks

__all__ = ["EVENTS", "Agent", "HookError", "HookRegistry", "agent_loop", "hook_name",
           "register_hook", "trigger_hooks"]
