"""s08 · Compact4: the four-layer compactor in the loop, before each request and after a cut-off answer.

Motto: estimate before you send, summarise what is old, truncate only when you must.

    ask ──> messages ──> prepare(messages): transcript, budget, snip, micro (s05-s07), then
               ^           auto -> NEW: compactor.should_compact? (estimate >= 80% of the window)
               │                    │ yes (or the model called `compact`)
               │                    v
               │           compact: safe cut -> "[Summary]" rolling summary (1 API call)
               │                    still >= 95%? -> emergency_truncate ("[Truncated N messages]")
               │           each layer: PreCompact hook, "compact" event, on_compact(CompactEvent)
               │                    │
               │                    v
               │           client.messages.create ── 400 too long: s07's reactive compaction
               │                    │
               │           stop_reason == "max_tokens"? ── NEW: compact and retry the turn
               │                    │                     (nothing to compact: keep the cut answer)
               └──── tools and one user message with every tool_result

New in s08: ContextCompactor (compactor.py) replaces s06's summary as the `auto` layer:
a trigger at a share of the window (config.py), the newest ~50% kept verbatim behind a
safe cut, a rolling summary, an emergency truncation; the max_tokens retry; `on_compact`.
Builds on s07: snip, micro, reactive compaction, the transcript; s06's `compact` tool.
Seed: the four-layer seed, ContextCompactor in Kotlin (s01 says what the seeds are).
Not modeled: the estimate of system prompt and tools (the seed estimates messages
only), compaction in the middle of a turn's tool calls.
"""

from __future__ import annotations

from lessonkit import tokens, window_of  # window_of: the window a kit client was made with, if any
from s01_loop import check_history
from s07_reactive import Agent as ReactiveAgent

from .compactor import ContextCompactor
from .config import CompactEvent, CompactionConfig

MAX_TOKENS_RETRIES = 3  # compactions for one turn cut off by max_tokens, before its answer is kept
MANUAL_KEEP = 1         # messages a `compact` tool call keeps verbatim (moved back to a safe cut)


class Agent(ReactiveAgent):
    """The s07 agent whose auto layer is the four-layer ContextCompactor (s06's threshold and breaker unused).

    Example: Agent(make_client(context_window=6_000), workspace=ws,
                   on_compact=lambda e: print(e.layer.value, e.tokens_before, "->", e.tokens_after))
    """

    def __init__(self, client, *, compaction: CompactionConfig | None = None,
                 compactor: ContextCompactor | None = None, context_window: int | None = None,
                 on_compact=None, **options):
        if compaction is not None and compactor is not None:
            raise ValueError("give compaction (a CompactionConfig) or a ready compactor, not both")
        if context_window is not None and (compaction is not None or compactor is not None):
            raise ValueError("give context_window, or a compaction/compactor that holds the window, not both")
        super().__init__(client, **options)
        # The window is passed in: context_window, or a compaction config holding it, or a ready compactor
        # (one on another client, say); given none, the window the kit's client enforces, else 200,000.
        if compactor is None:
            if compaction is None:
                window = context_window if context_window is not None else window_of(client)
                compaction = CompactionConfig(context_window=window) if window else CompactionConfig()
            compactor = ContextCompactor(client, compaction, model=self.model)
        self.compactor, self.on_compact = compactor, on_compact
        compactor.before_layer, compactor.after_layer = self._pre_compact, self._compacted  # hooks and events
        self._before: tuple[int, int] = (0, 0)

    # ---- the compactor's two callbacks -----------------------------------------------------
    def _pre_compact(self, layer: str, history: list) -> None:
        """Before a layer changes the history: PreCompact hooks; remember the real token count."""
        self.notify_hooks("PreCompact", layer, history)
        self._before = (tokens.count_messages(history), len(history))

    def _compacted(self, event: CompactEvent, history: list) -> None:
        """After a layer changed the history: log what is new, "compact" event, on_compact(event)."""
        self.log_unseen(history)
        dropped = event.messages_before - event.messages_after
        note = event.summary_text or f"{dropped} message{'' if dropped == 1 else 's'} dropped"
        self.compacted(event.layer.value, history, *self._before,
                       f"{note} (estimate {event.tokens_before} -> {event.tokens_after}; "
                       f"transcript: {self.display_path(self.transcript.path)})")
        if self.on_compact:
            self.on_compact(event)

    def compact(self, messages: list, keep_recent_count: int | None = None) -> CompactEvent | None:
        """Run the compactor on the live history (in place); its last event, or None."""
        self.compactor.transcript = self.display_path(self.transcript.path)  # named in its summary and marker
        return self.compactor.compact(messages, keep_recent_count)

    # ---- before the request: the proactive check -------------------------------------------
    def auto(self, messages: list) -> None:
        """s06's layer 3, now the compactor: over the trigger ratio, or when the model asked."""
        if self.compact_request is not None:  # the `compact` tool: the model wants the room now
            self.compact_request = None  # (its `focus` is not modeled here)
            self.compact(messages, keep_recent_count=MANUAL_KEEP)  # only the newest turn kept, however small
        elif self.compactor.should_compact(messages):  # layer 1: the estimate over 80% of the window
            self.compact(messages)  # layers 2-4

    # ---- after the request: a cut-off answer -----------------------------------------------
    def call_model(self, messages: list):
        """s07's request; an answer cut off by max_tokens -> compact and retry the turn."""
        response = super().call_model(messages)  # s07: prepare, send, and on prompt-too-long compact and retry
        for _ in range(MAX_TOKENS_RETRIES):  # the seed's MAX_TOKENS retry: compact, then ask for the turn again
            if response.stop_reason != "max_tokens" or self.compact(messages) is None:
                break  # a whole answer, or nothing left to compact: the loop keeps this one
            response = super().call_model(messages)  # the same turn, on the compacted history
        return response


def agent_loop(messages: list, *, client, **options) -> str:
    """The s08 loop as one function: run `messages` (ending with a user turn) to the end."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    return Agent(client, **options).loop(messages)
