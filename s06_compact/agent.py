"""s06 · Compact: three layers, so that a session can outlive its context window.

Motto: the context will fill up; make room before it does, and keep everything on disk.

    ask ──> messages ──> prepare(messages), before every request:
               ^           0. transcript: any message not yet on disk is written (one line each)
               │           1. budget (s05): the newest turn's big results -> files
               │           2. micro:  old tool results -> "[Previous: used read_file] (full result in ...)"
               │           3. auto:   estimate >= THRESHOLD, or the model called `compact`?
               │                      summary (1 API call) -> history = ["[Compacted] ... Continue ..."]
               │                      3 failures in a row: the breaker opens, the loop goes on uncompacted
               │                                       │
               │                                       v
               │                             client.messages.create (s05: cache breakpoint)
               │                                       │ tool_use
               │                                       v
               │                     tools (s02-s05) + `compact` {focus?}: asks for step 3 next time
               └──── one user message with every tool_result (written to the transcript) ──┘

New in s06: the session transcript (transcript.py), micro-compact (micro.py), the
summary (summary.py) and auto-compact with its circuit breaker (auto.py), the `compact` tool.
Builds on s05: `prepare` (s06 adds layers 0, 2 and 3 around s05's budget), the cache breakpoint.
Seed: the three-layer seed (s01 says what the seeds are).
Not modeled: compaction inside a turn (it happens between requests), keeping the newest
turns verbatim after a summary (s07 and s08 do).
"""

from __future__ import annotations

from pathlib import Path

from lessonkit import tokens
from s01_loop import check_history
from s02_tools import Tool, ToolRegistry
from s05_budget import Agent as BudgetAgent

from .auto import (
    MAX_FAILURES,
    THRESHOLD,
    CircuitBreaker,
    auto_compact,
    check_threshold,
    needs_compaction,
)
from .micro import KEEP_RECENT, MIN_CHARS, check_micro, micro_compact, micro_plan
from .summary import SUMMARY_MAX_TOKENS
from .transcript import Transcript, new_session_path

TRANSCRIPT_DIR = ".transcripts"  # under the workspace, unless the agent is given another folder
COMPACT_TOOL = ("compact", ("Summarize the conversation so far and continue from the summary, to free the "
                            "context. Optional `focus`: what the summary should keep in detail."),
                {"type": "object", "additionalProperties": False, "required": [],
                 "properties": {"focus": {"type": "string", "description": "what to keep in detail"}}})


class Agent(BudgetAgent):
    """The s05 agent with a session transcript and three compaction layers.

    Example: Agent(make_client(context_window=6_000), workspace=ws, threshold=3_000)
               .ask("Read every Python file in this folder, one at a time")
      -> with 12 files of 60 lines: 9 micro-compactions, 1 auto, and the answer names all 12 files
    """

    LAYERS = ("budget", "micro", "auto")  # s05's budget, then the seed's two layers

    def __init__(self, client, *, transcript_dir=None, keep_recent: int = KEEP_RECENT,
                 min_chars: int = MIN_CHARS, threshold: int = THRESHOLD, max_failures: int = MAX_FAILURES,
                 summary_max_tokens: int = SUMMARY_MAX_TOKENS, fsync: bool = False,
                 registry: ToolRegistry | None = None, **options):
        check_micro(keep_recent, min_chars)
        check_threshold(threshold)
        if not isinstance(summary_max_tokens, int) or summary_max_tokens < 1:
            raise ValueError(f"summary_max_tokens must be >= 1, got {summary_max_tokens!r}")
        self.breaker = CircuitBreaker(max_failures)  # per agent: one broken session stops only itself
        super().__init__(client, registry=registry, **options)
        if registry is None:
            self.registry.add(Tool(*COMPACT_TOOL, self.compact_tool))
        self.keep_recent, self.min_chars, self.threshold = keep_recent, min_chars, threshold
        self.summary_max_tokens, self.fsync = summary_max_tokens, fsync
        # Part of the agent's own record, like s05's results: inside the workspace (or ValueError), never
        # written by the file tools.
        self.transcript_dir = self.own_folder("transcript_dir", transcript_dir if transcript_dir is not None
                                              else TRANSCRIPT_DIR)
        self._transcript: Transcript | None = None  # the file is claimed on the first message
        self._logged: dict[int, tuple] = {}           # id(message) -> (message, its content as logged)
        self.compact_request: str | None = None        # set by the compact tool: its focus ("" for none)

    def record_dirs(self) -> list[Path]:
        """s05's results folder, and the transcripts: the file tools do not write there."""
        return [*super().record_dirs(), self.transcript_dir]

    # ---- the transcript: every message, as first produced -------------------------------
    @property
    def transcript(self) -> Transcript:
        if self._transcript is None:
            self._transcript = Transcript(new_session_path(self.transcript_dir), fsync=self.fsync)
        return self._transcript

    def log(self, message: dict) -> None:
        self.transcript.append(message)  # one JSON line, on disk before the next request
        self._logged[id(message)] = (message, message.get("content"))  # a layer that rewrites it is seen

    def append(self, messages: list, message: dict) -> None:
        """s01 only appended; s06 writes the message to the transcript first."""
        self.log_unseen(messages)  # anything already in the history that is not on disk yet, before it
        self.log(message)
        super().append(messages, message)

    def log_unseen(self, messages: list) -> None:
        """Write what reached the history without append() (a history passed in, a merged prompt, a layer's)."""
        for message in messages:
            seen = self._logged.get(id(message))
            if seen is None or seen[1] is not message.get("content"):  # new, or a layer gave it new content
                self.log(message)
        self._logged = {id(m): self._logged[id(m)] for m in messages}  # forget what left the history

    # ---- the compact tool ---------------------------------------------------------------
    def compact_tool(self, workspace: Path, focus: str = "") -> str:
        """The model asks for a compaction; it happens once this turn's results are in (step 3)."""
        self.compact_request = focus.strip()  # read by `auto` before the next request
        focus = f", focus: {focus.strip()}" if focus.strip() else ""
        return f"Compacting the conversation after this turn{focus}."

    # ---- the layers -------------------------------------------------------------------
    def micro(self, messages: list) -> None:
        """Layer 1: old, long tool results -> placeholders (in place)."""
        where = self.display_path(self.transcript.path)
        plan = micro_plan(messages, self.keep_recent, min_chars=self.min_chars, where=where)
        if not plan:  # nothing old and long enough: no hook, no event
            return
        self.notify_hooks("PreCompact", "micro", messages)  # (layer, messages), before the rewrite
        before = tokens.count_messages(messages)
        # No API call, but an old message changes: watch usage.cache_read_input_tokens fall on the next request.
        micro_compact(messages, self.keep_recent, min_chars=self.min_chars, where=where)
        self.compacted("micro", messages, before, len(messages),
                       f"1 old tool result -> a placeholder; full result in {where}" if len(plan) == 1 else
                       f"{len(plan)} old tool results -> placeholders; full results in {where}")

    def auto(self, messages: list) -> None:
        """Layers 2-3: the summary, when the estimate reaches the threshold or the model asked."""
        focus, layer = self.compact_request, ("manual" if self.compact_request is not None else "auto")
        if focus is None and not needs_compaction(messages, self.threshold, self.breaker):
            return  # under the threshold (or the breaker is open), and the model did not ask
        self.compact_request = None
        self.notify_hooks("PreCompact", layer, messages)
        before, count, failures = tokens.count_messages(messages), len(messages), self.breaker.failures
        out = auto_compact(messages, client=self.client, model=self.model, threshold=self.threshold,
                           transcript=self.transcript, breaker=self.breaker, focus=focus or None,
                           force=focus is not None, max_tokens=self.summary_max_tokens,
                           where=self.display_path(self.transcript.path))  # 1 API call (its usage: not in the frames)
        if self.breaker.failures > failures:
            self.emit("error", error=self.breaker.last_error)  # the loop goes on uncompacted
            return
        if out is messages:
            return  # nothing to gain: the summary was no smaller
        # The new history is ONE user message (summary + "continue"): the model answers it with a new
        # turn (the seed's assistant "Understood. Continuing." was a prefill: see summary_message).
        messages[:] = out  # in place: the caller's history is the one compacted
        self.log(out[0])  # the summary joins the transcript; everything it replaced is already there
        self.compacted(layer, messages, before, count,
                       f"{count} message{'' if count == 1 else 's'} -> summary; transcript: "
                       f"{self.display_path(self.transcript.path)}")

    def prepare(self, messages: list) -> None:
        """Before each request: the transcript first, then LAYERS (budget, micro, auto)."""
        self.log_unseen(messages)  # layer 0: nothing is rewritten before it is on disk
        super().prepare(messages)


def agent_loop(messages: list, *, client, **options) -> str:
    """The s06 loop as one function: run `messages` (ending with a user turn) to the end."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    return Agent(client, **options).loop(messages)
