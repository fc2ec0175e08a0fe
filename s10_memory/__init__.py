from . import agent
from .agent import MEMORY_DIR, MEMORY_PROMPT, REMINDER, Agent, agent_loop, remind
from .store import MAX_CHARS, MEMORY_TOOL, PREFIX, MemoryStore, memory_path
from .tasks import TASKS_FILE, format_tasks, parse_tasks

__all__ = ["MAX_CHARS", "MEMORY_DIR", "MEMORY_PROMPT", "MEMORY_TOOL", "PREFIX", "REMINDER", "TASKS_FILE", "Agent",
           "MemoryStore", "agent_loop", "format_tasks", "memory_path", "parse_tasks", "remind"]

# The package's help is the stage's own docstring (agent.py), plus where to read on.
__doc__ = agent.__doc__ + "\nRead store.py, then tasks.py and agent.py.\n"
