"""Layer 3's memory: a rolling summary, and the prompt that asks the model to extend it.

Example: SummaryBuffer().render([user "Read settings.conf", assistant + read_file call, user + its result])
  -> ["USER: Read settings.conf",
      "ASSISTANT: I'll read the config file.", '  [Tool Calls: read_file(path="settings.conf")]',
      "USER:", "  [Tool Results: server.port=8080 log.level=debug]"]   (the result's newline folded)
"""

from __future__ import annotations

import json
import re

from s01_loop import check_int, check_type
from s07_reactive.pairs import blocks

TOOL_RESULT_PREVIEW_LENGTH = 100  # characters of a tool result in the prompt (not modeled: a budget for texts)
SUMMARY_TAG = "[Summary]"
SUMMARY_INSTRUCTION = (
    "You are a conversation summarizer. Your task is to create a concise "
    "but comprehensive conversation summary. Focus on:\n"
    "1. Key decisions and actions taken\n"
    "2. Important information discovered (file contents, command outputs)\n"
    "3. The user's explicit requests and preferences\n"
    "4. Any errors encountered and how they were resolved\n\n"
    "Write the summary in plain English. It will be inserted into the "
    "conversation history to help the assistant remember what happened "
    "earlier. Be factual and specific — include file paths, command names, "
    "and key findings.")
# Rolling: compaction 1 turns [m0 … m20] into S1; compaction 2 sends "## Previous Summary" S1 + [m21 … m40],
# and S2 keeps what S1 kept.
INCORPORATE = ("Incorporate the above previous summary with the new messages below "
               "into a single updated summary.")
# Texts that compaction layers write at the start of a user text block: never summarised as if the user said them
# (earlier summaries join the previous summary, snip and truncation markers are left out).
SUMMARIES = re.compile(r"^\[(Summary|Compacted|Reactive compact)\]\s*")
MARKERS = re.compile(r"^\[(snipped \d+ messages?|Truncated \d+ messages?)\]")


def one_line(text: str, limit: int | None = None) -> str:
    """Whitespace folded to single spaces, cut to `limit` characters with '...'."""
    check_type(text, str, "text")
    if limit is not None:
        check_int(limit, "limit", 0)
    text = " ".join(text.split())
    return text if limit is None or len(text) <= limit else text[:limit] + "..."


def _call(block: dict) -> str:
    """A tool call as name(key="value", ...). Example: read_file(path="a.py")"""
    # Changed from the seed, which listed bare names: with its inputs, the summary can say which file was read.
    args = ", ".join(f"{k}={json.dumps(one_line(v, 80) if isinstance(v, str) else v, ensure_ascii=False)}"
                     for k, v in (block.get("input") or {}).items())
    return f"{block.get('name', 'tool')}({args})"


def _result(block: dict) -> str:
    content = block.get("content", "")
    if not isinstance(content, str):
        content = " ".join(b.get("text", "") for b in content if isinstance(b, dict))
    preview = one_line(content, TOOL_RESULT_PREVIEW_LENGTH)  # one line (the seed kept newlines, breaking the format)
    return f"error: {preview}" if block.get("is_error") else preview


class SummaryBuffer:
    """The rolling summary (None before the first compaction) and its prompt."""

    def __init__(self):
        self.current_summary: str | None = None

    def update(self, new_summary: str) -> None:
        """Replace the summary with one that already incorporates it (rolling update)."""
        self.current_summary = new_summary

    def clear(self) -> None:
        self.current_summary = None

    def previous(self, old_messages: list) -> str | None:
        """The summary so far: the buffer's, plus summaries by other layers in `old_messages`."""
        found = []
        for msg in old_messages:
            for b in blocks(msg):
                m = SUMMARIES.match(b.get("text", "")) if b.get("type") == "text" else None
                if m and not (m.group(1) == "Summary" and self.current_summary):
                    found.append(b["text"][m.end():].strip())
        parts = ([self.current_summary] if self.current_summary else []) + found
        return "\n\n".join(parts) or None

    def render(self, old_messages: list) -> list[str]:
        """The messages as labelled lines (summaries and markers left out)."""
        lines = []
        for msg in old_messages:
            texts, calls, results = [], [], []
            for b in blocks(msg):
                kind, text = b.get("type"), b.get("text", "")
                if kind == "text" and text.strip() and not (SUMMARIES.match(text) or MARKERS.match(text)):
                    texts.append(text.strip())
                elif kind == "tool_use":
                    calls.append(_call(b))
                elif kind == "tool_result":
                    results.append(_result(b))
            if not (texts or calls or results):
                continue  # a message that was only a summary or a marker
            lines.append(f"{msg['role'].upper()}: {chr(10).join(texts)}".rstrip())
            if calls:
                lines.append(f"  [Tool Calls: {', '.join(calls)}]")
            if results:
                lines.append(f"  [Tool Results: {', '.join(results)}]")
        return lines

    def build_summary_prompt(self, old_messages: list) -> str:
        """The request text: instruction, previous summary (if any), then the messages."""
        lines = [SUMMARY_INSTRUCTION, ""]
        previous = self.previous(old_messages)
        if previous:
            lines += ["## Previous Summary", previous, "", INCORPORATE, ""]
        lines += ["## Messages to Summarize", ""] + self.render(old_messages)
        return "\n".join(lines) + "\n"
