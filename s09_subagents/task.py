"""The `task` tool: what the model is told, what a child may use, and what one child run cost.

    parent's tool_use task {"description": "read the files", "prompt": "Read every Python file ..."}
        │
        v
    a fresh child agent: history [user: prompt], tools CHILD_TOOLS (read-only by default),
    approve = never_approve (s03's rules: only what is known to read runs), its own budget
        │ its turns go to its own transcript file, never to the parent's history
        v
    ONE tool_result: the child's last text + "[subagent: 7 requests, 4,210 tokens ...]"

Example: TaskBudget(max_turns=5, max_tokens=20_000).check() -> None
         TaskBudget(max_turns=0) -> ValueError("max_turns must be an int >= 1, got 0")

Not modeled: children that run in parallel, a child that starts its own children (the
`task` tool is never offered to a child), a child's choice of model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CHILD_TOOLS = ("bash", "read_file", "list_dir")  # read-only by default: the file writers are not offered
CHILD_MAX_TURNS = 20                             # requests a child may make before it must stop
CHILD_MAX_TOKENS = 60_000                        # input + output tokens a child may spend, all requests
CHILD_SYSTEM = ("You are a subagent working in the folder {workspace}. You see only the task below, "
                "not the conversation that asked for it. Use your tools, then answer with one short "
                "report: it is all the caller will see.")
TASK_TOOL = ("task", ("Run a subagent: a fresh agent with its own empty context and read-only tools does "
                      "`prompt` and returns one report. It sees nothing of this conversation: put every "
                      "fact it needs (file names, what you decided) in `prompt`."),
             {"type": "object", "additionalProperties": False, "required": ["description", "prompt"],
              "properties": {"description": {"type": "string", "description": "3-5 words: what the task is"},
                             "prompt": {"type": "string", "description": "the whole task, self-contained"}}})


@dataclass(frozen=True)
class TaskBudget:
    """What one child may spend: requests (turns) and tokens (input + output, summed over requests)."""
    max_turns: int = CHILD_MAX_TURNS
    max_tokens: int = CHILD_MAX_TOKENS
    tools: tuple = CHILD_TOOLS

    def __post_init__(self):
        for name in ("max_turns", "max_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")
        if not isinstance(self.tools, tuple) or not all(isinstance(t, str) for t in self.tools):
            raise ValueError(f"tools must be a tuple of tool names, got {self.tools!r}")
        if "task" in self.tools:
            raise ValueError("a child is never offered `task`: subagents do not start subagents here")


@dataclass
class ChildRun:
    """One child's run, as the parent's record keeps it (the child's history is only here and on disk)."""
    description: str
    prompt: str
    messages: list = field(default_factory=list)  # the child's own history, for the lesson's views
    requests: int = 0
    input_tokens: int = 0         # every kind of input: uncached, cache writes, cache reads
    output_tokens: int = 0
    usages: list = field(default_factory=list)  # each request's usage dict, as the API sent it
    result: str = ""
    stopped: str = ""             # "" if the child answered; else why it was stopped
    transcript: str = ""          # the child's own transcript file, relative to the workspace

    def __post_init__(self):
        if not isinstance(self.description, str) or not isinstance(self.prompt, str):
            raise ValueError(f"a ChildRun's description and prompt are str, got {type(self.description).__name__} "
                             f"and {type(self.prompt).__name__}")

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def footer(self) -> str:
        """The line the parent reads under the child's report. Example: '[subagent: 3 requests, 1,204 tokens]'"""
        why = f"; stopped: {self.stopped}" if self.stopped else ""
        return (f"[subagent: {self.requests} request{'' if self.requests == 1 else 's'}, {self.tokens:,} tokens"
                f"{why}; its turns: {self.transcript}]")
