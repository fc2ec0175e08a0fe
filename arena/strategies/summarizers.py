"""Summarising baselines from two frameworks: OpenHands' condenser and LangChain's middleware.

Motto: a summary is a lossy cache miss you pay for twice: once to write it, once to re-read the rest.

    OpenHands LLMSummarizingCondenser (max_size=100, keep_first=1)
      events > 100 ──> [first event][summary of forgotten events + previous summary][last 48 events]
    LangChain SummarizationMiddleware (trigger 0.8 of the window, keep 20 messages)
      tokens > 160K ──> [Human "Here is a summary of the conversation to date: ..."][last 20 messages]

OpenHands (openhands/memory/condenser/impl/llm_summarizing_condenser.py, read
for this module): when the view holds more than `max_size` events it keeps the
first `keep_first` events and the last `max_size // 2 - keep_first - 1`, and asks
an LLM to fold the previous summary and the forgotten events (each cut to
`max_event_length` = 10,000 characters, head and tail) into a new summary; it turns
prompt caching off for that call. Events here: each tool call (an assistant
message's text rides with its first call) and each tool result is one event, a
text message is one. The kept tail is moved forward to start at an assistant
message, so no tool result loses its call.

LangChain (langchain_v1/langchain/agents/middleware/summarization.py, read for
this module): `trigger=("fraction", 0.8)` of the model's input limit (our window),
`keep=("messages", 20)`. The cut moves back to the assistant message whose calls
a kept tool result answers. Only the last `trim_tokens_to_summarize` (4,000)
tokens of the part to summarise are sent, starting at a human message
(`trim_messages(strategy="last", start_on="human", allow_partial=True)`); when
no human message fits, LangChain does not call the model and the summary is
"Previous conversation was too long to summarize." Messages are counted in the
Messages-API shape (one user message carries all the results of a turn).

Both summary calls go to the offline model as one user message: an instruction
(paraphrased from each framework's prompt) and the messages as JSON lines, which
the offline summariser reads. Both get `max_tokens` = 4,096 (neither framework
sets one; 4,096 is the kit's choice, stated here).

Not modeled: OpenHands' condensation requests from the agent, LangChain's token
counter (we count with lessonkit.tokens, like every other strategy).
"""

from __future__ import annotations

from lessonkit import tokens

from ..sessions.edits import blocks, has_text, is_results, render, safe_start, with_text_first
from .baselines import _View

SUMMARY_MAX_TOKENS = 4_096
OPENHANDS_PROMPT = (
    "You maintain a state summary for an interactive coding agent. Summarize the events below, "
    "merging the previous summary: keep the user's goals, completed and pending tasks, the current "
    "state, file paths and code changes, failing tests and error messages.")
LANGCHAIN_PROMPT = (
    "Extract the most important context from the conversation history below, to replace it: "
    "summarize what the user wants, what has been done, and what must not be repeated.")
LANGCHAIN_PREFIX = "Here is a summary of the conversation to date:\n\n"
TOO_LONG = "Previous conversation was too long to summarize."


def events_in(message: dict) -> int:
    """How many OpenHands events a message holds (calls, results, text messages)."""
    if message.get("role") == "assistant":
        return max(1, sum(1 for b in blocks(message) if b.get("type") == "tool_use"))
    results = sum(1 for b in blocks(message) if b.get("type") == "tool_result")
    return results + (1 if has_text(message) else 0)


class OpenHandsCondenser(_View):
    """OpenHands' LLMSummarizingCondenser: forget the middle once the view passes max_size events."""

    def __init__(self, max_size: int = 100, keep_first: int = 1, max_event_length: int = 10_000):
        if keep_first < 0 or keep_first >= max_size // 2:
            raise ValueError(f"keep_first ({keep_first}) must be >= 0 and less than half of "
                             f"max_size ({max_size})")
        self.max_size, self.keep_first, self.max_event_length = max_size, keep_first, max_event_length
        self.name = "openhands"

    def start(self, session, ctx):
        super().start(session, ctx)
        self.summary = None

    def _head(self) -> list:
        return self.view[:1] if self.keep_first else []

    def _size(self) -> int:
        return sum(events_in(m) for m in self.view) + (1 if self.summary is not None else 0)

    def request(self, history):
        self.sync(history)
        if self._size() > self.max_size:
            self._condense()
        head, tail = self._head(), self.view[len(self._head()):]
        if self.summary is None or not head:
            return list(self.view)
        return [_append_text(head[0], self.summary)] + tail

    def _condense(self):
        head = self._head()
        tail = self.view[len(head):]
        budget, keep_from = self.max_size // 2 - len(head) - 1, len(tail)
        while keep_from > 0 and budget - events_in(tail[keep_from - 1]) >= 0:
            budget -= events_in(tail[keep_from - 1])
            keep_from -= 1
        keep_from = safe_start(tail, keep_from)
        forgotten = tail[:keep_from]
        if not forgotten:
            return
        previous = f"## Previous Summary\n{self.summary}\n\n" if self.summary else ""
        text = (f"{OPENHANDS_PROMPT}\n\n{previous}## Events\n"
                f"{render(forgotten, limit=self.max_event_length, tag='EVENT')}\n\n"
                "Now summarize the events using the rules above.")
        self.summary = self.ctx.summarize(text, max_tokens=SUMMARY_MAX_TOKENS) or "(empty summary)"
        self.view = head + tail[keep_from:]
        self.ctx.note("summarize")


def _append_text(message: dict, text: str) -> dict:
    content = message.get("content")
    content = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    return {**message, "content": content + [{"type": "text", "text": text}]}


def trim_last(messages: list, max_tokens: int) -> list:
    """LangChain's trim_messages(strategy="last", start_on="human", allow_partial=True), approximately.

    Keep the longest suffix within `max_tokens`; the first message that does not fit
    enters with its last lines if it is a human (user text) message; then drop
    messages from the front until one is a human message. Example: no human message
    in the last 4,000 tokens -> []
    """
    kept, used = [], 0
    for msg in reversed(messages):
        n = tokens.count_message(msg)
        if used + n <= max_tokens:
            kept.append(msg)
            used += n
            continue
        if msg.get("role") == "user" and has_text(msg):
            text = "\n".join(b.get("text", "") for b in blocks(msg) if b.get("type") == "text") \
                if isinstance(msg.get("content"), list) else msg["content"]
            lines, part = text.splitlines(), []
            while lines and tokens.count_text("\n".join([lines[-1]] + part)) + used + 3 <= max_tokens:
                part.insert(0, lines.pop())
            if part:
                kept.append({"role": "user", "content": "\n".join(part)})
        break
    kept.reverse()
    while kept and not (kept[0].get("role") == "user" and has_text(kept[0])):
        kept.pop(0)
    return kept


class LangChainSummarization(_View):
    """LangChain's SummarizationMiddleware: over a fraction of the window, summarise all but 20 messages."""

    def __init__(self, fraction: float = 0.8, keep: int = 20, trim_tokens: int = 4_000):
        if not 0 < fraction <= 1 or keep < 0 or trim_tokens < 1:
            raise ValueError("LangChainSummarization: fraction in (0, 1], keep >= 0, trim_tokens >= 1")
        self.fraction, self.keep, self.trim_tokens = fraction, keep, trim_tokens
        self.name = "langchain"

    def request(self, history):
        self.sync(history)
        if self.ctx.tokens(self.view) >= self.fraction * self.ctx.window:
            self._summarize()
        return list(self.view)

    def _summarize(self):
        cutoff = len(self.view) - self.keep
        if cutoff <= 0:
            return
        if is_results(self.view[cutoff]):
            cutoff -= 1   # a kept tool result pulls its assistant message in with it
        if cutoff <= 0:
            return
        trimmed = trim_last(self.view[:cutoff], self.trim_tokens)
        if trimmed:
            summary = self.ctx.summarize(f"{LANGCHAIN_PROMPT}\n\n<messages>\nMessages to summarize:\n"
                                         f"{render(trimmed)}\n</messages>", max_tokens=SUMMARY_MAX_TOKENS)
        else:
            summary = TOO_LONG
        preserved = self.view[cutoff:]
        text = LANGCHAIN_PREFIX + (summary or TOO_LONG)
        if preserved and preserved[0].get("role") == "user":
            self.view = [with_text_first(preserved[0], text)] + preserved[1:]
        else:
            self.view = [{"role": "user", "content": text}] + preserved
        self.ctx.note("summarize")
