"""`context_management` (beta context-management-2025-06-27): the edits applied to the request before it is read.

    clear_tool_uses_20250919   over the trigger (default 100,000 input tokens, or {"type": "tool_uses"}), the
                               oldest tool results are replaced by CLEARED, keeping the newest `keep` (default 3)
                               tool uses; `exclude_tools` are never cleared; `clear_tool_inputs` clears their
                               inputs too; nothing is cleared unless `clear_at_least` tokens would go
    clear_thinking_20251015    thinking blocks of all but the newest `keep` assistant turns (default 1; "all")
    anything else (compact_20260112 ...)  -> 400: not modeled offline, never silently ignored

The answer reports what was done: "context_management": {"applied_edits": [{"type": ...,
"cleared_tool_uses": 2, "cleared_input_tokens": 7340}]} (build-with-claude/context-editing).

Example: apply({"context_management": {"edits": [{"type": "clear_tool_uses_20250919", "trigger":
           {"type": "tool_uses", "value": 1}, "keep": {"type": "tool_uses", "value": 0}}]}, ...})
  -> (the request with its tool results' content set to CLEARED, [{"type": "clear_tool_uses_20250919", ...}])
"""

from __future__ import annotations

import copy

from lessonkit import tokens

from .errors import check_fields, invalid

CLEARED = "[cleared to save context]"  # inferred: the docs name a placeholder, not its wording
DEFAULT_TRIGGER = 100_000
DEFAULT_KEEP = 3
EDIT_FIELDS = {"clear_tool_uses_20250919": {"type", "trigger", "keep", "clear_at_least", "exclude_tools",
                                            "clear_tool_inputs"},
               "clear_thinking_20251015": {"type", "keep"}}


def check(config) -> None:
    """The shape of `context_management`; an edit the offline model does not apply is a 400 naming it."""
    if not isinstance(config, dict):
        raise invalid("context_management: Input should be a valid dictionary")
    check_fields(config, {"edits"}, "context_management.")
    edits = config.get("edits") or []
    if not isinstance(edits, list):
        raise invalid("context_management.edits: Input should be a valid list")
    for k, edit in enumerate(edits):
        kind = edit.get("type") if isinstance(edit, dict) else None
        if not isinstance(kind, str) or kind not in EDIT_FIELDS:
            raise invalid(f"context_management.edits.{k}: the offline model applies only "
                          f"{' and '.join(EDIT_FIELDS)} edits, not {kind!r} (see docs/offline-api.md)")
        check_fields(edit, EDIT_FIELDS[kind], f"context_management.edits.{k}.")
        names = edit.get("exclude_tools")
        if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
            raise invalid(f"context_management.edits.{k}.exclude_tools: Input should be a valid list of strings")
        inputs = edit.get("clear_tool_inputs")
        if inputs is not None and not isinstance(inputs, bool) and \
                (not isinstance(inputs, list) or not all(isinstance(n, str) for n in inputs)):
            raise invalid(f"context_management.edits.{k}.clear_tool_inputs: Input should be a valid boolean "
                          "or a list of strings")


def _value(spec, kinds: tuple, default, where: str):
    if spec is None:
        return kinds[0], default
    if not isinstance(spec, dict) or not isinstance(spec.get("type"), str) or spec["type"] not in kinds:
        raise invalid(f"{where}.type: Input should be {' or '.join(repr(k) for k in kinds)}")
    value = spec.get("value")
    if value == "all" and "thinking_turns" in kinds:
        return spec["type"], "all"
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise invalid(f"{where}.value: Input should be a valid integer, greater than or equal to 0")
    return spec["type"], value


def _tool_pairs(messages):
    """(tool_use block, its tool_result block or None) in history order."""
    results = {}
    for msg in messages:
        for block in msg["content"] if isinstance(msg["content"], list) else ():
            if block.get("type") == "tool_result":
                results[block.get("tool_use_id")] = block
    for msg in messages:
        for block in msg["content"] if isinstance(msg["content"], list) else ():
            if block.get("type") == "tool_use":
                yield block, results.get(block.get("id"))


def _clear_tool_uses(body: dict, edit: dict, where: str) -> dict | None:
    kind, limit = _value(edit.get("trigger"), ("input_tokens", "tool_uses"), DEFAULT_TRIGGER, f"{where}.trigger")
    _, keep = _value(edit.get("keep"), ("tool_uses",), DEFAULT_KEEP, f"{where}.keep")
    _, least = _value(edit.get("clear_at_least"), ("input_tokens",), 0, f"{where}.clear_at_least")
    pairs = [(use, result) for use, result in _tool_pairs(body["messages"])
             if result is not None and result.get("content") != CLEARED]
    size = tokens.count_request(body) if kind == "input_tokens" else len(pairs)
    if size <= limit:
        return None
    exclude = set(edit.get("exclude_tools") or ())
    inputs = edit.get("clear_tool_inputs") or False
    chosen = [(u, r) for u, r in (pairs[:-keep] if keep else pairs) if u.get("name") not in exclude]
    freed = sum(tokens.count_content(r.get("content")) - tokens.count_content(CLEARED) for _, r in chosen)
    if not chosen or freed < least:
        return None
    for use, result in chosen:
        result["content"] = CLEARED
        if inputs is True or (isinstance(inputs, list) and use.get("name") in inputs):
            use["input"] = {}
    return {"type": "clear_tool_uses_20250919", "cleared_tool_uses": len(chosen),
            "cleared_input_tokens": max(0, freed)}


def _clear_thinking(body: dict, edit: dict, where: str) -> dict | None:
    _, keep = _value(edit.get("keep"), ("thinking_turns",), 1, f"{where}.keep")
    turns = [m for m in body["messages"] if m["role"] == "assistant" and isinstance(m["content"], list)
             and any(b.get("type") in ("thinking", "redacted_thinking") for b in m["content"])]
    if keep == "all" or len(turns) <= keep:
        return None
    cleared = turns[:-keep] if keep else turns
    freed = 0
    for msg in cleared:
        gone = [b for b in msg["content"] if b.get("type") in ("thinking", "redacted_thinking")]
        freed += sum(tokens.count_block(b) for b in gone)
        msg["content"] = [b for b in msg["content"] if b not in gone] or [{"type": "text", "text": "…"}]
    return {"type": "clear_thinking_20251015", "cleared_thinking_turns": len(cleared), "cleared_input_tokens": freed}


def apply(body: dict) -> tuple[dict, list | None]:
    """The request with its context edits applied, and the applied edits (None without `context_management`)."""
    config = body.get("context_management")
    if config is None:
        return body, None
    check(config)
    body = dict(body, messages=copy.deepcopy(body["messages"]))
    applied = []
    for k, edit in enumerate(config.get("edits") or []):
        run = _clear_tool_uses if edit["type"] == "clear_tool_uses_20250919" else _clear_thinking
        done = run(body, edit, f"context_management.edits.{k}")
        if done:
            applied.append(done)
    return body, applied
