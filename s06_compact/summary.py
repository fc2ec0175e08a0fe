"""Layer 2, the summary: one extra API call turns the whole history into one user message.

Example: summary_message("1. User requests:\n- fix a.py", "s.jsonl", 12)
  -> {"role": "user", "content": "[Compacted] 12 earlier messages were summarized ... in s.jsonl.\n\n1. User ..."}
"""

from __future__ import annotations

import json
import os
import re

from s01_loop import check_client, check_history, check_int, check_type

SUMMARY_MAX_TOKENS = 2_000    # a longer summary is used as it was cut
SUMMARY_INPUT_CHARS = 80_000  # characters of history JSON sent with the prompt
# The three-layer seed's six sections (the offline model fills them extractively, Claude in prose).
SECTIONS = ("User requests", "Technical concepts", "Files and code", "Errors and fixes",
            "Pending tasks", "Current work")
PROMPT = ("Summarize the conversation below so that the work can continue from the summary alone.\n"
          "Write these sections, each a list of '- ' bullets:\n"
          + "\n".join(f"{i}. {name}:" for i, name in enumerate(SECTIONS, 1)) +
          "\nKeep exact file paths, commands, error messages and step counters like (3/8).\n"
          "First think in <analysis>...</analysis>, then give the final summary in <summary>...</summary>.")
CONTINUE = ("Continue from where the work stopped: finish the pending tasks, and do not redo "
            "the steps the summary says are done.")
_SUMMARY = re.compile(r"<summary>\s*(.*?)\s*(?:</summary>|$)", re.DOTALL)
_ANALYSIS = re.compile(r"<analysis>.*?(?:</analysis>|$)", re.DOTALL)


class SummaryError(RuntimeError):
    """The summary call answered, but with nothing usable."""


def dump_history(messages: list, max_chars: int = SUMMARY_INPUT_CHARS) -> tuple[str, int]:
    """The history as a JSON list of whole messages, and how many were left out.

    Example: 40 messages of 4,000 characters, max_chars=80_000 -> the first + the newest 18, 21 left out
    """
    check_history(messages)  # a malformed history: one ValueError naming the message
    check_int(max_chars, "max_chars", 1)
    # Fixed from the seed: json.dumps(messages)[:80000] cut a message in half and kept the OLDEST 80,000
    # characters, losing the current work first. Here: whole messages, the first (the task), then the newest.
    parts = [json.dumps(m, ensure_ascii=False, default=str) for m in messages]  # images: dumped as their JSON
    if not parts:
        return "[]", 0
    room = max_chars - len(parts[0]) - 2
    newest = []
    for part in reversed(parts[1:]):
        if len(part) + 2 > room:
            break
        newest.append(part)
        room -= len(part) + 2
    kept = [parts[0], *reversed(newest)]
    return "[" + ",\n".join(kept) + "]", len(parts) - len(kept)


def summary_prompt(messages: list, *, focus: str | None = None, where: str | None = None,
                   max_chars: int = SUMMARY_INPUT_CHARS) -> str:
    """The one user message of the summary request."""
    for name, value in (("focus", focus), ("where", where)):
        if value is not None:
            check_type(value, str, name)
    dump, left_out = dump_history(messages, max_chars)
    text = PROMPT
    if focus:
        text += f"\nPay special attention to: {focus}"
    if left_out:
        text += (f"\n({left_out} older message{'' if left_out == 1 else 's'} after the first "
                 f"{'is' if left_out == 1 else 'are'} left out here"
                 + (f"; they are in {where}" if where else "") + ".)")
    many = "" if len(messages) == 1 else "s"
    return f"{text}\n\nThe conversation ({len(messages)} message{many}, as JSON):\n{dump}"


def extract_summary(text: str) -> str:
    """The final summary in a reply: inside <summary>, else the reply without its <analysis>."""
    check_type(text, str, "text")
    m = _SUMMARY.search(text)
    body = m.group(1) if m else _ANALYSIS.sub("", text)
    return body.strip()


def summarize(messages: list, *, client, model: str, focus: str | None = None, where: str | None = None,
              max_tokens: int = SUMMARY_MAX_TOKENS, max_chars: int = SUMMARY_INPUT_CHARS) -> str:
    """Ask the model for the six-section summary of `messages`; return its text (or raise: API error, empty)."""
    check_history(messages)
    check_client(client)
    check_type(model, str, "model")
    check_int(max_tokens, "max_tokens", 1)
    response = client.messages.create(
        model=model, max_tokens=max_tokens,
        messages=[{"role": "user", "content": summary_prompt(messages, focus=focus, where=where,
                                                             max_chars=max_chars)}])
    text = "\n".join(b.text for b in response.content if getattr(b, "type", None) == "text")
    summary = extract_summary(text)  # not modeled: a check that it kept what mattered
    if not summary:
        raise SummaryError(f"the summary call returned no summary text (stop_reason={response.stop_reason})")
    return summary


def summary_message(summary: str, where: str, count: int) -> dict:
    """The user message that replaces a compacted history: what was done, where it all is, go on."""
    check_type(summary, str, "summary")
    check_type(where, (str, os.PathLike), "where")
    check_int(count, "count", 0)
    what = "1 earlier message was" if count == 1 else f"{count} earlier messages were"
    # Fixed from the seed: it returned [summary, assistant "Understood. Continuing."]. A history that ends on
    # an assistant message is a prefill: the reply continues it, the loop appends a second assistant message,
    # and the history no longer alternates. One user message is valid alone; the next turn is the model's.
    return {"role": "user", "content": (
        f"[Compacted] {what} summarized to free the context. "
        f"All of them are kept, one JSON line each, in {where}.\n\n{summary}\n\n{CONTINUE}")}
