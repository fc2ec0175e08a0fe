"""Reject what the real Messages API rejects, with the API's own error shapes.

The compaction lessons are about not producing these errors, so the offline model
must raise them: a `tool_result` with no `tool_use` in the message before it, a
`tool_use` left unanswered, text before the `tool_result` blocks that answer a
`tool_use`, roles that do not alternate, an empty `messages`, empty or blank text,
unknown fields, too many cache breakpoints, tool names outside ^[a-zA-Z0-9_-]{1,64}$,
an `input_schema` not of type object; blocks.py checks each content block (its fields,
empty text, an image's base64 and magic bytes, a `thinking` block's signature); params.py
checks the parameters (temperature, top_k, stop_sequences, metadata, tool_choice, thinking).
`require_tools` (called by the model, not by the kit's own history checks) refuses tool
blocks in a request that defines no tools.

The API merges consecutive same-role messages before it checks them; so does the
model (merge_roles, called by model.py). validate_request itself keeps the strict
rule, because the kit's own histories must alternate (tests/strategies.py uses it).

Unknown fields whose value is null are let through: SDK objects dumped back as
dicts carry optional fields set to None, and the lessons append those.

Example: validate_request({"model": "m", "max_tokens": 5, "messages": []})
  -> ApiError(400, "invalid_request_error", "messages: at least one message is required")

Messages whose exact wording could not be checked against a captured API answer
(tool_choice, top_k, stop_sequences, metadata) follow the API's pydantic style.

The request is read under its API version and betas (`api`, from the headers: versions.py,
betas.py): a field a beta enables is refused without it, and the version's own rules
(versions.RULES) apply. With thinking enabled, the assistant turn of a tool loop must start
with its thinking block; cache_control TTLs must not go from 5m to 1h; tool schemas must
be valid JSON Schema and structured-output schemas strict (schemas.py).

Per-model rules (names, max_tokens ceilings, thinking types) are models.py's.
"""

from __future__ import annotations

import re

from .betas import beta_fields
from .blocks import check_block, check_cache_control
from .errors import ApiError, check_fields, invalid, tag
from .media import check_request_media
from .params import THINKING_DOCS, check_options, check_sampling, check_thinking, check_tool_choice
from .schemas import check_input_schema, check_output_format, check_strict_schema
from .versions import Api, check_version_rules

__all__ = ["ApiError", "count_breakpoints", "invalid", "merge_roles", "require_tools", "validate_request"]

REQUEST_FIELDS = {
    "model", "messages", "max_tokens", "system", "tools", "tool_choice", "temperature",
    "top_p", "top_k", "stop_sequences", "stream", "metadata", "thinking", "service_tier",
    "container", "output_config", "inference_geo", "speed", "cache_control", "diagnostics",
}  # and the fields the request's betas enable (betas.BETAS)
COUNT_FIELDS = {"model", "messages", "system", "tools", "tool_choice", "thinking", "output_config", "cache_control",
                "speed"}
MAX_MESSAGES = 100_000  # the Messages API's limit on messages in one request (api/messages)
TOOL_FIELDS = {"type", "name", "description", "input_schema", "cache_control", "strict", "input_examples",
               "defer_loading", "allowed_callers", "eager_input_streaming"}
EFFORTS = ("low", "medium", "high", "xhigh", "max")
THREAD_FIELDS = {"create": {"type"}, "continue": {"type", "previous_message_id"}}
MISSING_THINKING = ("messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. "
                    "When `thinking` is enabled, a final `assistant` message must start with a thinking block "
                    "(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include "
                    "thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please "
                    f"consult our documentation at {THINKING_DOCS}")
MAX_CACHE_BREAKPOINTS = 4
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _blocks(content) -> list:
    return content if isinstance(content, list) else []


def _check_messages(messages) -> None:
    if not isinstance(messages, list):
        raise invalid("messages: Input should be a valid list")
    if not messages:
        raise invalid("messages: at least one message is required")
    if len(messages) > MAX_MESSAGES:
        raise invalid(f"messages: List should have at most {MAX_MESSAGES} items after validation, "
                      f"not {len(messages)}")
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
                check_block(block, f"{where}.content.{j}")
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
        if not isinstance(tool["name"], str):
            raise invalid(f"tools.{k}.name: Input should be a valid string")
        if tool["name"] in names:
            raise invalid("tools: Tool names must be unique.")
        names.add(tool["name"])
        if tool.get("cache_control") is not None:
            check_cache_control(tool["cache_control"], f"tools.{k}.cache_control")
        if tool.get("type") not in (None, "custom"):
            continue  # a server or client tool of the API's own (bash_20250124, ...)
        check_fields(tool, TOOL_FIELDS, f"tools.{k}.custom.")
        if not isinstance(tool["name"], str) or not TOOL_NAME.match(tool["name"]):
            raise invalid(f"tools.{k}.custom.name: String should match pattern '{TOOL_NAME.pattern}'")
        schema = tool.get("input_schema")
        if not isinstance(schema, dict):
            raise invalid(f"tools.{k}.custom.input_schema: Field required")
        if schema.get("type") != "object":
            raise invalid(f"tools.{k}.custom.input_schema.type: Input should be 'object'")
        check_input_schema(schema, f"tools.{k}.custom")
        if tool.get("strict") is True:
            check_strict_schema(schema, f"tools.{k}.custom.input_schema")


def _check_thinking_turn(body: dict) -> None:
    """With thinking enabled, the assistant turn that a final tool_result answers must start with its thinking."""
    if (body.get("thinking") or {}).get("type") != "enabled":
        return
    messages = body["messages"]
    last = messages[-1]
    results = [b for b in _blocks(last["content"]) if b.get("type") == "tool_result"]
    if last["role"] != "user" or not results or len(messages) < 2:
        return
    turn = messages[-2]["content"]
    first = _blocks(turn)[0] if _blocks(turn) else {"type": "text"}
    if first.get("type") not in ("thinking", "redacted_thinking"):
        raise invalid(MISSING_THINKING.format(i=len(messages) - 2, found=first.get("type")))


def cache_marks(body: dict):
    """Every cache_control in the API's order: tools, system, messages (and blocks inside tool results)."""
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("cache_control"):
            yield tool["cache_control"]
    system = body.get("system")
    for block in system if isinstance(system, list) else ():
        if block.get("cache_control"):
            yield block["cache_control"]
    for msg in body["messages"]:
        for block in _blocks(msg["content"]):
            for inner in _blocks(block.get("content")):
                if isinstance(inner, dict) and inner.get("cache_control"):
                    yield inner["cache_control"]
            if block.get("cache_control"):
                yield block["cache_control"]


def _check_ttl_order(body: dict) -> None:
    """A 1-hour breakpoint may not come after a 5-minute one (prompt caching: mixing TTLs)."""
    seen_short = False
    for mark in cache_marks(body):
        ttl = mark.get("ttl") or "5m"
        if ttl == "1h" and seen_short:
            raise invalid("cache_control: a cache_control block with ttl='1h' cannot come after a cache_control "
                          "block with ttl='5m'. Cache entries with a longer TTL must appear before ones with a "
                          "shorter TTL (in the order tools, system, messages).")
        seen_short = seen_short or ttl == "5m"


def _check_beta_fields(body: dict) -> None:
    """The shapes of the fields betas enable: thread, context_management, mcp_servers, output_format."""
    thread = body.get("thread")
    if thread is not None:
        kind = thread.get("type") if isinstance(thread, dict) else None
        if kind not in THREAD_FIELDS:
            raise invalid(f"thread: Input tag '{kind}' found using 'type' does not match any of the expected "
                          "tags: 'create', 'continue'")
        check_fields(thread, THREAD_FIELDS[kind], f"thread.{kind}.")
        if kind == "continue" and not isinstance(thread.get("previous_message_id"), str):
            raise invalid("thread.continue.previous_message_id: Field required")
    if body.get("output_format") is not None and (body.get("output_config") or {}).get("format") is not None:
        raise invalid("output_format: cannot be used together with output_config.format; use output_config.format")
    check_output_format(body.get("output_format"), "output_format")
    config = body.get("output_config")
    if config is not None:
        if not isinstance(config, dict):
            raise invalid("output_config: Input should be a valid dictionary")
        check_fields(config, {"format", "effort", "task_budget"}, "output_config.")
        if config.get("effort") is not None and config["effort"] not in EFFORTS:
            raise invalid("output_config.effort: Input should be " + ", ".join(repr(e) for e in EFFORTS[:-1])
                          + f" or {EFFORTS[-1]!r}")
        check_output_format(config.get("format"), "output_config.format")


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


def validate_request(body, *, count_only: bool = False, api: Api | None = None) -> None:
    """Raise ApiError(400) for a request body the Messages API would reject, under `api`'s version and betas."""
    api = api or Api()
    if not isinstance(body, dict):
        raise invalid("The request body is not valid JSON.")
    check_fields(body, (COUNT_FIELDS if count_only else REQUEST_FIELDS) | beta_fields(api.betas), "")
    check_version_rules(body, api.version)
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
        if max_tokens < 0:  # 0 writes the prompt cache and generates nothing (prompt caching: pre-warming)
            raise invalid("max_tokens: Input should be greater than or equal to 0")
    if body.get("stream") is not None and not isinstance(body.get("stream"), bool):
        raise invalid("stream: Input should be a valid boolean")
    system = body.get("system")
    if system is not None and not isinstance(system, (str, list)):
        raise invalid("system: Input should be a valid string or list")
    if isinstance(system, list):
        for k, block in enumerate(system):
            tag(block, ("text",), f"system.{k}")  # a system prompt is text blocks only
            check_block(block, f"system.{k}")
    if body.get("cache_control") is not None:
        check_cache_control(body["cache_control"], "cache_control")
    _check_tools(body.get("tools"))
    check_sampling(body)
    check_tool_choice(body)
    check_thinking(body, count_only=count_only, betas=api.betas)
    check_options(body)
    _check_messages(body["messages"])
    check_request_media(body)
    _check_beta_fields(body)
    _check_thinking_turn(body)
    marked = with_automatic_breakpoint(body)  # a top-level cache_control marks the last block
    _check_ttl_order(marked)
    if count_breakpoints(marked) > MAX_CACHE_BREAKPOINTS:
        raise invalid(f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
                      f"Found {count_breakpoints(marked)}.")


def with_automatic_breakpoint(body: dict) -> dict:
    """The request with its top-level `cache_control` moved onto the last cacheable block, as the API applies it
    (prompt caching: automatic caching). A request without one is returned as it is.

    Example: {"cache_control": {"type": "ephemeral"}, "messages": [user "hi"]}
      -> {"messages": [user [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]]}
    """
    mark = body.get("cache_control")
    if not mark or not isinstance(body.get("messages"), list) or not body["messages"]:
        return body
    out = {k: v for k, v in body.items() if k != "cache_control"}
    last = dict(out["messages"][-1])
    content = last.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    cacheable = [k for k, b in enumerate(blocks) if isinstance(b, dict)
                 and b.get("type") not in ("thinking", "redacted_thinking")]
    if not cacheable:
        return out
    k = cacheable[-1]
    if not blocks[k].get("cache_control"):
        blocks[k] = dict(blocks[k], cache_control=mark)
    last["content"] = blocks
    out["messages"] = [*out["messages"][:-1], last]
    return out
