"""One content block, checked as the Messages API checks it: its type, its fields, what it holds.

    text           a non-empty string that is not only whitespace
    tool_use       an `id` matching ^[a-zA-Z0-9_-]+$, a `name` and an `input` object
    tool_result    a `tool_use_id` of the same pattern, `is_error` a boolean; a string, or text / image / document /
                   search_result / tool_reference blocks
    image          media.check_image: media type, base64, magic bytes, 5 MB and 8,000 px limits
    document       media.check_document: its source (a PDF that is a PDF, text/plain text), citations.enabled a bool
    search_result  a `source`, a `title` and text blocks as `content`
    thinking       its `thinking` text and its `signature`
    cache_control  {"type": "ephemeral", "ttl": "5m" | "1h"} (validate.py checks the TTLs' order)
    any block      no field the API does not know (errors.check_fields)

Example: check_block({"type": "text", "text": " "}, "messages.0.content.0")
  -> ApiError(400, "invalid_request_error", "messages: text content blocks must contain non-whitespace text")

Not modeled: whether an image decodes beyond its header, a PDF's pages beyond its first bytes.
"""

from __future__ import annotations

import re

from .errors import check_fields, check_str, invalid, tag
from .media import IMAGE_TYPES, MAGIC, check_document, check_image, image_type  # noqa: F401 - re-exported

BLOCK_FIELDS = {
    "text": {"type", "text", "cache_control", "citations"},
    "image": {"type", "source", "cache_control"},
    "document": {"type", "source", "cache_control", "title", "context", "citations"},
    "tool_use": {"type", "id", "name", "input", "cache_control", "caller", "toolset_name"},
    "tool_result": {"type", "tool_use_id", "content", "is_error", "cache_control", "toolset_name"},
    "thinking": {"type", "thinking", "signature"},
    "redacted_thinking": {"type", "data"},
    "search_result": {"type", "source", "title", "content", "citations", "cache_control"},
    "tool_reference": {"type", "tool_name", "cache_control"},  # tool search: a tool named in a tool_result
    # server tools' blocks, sent back in a history that the real API wrote (not produced offline)
    "server_tool_use": {"type", "id", "name", "input", "cache_control", "caller"},
    "web_search_tool_result": {"type", "tool_use_id", "content", "cache_control", "caller"},
    "web_fetch_tool_result": {"type", "tool_use_id", "content", "cache_control", "caller"},
    "code_execution_tool_result": {"type", "tool_use_id", "content", "cache_control"},
    "bash_code_execution_tool_result": {"type", "tool_use_id", "content", "cache_control"},
    "text_editor_code_execution_tool_result": {"type", "tool_use_id", "content", "cache_control"},
    "mcp_tool_use": {"type", "id", "name", "input", "server_name", "cache_control"},
    "mcp_tool_result": {"type", "tool_use_id", "content", "is_error", "cache_control"},
    "container_upload": {"type", "file_id", "cache_control"},
    "tool_search_tool_result": {"type", "tool_use_id", "content", "cache_control"},
}
RESULT_BLOCKS = ("text", "image", "search_result", "document", "tool_reference")  # what a tool_result may hold
TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
CACHE_TTLS = ("5m", "1h")


def check_block(block, where: str) -> None:
    """Raise ApiError(400) for a content block the API would reject. Example: {"type": "text", "text": ""} -> invalid"""
    if not isinstance(block, dict):
        raise invalid(f"{where}: Input should be a valid dictionary")
    kind = tag(block, tuple(BLOCK_FIELDS), where)
    check_fields(block, BLOCK_FIELDS[kind], f"{where}.")
    if block.get("cache_control") is not None:
        check_cache_control(block["cache_control"], f"{where}.{kind}.cache_control")
    if kind == "text" and not isinstance(block.get("text"), str):
        raise invalid(f"{where}.text: Field required")
    if kind == "text" and block.get("citations") is not None and not isinstance(block["citations"], list):
        raise invalid(f"{where}.text.citations: Input should be a valid list")
    if kind == "text" and not block["text"]:
        raise invalid("messages: text content blocks must be non-empty")
    if kind == "text" and not block["text"].strip():
        raise invalid("messages: text content blocks must contain non-whitespace text")
    if kind == "tool_use":
        if not isinstance(block.get("input"), dict):
            raise invalid(f"{where}.input: Input should be a valid dictionary")
        if not block.get("id") or not block.get("name"):
            raise invalid(f"{where}: tool_use blocks need an `id` and a `name`")
        check_str(block, "name", f"{where}.tool_use")
        if not isinstance(block["id"], str) or not TOOL_USE_ID.match(block["id"]):
            raise invalid(f"{where}.tool_use.id: String should match pattern '{TOOL_USE_ID.pattern}'")
    if kind == "image":
        check_image(block.get("source"), f"{where}.image.source")
    if kind == "document":
        check_document(block, where)
        inner = block["source"].get("content") if block["source"].get("type") == "content" else None
        for k, part in enumerate(inner if isinstance(inner, list) else []):  # a content document's own blocks
            tag(part, ("text", "image"), f"{where}.document.source.content.content.{k}")
            check_block(part, f"{where}.document.source.content.content.{k}")
    if kind == "search_result":
        _check_search_result(block, where)
    if kind == "thinking":
        for key in ("thinking", "signature"):
            if not isinstance(block.get(key), str):
                raise invalid(f"{where}.thinking.{key}: Field required")
    if kind == "redacted_thinking":
        check_str(block, "data", f"{where}.redacted_thinking", required=True)
    if kind == "tool_reference":
        check_str(block, "tool_name", f"{where}.tool_reference", required=True)
    if kind == "tool_result":
        use_id = block.get("tool_use_id")
        if not isinstance(use_id, str) or not TOOL_USE_ID.match(use_id):
            raise invalid(f"{where}.tool_result.tool_use_id: String should match pattern '{TOOL_USE_ID.pattern}'")
        if block.get("is_error") is not None and not isinstance(block["is_error"], bool):
            raise invalid(f"{where}.tool_result.is_error: Input should be a valid boolean")
        check_str(block, "toolset_name", f"{where}.tool_result")
        content = block.get("content", "")
        if isinstance(content, list):
            for k, inner in enumerate(content):
                tag(inner, RESULT_BLOCKS, f"{where}.content.{k}")  # only these may stand in a tool_result
                check_block(inner, f"{where}.content.{k}")
        elif not isinstance(content, str):
            raise invalid(f"{where}.content: Input should be a valid string or list")


def check_cache_control(value, where: str) -> None:
    """{"type": "ephemeral"} with an optional ttl of "5m" or "1h". Example: {"type": "persistent"} -> invalid"""
    if not isinstance(value, dict):
        raise invalid(f"{where}: Input should be a valid dictionary")
    tag(value, ("ephemeral",), where)
    check_fields(value, {"type", "ttl"}, f"{where}.ephemeral.")
    if value.get("ttl") is not None and (not isinstance(value["ttl"], str) or value["ttl"] not in CACHE_TTLS):
        raise invalid(f"{where}.ephemeral.ttl: Input should be '5m' or '1h'")


def _check_search_result(block: dict, where: str) -> None:
    """A search result: source and title strings, and text blocks as its content."""
    for key in ("source", "title"):
        if not isinstance(block.get(key), str):
            raise invalid(f"{where}.search_result.{key}: Field required")
    content = block.get("content")
    if not isinstance(content, list):
        raise invalid(f"{where}.search_result.content: Input should be a valid list")
    for k, inner in enumerate(content):
        tag(inner, ("text",), f"{where}.search_result.content.{k}")  # a search result holds text blocks only
        check_block(inner, f"{where}.search_result.content.{k}")
    citations = block.get("citations")
    if citations is not None and not isinstance(citations, dict):
        raise invalid(f"{where}.search_result.citations: Input should be a valid dictionary")
    if citations is not None and not isinstance(citations.get("enabled", False), bool):
        raise invalid(f"{where}.search_result.citations.enabled: Input should be a valid boolean")
