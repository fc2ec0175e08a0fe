"""The kit's one token counter: used for `usage`, `count_tokens` and every lesson's figures.

Claude's tokenizer is not public, so the offline model counts with a documented
heuristic that is aware of what kind of text it sees. It works on the UTF-8 bytes
with `bytes.translate` and `bytes.count` (C speed, no Python loop) and weighs:

    ASCII letters and digits   1 token per 4 characters   (prose words, identifiers)
    ASCII punctuation/symbols  1 token per 2 characters   (code and JSON are dense)
    newlines                   1 token per 2
    runs of 4 spaces           1 token per 2 runs         (code indentation)
    other spaces and tabs      free                       (merged into the next word)
    2-byte UTF-8 (é, ж, α …)   1 token per 2 characters
    3-byte UTF-8 (CJK, kana)   1 token per character
    4-byte UTF-8 (emoji …)     2 tokens per character

Example: count_text("The quick brown fox.") -> 5;  count_text("上下文压缩") -> 5

So, per character: prose ~0.21 tokens, code ~0.26, JSON ~0.28-0.32, CJK 1.0;
1 MB of any of them counts in about 2-3 ms (benchmarks/bench_tokens.py).

Structure adds a little: 3 tokens per message, 3 per content block (a string
content is one text block); an image is (width * height) / 750 (the vision docs' formula,
after the API's resize; 1,600 when its size is unknown), a PDF page 1,600 plus its text,
a text document its text; and the JSON of tool inputs and
tool schemas is counted as text (without `cache_control`, so marking a cache
breakpoint costs nothing).

Not modeled: real BPE merges; a word such as "antidisestablishment" is 5 here.
"""

from __future__ import annotations

import base64
import json
import math

from .base.history_shape import check_history  # the kit's one history check

PER_MESSAGE = 3
PER_BLOCK = 3
PER_IMAGE = 1_600

_ALL = bytes(range(256))


def _complement(keep: bytes) -> bytes:
    """The bytes to delete so that only `keep` survives a translate."""
    return bytes(b for b in _ALL if b not in keep)


_ALNUM = bytes(range(48, 58)) + bytes(range(65, 91)) + bytes(range(97, 123))
_NEWLINE = b"\n"
_SPACE = b" \t\r\f\v"
_ASCII = bytes(range(128))
_LEAD2 = bytes(range(0xC2, 0xE0))
_LEAD3 = bytes(range(0xE0, 0xF0))
_LEAD4 = bytes(range(0xF0, 0xF5))
_DELETE = {name: _complement(keep) for name, keep in {
    "alnum": _ALNUM, "newline": _NEWLINE, "space": _SPACE, "ascii": _ASCII,
    "lead2": _LEAD2, "lead3": _LEAD3, "lead4": _LEAD4}.items()}


def _count(data: bytes, name: str) -> int:
    return len(data.translate(None, _DELETE[name]))


def count_text(text: str) -> int:
    """Tokens in one string. Example: count_text('hello world') -> 3"""
    if not text:
        return 0
    data = text.encode("utf-8", "surrogatepass")
    ascii_n = _count(data, "ascii")
    alnum = _count(data, "alnum")
    newline = _count(data, "newline")
    space = _count(data, "space")
    punct = ascii_n - alnum - newline - space
    weight = alnum / 4 + punct / 2 + newline / 2 + data.count(b"    ") / 2
    if ascii_n != len(data):  # only non-ASCII text pays for the extra passes
        weight += _count(data, "lead2") / 2 + _count(data, "lead3") + 2 * _count(data, "lead4")
    return max(1, math.ceil(weight))


def _json(value) -> str:
    """Compact JSON of a value, `cache_control` left out (a marker, not content)."""
    if isinstance(value, dict) and "cache_control" in value:
        value = {k: v for k, v in value.items() if k != "cache_control"}
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, default=str)


def count_block(block) -> int:
    """Tokens in one content block (text, tool_use, tool_result, image, ...)."""
    if isinstance(block, str):
        return count_text(block)
    kind = block.get("type")
    if kind == "text":
        return PER_BLOCK + count_text(block.get("text", ""))
    if kind == "tool_use":
        return PER_BLOCK + count_text(block.get("name", "")) + count_text(_json(block.get("input", {})))
    if kind == "tool_result":
        return PER_BLOCK + count_content(block.get("content", ""))
    if kind == "image":
        return PER_BLOCK + _image_tokens(block.get("source"))
    if kind == "document":
        return PER_BLOCK + _document_tokens(block)
    if kind in ("thinking", "redacted_thinking"):
        return PER_BLOCK + count_text(block.get("thinking", "") or block.get("data", ""))
    return PER_BLOCK + count_text(_json(block))


def _image_tokens(source) -> int:
    """The vision docs' (width * height) / 750 for a base64 image whose size its header gives; else PER_IMAGE."""
    from .base.media_tokens import image_size, image_tokens

    if isinstance(source, dict) and source.get("type") == "base64" and isinstance(source.get("data"), str):
        try:
            size = image_size(base64.b64decode(source["data"], validate=True))
        except ValueError:
            size = None
        if size:
            return image_tokens(*size)
    return PER_IMAGE


def _document_tokens(block: dict) -> int:
    """A document: its text (a text or content source), or per PDF page its image and its text (pdf-support)."""
    from .base.media_tokens import IMAGE_TOKENS_PER_PAGE, pdf_pages, pdf_text

    source = block.get("source") if isinstance(block.get("source"), dict) else {}
    extra = count_text(block.get("title") or "") + count_text(block.get("context") or "")
    if source.get("type") == "text":
        return extra + count_text(source.get("data") or "")
    if source.get("type") == "content":
        return extra + count_content(source.get("content"))
    if source.get("type") == "base64":
        try:
            raw = base64.b64decode(source.get("data") or "", validate=True)
        except ValueError:
            raw = b""
        return extra + pdf_pages(raw) * IMAGE_TOKENS_PER_PAGE + count_text(pdf_text(raw))
    return extra + count_text(_json(block))


def count_content(content) -> int:
    """Tokens in a message's (or tool result's) `content`: a string or a list of blocks.

    A string is the API's shorthand for one text block, and counts the same.
    Example: count_content("hi") == count_content([{"type": "text", "text": "hi"}]) == 4
    """
    if not content:
        return 0
    if isinstance(content, str):
        return PER_BLOCK + count_text(content)
    return sum(count_block(b) for b in content)


def count_message(message: dict) -> int:
    """Tokens in one message. Example: {'role': 'user', 'content': 'hi'} -> 7"""
    return PER_MESSAGE + count_content(message.get("content"))


def count_messages(messages) -> int:
    """Tokens in a list of messages; a malformed history is one ValueError naming the message."""
    check_history(messages)
    return _count_messages(messages)


def _count_messages(messages) -> int:
    return sum(count_message(m) for m in messages)


def count_system(system) -> int:
    """Tokens in the `system` parameter (a string or a list of text blocks)."""
    if not system:
        return 0
    return count_content(system)


def count_tools(tools) -> int:
    """Tokens in the tool definitions (name, description and JSON schema)."""
    return sum(PER_BLOCK + count_text(_json(t)) for t in tools or [])


def count_request(request: dict) -> int:
    """Input tokens of a Messages API request body: tools + system + messages."""
    return (count_tools(request.get("tools"))
            + count_system(request.get("system"))
            + _count_messages(request.get("messages") or []))
