"""A tool's printed output, as the answers read it: the exit marker, the text without it, indented.

    "a\\nb\\n[exit code 0]" ──> plain() "a\\nb"   output() "    a\\n    b"   EXIT.findall() ["0"]

Example: plain("(no output)\\n[exit code 0]") -> ""
         output("a\\nb") -> "    a\\n    b"
"""

from __future__ import annotations

import re

from lessonkit.i18n import trn

OUTPUT_LINES = 12
EXIT = re.compile(r"\[exit[ _]code:? (-?\d+)\]")


def plain(text: str) -> str:
    """A result's text without the exit marker or an empty-output placeholder."""
    text = EXIT.sub("", text).strip()
    return "" if text in ("(no output)", "(empty)", "(empty file)") else text


def output(text: str, limit: int = OUTPUT_LINES, language: str = "en") -> str:
    """A command's output, indented, without the exit marker. Example: 'a\\nb' -> '    a\\n    b'"""
    lines = [ln for ln in EXIT.sub("", text).rstrip().splitlines()]
    more = ("\n    " + trn("(+{n} more line)", "(+{n} more lines)", len(lines) - limit, language=language)
            if len(lines) > limit else "")
    return "\n".join("    " + ln for ln in lines[:limit]) + more
