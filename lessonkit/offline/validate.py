"""Reject what the real Messages API rejects, with the API's own error shapes.

The compaction lessons are about not producing these errors, so the offline model
must raise them: a `tool_result` with no `tool_use` in the message before it, a
`tool_use` left unanswered, roles that do not alternate, an empty `messages`,
empty or blank text, unknown fields, too many cache breakpoints.

Unknown fields whose value is null are let through: SDK objects dumped back as
dicts carry optional fields set to None, and the lessons append those.

Example: validate_request({"model": "m", "max_tokens": 5, "messages": []})
  -> ApiError(400, "invalid_request_error", "messages: at least one message is required")

Not modeled: image/document payload checks, `tool_choice` consistency, beta fields,
the order of tool_result and text blocks inside a user message, merging of
consecutive same-role messages (the API merges them now; here they are the 400
the lessons teach to avoid).
"""

from __future__ import annotations

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


class ApiError(Exception):
    """An error the API answers with: HTTP status, error type and message."""

    def __init__(self, status: int, type: str, message: str, headers: dict | None = None):
        super().__init__(message)
        self.status, self.type, self.message = status, type, message
        self.headers = headers or {}

    def body(self, request_id: str) -> dict:
        return {"type": "error", "error": {"type": self.type, "message": self.message},
                "request_id": request_id}


def invalid(message: str) -> ApiError:
    return ApiError(400, "invalid_request_error", message)


def _check_fields(obj: dict, allowed: set, where: str) -> None:
    for key, value in obj.items():
        # SDK response objects sent back as-is carry optional fields set to None.
        if key not in allowed and value is not None:
            raise invalid(f"{where}{key}: Extra inputs are not permitted")


def _check_block(block, where: str) -> None:
    if not isinstance(block, dict):
        raise invalid(f"{where}: Input should be a valid dictionary")
    kind = block.get("type")
    if kind not in BLOCK_FIELDS:
        raise invalid(f"{where}: Input tag '{kind}' found using 'type' does not match any of "
                      f"the expected tags: {', '.join(repr(k) for k in BLOCK_FIELDS)}")
    _check_fields(block, BLOCK_FIELDS[kind], f"{where}.")
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
        _check_fields(msg, {"role", "content"}, f"{where}.")
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
        if "type" not in tool and not isinstance(tool.get("input_schema"), dict):
            raise invalid(f"tools.{k}.custom.input_schema: Field required")


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


def validate_request(body, *, count_only: bool = False) -> None:
    """Raise ApiError(400) for a request body the Messages API would reject."""
    if not isinstance(body, dict):
        raise invalid("The request body is not valid JSON.")
    _check_fields(body, COUNT_FIELDS if count_only else REQUEST_FIELDS, "")
    if not body.get("model"):
        raise invalid("model: Field required")
    if "messages" not in body:
        raise invalid("messages: Field required")
    if not count_only:
        max_tokens = body.get("max_tokens")
        if max_tokens is None:
            raise invalid("max_tokens: Field required")
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
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
    _check_messages(body["messages"])
    if count_breakpoints(body) > MAX_CACHE_BREAKPOINTS:
        raise invalid(f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
                      f"Found {count_breakpoints(body)}.")
