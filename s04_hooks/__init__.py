from . import loop
from .loop import Agent, agent_loop
from .registry import EVENTS, HookError, HookRegistry, hook_name, register_hook, trigger_hooks

__all__ = ["EVENTS", "Agent", "HookError", "HookRegistry", "agent_loop", "hook_name",
           "register_hook", "trigger_hooks"]

# The package's help is the stage's own docstring (loop.py), plus where to read on.
__doc__ = loop.__doc__ + "\nRead loop.py, then registry.py.\n"
