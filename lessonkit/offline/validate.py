"""Reject what the real Messages API rejects, with the API's own error shapes.

The compaction lessons are about not producing these errors, so the offline model
must raise them: a `tool_result` with no `tool_use` in the message before it, a
`tool_use` left unanswered, text before the `tool_result` blocks that answer a
`tool_use`, roles that do not alternate, an empty `messages`, empty or blank text,
unknown fields, too many cache breakpoints, tool names outside ^[a-zA-Z0-9_-]{1,64}$,
an `input_schema` not of type object, invalid base64 in an image or bytes that are
not the image its media type names (magic bytes), a `thinking` block without its
signature; params.py checks the parameters (temperature, top_k, stop_sequences,
metadata, tool_choice, thinking). `require_tools` (called by the model, not by the
kit's own history checks) refuses tool blocks in a request that defines no tools.

The API merges consecutive same-role messages before it checks them; so does the
model (merge_roles, called by model.py). validate_request itself keeps the strict
rule, because the kit's own histories must alternate (tests/strategies.py uses it).

Unknown fields whose value is null are let through: SDK objects dumped back as
dicts carry optional fields set to None, and the lessons append those.

Example: validate_request({"model": "m", "max_tokens": 5, "messages": []})
  -> ApiError(400, "invalid_request_error", "messages: at least one message is required")

Messages whose exact wording could not be checked against a captured API answer
(tool_choice, top_k, stop_sequences, metadata) follow the API's pydantic style.

Not modeled: whether an image decodes beyond its magic bytes, document payloads,
beta fields. Per-model rules (names, max_tokens ceilings, thinking types) are models.py's.
"""

from __future__ import annotations

import base64
import binascii
import re

from .errors import ApiError, check_fields, invalid
from .params import check_sampling, check_thinking, check_tool_choice

__all__ = ["ApiError", "count_breakpoints", "invalid", "merge_roles", "require_tools", "validate_request"]

REQUEST_FIELDS = {
    "model", "messages", "max_tokens", "system", "tools", "tool_choice", "temperature",
    "top_p", "top_k", "stop_sequences", "stream", "metadata", "thinking", "service_tier",
    "context_management", "container", "mcp_servers", "output_config", "inference_geo",
}
COUNT_FIELDS = {"model", "messages", "system", "tools", "tool_choice", "thinking",
                "context_management", "mcp_servers", "output_config"}
BLOCK_FIELDS = {
    "text": {"type", "text", "cache_control", "citations"},
    "image": {"type", "source", "cache_control"},
    "document": {"type", "source", "cache_control", "title", "context", "citations"},
    "tool_use": {"type", "id", "name", "input", "cache_control", "caller", "toolset_name"},
    "tool_result": {"type", "tool_use_id", "content", "is_error", "cache_control"},
    "thinking": {"type", "thinking", "signature"},
    "redacted_thinking": {"type", "data"},
}
RESULT_BLOCKS = ("text", "image", "document", "search_result")  # what a tool_result may contain
MAX_CACHE_BREAKPOINTS = 4
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
MAGIC = (("image/png", b"\x89PNG\r\n\x1a\n"), ("image/jpeg", b"\xff\xd8\xff"), ("image/gif", b"GIF87a"),
         ("image/gif", b"GIF89a"))  # webp: "RIFF" .... "WEBP"


def _check_block(block, where: str) -> None:
    if not isinstance(block, dict):
        raise invalid(f"{where}: Input should be a valid dictionary")
    kind = block.get("type")
    if kind not in BLOCK_FIELDS:
        raise invalid(f"{where}: Input tag '{kind}' found using 'type' does not match any of "
                      f"the expected tags: {', '.join(repr(k) for k in BLOCK_FIELDS)}")
    check_fields(block, BLOCK_FIELDS[kind], f"{where}.")
    if kind == "text" and not isinstance(block.get("text"), str):
        raise invalid(f"{where}.text: Field required")
    if kind == "text" and not block["text"]:
        raise invalid("messages: text content blocks must be non-empty")
    if kind == "text" and not block["text"].strip():
        raise invalid("messages: text content blocks must contain non-whitespace text")
    if kind == "tool_use":
        if not isinstance(block.get("input"), dict):
            raise invalid(f"{where}.input: Input should be a valid dictionary")
        if not block.get("id") or not block.get("name"):
            raise invalid(f"{where}: tool_use blocks need an `id` and a `name`")
    if kind == "image":
        _check_image(block.get("source"), f"{where}.image.source")
    if kind == "thinking":
        for key in ("thinking", "signature"):
            if not isinstance(block.get(key), str):
                raise invalid(f"{where}.thinking.{key}: Field required")
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, list):
            for k, inner in enumerate(content):
                _check_block(inner, f"{where}.content.{k}")
                if inner.get("type") not in RESULT_BLOCKS:
                    raise invalid(f"{where}.content.{k}: a tool_result may contain only "
                                  f"{', '.join(RESULT_BLOCKS)} blocks")
        elif not isinstance(content, str):
            raise invalid(f"{where}.content: Input should be a valid string or list")


def _check_image(source, where: str) -> None:
    """A base64 image source: a known media type and data that decodes. Example: data "%%%" -> invalid base64 data"""
    if not isinstance(source, dict) or source.get("type") != "base64":
        return  # url and file sources are fetched by the API; not modeled here
    if source.get("media_type") not in IMAGE_TYPES:
        raise invalid(f"{where}.base64.media_type: Input should be "
                      f"{', '.join(repr(t) for t in IMAGE_TYPES[:-1])} or {IMAGE_TYPES[-1]!r}")
    data = source.get("data")
    try:
        if not isinstance(data, str) or not data:
            raise ValueError
        raw = base64.b64decode(data, validate=True)
    except (ValueError, binascii.Error):
        raise invalid(f"{where}.base64: invalid base64 data") from None
    actual = image_type(raw)
    if actual is None:
        raise invalid(f"{where}.base64.data: Could not process image")
    if actual != source["media_type"]:
        raise invalid(f"{where}.base64.data: The image was specified using the {source['media_type']} media type, "
                      f"but the image appears to be a {actual} image")


def image_type(raw: bytes) -> str | None:
    """The image type its first bytes show, or None. Example: b"\\x89PNG\\r\\n\\x1a\\n..." -> "image/png" """
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp"
    return next((kind for kind, magic in MAGIC if raw.startswith(magic)), None)


def _blocks(content) -> list:
    return content if isinstance(content, list) else []


def _check_messages(messages) -> None:
    if not isinstance(messages, list):
        raise invalid("messages: Input should be a valid list")
    if not messages:
        raise invalid("messages: at least one message is required")
    for i, msg in enumerate(messages):
        where = f"messages.{i}"
        if not isinstance(msg, dict):
            raise invalid(f"{where}: Input should be a valid dictionary")
        check_fields(msg, {"role", "content"}, f"{where}.")
        role, content = msg.get("role"), msg.get("content")
        if role not in ("user", "assistant"):
            raise invalid(f"{where}.role: Input should be 'user' or 'assistant'")
        if i == 0 and role != "user":
            raise invalid('messages: first message must use the "user" role')
        if i and messages[i - 1].get("role") == role:
            raise invalid('messages: roles must alternate between "user" and "assistant", '
                          f'but found multiple "{role}" roles in a row')
        if isinstance(content, str):
            if not content and not (role == "assistant" and i == len(messages) - 1):
                raise invalid(f"{where}: all messages must have non-empty content except "
                              "for the optional final assistant message")
        elif isinstance(content, list):
            if not content and not (role == "assistant" and i == len(messages) - 1):
                raise invalid(f"{where}: all messages must have non-empty content except "
                              "for the optional final assistant message")
            for j, block in enumerate(content):
                _check_block(block, f"{where}.content.{j}")
                wrong = "tool_result" if role == "assistant" else "tool_use"
                if block["type"] == wrong:
                    raise invalid(f"{where}.content.{j}: `{wrong}` blocks are not allowed in "
                                  f"{role} messages")
        else:
            raise invalid(f"{where}.content: Input should be a valid string or list")
    last = messages[-1]
    if last["role"] == "assistant":
        blocks = last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
        if blocks and blocks[-1].get("type") == "text" and blocks[-1]["text"] != blocks[-1]["text"].rstrip():
            raise invalid("messages: final assistant content cannot end with trailing whitespace")
    _check_tool_pairs(messages)


def _check_tool_pairs(messages: list) -> None:
    """Every tool_use is answered in the next message; every tool_result answers one."""
    seen_ids = set()
    for i, msg in enumerate(messages):
        blocks = _blocks(msg["content"])
        if msg["role"] == "assistant":
            uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
            for use_id in uses:
                if use_id in seen_ids:
                    raise invalid(f"messages.{i}: `tool_use` ids must be unique: {use_id}")
                seen_ids.add(use_id)
            if not uses:
                continue
            nxt = messages[i + 1]["content"] if i + 1 < len(messages) else None
            answered = {b.get("tool_use_id") for b in _blocks(nxt) if b.get("type") == "tool_result"}
            missing = [u for u in uses if u not in answered]
            if missing:
                raise invalid(f"messages.{i}: `tool_use` ids were found without `tool_result` "
                              f"blocks immediately after: {', '.join(missing)}. Each `tool_use` "
                              "block must have a corresponding `tool_result` block in the next message.")
            leading = 0  # the answers must come first: no text before them
            for b in _blocks(nxt):
                if b.get("type") != "tool_result":
                    break
                leading += 1
            if leading < len(uses):
                raise invalid(f"messages.{i + 1}: Did not find {len(uses)} `tool_result` block(s) at the "
                              "beginning of this message. Messages following `tool_use` blocks must begin "
                              "with a matching number of `tool_result` blocks.")
        else:
            prev = messages[i - 1]["content"] if i else None
            offered = {b.get("id") for b in _blocks(prev) if b.get("type") == "tool_use"}
            for j, block in enumerate(blocks):
                if block.get("type") == "tool_result" and block.get("tool_use_id") not in offered:
                    raise invalid(f"messages.{i}.content.{j}: unexpected `tool_use_id` found in "
                                  f"`tool_result` blocks: {block.get('tool_use_id')}. Each "
                                  "`tool_result` block must have a corresponding `tool_use` "
                                  "block in the previous message.")


def _check_tools(tools) -> None:
    if tools is None:
        return
    if not isinstance(tools, list):
        raise invalid("tools: Input should be a valid list")
    names = set()
    for k, tool in enumerate(tools):
        if not isinstance(tool, dict) or not tool.get("name"):
            raise invalid(f"tools.{k}.name: Field required")
        if tool["name"] in names:
            raise invalid("tools: Tool names must be unique.")
        names.add(tool["name"])
        if tool.get("type") not in (None, "custom"):
            continue  # a server or client tool of the API's own (bash_20250124, ...)
        if not isinstance(tool["name"], str) or not TOOL_NAME.match(tool["name"]):
            raise invalid(f"tools.{k}.custom.name: String should match pattern '{TOOL_NAME.pattern}'")
        schema = tool.get("input_schema")
        if not isinstance(schema, dict):
            raise invalid(f"tools.{k}.custom.input_schema: Field required")
        if schema.get("type") != "object":
            raise invalid(f"tools.{k}.custom.input_schema.type: Input should be 'object'")


def merge_roles(messages):
    """Join consecutive messages of the same role, as the API does before it reads them.

    String content becomes one text block; the blocks are concatenated. Anything
    that is not a list of role dicts is returned as it is, for validation to refuse.
    Example: [user "a", user [tool_result]] -> [user [text "a", tool_result]]
    """
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        return messages
    out = []
    for msg in messages:
        role = msg.get("role")
        if out and role in ("user", "assistant") and out[-1].get("role") == role \
                and set(msg) <= {"role", "content"} and set(out[-1]) <= {"role", "content"}:
            blocks = [_as_blocks(out[-1].get("content")), _as_blocks(msg.get("content"))]
            if None not in blocks:
                out[-1] = {"role": role, "content": blocks[0] + blocks[1]}
                continue
        out.append(msg)
    return out


def _as_blocks(content) -> list | None:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list) else None


def count_breakpoints(body: dict) -> int:
    """How many blocks carry `cache_control` (tools, system and messages)."""
    n = sum(1 for t in body.get("tools") or [] if isinstance(t, dict) and t.get("cache_control"))
    system = body.get("system")
    if isinstance(system, list):
        n += sum(1 for b in system if isinstance(b, dict) and b.get("cache_control"))
    for msg in body.get("messages") or []:
        for b in _blocks(msg.get("content")):
            n += bool(b.get("cache_control"))
            n += sum(1 for inner in _blocks(b.get("content")) if inner.get("cache_control"))
    return n


def require_tools(body: dict) -> None:
    """The API's rule that a request with tool_use or tool_result blocks defines tools (history checks skip it)."""
    if body.get("tools"):
        return
    for msg in body["messages"]:
        if any(b.get("type") in ("tool_use", "tool_result") for b in _blocks(msg["content"])):
            raise invalid("Requests which include `tool_use` or `tool_result` blocks must define tools.")


def validate_request(body, *, count_only: bool = False) -> None:
    """Raise ApiError(400) for a request body the Messages API would reject."""
    if not isinstance(body, dict):
        raise invalid("The request body is not valid JSON.")
    check_fields(body, COUNT_FIELDS if count_only else REQUEST_FIELDS, "")
    if body.get("model") is None:
        raise invalid("model: Field required")
    if not isinstance(body["model"], str):
        raise invalid("model: Input should be a valid string")
    if not body["model"]:
        raise invalid("model: String should have at least 1 character")
    if "messages" not in body:
        raise invalid("messages: Field required")
    if not count_only:
        max_tokens = body.get("max_tokens")
        if max_tokens is None:
            raise invalid("max_tokens: Field required")
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
            raise invalid("max_tokens: Input should be a valid integer")
        if max_tokens < 1:
            raise invalid("max_tokens: Input should be greater than or equal to 1")
    if body.get("stream") is not None and not isinstance(body.get("stream"), bool):
        raise invalid("stream: Input should be a valid boolean")
    system = body.get("system")
    if system is not None and not isinstance(system, (str, list)):
        raise invalid("system: Input should be a valid string or list")
    if isinstance(system, list):
        for k, block in enumerate(system):
            _check_block(block, f"system.{k}")
    _check_tools(body.get("tools"))
    check_sampling(body)
    check_tool_choice(body)
    check_thinking(body, count_only=count_only)
    _check_messages(body["messages"])
    if count_breakpoints(body) > MAX_CACHE_BREAKPOINTS:
        raise invalid(f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
                      f"Found {count_breakpoints(body)}.")
