from . import loop
from .loop import Agent, agent_loop
from .rules import (
    DENY_LIST,
    DESTRUCTIVE,
    always_approve,
    ask_on_terminal,
    check_permission,
    command_of,
    first_match,
    never_approve,
)

__all__ = ["DENY_LIST", "DESTRUCTIVE", "Agent", "agent_loop", "always_approve", "ask_on_terminal",
           "check_permission", "command_of", "first_match", "never_approve"]

# The package's help is the stage's own docstring (loop.py), plus where to read on.
__doc__ = loop.__doc__ + "\nRead loop.py, then rules.py.\n"
