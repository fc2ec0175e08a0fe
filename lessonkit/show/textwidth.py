"""Columns of text that line up in a monospace font, Chinese included.

Motto: a Chinese character takes two cells; count cells, not characters.

    width("用户 ok")   -> 7     (2 + 2 + 1 + 2: wide characters count twice)
    ljust / rjust      pad with spaces to a width in cells
    cut                at most a width in cells, whole characters only

Example: ljust("用户", 9) + "|" -> "用户     |"  (4 cells of text, 5 of spaces)

Not modeled: combining marks and zero-width characters (each counts as one cell),
emoji sequences; the kit's texts have none in their columns.
"""

from __future__ import annotations

import unicodedata

WIDE = ("W", "F")  # East Asian Wide and Fullwidth: two cells in a terminal or a monospace font


def width(text: str) -> int:
    """Cells `text` takes in a monospace font. Example: width("上下文 ok") -> 9"""
    return sum(2 if unicodedata.east_asian_width(ch) in WIDE else 1 for ch in text)


def ljust(text: str, cells: int) -> str:
    """`text` padded on the right to `cells`. Example: ljust("令牌", 6) -> "令牌  " """
    return text + " " * max(0, cells - width(text))


def rjust(text: str, cells: int) -> str:
    """`text` padded on the left to `cells`. Example: rjust("请求", 6) -> "  请求" """
    return " " * max(0, cells - width(text)) + text


def cut(text: str, cells: int) -> str:
    """The longest start of `text` that fits in `cells`. Example: cut("工具结果+标记", 9) -> "工具结果+" """
    used = 0
    for i, ch in enumerate(text):
        used += 2 if unicodedata.east_asian_width(ch) in WIDE else 1
        if used > cells:
            return text[:i]
    return text
