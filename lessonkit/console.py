"""Print on any console: what its encoding cannot show becomes '?', never a UnicodeEncodeError.

A Windows console in GBK or cp1252, or a pipe under LANG=C with PYTHONIOENCODING set,
cannot encode every character an agent prints (CJK file contents, ✓ and ✗, arrows).
The kit's command-line entry points call tolerant_console() first.

Example: PYTHONIOENCODING=cp1252 python -m s01_loop   then: Run `echo 上下文`
  -> the answer prints as "???" instead of ending the REPL with a traceback

Not modeled: changing the console's code page (chcp 65001); files are always UTF-8.
"""

from __future__ import annotations

import sys


def tolerant_console() -> None:
    """Make stdout, stderr (and stdin's decoding) replace what they cannot handle. Idempotent."""
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # absent on some replaced streams
        if reconfigure is not None:
            reconfigure(errors="replace")
