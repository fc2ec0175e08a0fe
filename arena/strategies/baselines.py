"""Baselines that make no summary call: none, context editing, observation masking, recorded.

Motto: the cheapest compaction is deleting what nobody will read again.

    none             [u a r a r a r a r]                      everything, every turn
    context editing  [u a · a · a · a r a r a r]   > trigger: oldest results -> "[cleared]"
    masking (N=10)   [u a · a · a r ... a r]       every turn: all but the last N results masked
    recorded         [S a r a r]                   what Claude Code really sent after its compaction

Context editing follows Anthropic's `clear_tool_uses_20250919` as documented
(https://docs.claude.com/en/docs/build-with-claude/context-editing): once the
input exceeds `trigger` (100,000 tokens), the oldest tool results are cleared,
keeping the last `keep` (3) tool uses; `clear_at_least` asks each clearing to
reclaim at least that many tokens, and if it cannot, nothing is cleared. The docs
leave two things open, which we take from LangChain's ClearToolUsesEdit, a
public re-implementation that "mirrors Anthropic's clear_tool_uses_20250919"
(langchain_v1/langchain/agents/middleware/context_editing.py): results once
cleared stay cleared and are skipped (so the docs' "subsequent requests can reuse
the newly cached prefix" holds), and with `clear_at_least` clearing stops as soon
as enough tokens are reclaimed. The placeholder text is LangChain's "[cleared]".
The docs' own example of `clear_at_least` uses 5,000 tokens: so do we.

Observation masking is SWE-agent's LastNObservations as used in "The Complexity
Trap" (Lindenbauer et al., 2025, arXiv:2508.21433) with a window of 10: every
tool result but the last 10 reads "Old environment output: (N lines omitted)".
The window slides every turn (SWE-agent's polling=1), which rewrites a result near
the end of the prefix each turn: the cache pays for that.

Recorded replays the context the recording agent actually had: after a compaction
summary recorded in the trace (Claude Code's), the request is that summary, the files
Claude Code re-attaches after it (harness.reattached), and what followed; the summary
call (not a request line of the log) is billed as Claude Code makes it: the conversation
before the boundary plus a compaction instruction, the recorded summary as its output
(context.bill_summary: the cached prefix read, the instruction written).

Not modeled here: `exclude_tools`, `clear_tool_inputs` (api_side.py adds them); SWE-agent's tag overrides.
"""

from __future__ import annotations

from ..bills.calibration import logged_input
from ..bills.log_events import AFTER_COMPACTION
from ..sessions.edits import replace_result, result_positions, result_text
from ..sessions.harness import reattached

PLACEHOLDER = "[cleared]"
MASK = "Old environment output: ({n} lines omitted)"
COMPACT_INSTRUCTION = ("Your task is to create a detailed summary of the conversation so far, paying close "
                       "attention to the user's explicit requests and your previous actions.")


class NoCompaction:
    """The whole history, every turn: the baseline every other strategy is measured against."""
    name = "none"

    def start(self, session, ctx):
        pass

    def request(self, history):
        return list(history)


class _View:
    """A strategy's own copy of the history: new messages are appended as they arrive."""

    def start(self, session, ctx):
        self.ctx, self.view, self.seen = ctx, [], 0

    def sync(self, history):
        self.view.extend(history[self.seen:])
        self.seen = len(history)


class ContextEditing(_View):
    """Anthropic's clear_tool_uses_20250919: past `trigger` tokens, clear the oldest tool results."""

    def __init__(self, trigger: int = 100_000, keep: int = 3, clear_at_least: int = 0,
                 placeholder: str = PLACEHOLDER):
        if trigger < 1 or keep < 0 or clear_at_least < 0:
            raise ValueError("ContextEditing: trigger must be >= 1, keep and clear_at_least >= 0")
        self.trigger, self.keep, self.clear_at_least = trigger, keep, clear_at_least
        self.placeholder = placeholder
        self.name = "ctx-edit" + (f"+{clear_at_least // 1000}k" if clear_at_least else "")

    def start(self, session, ctx):
        super().start(session, ctx)
        self.cleared: set = set()

    def request(self, history):
        self.sync(history)
        if self.ctx.tokens(self.view) > self.trigger:
            self._clear()
        return list(self.view)

    def _clear(self):
        positions = result_positions(self.view)
        candidates = positions[:-self.keep] if self.keep else positions
        edited, reclaimed, ids = list(self.view), 0, []
        for i, k in candidates:
            block = edited[i]["content"][k]
            if block.get("tool_use_id") in self.cleared:
                continue
            before = self.ctx.message_tokens(edited[i])
            edited[i] = replace_result(edited[i], k, self.placeholder)
            reclaimed += before - self.ctx.message_tokens(edited[i])
            ids.append(block.get("tool_use_id"))
            if self.clear_at_least and reclaimed >= self.clear_at_least:
                break
        if not ids or (self.clear_at_least and reclaimed < self.clear_at_least):
            return  # nothing to clear, or not enough to be worth it: the docs say nothing is applied
        self.view, self.cleared = edited, self.cleared | set(ids)
        self.ctx.note("clear")


class ObservationMasking:
    """SWE-agent's LastNObservations (n=10): mask every tool result but the last n."""

    def __init__(self, n: int = 10):
        if n < 0:
            raise ValueError("ObservationMasking: n must be >= 0")
        self.n = n
        self.name = f"masking-{n}"

    def start(self, session, ctx):
        self.ctx, self.lines = ctx, {}

    def _mask(self, block) -> str:
        key = block.get("tool_use_id")
        if key not in self.lines:
            self.lines[key] = MASK.format(n=len(result_text(block).splitlines()))
        return self.lines[key]

    def request(self, history):
        positions = result_positions(history)
        masked = positions[:-self.n] if self.n else positions
        view = list(history)
        for i, k in masked:
            view[i] = replace_result(view[i], k, self._mask(view[i]["content"][k]))
        return view


class Recorded:
    """What the recording agent (Claude Code) sent: its own compaction summaries, replayed."""
    name = "recorded"

    @staticmethod
    def applies(session) -> bool:
        return bool(session.recorded)

    def start(self, session, ctx):
        self.ctx, self.summaries, self.accounted, self.restored = ctx, sorted(session.recorded), set(), {}
        self.session = session

    def request(self, history):
        index = len(history)
        done = [(i, text) for i, text in self.summaries if i < index]
        if not done:
            return list(history)
        at, text = done[-1]
        if at not in self.accounted:  # the compaction call, billed from what the log states of it
            self.accounted.add(at)
            k = len(done) - 1
            sent = _before(history, at, text)        # the conversation so far, as Claude Code last sent it:
            if k:                                      # after an earlier compaction, from its summary on
                sent = self._compacted(sent, *done[-2])
            stated = compaction_call(self.session, k)
            if stated is None:        # nothing stated: the call as Claude Code makes it (context.bill_summary)
                self.ctx.account(sent, COMPACT_INSTRUCTION, text)
            else:
                self.ctx.stated_summary(stated, text)
            self.ctx.note("recorded")
            self.restored[at] = self._restore(history, at, text)   # what Claude Code attached after it
        return self._compacted(history, at, text)

    def _compacted(self, history, at, text):
        """What Claude Code sent after its compaction at `at`: the summary, what it attached, what followed."""
        return [{"role": "user", "content": [{"type": "text", "text": text}] + self.restored.get(at, [])}] + \
            list(history[at + 1:])

    def _restore(self, history, at, text) -> list:
        """What Claude Code sent after its summary, before the messages since: the files it re-attaches
        (harness.reattached, newest first) as far as the log's first request after the compaction has room
        for them, and a stand-in for what that request held beyond them (the log states its size, which
        wins over the model of what Claude Code attaches: a version that attaches fewer files, or none, is
        replayed as it was). Without a logged size, every file harness.reattached rebuilds."""
        files = reattached(history[:at + 1])
        usage, t = self.session.usage, self.ctx.turn
        logged = logged_input(usage[t]) if t < len(usage) else None
        if logged is None or getattr(self.session, "bill_model", None) is None:
            return files
        kept = []
        for block in files:                      # newest first: keep each file the logged size has room for
            self.restored[at] = kept + [block]
            if self.ctx.tokens(self._compacted(history, at, text)) <= logged:
                kept.append(block)
        self.restored[at] = kept
        missing = logged - self.ctx.tokens(self._compacted(history, at, text))
        return kept + ([{"type": "text", "text": AFTER_COMPACTION.format(n=missing)}] if missing >= 1 else [])


def compaction_call(session, k: int) -> dict | None:
    """What the log states of Claude Code's k-th compaction call, as a usage dict, or None:
    the call's own usage (an agent-acompact-* file), else the result line's modelUsage less the logged
    requests (stream-json: the only unlogged calls of the main model; shared over the compactions by their
    preTokens), else its preTokens: the whole compacted history written to the cache (the call's body;
    Claude Code's compaction call reads nothing, as every log that holds it shows), the output counted."""
    stated = session.compactions[k] if k < len(session.compactions) else {}
    if isinstance(stated.get("usage"), dict):
        return dict(stated["usage"])
    extra = unlogged_calls(session)
    pre = [c.get("pre_tokens") or 0 for c in session.compactions] or [0]
    if extra is not None and len(session.compactions) > k:
        share = pre[k] / sum(pre) if sum(pre) else 1 / len(session.compactions)
        return {key: round(v * share) for key, v in extra.items()}
    if isinstance(stated.get("pre_tokens"), int) and stated["pre_tokens"] > 0:
        return {"cache_creation_input_tokens": stated["pre_tokens"], "output_tokens": None}
    return None


def unlogged_calls(session) -> dict | None:
    """The main model's usage the result line's modelUsage counts and no request line of the log holds (its
    request lines' sum, a retry and the subagents' included; the output as the result line states it): of each
    kind at least 0 (a request line modelUsage does not count takes nothing off the others)."""
    models = [m for m in session.models if m]
    result = getattr(session, "result_usage", None) or {}
    if not models or not session.model_usage or not result:
        return None
    main = max(set(models), key=models.count)
    found = session.model_usage.get(main) or {}
    pairs = {"input_tokens": "inputTokens", "cache_creation_input_tokens": "cacheCreationInputTokens",
             "cache_read_input_tokens": "cacheReadInputTokens", "output_tokens": "outputTokens"}
    extra = {k: max(0, int(found.get(v) or 0) - int(result.get(k) or 0)) for k, v in pairs.items()}
    return extra if any(extra.values()) else None


def _before(history: list, at: int, summary: str) -> list:
    """The conversation Claude Code's compaction call sends: what precedes the summary, and what the
    summary's own message holds besides it (tool results the last call awaits).
    Example: [u, a(tool_use), u(result + summary)] -> [u, a(tool_use), u(result)]"""
    content = history[at].get("content")
    rest = [b for b in content if not (isinstance(b, dict) and b.get("type") == "text" and summary in
                                       str(b.get("text", "")))] if isinstance(content, list) else []
    return list(history[:at]) + ([{**history[at], "content": rest}] if rest else [])
