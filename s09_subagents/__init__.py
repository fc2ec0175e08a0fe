from . import agent
from .agent import Agent, agent_loop
from .child import BudgetSpent, ChildAgent, input_of, read_only, run_child
from .task import CHILD_MAX_TOKENS, CHILD_MAX_TURNS, CHILD_TOOLS, TASK_TOOL, ChildRun, TaskBudget

__all__ = ["CHILD_MAX_TOKENS", "CHILD_MAX_TURNS", "CHILD_TOOLS", "TASK_TOOL", "Agent", "BudgetSpent",
           "ChildAgent", "ChildRun", "TaskBudget", "agent_loop", "input_of", "read_only", "run_child"]

# The package's help is the stage's own docstring (agent.py), plus where to read on.
__doc__ = agent.__doc__ + "\nRead task.py, then child.py and agent.py.\n"
