"""The API's own context management, as strategies: server-side compaction and tool-result clearing.

Motto: what the API would do on its side, priced as the API bills it.

    compact_20260112          input > trigger (150,000 by default, 50,000 at least)?
      request t: [ ....... history ....... ]  ──> compaction pass: the same request, same model,
                                                   writes a summary (a `compaction` block)
                 [ summary ]                   ──> the model answers from the summary
      request t+1: [ summary, a_t, r_t ]       the API ignores everything before the block
    clear_tool_uses_20250919  baselines.ContextEditing, with the options the API defines:
      trigger (100,000 input tokens), keep (3 tool uses), clear_at_least (none: if a clearing
      cannot reclaim that much, nothing is cleared), exclude_tools (never cleared),
      clear_tool_inputs (also empty the cleared calls' inputs: true, or a list of tool names; default
      false). Which results a clearing takes and when clear_at_least stops it: baselines.py

Server-side compaction (beta `compact-2026-01-12`, edit `compact_20260112`) as
Anthropic documents it: when a request's input tokens pass `trigger`, the API
summarises the conversation with the same model before answering, returns the
summary as a `compaction` block at the start of the response, and on later
requests drops everything before that block. Its cost: the compaction pass is a
sampling iteration billed on its own (usage.iterations), its input the whole
request (read from the prompt cache where it can be), its output the summary;
the answer is then sampled from the summary alone. Here the pass is accounted
with Context.account (the request as sent, cached, plus the summary as output)
and the summary is the offline model's own, from the same conversation (summary
text: offline.answers.summarize, at SUMMARY_TOKENS). `instructions` (which
replace the default prompt) and `pause_after_compaction` change nothing a fixed
trajectory can show. The window is scaled like every token threshold (registry.py).

Not modeled: the block's exact token overhead; thinking blocks (clear_thinking_20251015).
"""

from __future__ import annotations

from offline.answers.summarize import summarize

from .baselines import ContextEditing

COMPACT_TRIGGER = 150_000     # tokens: the API's default trigger for compact_20260112
COMPACT_MINIMUM = 50_000      # tokens: the smallest trigger the API accepts
SUMMARY_TOKENS = 4_096        # max_tokens of the offline summary (the API does not document its own)
SUMMARY_PREFIX = "This is a summary of the conversation so far (server-side compaction):\n\n"
INSTRUCTION = "Summarize the conversation so far, keeping what is needed to continue the task."


class ServerCompaction:
    """compact_20260112: past `trigger` input tokens, the API summarises and continues from the summary."""

    def __init__(self, trigger: int = COMPACT_TRIGGER, minimum: int = COMPACT_MINIMUM):
        if trigger < minimum:
            raise ValueError(f"compact_20260112: trigger {trigger:,} is below the API's minimum {minimum:,}")
        self.trigger, self.name = trigger, "api-compact"

    def start(self, session, ctx):
        self.ctx, self.summary, self.after = ctx, None, 0

    def _view(self, history: list) -> list:
        head = [{"role": "user", "content": [{"type": "text", "text": SUMMARY_PREFIX + self.summary}]}] \
            if self.summary is not None else []
        return head + list(history[self.after:])

    def request(self, history):
        view = self._view(history)
        if self.ctx.tokens(view) > self.trigger:
            # The compaction pass: this request, sent whole, answered by the summary.
            self.summary = summarize(view, SUMMARY_TOKENS)
            self.ctx.account(view, INSTRUCTION, self.summary)     # context.bill_summary
            self.after = len(history)
            self.ctx.note("compact")
            view = self._view(history)
        return view


class ServerClearing(ContextEditing):
    """clear_tool_uses_20250919 with all its options: exclude_tools and clear_tool_inputs as well."""

    def __init__(self, trigger: int = 100_000, keep: int = 3, clear_at_least: int = 0,
                 exclude_tools=(), clear_tool_inputs=False):
        """`clear_tool_inputs`: True (every cleared call's input) or a list of tool names, as the API takes."""
        super().__init__(trigger=trigger, keep=keep, clear_at_least=clear_at_least)
        self.exclude = set(exclude_tools)
        self.inputs = clear_tool_inputs if isinstance(clear_tool_inputs, bool) else set(clear_tool_inputs)

    def start(self, session, ctx):
        super().start(session, ctx)
        self.names = {}

    def request(self, history):
        for m in history[self.seen:]:
            for b in m.get("content") if isinstance(m.get("content"), list) else []:
                if b.get("type") == "tool_use":
                    self.names[b.get("id")] = b.get("name")
        if self.exclude:      # excluded tools' results are never candidates: mark them cleared already
            self.cleared = self.cleared | {i for i, n in self.names.items() if n in self.exclude}
        before = set(self.cleared)
        view = super().request(history)
        if self.inputs and self.cleared - before:
            ids = {i for i in self.cleared if self.names.get(i) not in self.exclude
                   and (self.inputs is True or self.names.get(i) in self.inputs)}
            self.view = view = [_clear_inputs(m, ids) for m in view]
        return view


def _clear_inputs(message: dict, ids: set) -> dict:
    if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
        return message
    if not any(b.get("type") == "tool_use" and b.get("id") in ids and b.get("input") for b in message["content"]):
        return message
    return {**message, "content": [{**b, "input": {}} if b.get("type") == "tool_use" and b.get("id") in ids
                                   else b for b in message["content"]]}
