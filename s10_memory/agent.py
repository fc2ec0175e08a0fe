"""s10 · Memory: notes and a task list in files that no compaction can touch.

Motto: offload: what must survive the context goes to a file, and is read back after a compaction.

    ask ──> messages ──> prepare (s05-s08) ──> compaction? ──> NEW: a "[Memory]" reminder after it
               ^                                                  (view /memories before going on)
               │                                │
               │                     client.messages.create ──> tool_use
               │                                                  │
               │     memory {command, path, ...}  <- NEW ─────────┤ task (s09), bash, files ...
               │        view | create | str_replace | insert | delete | rename
               │        under /memories only (s02's resolve_in), a size cap:
               │        over it -> error result "memory is full ... consolidate"
               │        <workspace>/.memories/notes.md, tasks.md  (outlives the context)
               └──── one user message with every tool_result ───────┘

New in s10: MemoryStore (store.py: the API memory tool's commands and parameters on one
folder, paths sandboxed by s02's resolve_in, a `max_chars` cap); the `memory` tool; the
task list format (tasks.py); the system prompt's memory protocol (view first, record
decisions, keep tasks.md); after each compaction a "[Memory]" reminder beside the newest
tool results, so the model reads its notes back before it goes on.
Builds on s09: the parent and its `task` children (a child gets no memory tool: its
context is thrown away anyway); s08's compactor, whose summary may drop a decision: the
note in /memories keeps it; s05/s06's record folders (the file tools do not write the
memory folder; read_file may read it).
Not modeled: memory shared between agents or users, expiry, search over notes (the model
views files), what to remember (the model decides; the offline model records every line
that starts "Decision:" and each "Remember: ..." request).
"""

from __future__ import annotations

from pathlib import Path

from s01_loop import check_history
from s02_tools import Tool
from s09_subagents import Agent as SubagentsAgent

from .store import MAX_CHARS, MEMORY_TOOL, PREFIX, MemoryStore

MEMORY_DIR = ".memories"  # under the workspace, unless the agent is given another folder
MEMORY_PROMPT = ("\n\nYou have a memory folder, {prefix}, that outlives this conversation and every "
                 "compaction. View it before you start and again after a compaction. Record each decision "
                 "you read or are told in {prefix}/notes.md, and keep the task list of a long job in "
                 "{prefix}/tasks.md (- [ ] to do, - [x] done). Keep it short: past {cap:,} characters "
                 "a write is refused until you consolidate.")
REMINDER = ("[Memory] The conversation was just compacted: what it dropped is not in your context. "
            "View " + PREFIX + " before you go on.")


class Agent(SubagentsAgent):
    """The s09 agent with a memory folder and a `memory` tool.

    Example: Agent(client, workspace=ws).ask("Remember: the cache keeps 64 entries")
      -> .memories/notes.md holds "- the cache keeps 64 entries"; a later session (or the same
         one after a compaction) reads it back with memory view
    """

    def __init__(self, client, *, memory_dir=None, memory_max_chars: int = MAX_CHARS, system: str | None = None,
                 **options):
        super().__init__(client, system=system, **options)
        self.memory_dir = self.own_folder("memory_dir", memory_dir if memory_dir is not None else MEMORY_DIR)
        self.memory = MemoryStore(self.memory_dir, max_chars=memory_max_chars)
        if system is None:  # a system prompt given by the caller is used as it is
            self.system += MEMORY_PROMPT.format(prefix=PREFIX, cap=memory_max_chars)
        if "memory" not in self.registry:
            self.registry.add(Tool(*MEMORY_TOOL, self.memory_tool))

    def record_dirs(self) -> list[Path]:
        """s05's results, s06's transcripts, and the memory: the file tools do not write there."""
        return [*super().record_dirs(), self.memory_dir]

    def memory_tool(self, workspace: Path, **tool_input) -> str:
        """The `memory` tool: one command on the memory folder (errors reach the model as results)."""
        return self.memory.run(tool_input)

    def compact(self, messages: list, keep_recent_count: int | None = None):
        """s08's compaction, then the reminder to read the notes back (if anything was compacted).

        The reminders of earlier compactions are taken out first: they have done their work, and a
        summary must not keep one as if the user had asked it."""
        forget_reminders(messages)
        event = super().compact(messages, keep_recent_count)
        if event is not None:
            remind(messages)
        return event


def remind(messages: list) -> bool:
    """Add the "[Memory]" reminder to the newest user message, after its tool results.

    Example: [..., {"role": "user", "content": [tool_result]}] -> its content: [tool_result, {text: REMINDER}]
    Returns False (and changes nothing) when the history does not end on a user message.
    """
    check_history(messages)  # a malformed history: one ValueError naming the message
    if not messages or messages[-1].get("role") != "user":
        return False
    last = messages[-1]
    content = last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
    if not any(b.get("type") == "text" and b.get("text") == REMINDER for b in content):
        last["content"] = [*content, {"type": "text", "text": REMINDER}]
    return True


def forget_reminders(messages: list) -> int:
    """Take every "[Memory]" reminder out of the history (in place); how many were taken out."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    taken = 0
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        kept = [b for b in content if not (b.get("type") == "text" and b.get("text") == REMINDER)]
        if kept and len(kept) < len(content):
            taken += len(content) - len(kept)
            message["content"] = kept
    return taken


def agent_loop(messages: list, *, client, **options) -> str:
    """The s10 loop as one function: run `messages` (ending with a user turn) to the end."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    return Agent(client, **options).loop(messages)
