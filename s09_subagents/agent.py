"""s09 · Subagents: a task done in a fresh context of its own, and only its report comes back.

Motto: isolate: what a task reads stays in the task's context; the parent keeps the answer.

    ask ──> parent messages ──> prepare (s05-s08) ──> client.messages.create ──> tool_use?
               ^                                                                  │
               │          task {description, prompt}  <- NEW ─────────────────────┤ other tools:
               │             │                                                    │ as in s08
               │             v                                                    │
               │          child: [user: prompt] ──> its own loop (s08 agent),     │
               │                 read-only tools, s03's rules (never_approve),     │
               │                 own budget (turns, tokens), own transcript file   │
               │             │   its turns never enter the parent's history        │
               │             v                                                    │
               └──── ONE tool_result: the child's report + "[subagent: N requests, T tokens]"

New in s09: the `task` tool (task.py: TASK_TOOL, TaskBudget, ChildRun); the child agent
(child.py: ChildAgent, run_child) with a fresh history, the parent's default tools minus the
writers (bash, read_file, list_dir; no `task`, no `compact`), s03's permission check with
`never_approve` (only what s03 knows to read runs), at most `max_turns` requests and
`max_tokens` tokens (`limits`); `agent.subagents`, every child's record (its history, requests, usage).
Builds on s08: the parent is the s08 agent (its compactor still runs on the parent's history);
each child is an s08 agent too, with the parent's client, workspace, compaction settings and
transcript folder (s06: the child's turns are on disk, in a session file of their own).
Not modeled: children in parallel, a child's own model, a child that asks the user anything
(its approvals are `never_approve` unless `child_approve` is given), a child's partial work
being handed back when it is stopped (the parent reads its last text only).
"""

from __future__ import annotations

from pathlib import Path

from s01_loop import ToolError, check_history
from s02_tools import Tool
from s08_compact4 import Agent as CompactAgent

from .child import run_child
from .task import TASK_TOOL, ChildRun, TaskBudget


class Agent(CompactAgent):
    """The s08 agent with a `task` tool that runs a subagent.

    Example: Agent(client, workspace=ws).ask("Use a subagent to count the lines of app_07.py")
      -> the parent's history: 4 messages (prompt, task call, one result, answer); the child's 4
         messages are in agent.subagents[0].messages and in its own transcript file
    """

    def __init__(self, client, *, task_budget: TaskBudget | None = None, child_approve=None,
                 on_child_event=None, **options):
        if task_budget is not None and not isinstance(task_budget, TaskBudget):
            raise TypeError(f"task_budget must be a TaskBudget, got {type(task_budget).__name__}")
        if child_approve is not None and not callable(child_approve):
            raise TypeError(f"child_approve must be a function of the tool call, got {type(child_approve).__name__}")
        super().__init__(client, **options)
        self.task_budget = task_budget or TaskBudget()  # each child's own limits: turns, tokens
        self.child_approve, self.on_child_event = child_approve, on_child_event
        self.subagents: list[ChildRun] = []  # every child's record, in order
        if "task" not in self.registry:
            self.registry.add(Tool(*TASK_TOOL, self.task_tool))  # the model sees one more tool: `task`

    def task_tool(self, workspace: Path, description: str, prompt: str) -> str:
        """Run `prompt` in a fresh child; its report is the one block the parent gets back."""
        if not prompt.strip():
            raise ToolError("task: `prompt` is empty: say what the subagent should do, with every fact it needs")
        run = run_child(self, description, prompt, self.task_budget, approve=self.child_approve)  # a fresh history
        self.subagents.append(run)
        self.emit("subagent", run=run)  # views and hooks see the child's record; the history does not
        return f"{run.result}\n{run.footer()}"  # ONE tool_result: the report, what it cost


def agent_loop(messages: list, *, client, **options) -> str:
    """The s09 loop as one function: run `messages` (ending with a user turn) to the end."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    return Agent(client, **options).loop(messages)
