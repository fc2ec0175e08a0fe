"""Chat-completions logs: mini-swe-agent `.traj.json` and OpenHands `llm_completions`, read.

Motto: OpenAI-shaped messages in, Anthropic-shaped messages out, the system prompt and tools kept.

    mini-swe-agent  {"messages": [system, user (task), assistant, tool | user (observation), ..., exit],
                     "info": {"exit_status", "mini_version", "config": {"model": {"model_name"}}}}
        v2: assistant tool_calls -> tool_use; role "tool" -> tool_result
        v1: one ```bash``` block in the assistant text is the action; the next user message its output
        exit: the final submit's output (only recorded there) answers the last open call
    OpenHands       one logged LLM call: {"messages": [...], "response": {...}, "kwargs": {"tools": [...]}}
        the call with the longest history is the session; its `response` (the next action, never
        answered) is dropped; kwargs.tools become the request's tool schemas

Both keep the system message (the request's system prompt). The first user message is the task.
A document that is not one of these is refused naming the file and the message.

Example: read_miniswe(Path("x.traj.json")) -> ("x", messages, {"system": "You are a helpful ...", ...})
"""

from __future__ import annotations

import re
from pathlib import Path

from .build import Builder, ReaderError, json_file, text_of, where

BASH_BLOCK = re.compile(r"```(?:bash|sh)?\s*\n(.*?)\n```", re.S)


def _chat(path: Path, messages, b: Builder, meta: dict) -> tuple[str | None, list]:
    """Feed OpenAI chat messages to the builder: (task, calls still open)."""
    if not isinstance(messages, list) or not messages:
        raise ReaderError(f"{where(path)}: no 'messages' list")
    task, v1, open_calls = None, None, []
    for k, m in enumerate(messages):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise ReaderError(f"{where(path)}: message {k} is not an object with a role")
        role, content = m["role"], m.get("content")
        if role == "system":
            meta["system"] = text_of(content)
        elif role == "user" and task is None:
            task = text_of(content)
        elif role == "user" and v1 is not None:
            b.result(v1, text_of(content))
            v1 = None
        elif role == "user":
            b.user(text_of(content))
        elif role == "assistant" and m.get("tool_calls"):
            calls = [(c.get("id"), (c.get("function") or {}).get("name"), (c.get("function") or {}).get("arguments"))
                     for c in m["tool_calls"] if isinstance(c, dict)]
            b.assistant([text_of(content)], calls)
            open_calls = [c[0] for c in calls]
        elif role == "assistant":
            text, actions = text_of(content), BASH_BLOCK.findall(text_of(content))
            if len(actions) == 1 and meta.get("format") == "mini-swe-agent":
                v1 = f"v1-{k}"
                b.assistant([BASH_BLOCK.sub("", text).strip()], [(v1, "bash", {"command": actions[0]})])
            else:
                b.assistant([text])
        elif role == "tool":
            b.result(m.get("tool_call_id"), text_of(content))
            open_calls = [c for c in open_calls if c != m.get("tool_call_id")]
        elif role == "exit" and len(open_calls) == 1:
            b.result(open_calls[0], text_of(content))
            open_calls = []
    if task is None:
        raise ReaderError(f"{where(path)}: no user message: no task to replay")
    return task, open_calls


def read_miniswe(path: Path) -> tuple[str, list, dict]:
    """(name, messages, meta) of a mini-swe-agent trajectory; ReaderError if it is not one."""
    data = json_file(path)
    if not isinstance(data, dict) or "messages" not in data:
        raise ReaderError(f"{where(path)}: not a mini-swe-agent trajectory (no 'messages')")
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    model = ((info.get("config") or {}).get("model") or {}).get("model_name")
    meta = {"format": "mini-swe-agent", "model": model, "exit_status": info.get("exit_status")}
    b = Builder("msa")
    task, _ = _chat(path, data["messages"], b, meta)
    messages, markers, _ = b.finish(task)
    meta.update(markers=markers, reader_notes=b.notes, source=str(path))
    return path.name.split(".")[0], messages, meta


def anthropic_tools(tools) -> list:
    """OpenAI function tools -> Anthropic tool schemas. [{"type": "function", "function": {...}}] -> [{"name", ...}]"""
    out = []
    for t in tools or []:
        fn = t.get("function") if isinstance(t, dict) else None
        if isinstance(fn, dict) and fn.get("name"):
            out.append({"name": fn["name"], "description": fn.get("description") or fn["name"],
                        "input_schema": fn.get("parameters") or {"type": "object"}})
    return out


def read_openhands(path: Path) -> tuple[str, list, dict]:
    """(name, messages, meta) of one OpenHands llm_completions file; ReaderError if it is not one."""
    data = json_file(path)
    if not isinstance(data, dict) or "messages" not in data or not ({"response", "kwargs"} & set(data)):
        raise ReaderError(f"{where(path)}: not an OpenHands completion (no 'messages' with 'response'/'kwargs')")
    meta = {"format": "openhands"}
    b = Builder("oh")
    task, _ = _chat(path, data["messages"], b, meta)
    tools = anthropic_tools((data.get("kwargs") or {}).get("tools"))
    if tools:
        meta["tools"] = tools
    messages, markers, _ = b.finish(task)
    usage = (data.get("response") or {}).get("usage") if isinstance(data.get("response"), dict) else None
    if isinstance(usage, dict) and isinstance(usage.get("prompt_tokens"), int):
        meta["last_request_input"] = usage["prompt_tokens"]
    meta.update(markers=markers, reader_notes=b.notes, source=str(path))
    return path.name.split(".")[0], messages, meta
