from lessonkit.base.readonly import Verdict, classify, is_read_only
from lessonkit.base.sandbox import Policy, Probe, probe

from . import loop
from .loop import Agent, agent_loop
from .rules import (
    DENY_LIST,
    always_approve,
    ask_on_terminal,
    check_permission,
    command_of,
    commands_in,
    first_match,
    mask_quotes,
    never_approve,
)

__all__ = ["DENY_LIST", "Agent", "Policy", "Probe", "Verdict", "agent_loop", "always_approve", "ask_on_terminal",
           "check_permission", "classify", "command_of", "commands_in", "first_match", "is_read_only",
           "mask_quotes", "never_approve", "probe"]

# The package's help is the stage's own docstring (loop.py), plus where to read on.
__doc__ = loop.__doc__ + ("\nRead loop.py, then rules.py; the parser's guess and the sandbox are in lessonkit/base\n"
                          "(readonly.py, readonly_programs.py, sandbox.py).\n")
