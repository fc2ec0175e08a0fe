"""Codex CLI `codex exec --json` event lines, read into a replayable session.

Motto: one item per call; the output as logged, cut later as Codex cut it.

    thread.started ─ turn.started ─ item.started / item.updated / item.completed ... ─ turn.completed
                                          │
      item.completed  command_execution ──> shell {"command"} -> aggregated_output (+ "[exit_code: N]")
                      file_change       ──> apply_patch {"changes"} -> the status and changed paths
                      mcp_tool_call     ──> server__tool {arguments} -> its result
                      web_search        ──> web_search {"query"}
                      agent_message     ──> assistant text, carried by the next call
                      reasoning         ──> dropped (counted)
      todo_list started / updated       ──> update_plan {"plan"} (each is a call the model made)
      turn.completed usage              ──> logged totals (input, cached input, output)

The log carries each command's full output; Codex sent the model a head-and-tail
cut of it. The reader keeps the full output and says so in its meta, and the
session loader applies the cut (lessonkit/arena/harness.py) unless told not to.
The prompt is not in the log: it is read from a prompt file beside it (claude.py).

Example: read_codex(Path("run.jsonl")) -> ("run", messages, {"format": "codex-exec", "usage": {...}})
"""

from __future__ import annotations

from pathlib import Path

from ...i18n import tr, trn
from .build import Builder, ReaderError, json_lines, task_or_stand_in, text_of, where


def read_codex(path: Path) -> tuple[str, list, dict]:
    """(name, messages, meta) of a `codex exec --json` log; ReaderError naming the line if unreadable."""
    b = Builder("cx")
    meta = {"format": "codex-exec", "tool_output": "full aggregated_output as logged", "usage": {}}
    pending, reasoning = [], 0

    def call(original, name, args, output, failed=False):
        nonlocal pending
        original = original if original is not None else f"call-{len(b.messages)}"
        b.assistant(pending, [(original, name, args)])
        pending = []
        b.result(original, output, failed)

    for n, line in json_lines(path):
        kind, item = line.get("type"), line.get("item")
        if not isinstance(kind, str):
            raise ReaderError(f"{where(path, n)}: an event without a 'type': not a codex exec --json log")
        if kind == "turn.completed":
            for key, value in (line.get("usage") or {}).items():
                if isinstance(value, (int, float)):
                    meta["usage"][key] = meta["usage"].get(key, 0) + value
            continue
        if not kind.startswith("item."):
            continue
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            raise ReaderError(f"{where(path, n)}: an {kind} event without an item and its type")
        what = item["type"]
        if what == "todo_list" and kind in ("item.started", "item.updated"):
            call(None, "update_plan", {"plan": item.get("items", [])}, "Plan updated")
        elif kind != "item.completed":
            continue
        elif what == "agent_message":
            pending.append(item.get("text", ""))
        elif what == "command_execution":
            output, code = item.get("aggregated_output") or "", item.get("exit_code")
            if code not in (0, None):
                output += ("\n" if output and not output.endswith("\n") else "") + f"[exit_code: {code}]"
            call(item.get("id"), "shell", {"command": item.get("command", "")}, output,
                 item.get("status") == "failed")
        elif what == "file_change":
            changes = item.get("changes") or []
            done = "\n".join(f"{c.get('kind')} {c.get('path')}" for c in changes if isinstance(c, dict))
            call(item.get("id"), "apply_patch", {"changes": changes}, f"{item.get('status', 'completed')}\n{done}")
        elif what == "mcp_tool_call":
            call(item.get("id"), f"{item.get('server')}__{item.get('tool')}", item.get("arguments"),
                 text_of(item.get("result")))
        elif what == "web_search":
            call(item.get("id"), "web_search", {"query": item.get("query", "")}, "(search done)")
        elif what == "reasoning":
            reasoning += 1
    if pending:
        b.assistant(pending)
    if not b.messages:
        raise ReaderError(f"{where(path)}: no completed item to replay: not a codex exec --json log")
    task = task_or_stand_in(path, b)
    messages, markers, _ = b.finish(task)
    b.notes += [trn("dropped {n} reasoning item", "dropped {n} reasoning items", reasoning)] * bool(reasoning)
    b.notes.append(tr("no system prompt in the log"))
    meta.update(markers=markers, reader_notes=b.notes, source=str(path))
    if not meta["usage"]:
        del meta["usage"]
    return path.name.split(".")[0], messages, meta
