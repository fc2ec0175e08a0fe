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

Example: codex_view("x\\n" * 1000) -> 128 lines, "[... omitted 745 of 1001 lines ...]", 128 lines

Not modeled: Codex's exact marker wording (the token count differs by a few tokens).
"""

from __future__ import annotations

import re

MAX_LINES = 256
MAX_BYTES = 10 * 1024
EXIT_LINE = re.compile(r"\n?\[exit_code: -?\d+\]$")


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
