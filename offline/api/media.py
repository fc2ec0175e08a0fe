"""Images and documents in a request: what the API checks in them, and how many tokens they take.

    image     base64: a known media type, data that decodes, bytes of that type (magic bytes),
              at most 5 MB and 8,000 px a side                 -> "...image.source.base64: image exceeds 5 MB maximum"
              tokens: (width * height) / 750 after the API's resize to 1,568 px on the long edge
    document  base64 PDF (application/pdf, bytes that start %PDF-), text (text/plain), content
              (text / image blocks), url, file; citations {"enabled": bool}
              tokens: its text, and IMAGE_TOKENS_PER_PAGE per PDF page (each page is also an image)

Image sizes are read with Pillow (a matplotlib dependency) from the header only.

Example: image_tokens(400, 400) -> 213;  check_document({"type": "document", "source": {"type": "base64",
           "media_type": "application/pdf", "data": "aGk="}}, "messages.0.content.0")
  -> ApiError(400, "messages.0.content.0.document.source.base64.data: The PDF specified was not valid.")

Docs: build-with-claude/vision (sizes, the token formula), build-with-claude/pdf-support,
build-with-claude/citations.
"""

from __future__ import annotations

import base64
import binascii

from lessonkit.base.media_tokens import (  # noqa: F401 - re-exported
    IMAGE_TOKENS_PER_PAGE,
    PIXELS_PER_TOKEN,
    RESIZE_EDGE,
    image_size,
    image_tokens,
    pdf_pages,
    pdf_text,
)

from .errors import check_fields, check_str, invalid, tag

IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
MAGIC = (("image/png", b"\x89PNG\r\n\x1a\n"), ("image/jpeg", b"\xff\xd8\xff"), ("image/gif", b"GIF87a"),
         ("image/gif", b"GIF89a"))  # webp: "RIFF" .... "WEBP"
MAX_IMAGE_BYTES = 5 * 1024 * 1024   # the API's limit per base64 image (decoded bytes)
MAX_IMAGE_SIDE = 8_000              # pixels, either side
SOURCE_FIELDS = {"base64": {"type", "media_type", "data"}, "text": {"type", "media_type", "data"},
                 "content": {"type", "content"}, "url": {"type", "url"}, "file": {"type", "file_id"}}
IMAGE_SOURCE_FIELDS = {"base64": {"type", "media_type", "data"}, "url": {"type", "url"}, "file": {"type", "file_id"}}
DOCUMENT_TYPES = {"base64": "application/pdf", "text": "text/plain"}


def _decode(data, where: str) -> bytes:
    try:
        if not isinstance(data, str) or not data:
            raise ValueError
        return base64.b64decode(data, validate=True)
    except (ValueError, binascii.Error):
        raise invalid(f"{where}: invalid base64 data") from None


def image_type(raw: bytes) -> str | None:
    """The image type its first bytes show, or None. Example: b"\\x89PNG\\r\\n\\x1a\\n..." -> "image/png" """
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp"
    return next((kind for kind, magic in MAGIC if raw.startswith(magic)), None)


def check_image(source, where: str) -> None:
    """A base64 image source: a known media type, data that decodes to an image of that type, within the limits."""
    if not isinstance(source, dict):
        raise invalid(f"{where}: Field required")
    kind = tag(source, ("base64", "url", "file"), where)
    check_fields(source, IMAGE_SOURCE_FIELDS[kind], f"{where}.{kind}.")
    if kind != "base64":  # url and file sources are fetched by the API; not modeled here
        check_str(source, "url" if kind == "url" else "file_id", f"{where}.{kind}", required=True)
        return
    if source.get("media_type") not in IMAGE_TYPES:
        raise invalid(f"{where}.base64.media_type: Input should be "
                      f"{', '.join(repr(t) for t in IMAGE_TYPES[:-1])} or {IMAGE_TYPES[-1]!r}")
    raw = _decode(source.get("data"), f"{where}.base64")
    if len(raw) > MAX_IMAGE_BYTES:
        raise invalid(f"{where}.base64: image exceeds 5 MB maximum: {len(raw)} bytes > {MAX_IMAGE_BYTES} bytes")
    actual = image_type(raw)
    if actual is None:
        raise invalid(f"{where}.base64.data: Could not process image")
    if actual != source["media_type"]:
        raise invalid(f"{where}.base64.data: The image was specified using the {source['media_type']} media type, "
                      f"but the image appears to be a {actual} image")
    size = image_size(raw)
    if size and max(size) > MAX_IMAGE_SIDE:
        raise invalid(f"{where}.base64.data: At least one of the image dimensions exceed max allowed size: "
                      f"{MAX_IMAGE_SIDE} pixels")


def check_document(block: dict, where: str) -> None:
    """A document block: its source (type, media type, a PDF that is a PDF) and its citations setting."""
    source = block.get("source")
    if not isinstance(source, dict):
        raise invalid(f"{where}.document.source: Field required")
    kind = tag(source, tuple(SOURCE_FIELDS), f"{where}.document.source")
    for key in ("title", "context"):
        check_str(block, key, f"{where}.document")
    check_fields(source, SOURCE_FIELDS[kind], f"{where}.document.source.{kind}.")
    if kind in DOCUMENT_TYPES and source.get("media_type") != DOCUMENT_TYPES[kind]:
        raise invalid(f"{where}.document.source.{kind}.media_type: Input should be '{DOCUMENT_TYPES[kind]}'")
    if kind == "base64":
        raw = _decode(source.get("data"), f"{where}.document.source.base64")
        if not raw.lstrip()[:5] == b"%PDF-":
            raise invalid(f"{where}.document.source.base64.data: The PDF specified was not valid.")
    if kind == "text" and not isinstance(source.get("data"), str):
        raise invalid(f"{where}.document.source.text.data: Input should be a valid string")
    if kind == "content" and not isinstance(source.get("content"), (str, list)):
        raise invalid(f"{where}.document.source.content.content: Input should be a valid string or list")
    if kind in ("url", "file"):
        check_str(source, "url" if kind == "url" else "file_id", f"{where}.document.source.{kind}", required=True)
    citations = block.get("citations")
    if citations is not None:
        if not isinstance(citations, dict):
            raise invalid(f"{where}.document.citations: Input should be a valid dictionary")
        check_fields(citations, {"enabled"}, f"{where}.document.citations.")
        if not isinstance(citations.get("enabled", False), bool):
            raise invalid(f"{where}.document.citations.enabled: Input should be a valid boolean")


MAX_IMAGES = 100         # images in one request (vision: "up to 100 images per API request")
MANY_IMAGES = 20         # past this many images, each may be at most MANY_IMAGES_SIDE a side (vision)
MANY_IMAGES_SIDE = 2_000
MAX_PDF_PAGES = 100      # PDF pages in one request (pdf-support: "Maximum pages per request: 100")


def _media_blocks(body: dict):
    """(where, block) for every image and document block of the request's messages, tool results included."""
    for i, msg in enumerate(body.get("messages") or []):
        content = msg.get("content") if isinstance(msg, dict) else None
        for j, block in enumerate(content if isinstance(content, list) else ()):
            inner = block.get("content") if isinstance(block, dict) and block.get("type") == "tool_result" else None
            for k, item in enumerate(inner if isinstance(inner, list) else ()):
                if isinstance(item, dict) and item.get("type") in ("image", "document"):
                    yield f"messages.{i}.content.{j}.content.{k}", item
            if isinstance(block, dict) and block.get("type") in ("image", "document"):
                yield f"messages.{i}.content.{j}", block


def check_request_media(body: dict) -> None:
    """The request-wide limits: at most MAX_IMAGES images, at most MANY_IMAGES_SIDE a side when there are more
    than MANY_IMAGES, at most MAX_PDF_PAGES PDF pages (each block itself: check_image / check_document).

    Example: 21 base64 images of 2100 x 50
      -> ApiError(400, "messages.0.content.0.image.source.base64.data: At least one of the image dimensions
         exceed max allowed size for many-image requests: 2000 pixels")
    """
    blocks = list(_media_blocks(body))
    images = [(where, b["source"]) for where, b in blocks if b["type"] == "image"]
    if len(images) > MAX_IMAGES:
        raise invalid(f"messages: Too many images: {len(images)} > {MAX_IMAGES} images in one request")
    if len(images) > MANY_IMAGES:
        for where, source in images:
            if isinstance(source, dict) and source.get("type") == "base64":
                size = image_size(_decode(source.get("data"), f"{where}.image.source.base64"))
                if size and max(size) > MANY_IMAGES_SIDE:
                    raise invalid(f"{where}.image.source.base64.data: At least one of the image dimensions exceed "
                                  f"max allowed size for many-image requests: {MANY_IMAGES_SIDE} pixels")
    pages = 0
    for where, block in blocks:
        source = block.get("source")
        if block["type"] == "document" and isinstance(source, dict) and source.get("type") == "base64":
            pages += pdf_pages(_decode(source.get("data"), f"{where}.document.source.base64"))
    if pages > MAX_PDF_PAGES:
        raise invalid(f"A maximum of {MAX_PDF_PAGES} PDF pages may be provided. Found {pages}.")
