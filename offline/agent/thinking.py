"""The offline model's `thinking` block: what it is about to do, said before it does it.

    request with thinking {"type": "enabled", "budget_tokens": 2048} (or "adaptive")
      -> content [thinking "The task: ... I will run `ls` with bash ...", signature "EoE..."],
                 then the answer's text and tool_use blocks

The thinking is built from the request and the reply the policy chose, so it is
as deterministic as the reply. Its `signature` is a keyed hash of the text: a
history sent back with the block unchanged is accepted; a block whose text was
edited, or whose signature is missing, is the API's 400 (as it is for Claude).

Example: thinking_block("List the files", Reply("Listing.", [("bash", {"command": "ls"})]))
  -> {"type": "thinking", "thinking": "The task: \"List the files\". I will call bash {\"command\": \"ls\"} ...",
      "signature": "..."}

Not modeled: redacted_thinking blocks (accepted in a history, never produced),
the `display` setting, interleaved thinking between tool calls, a budget that
cuts the thinking short (the thinking here is far below the 1,024-token minimum).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

from ..api.errors import invalid

KEY = b"agent-lessons offline thinking"  # not a secret: it only tells the kit's own blocks from edited ones
TASK_CHARS = 120


def wants_thinking(body: dict) -> bool:
    """Does the request turn thinking on? Example: {"thinking": {"type": "enabled", ...}} -> True"""
    return (body.get("thinking") or {}).get("type") in ("enabled", "adaptive")


def signature(text: str) -> str:
    """The signature of a thinking text. Example: signature("x") -> "Eo..." (base64, 44 chars)"""
    digest = hmac.new(KEY, text.encode("utf-8"), hashlib.sha256).digest()
    return base64.b64encode(b"\x12\x81" + digest).decode("ascii")


def _task(messages: list) -> str:
    """The newest user text of the request, shortened."""
    for msg in reversed(messages):
        if msg.get("role") != "user":
            continue
        content = msg.get("content")
        texts = [content] if isinstance(content, str) else \
            [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        text = " ".join(t for t in texts if t).strip()
        if text:
            return text if len(text) <= TASK_CHARS else text[:TASK_CHARS - 1].rstrip() + "…"
    return ""


def thinking_text(body: dict, reply) -> str:
    """What the model is about to do, in its own voice, from the request and its chosen reply."""
    task = _task(body["messages"])
    lines = [f"The task: \"{task}\"." if task else "The conversation continues with tool results."]
    if reply.calls:
        for name, tool_input in reply.calls:
            lines.append(f"I will call {name} {json.dumps(tool_input, ensure_ascii=False)[:200]}.")
        lines.append("Then I will read what it returns before I answer.")
    else:
        first = reply.text.strip().splitlines()[0] if reply.text.strip() else ""
        lines.append("I have what I need; no tool is required. I will answer: "
                     f"\"{first[:TASK_CHARS]}\"" + ("…" if len(first) > TASK_CHARS else "") + ".")
    return " ".join(lines)


def thinking_block(body: dict, reply) -> dict:
    """The thinking block that comes before the answer."""
    text = thinking_text(body, reply)
    return {"type": "thinking", "thinking": text, "signature": signature(text)}


def check_signatures(messages: list) -> None:
    """Refuse a thinking block sent back with a signature that does not match its text."""
    for i, msg in enumerate(messages):
        content = msg.get("content")
        for j, block in enumerate(content if isinstance(content, list) else ()):
            if block.get("type") == "thinking" and not hmac.compare_digest(
                    block["signature"], signature(block["thinking"])):
                raise invalid(f"messages.{i}.content.{j}: Invalid `signature` in `thinking` block")
