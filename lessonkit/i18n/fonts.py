"""A font with Chinese glyphs for the charts, or None: never a chart of tofu boxes.

    cjk_font() -> "WenQuanYi Micro Hei" | "Noto Sans CJK SC" | ... | None

matplotlib's default font (DejaVu Sans) has no Chinese glyphs: a Chinese title would draw as
empty boxes. `cjk_font` asks matplotlib's own font list for a family that covers Chinese, in a
preferred order; the charts use it for Chinese text, and keep their English labels when there is
none. `make lab` / `make test` install Debian's small `fonts-wqy-microhei` (1.6 MB) when they run
as root with apt and no such font is found; elsewhere install any CJK font (on Windows and macOS
one is already there: Microsoft YaHei, PingFang SC).

Example: cjk_font() -> "WenQuanYi Micro Hei"     (Debian with fonts-wqy-microhei)

Not modeled: choosing among several installed CJK fonts by taste; Japanese or Korean glyph variants.
"""

from __future__ import annotations

import functools

PREFERRED = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Micro Hei",
             "WenQuanYi Zen Hei", "Microsoft YaHei", "PingFang SC", "SimHei", "Heiti SC",
             "Droid Sans Fallback", "AR PL UMing CN")
PROBE = "上下文压缩"


@functools.cache
def cjk_font() -> str | None:
    """The family name of an installed font that draws Chinese, or None (searched once per process).

    matplotlib's font list is cached on disk and may predate the font's install, so the system's
    font files are searched too, and a font found there is added to matplotlib's list."""
    from matplotlib import font_manager

    known = {entry.name: entry.fname for entry in font_manager.fontManager.ttflist}
    for name in PREFERRED:
        if name in known and covers(known[name]):
            return name
    found = {}
    for path in font_manager.findSystemFonts():
        try:
            name = font_manager.FontProperties(fname=path).get_name()
        except (OSError, RuntimeError, ValueError):
            continue
        if name in PREFERRED and name not in found and covers(path):
            found[name] = path
    for name in PREFERRED:
        if name in found:
            font_manager.fontManager.addfont(found[name])
            return name
    return None


def covers(path: str, text: str = PROBE) -> bool:
    """Does the font file at `path` have a glyph for every character of `text`?"""
    from matplotlib.ft2font import FT2Font

    try:
        font = FT2Font(path)
    except (OSError, RuntimeError, ValueError):
        return False
    return all(font.get_char_index(ord(ch)) for ch in text)


APT_PACKAGE = "fonts-wqy-microhei"


def ensure_cjk_font() -> str:
    """Install Debian's small CJK font when none is found and apt can (root); say what happened.

    Example: ensure_cjk_font() -> "Chinese font: WenQuanYi Micro Hei"
    """
    import os
    import shutil
    import subprocess

    name = cjk_font()
    if name:
        return f"Chinese font: {name}"
    if not shutil.which("apt-get") or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "Chinese font: none found (charts keep English labels; install any CJK font to change that)"
    for args in (["update"], ["install", "-y", "--no-install-recommends", APT_PACKAGE]):
        done = subprocess.run(["apt-get", "-o", "DPkg::Lock::Timeout=300", "-q", *args],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            return f"Chinese font: apt-get {args[0]} failed (charts keep English labels)"
    cjk_font.cache_clear()
    return f"Chinese font: {cjk_font() or 'installed, but matplotlib does not see it'}"
