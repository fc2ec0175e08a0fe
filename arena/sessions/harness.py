"""What the recording harness really sent: its own cut of long tool outputs, re-applied.

Motto: replay the request the harness sent, not the log the harness kept.

    log:      shell result, 552,921 characters (the full aggregated_output)
                 │  codex_view: at most 256 lines (head 128 + tail 128), then at most 10 KiB
                 v  (head 5 KiB + tail 5 KiB, cut on UTF-8 boundaries)
    request:  shell result, <= ~10 KiB + a marker line

Codex CLI (`codex exec --json`) logs each command's full output, but the model saw
at most about 10 KiB / 256 lines of it, head and tail (codex-rs, late 2025; the
traces' README, "codex-exec" caveat, and its converter's `--codex-truncate`, whose
rule this module restates). A trace converted without that cut (its meta says
"full aggregated_output") is cut here when loaded, unless the arena is run with
`--no-harness-truncation`. The `[exit_code: N]` line the converter appends stays
after the cut, as the harness reports the exit code apart from the output.

Other harnesses: Claude Code's log already holds what the model saw (its own
30,000-character budget is applied before logging); mini-swe-agent and OpenHands
log the observation as sent. Nothing is cut for them.

Claude Code adds to what its log shows in one place the replay must follow: after
its compaction it re-attaches the files read most recently (its post-compaction
restore: the summary is followed by the newest REATTACH_FILES files, each cut to
REATTACH_FILE_TOKENS, while the total stays under REATTACH_BUDGET). The log does not
hold those attachments; reattached(history) rebuilds them from what the session
shows: each file's largest Read result before the compaction, newest Read first.
The `recorded` baseline (baselines.py) sends them after the summary.

Example: codex_view("x\\n" * 1000) -> 128 lines, "[... omitted 745 of 1001 lines ...]", 128 lines
         reattached(history with Reads of a.py, b.py) -> [b.py's block, a.py's block]

Not modeled: Codex's exact marker wording (the token count differs by a few tokens); the file as
Claude Code re-read it at the compaction (edits since the Read, the lines a partial Read skipped:
not in the log); files only edited or written, and files attached to the prompt (their text is not
in the log either); the to-do list and other post-compaction reminders.
"""

from __future__ import annotations

import json
import re

from lessonkit.tokens import count_text

MAX_LINES = 256
MAX_BYTES = 10 * 1024
EXIT_LINE = re.compile(r"\n?\[exit_code: -?\d+\]$")
# Claude Code's post-compaction restore (services/compact/compact.ts: POST_COMPACT_MAX_FILES_TO_RESTORE,
# POST_COMPACT_MAX_TOKENS_PER_FILE, POST_COMPACT_TOKEN_BUDGET, in the source published for 2.1.88,
# March 2026; described in "Harness engineering from Claude Code", ch. 10). The logs here are 2.0.21:
# the same values are assumed. Tokens are the kit's counter's.
REATTACH_FILES = 5
REATTACH_FILE_TOKENS = 5_000
REATTACH_BUDGET = 50_000
READ_TOOLS = ("Read",)


def codex_view(text: str, max_bytes: int = MAX_BYTES, max_lines: int = MAX_LINES) -> str:
    """The part of a command's output Codex showed the model: head and tail, by lines then bytes."""
    lines = text.split("\n")
    if len(lines) > max_lines:
        half = max_lines // 2
        text = "\n".join(lines[:half] + [f"[... omitted {len(lines) - max_lines} of {len(lines)} lines ...]"]
                         + lines[-half:])
    raw = text.encode("utf-8")
    if len(raw) > max_bytes:
        head = raw[:max_bytes // 2].decode("utf-8", "ignore")
        tail = raw[-(max_bytes // 2):].decode("utf-8", "ignore")
        text = f"{head}\n[... output truncated to {max_bytes} bytes ...]\n{tail}"
    return text


def needs_cut(meta: dict) -> bool:
    """Does this trace hold Codex outputs as logged, not as sent? (its meta says so)"""
    return str(meta.get("format", "")).startswith("codex") and "full" in str(meta.get("tool_output", "full"))


def cut_codex(messages: list) -> tuple[list, int]:
    """`messages` with every shell result cut as Codex cut it: (new messages, characters removed)."""
    shell = {b.get("id") for m in messages if m.get("role") == "assistant" and isinstance(m.get("content"), list)
             for b in m["content"] if b.get("type") == "tool_use" and b.get("name") == "shell"}
    out, removed = [], 0
    for m in messages:
        content = m.get("content")
        if m.get("role") != "user" or not isinstance(content, list):
            out.append(m)
            continue
        blocks = []
        for b in content:
            text = b.get("content")
            if b.get("type") == "tool_result" and b.get("tool_use_id") in shell and isinstance(text, str):
                found = EXIT_LINE.search(text)
                body, suffix = (text[:found.start()], text[found.start():]) if found else (text, "")
                cut = codex_view(body) + suffix
                removed += len(text) - len(cut)
                b = {**b, "content": cut}
            blocks.append(b)
        out.append({**m, "content": blocks})
    return out, removed


def _cut_tokens(text: str, limit: int) -> str:
    """`text` cut to about `limit` tokens of the kit's counter (whole lines kept where possible)."""
    if count_text(text) <= limit:
        return text
    lo, hi = 0, len(text)
    while lo < hi:                                   # the longest head within the limit
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if count_text(text[:mid]) <= limit else (lo, mid - 1)
    head = text[:lo]
    return (head[:head.rfind("\n")] if "\n" in head else head) + "\n[... truncated ...]"


def reattached(history: list) -> list[dict]:
    """Text blocks Claude Code attaches after a compaction of `history` (see the module docstring):
    one per file, newest Read first, at most REATTACH_FILES, each cut to REATTACH_FILE_TOKENS, in
    all at most REATTACH_BUDGET tokens. A Read that failed is not a file read."""
    calls, order, best = {}, [], {}
    for m in history:
        for b in m.get("content") if isinstance(m.get("content"), list) else []:
            if b.get("type") == "tool_use" and b.get("name") in READ_TOOLS:
                path = (b.get("input") or {}).get("file_path")
                if isinstance(path, str):
                    calls[b.get("id")] = path
            elif b.get("type") == "tool_result" and b.get("tool_use_id") in calls and not b.get("is_error"):
                text = b.get("content")
                text = text if isinstance(text, str) else "\n".join(
                    str(p.get("text", "")) for p in text or [] if isinstance(p, dict))
                path = calls[b["tool_use_id"]]
                order = [p for p in order if p != path] + [path]
                if len(text) >= len(best.get(path, "")):
                    best[path] = text
    out, used = [], 0
    for path in reversed(order[-REATTACH_FILES:]):
        body = _cut_tokens(best[path], REATTACH_FILE_TOKENS)
        text = (f"<system-reminder>\nCalled the Read tool with the following input: "
                f"{json.dumps({'file_path': path})}\nResult of calling the Read tool:\n{body}\n</system-reminder>")
        n = count_text(text)
        if used + n > REATTACH_BUDGET:
            continue
        out.append({"type": "text", "text": text})
        used += n
    return out
