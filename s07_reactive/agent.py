"""s07 · Reactive: the full pipeline, with a pair-safe snip and a recovery when the API says "too long".

Motto: compact on a schedule, and again on demand when the API refuses.

    ask ──> messages ──> prepare(messages), before every request:
               ^           0. transcript  (s06: every message on disk, as first produced)
               │           1. budget      (s05: big results -> files + preview)
               │           2. snip        NEW: > snip_max_messages? head + "[snipped N messages]" + tail,
               │                               cut at safe places only
               │           3. micro       (s06: old results -> "[Previous: used …]")
               │           4. auto        (s06: over the threshold -> "[Compacted]" summary)
               │                    │
               │                    v
               │           client.messages.create ──400 prompt is too long: N > M──┐
               │                    │                                              v
               │                    │              "error" event, PreCompact("reactive"),
               │                    │              reactive_compact: summary + pair-safe tail,
               │                    │              "compact" event, retry ONCE; too long again ->
               │                    │              ReactiveCompactError (the loop stops, never spins)
               │                    v tool_use
               └──── tools (s02-s05) and one user message with every tool_result

New in s07: snip (snip.py, cutting only where pairs.py says a history may be cut) as
layer 2, and reactive compaction (reactive.py) when a request fails as prompt-too-long.
Builds on s06: `prepare` (s07 puts the layers in the seed's order), the transcript, the events.
Seed: the loop-and-hooks seed (s01 says what the seeds are).
Not modeled: a reactive retry for streaming requests, a tail too long by itself (the
retry fails and says so), prompt-too-long from s06's summary calls (its breaker counts them).
"""

from __future__ import annotations

import anthropic

from lessonkit import tokens
from s01_loop import check_history
from s06_compact import Agent as CompactAgent

from .reactive import (
    KEEP_TAIL,
    MAX_ATTEMPTS,
    ReactiveCompactError,
    prompt_too_long,
    reactive_compact,
)
from .snip import KEEP_HEAD, MAX_MESSAGES, check_snip_args, snip_compact


class Agent(CompactAgent):
    """The s06 agent with snip and reactive compaction.

    Example: Agent(make_client(context_window=6_000), workspace=ws, threshold=10**9)
               .ask("Read every Python file in this folder, one at a time")
      -> the 7th request is too long: 400, reactive compaction, the retry fits, "Done. ..."
    """

    LAYERS = ("budget", "snip", "micro", "auto")  # the seed's order, cheapest first; reactive runs after the call

    def __init__(self, client, *, snip_max_messages: int = MAX_MESSAGES, snip_keep_head: int = KEEP_HEAD,
                 reactive_keep_tail: int = KEEP_TAIL, reactive_attempts: int = MAX_ATTEMPTS, **options):
        check_snip_args(snip_max_messages, snip_keep_head)
        if reactive_keep_tail < 1 or reactive_attempts < 1:
            raise ValueError(f"reactive_keep_tail and reactive_attempts must be >= 1, got "
                             f"{reactive_keep_tail} and {reactive_attempts}")
        super().__init__(client, **options)
        self.snip_max_messages, self.snip_keep_head = snip_max_messages, snip_keep_head
        self.reactive_keep_tail, self.reactive_attempts = reactive_keep_tail, reactive_attempts

    # ---- layer 2: snip ------------------------------------------------------------------
    def snip(self, messages: list) -> None:
        """Over snip_max_messages: keep head and tail, one marker for the middle (in place)."""
        where = self.display_path(self.transcript.path)
        out = snip_compact(messages, self.snip_max_messages, self.snip_keep_head, where=where)
        if out is messages:  # short enough: nothing snipped, nothing reported
            return
        self.notify_hooks("PreCompact", "snip", messages)  # no API call: the middle goes, whatever it was
        before, count = tokens.count_messages(messages), len(messages)
        messages[:] = out  # in place: the caller's history is the one compacted
        self.log_unseen(messages)  # the message the marker was merged into is new: on disk before the call
        self.compacted("snip", messages, before, count,
                       f"{count - len(messages)} message{'' if count - len(messages) == 1 else 's'} snipped from "
                       f"the middle; full text in {where}")

    # ---- after the request: reactive ----------------------------------------------------
    def reactive(self, messages: list, error: anthropic.BadRequestError) -> None:
        """The API said prompt-too-long: summary + pair-safe tail, in place."""
        self.emit("error", error=error)  # the refusal is reported, then answered
        self.notify_hooks("PreCompact", "reactive", messages)
        before, count = tokens.count_messages(messages), len(messages)
        messages[:] = reactive_compact(messages, client=self.client, model=self.model,
                                       transcript=self.transcript, keep_tail=self.reactive_keep_tail,
                                       max_attempts=self.reactive_attempts, too_long=prompt_too_long(error),
                                       where=self.display_path(self.transcript.path))  # the API's numbers size it
        self.log_unseen(messages)  # the summary message is new: on disk before the retry
        sent, maximum = prompt_too_long(error)
        self.compacted("reactive", messages, before, count,
                       f"prompt too long ({sent} tokens > {maximum} maximum): {count} -> {len(messages)} "
                       f"messages (a summary, then the newest turns); transcript: "
                       f"{self.display_path(self.transcript.path)}")

    def call_model(self, messages: list):
        """s05/s06's request (prepare, then send); on prompt-too-long, compact and retry once."""
        try:  # 1. s05/s06's request: prepare (the scheduled layers), then send
            return super().call_model(messages)
        except anthropic.BadRequestError as error:
            if prompt_too_long(error) is None:  # another 400: not ours to fix
                raise
            self.reactive(messages, error)  # 2. the API said no: summary + the newest turns, in place
        try:  # 3. retry ONCE
            return super().call_model(messages)
        except anthropic.BadRequestError as error:
            limits = prompt_too_long(error)
            if limits is None:
                raise
            self.emit("error", error=error)  # too long again: stop with one clear line, never spin
            raise ReactiveCompactError(f"the request is still too long after reactive compaction "
                                       f"({limits[0]} tokens > {limits[1]} maximum): the summary and "
                                       "the newest turn alone do not fit") from None


def agent_loop(messages: list, *, client, **options) -> str:
    """The s07 loop as one function: run `messages` (ending with a user turn) to the end."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    return Agent(client, **options).loop(messages)
