"""The child agent: the s08 agent with a fresh history, fewer tools and a budget it cannot pass.

    run_child(parent, description, prompt, budget)
        child = ChildAgent(same client, same workspace, own transcript file,
                           tools: parent's default registry minus everything not in budget.tools,
                           approve: never_approve unless the parent gave the child its own)
        history = []                       <- nothing of the parent's context
        child.ask(prompt, history)         each request: tokens so far >= budget? stop it
        -> ChildRun(messages=history, requests, tokens, result=last text or why it stopped)

Every tool call still goes through the s03/s04 permission check (`permission_hook`), so the
rules (and any sandbox s03's public check applies) hold for a child as for the parent.

Example: run_child(parent, "count", "Count the lines of app_07.py", TaskBudget())
  -> ChildRun(requests=2, result="Counted.\\n- app_07.py has 41 lines.", stopped="")

Not modeled: a child that keeps a history across tasks (each task starts empty).
"""

from __future__ import annotations

from s02_tools import ToolRegistry
from s03_permissions import never_approve
from s08_compact4 import Agent as CompactAgent

from .task import CHILD_SYSTEM, CHILD_TOOLS, ChildRun, TaskBudget


class BudgetSpent(Exception):
    """The child spent its token budget: raised before the request that would pass it."""


def input_of(usage: dict) -> int:
    """Every input token of one request. Example: {'input_tokens': 5, 'cache_read_input_tokens': 90} -> 95"""
    if not isinstance(usage, dict):
        raise ValueError(f"usage must be a dict of token counts, got {type(usage).__name__}")
    return sum(int(usage.get(k) or 0) for k in
               ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))


def read_only(registry: ToolRegistry, allowed=CHILD_TOOLS) -> ToolRegistry:
    """A NEW registry with only the `allowed` tools of `registry`, in its order; `registry` is untouched.

    Example: read_only(<bash, read_file, write_file, list_dir, compact, task>) -> <bash, read_file, list_dir>
    """
    if not isinstance(registry, ToolRegistry):
        raise ValueError(f"registry must be a ToolRegistry, got {type(registry).__name__}")
    keep = set(allowed) - {"task"}  # a child never starts children
    tools = []
    for name in registry.names():  # s02's public API: take each tool out and put it back, in order
        tools.append(registry.remove(name))
        registry.add(tools[-1])
    return ToolRegistry(t for t in tools if t.name in keep)


class ChildAgent(CompactAgent):
    """An s08 agent that counts what it spends into `run` and stops at `budget.max_tokens`."""

    def __init__(self, client, *, run: ChildRun, budget: TaskBudget, **options):
        if not isinstance(run, ChildRun) or not isinstance(budget, TaskBudget):
            raise ValueError(f"run must be a ChildRun and budget a TaskBudget, got {type(run).__name__} "
                             f"and {type(budget).__name__}")
        super().__init__(client, max_turns=budget.max_turns, **options)
        self.registry = read_only(self.registry, budget.tools)  # read-only by default: only what is allowed
        self.run, self.limits = run, budget  # not `budget`: that is s05's layer

    def call_model(self, messages: list):
        """Stop before a request once the budget is spent; count each answer's usage."""
        if self.run.tokens >= self.limits.max_tokens:
            raise BudgetSpent(f"token budget spent: {self.run.tokens:,} of {self.limits.max_tokens:,} tokens "
                              f"after {self.run.requests} requests")
        response = super().call_model(messages)
        usage = response.usage.model_dump(exclude_none=True) if hasattr(response.usage, "model_dump") \
            else dict(response.usage or {})
        self.run.requests += 1
        self.run.input_tokens += input_of(usage)
        self.run.output_tokens += int(usage.get("output_tokens") or 0)
        self.run.usages.append(usage)
        return response


def run_child(parent, description: str, prompt: str, budget: TaskBudget, *, approve=None) -> ChildRun:
    """Run one task in a fresh child of `parent`; the child's record (see the module docstring)."""
    if not isinstance(description, str) or not isinstance(prompt, str) or not isinstance(budget, TaskBudget):
        raise ValueError("run_child takes a description and a prompt (str) and a TaskBudget")
    if not isinstance(getattr(parent, "compactor", None), object) or not hasattr(parent, "transcript_dir"):
        raise ValueError(f"parent must be an s09 agent, got {type(parent).__name__}")
    run = ChildRun(description=description, prompt=prompt)
    child = ChildAgent(parent.client, run=run, budget=budget, model=parent.model, workspace=parent.workspace,
                       system=CHILD_SYSTEM, approve=approve or never_approve,
                       transcript_dir=parent.transcript_dir, results_dir=parent.results_dir,
                       compaction=parent.compactor.config, on_event=parent.on_child_event)
    run.transcript = child.display_path(child.transcript.path)
    try:
        run.result = child.ask(prompt, run.messages)
        if run.result.startswith("(stopped after"):
            run.stopped = f"turn budget spent: {budget.max_turns} requests"
    except BudgetSpent as exc:
        run.stopped = str(exc)
        run.result = _last_text(run.messages)
    return run


def _last_text(messages: list) -> str:
    """The newest assistant text in a history, or "(no answer)"."""
    for message in reversed(messages):
        if message.get("role") == "assistant":
            text = " ".join(b.get("text", "") for b in message["content"] if b.get("type") == "text").strip()
            if text:
                return text
    return "(no answer)"
