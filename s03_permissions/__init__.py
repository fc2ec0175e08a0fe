from . import loop
from .loop import Agent, agent_loop
from .rules import (
    DENY_LIST,
    DESTRUCTIVE,
    always_approve,
    ask_on_terminal,
    check_permission,
    command_of,
    commands_in,
    first_match,
    mask_quotes,
    never_approve,
    writes_to,
)

__all__ = ["DENY_LIST", "DESTRUCTIVE", "Agent", "agent_loop", "always_approve", "ask_on_terminal",
           "check_permission", "command_of", "commands_in", "first_match", "mask_quotes", "never_approve",
           "writes_to"]

# The package's help is the stage's own docstring (loop.py), plus where to read on.
__doc__ = loop.__doc__ + "\nRead loop.py, then rules.py.\n"
