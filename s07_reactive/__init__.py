from . import agent
from .agent import Agent, agent_loop
from .pairs import is_safe_cut, join, merge_user, oldest_turn, safe_cut
from .reactive import (
           KEEP_TAIL,
           ReactiveCompactError,
           drop_oldest_turns,
           prompt_too_long,
           reactive_compact,
)
from .snip import KEEP_HEAD, MAX_MESSAGES, snip_compact, snip_compact_raw

__all__ = ["KEEP_HEAD", "KEEP_TAIL", "MAX_MESSAGES", "Agent", "ReactiveCompactError", "agent_loop",
           "drop_oldest_turns", "is_safe_cut", "join", "merge_user", "oldest_turn", "prompt_too_long",
           "reactive_compact", "safe_cut", "snip_compact", "snip_compact_raw"]

# The package's help is the stage's own docstring (agent.py), plus where to read on.
__doc__ = agent.__doc__ + "\nRead pairs.py (where a history may be cut), snip.py, reactive.py, then agent.py.\n"
