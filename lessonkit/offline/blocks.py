"""One content block, checked as the Messages API checks it: its type, its fields, what it holds.

    text         a non-empty string that is not only whitespace
    tool_use     an `id`, a `name` and an `input` object
    tool_result  a string, or text / image / document / search_result blocks (each checked too)
    image        a base64 source: a known media type, data that decodes, bytes of that type (magic bytes)
    thinking     its `thinking` text and its `signature`
    any block    no field the API does not know (errors.check_fields)

Example: check_block({"type": "text", "text": " "}, "messages.0.content.0")
  -> ApiError(400, "invalid_request_error", "messages: text content blocks must contain non-whitespace text")

Not modeled: whether an image decodes beyond its magic bytes, document payloads.
"""

from __future__ import annotations

import base64
import binascii

from .errors import check_fields, invalid

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
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
MAGIC = (("image/png", b"\x89PNG\r\n\x1a\n"), ("image/jpeg", b"\xff\xd8\xff"), ("image/gif", b"GIF87a"),
         ("image/gif", b"GIF89a"))  # webp: "RIFF" .... "WEBP"


def check_block(block, where: str) -> None:
    """Raise ApiError(400) for a content block the API would reject. Example: {"type": "text", "text": ""} -> invalid"""
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
                check_block(inner, f"{where}.content.{k}")
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
