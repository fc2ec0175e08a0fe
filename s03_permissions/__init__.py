"""s03_permissions: a deny list and approval before each tool call. Read loop.py, then rules.py."""

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
