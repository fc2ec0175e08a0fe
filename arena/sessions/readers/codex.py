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
session loader applies the cut (arena/sessions/harness.py) unless told not to.
The prompt is not in the log: it is read from a prompt file beside it (claude.py).

Example: read_codex(Path("run.jsonl")) -> ("run", messages, {"format": "codex-exec", "usage": {...}})
"""

from __future__ import annotations

import json
from pathlib import Path

from lessonkit.i18n import tr, trn

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


ROLLOUT_CALLS = ("function_call", "custom_tool_call", "local_shell_call")


def request_usage(last: dict, model, timestamp) -> dict | None:
    """One request's usage from a token_count's last_token_usage, in the arena's fields. OpenAI counts the
    cached part inside input_tokens, and caches every prompt by itself at no charge beyond the input price:
    the uncached part is what this request wrote to the cache (priced as input: prices.py), the cached part
    what it read; output_tokens holds the reasoning. None for an empty count.
    Example: {"input_tokens": 9_000, "cached_input_tokens": 4_000, "output_tokens": 300}
             -> {"input_tokens": 0, "cache_creation_input_tokens": 5_000, "cache_read_input_tokens": 4_000, ...}"""
    whole, cached = int(last.get("input_tokens") or 0), int(last.get("cached_input_tokens") or 0)
    if not whole and not last.get("output_tokens"):
        return None
    return {"input_tokens": 0, "cache_creation_input_tokens": max(0, whole - cached),
            "cache_read_input_tokens": min(cached, whole), "output_tokens": int(last.get("output_tokens") or 0),
            "model": model, "timestamp": timestamp}
ROLLOUT_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def _rollout_output(raw) -> tuple[str, bool]:
    """A call's output as the model saw it, and whether it failed: Codex stores shell output as a JSON
    string {"output": ..., "metadata": {"exit_code": N}}; other tools as plain text."""
    if isinstance(raw, dict):
        raw = raw.get("content", raw.get("output", raw))
    if not isinstance(raw, str):
        return text_of(raw), False
    try:
        value = json.loads(raw)
    except ValueError:
        return raw, False
    if isinstance(value, dict) and "output" in value:
        code = (value.get("metadata") or {}).get("exit_code") if isinstance(value.get("metadata"), dict) else None
        text = str(value.get("output") or "")
        if code not in (0, None):
            text += ("\n" if text and not text.endswith("\n") else "") + f"[exit_code: {code}]"
        return text, code not in (0, None)
    return raw, False


def read_rollout(path: Path) -> tuple[str, list, dict]:
    """(name, messages, meta) of a Codex CLI rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).

    Lines are {"type": "session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted",
    "payload": {...}}; rollouts before that wrapper hold the items themselves, after a first line with
    the session's id and instructions. response_item messages, calls and outputs are the conversation
    (user and assistant text, function_call / custom_tool_call / local_shell_call and their outputs);
    developer messages and the instructions are the system prompt; reasoning items are dropped (counted);
    event_msg token_count carries the usage: its last_token_usage is the request just answered (request_usage:
    OpenAI's cached input inside its input), its total_token_usage the session's (a count whose total did not
    change is the same count sent again: not a request); a compacted line is Codex's own compaction summary.
    event_msg user/agent messages repeat the items: not used. OpenAI caches every prompt by itself: the
    session says so (automatic_cache), and its replay looks back as far as it must."""
    b = Builder("cx")
    meta = {"format": "codex-rollout", "usage": {}, "automatic_cache": True, "output_logged": True}
    system, reasoning, pending, model, seen, early = [], 0, [], None, None, 0
    for n, line in json_lines(path, b.notes):
        kind = line.get("type")
        payload = line.get("payload") if isinstance(line.get("payload"), dict) else None
        if payload is None:
            if "instructions" in line and "id" in line:           # the first line, before the wrapper
                kind, payload = "session_meta", line
            elif line.get("record_type") or kind is None:
                continue                                            # state records: no message
            else:
                kind, payload = "response_item", line
        if kind == "session_meta":
            if isinstance(payload.get("instructions"), str) and payload["instructions"].strip():
                system.append(payload["instructions"])
            meta["codex_version"] = payload.get("cli_version")
            continue
        if kind == "turn_context":
            meta.setdefault("model", payload.get("model"))
            model = payload.get("model") or model
            continue
        if kind == "event_msg":
            info = payload.get("info") if payload.get("type") == "token_count" else None
            total = (info or {}).get("total_token_usage") if isinstance(info, dict) else None
            if isinstance(total, dict):
                meta["usage"] = {k: v for k, v in total.items() if isinstance(v, (int, float))}
            last = (info or {}).get("last_token_usage") if isinstance(info, dict) else None
            if isinstance(last, dict) and total != seen:      # the same counts again (a rate-limit update): not
                seen = total                                   # a request
                found = request_usage(last, model, line.get("timestamp"))
                if found is not None and not b.usage_for_last(found):
                    early += 1
            continue
        if kind == "compacted":
            b.user(str(payload.get("message") or ""), {"kind": "codex_compaction_summary"})
            continue
        if kind != "response_item":
            continue
        what = payload.get("type")
        if not isinstance(what, str):
            raise ReaderError(f"{where(path, n)}: a response_item without a 'type': expected a message, a call "
                              f"or its output")
        if what == "message":
            role, text = payload.get("role"), text_of(payload.get("content"))
            if role in ("developer", "system"):
                system.append(text)
            elif role == "assistant":
                pending.append(text)
            else:
                if pending:
                    b.assistant(pending)
                    pending = []
                b.user(text)
        elif what in ROLLOUT_CALLS:
            if what == "local_shell_call":
                name, args = "shell", {"command": (payload.get("action") or {}).get("command")}
            elif what == "custom_tool_call":
                name, args = payload.get("name"), {"input": payload.get("input")}
            else:
                name, args = payload.get("name"), payload.get("arguments")
            b.assistant(pending, [(payload.get("call_id") or payload.get("id"), name, args)])
            pending = []
        elif what in ROLLOUT_OUTPUTS:
            text, failed = _rollout_output(payload.get("output"))
            b.result(payload.get("call_id"), text, failed)
        elif what == "reasoning":
            reasoning += 1
    if pending:
        b.assistant(pending)
    if not any(m["role"] == "assistant" for m in b.messages):
        raise ReaderError(f"{where(path)}: no assistant item to replay: expected response_item messages and "
                          f"calls of a Codex rollout")
    task = None if b.messages and b.messages[0]["role"] == "user" else task_or_stand_in(path, b)
    messages, markers, usage = b.finish(task)
    b.notes += [trn("dropped {n} reasoning item", "dropped {n} reasoning items", reasoning)] * bool(reasoning)
    if any(u is not None for u in usage):
        meta.update(usage_per_turn=usage, repeats_per_turn=b.repeats)
        b.notes.append(tr("usage per request from its token_count events (input includes the cached part)"))
    if early:
        b.notes.append(trn("{n} token count before any response: not a request of this log",
                           "{n} token counts before any response: not requests of this log", early))
    if system:
        meta["system"] = "\n\n".join(s for s in system if s)
    else:
        b.notes.append(tr("no system prompt in the log"))
    meta.update(markers=markers, reader_notes=b.notes, source=str(path),
                tool_output="full output as logged")
    if not meta["usage"]:
        del meta["usage"]
    return path.name.split(".")[0], messages, meta
