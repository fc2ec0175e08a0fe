"""How many tokens an image or a PDF takes: its size from the header, then the API's formulas.

    image   (width * height) / 750, after the API scales the long edge down to 1,568 px and the
            area down to about 1.15 megapixels (at most 1,568 x 784 = 1,229,312 px: ~1,600 tokens)
    PDF     its text, and IMAGE_TOKENS_PER_PAGE per page (each page is also read as an image)

Image sizes are read with Pillow (a matplotlib dependency) from the header only. The token
counter (lessonkit.tokens) and the offline API's checks (offline.api.media) both use these.

Example: image_tokens(400, 400) -> 213;  image_tokens(3000, 1500) -> 1639;  image_tokens(2000, 2000) -> 1639
         pdf_pages(b"/Type /Page ... /Type /Page") -> 2

Docs: build-with-claude/vision (sizes, the token formula), build-with-claude/pdf-support.
"""

from __future__ import annotations

import io
import re

RESIZE_EDGE = 1_568                 # the API scales larger images down to this long edge
MAX_PIXELS = 1_568 * 784            # ... and to this area (the largest size vision's table lists, 1:2)
PIXELS_PER_TOKEN = 750
IMAGE_TOKENS_PER_PAGE = 1_600       # a PDF page is also read as an image (pdf-support: 1,500-3,000 per page)
_PAGE = re.compile(rb"/Type\s*/Page(?![s\w])")


def image_size(raw: bytes) -> tuple[int, int] | None:
    """(width, height) from the image's header, or None if Pillow cannot read it."""
    try:
        from PIL import Image  # late: only requests with images pay for the import

        with Image.open(io.BytesIO(raw)) as img:
            return img.size
    except Exception:  # noqa: BLE001 - any unreadable header: the size is unknown
        return None


def image_tokens(width: int, height: int) -> int:
    """The vision page's formula: (width * height) / 750, after scaling the long edge to 1,568 px and the area
    to MAX_PIXELS (an image "more than ~1,600 tokens" is scaled down first)."""
    scale = min(1.0, RESIZE_EDGE / max(width, height, 1), (MAX_PIXELS / max(1, width * height)) ** 0.5)
    return max(1, round((width * scale) * (height * scale) / PIXELS_PER_TOKEN))


def pdf_pages(raw: bytes) -> int:
    """How many pages a PDF has (its /Type /Page objects; at least one)."""
    return max(1, len(_PAGE.findall(raw)))


def pdf_text(raw: bytes) -> str:
    """The PDF's literal strings (the text `Tj` / `TJ` show), for counting; compressed streams count as pages only."""
    return " ".join(m.decode("latin-1") for m in re.findall(rb"\(((?:[^()\\]|\\.)*)\)", raw))
