"""A font with Chinese glyphs for the charts, or None: never a chart of tofu boxes.

    cjk_font() -> "WenQuanYi Micro Hei" | "Noto Sans CJK SC" | "Noto Sans SC" | ... | None
        1. a preferred family matplotlib already knows (its font list, cached on disk)
        2. the Noto Sans SC that the pip package pylopdf-fonts-zh-cn ships (a dependency of the
           kit: SIL Open Font License, 8 MB; the same on Linux, macOS and Windows)
        3. a preferred family among the system's font files (installed after matplotlib's cache)

matplotlib's default font (DejaVu Sans) has no Chinese glyphs: a Chinese title would draw as
empty boxes. The charts use `cjk_font` for Chinese text, and keep their English labels when there
is none. Setup (`python -m lessonkit setup`, and so `make lab` / `make test`) runs
`python -m lessonkit.i18n.fonts`: with no font found it installs Debian's small
`fonts-wqy-microhei` (1.6 MB) when it runs as root with apt, and otherwise prints one line saying
how to get one; it never fails setup.

Example: cjk_font() -> "WenQuanYi Micro Hei"     (Debian with fonts-wqy-microhei)
         cjk_font() -> "Noto Sans SC"            (no system CJK font: the pip package's)

Not modeled: choosing among several installed CJK fonts by taste; Japanese or Korean glyph variants.
"""

from __future__ import annotations

import functools
import sys

from . import tr

PREFERRED = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Micro Hei",
             "WenQuanYi Zen Hei", "Microsoft YaHei", "PingFang SC", "SimHei", "Heiti SC",
             "Droid Sans Fallback", "AR PL UMing CN")
PROBE = "上下文压缩"
FONT_PACKAGE = "pylopdf_fonts_zh_cn"     # pip: pylopdf-fonts-zh-cn; sans_path() -> its NotoSansSC-Regular.otf


@functools.cache
def cjk_font() -> str | None:
    """The family name of an installed font that draws Chinese, or None (searched once per process).

    matplotlib's font list is cached on disk and may predate the font's install, so the pip
    package's font and the system's font files are searched too, and a font found there is added to
    matplotlib's list."""
    from matplotlib import font_manager

    known = {entry.name: entry.fname for entry in font_manager.fontManager.ttflist}
    for name in PREFERRED:
        if name in known and covers(known[name]):
            return name
    shipped = packaged_font()
    if shipped is not None:
        font_manager.fontManager.addfont(shipped)
        return font_manager.FontProperties(fname=shipped).get_name()
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


def packaged_font(package: str = FONT_PACKAGE) -> str | None:
    """The path of the CJK font a pip package ships, if it is installed and draws Chinese, else None."""
    import importlib

    try:
        path = str(importlib.import_module(package).sans_path())
    except (ImportError, AttributeError, OSError):
        return None
    return path if covers(path) else None


def covers(path: str, text: str = PROBE) -> bool:
    """Does the font file at `path` have a glyph for every character of `text`?"""
    from matplotlib.ft2font import FT2Font

    try:
        font = FT2Font(path)
    except (OSError, RuntimeError, ValueError):
        return False
    return all(font.get_char_index(ord(ch)) for ch in text)


APT_PACKAGE = "fonts-wqy-microhei"


def how_to_get_one(why: str = "") -> str:
    """The one line setup prints when no font draws Chinese: how to get one, and what happens until then.
    Example: how_to_get_one() -> "Chinese font: none found; charts keep English labels until ..." """
    return tr("Chinese font: none found{why}; charts keep English labels until one is installed "
              "(pip install pylopdf-fonts-zh-cn, or as root: apt-get install {apt}; on Windows and macOS "
              "one is already there)", why=why, apt=APT_PACKAGE)


def ensure_cjk_font() -> str:
    """Install Debian's small CJK font when none is found and apt can (root); say what happened.

    Example: ensure_cjk_font() -> "Chinese font: WenQuanYi Micro Hei"
    """
    import os
    import shutil
    import subprocess

    name = cjk_font()
    if name:
        return tr("Chinese font: {name}", name=name)
    if not shutil.which("apt-get") or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return how_to_get_one()
    for args in (["update"], ["install", "-y", "--no-install-recommends", APT_PACKAGE]):
        try:
            done = subprocess.run(["apt-get", "-o", "DPkg::Lock::Timeout=300", "-q", *args],
                                  capture_output=True, text=True, check=False)
        except OSError as exc:
            return how_to_get_one(tr(" and apt-get {step} could not run ({error})", step=args[0], error=exc))
        if done.returncode != 0:
            return how_to_get_one(tr(" and apt-get {step} failed (exit code {code})", step=args[0],
                                     code=done.returncode))
    cjk_font.cache_clear()
    name = cjk_font()
    return tr("Chinese font: {name}", name=name) if name else how_to_get_one(
        tr(" and matplotlib does not see the {apt} just installed", apt=APT_PACKAGE))


def main() -> int:
    """`python -m lessonkit.i18n.fonts`: make sure a font draws Chinese, print one line, exit 0.
    Setup runs it; a missing font is never a reason for setup to fail."""
    try:
        print(ensure_cjk_font(), flush=True)
    except Exception as exc:     # a broken font cache, a missing matplotlib: say so, never fail setup
        print(tr("Chinese font: not checked ({error}); charts keep English labels", error=exc), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
