"""s06 · Layer 2, the summary: one extra API call turns the whole history into one message.

Motto: keep the story, drop the transcript: the story fits in the context, the transcript is on disk.

    history ──> prompt: "Summarize ... 6 sections ... <analysis> then <summary>"
                        + the history as JSON (whole messages: the first one and the newest)
                  │
                  v  client.messages.create (no tools)
              <analysis>...</analysis><summary>1. User requests: ...</summary>
                  │
                  v
    [{"role": "user", "content": "[Compacted] ... 1. User requests: ... Continue ..."}]

The six sections (the three-layer seed): user requests, technical concepts, files and
code, errors and fixes, pending tasks, current work. The offline model writes
them extractively (lessonkit/offline/summarize.py); Claude writes them in prose.

Fixed from the seed: `json.dumps(messages)[:80000]` cut the dump in the middle
of a message and, worse, kept the OLDEST 80,000 characters: the current work,
the part a summary needs most, was the first thing lost. Here the dump holds
whole messages: the first (the task) and then the newest that fit.

Example: summary_message("1. User requests:\\n- fix a.py", "s.jsonl", 12)
  -> {"role": "user", "content": "[Compacted] 12 messages were summarized ... s.jsonl ...\\n\\n1. User requests:..."}

Not modeled: the summary's quality (no check that it kept what mattered),
images in the history (dumped as their JSON), a summary longer than max_tokens
(it is used as cut).
"""

from __future__ import annotations

import json
import os
import re

from s01_loop import check_client, check_history, check_int, check_type

SUMMARY_MAX_TOKENS = 2_000
SUMMARY_INPUT_CHARS = 80_000  # characters of history JSON sent with the prompt
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

    Keeps the first message and then the newest ones while they fit in `max_chars`.
    Example: 40 messages of 4,000 characters, max_chars=80_000 -> the first + the newest 18, 21 left out
    """
    check_history(messages)  # a malformed history: one ValueError naming the message
    check_int(max_chars, "max_chars", 1)
    parts = [json.dumps(m, ensure_ascii=False, default=str) for m in messages]
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
    """Ask the model for the six-section summary of `messages`; return its text.

    Raises what the client raises (an API error) or SummaryError for an empty answer.
    """
    check_history(messages)
    check_client(client)
    check_type(model, str, "model")
    check_int(max_tokens, "max_tokens", 1)
    response = client.messages.create(
        model=model, max_tokens=max_tokens,
        messages=[{"role": "user", "content": summary_prompt(messages, focus=focus, where=where,
                                                             max_chars=max_chars)}])
    text = "\n".join(b.text for b in response.content if getattr(b, "type", None) == "text")
    summary = extract_summary(text)
    if not summary:
        raise SummaryError(f"the summary call returned no summary text (stop_reason={response.stop_reason})")
    return summary


def summary_message(summary: str, where: str, count: int) -> dict:
    """The user message that replaces a compacted history: what was done, where it all is, go on.

    One user message, one text block: the history it starts is valid on its own
    (it begins with `user`, and the next turn is the model's). The seed returned
    [summary, assistant "Understood. Continuing."]: a history that ENDS on an
    assistant message is a prefill, so the reply continues THAT message, and the
    loop appends it as a second assistant message in a row: the API merges the
    two, but the history the agent keeps no longer alternates.
    """
    check_type(summary, str, "summary")
    check_type(where, (str, os.PathLike), "where")
    check_int(count, "count", 0)
    what = "1 earlier message was" if count == 1 else f"{count} earlier messages were"
    return {"role": "user", "content": (
        f"[Compacted] {what} summarized to free the context. "
        f"All of them are kept, one JSON line each, in {where}.\n\n{summary}\n\n{CONTINUE}")}
