"""The compare view as a student sees it: screenshots for docs/views.md, light and dark.

    python tests/browser/compare_shots.py docs/
      -> docs/compare-light.png, docs/compare-dark.png

Runs s07_reactive.ipynb (a tmp copy) in a throwaway JupyterLab (browser/lab.py), in Debian's
headless Chromium at 1280×900 with the file browser open, as the browser tests do; then takes
the output whose compare view shows s07's snip (gone rows struck through, the
rewritten row outlined) in JupyterLab Light and JupyterLab Dark, and prints the contrast of
the gone and rewritten rows' text and row numbers as the browser computed their colours.

Example: python tests/browser/compare_shots.py /tmp/shots
  -> /tmp/shots/compare-light.png (JupyterLab Light), /tmp/shots/compare-dark.png (JupyterLab Dark)
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LESSON = "s07_reactive.ipynb"
CAPTION = "s07's snip"  # the compare whose "after" is s07's pair-safe snip: gone and rewritten rows
VIEWPORT = {"width": 1280, "height": 900}
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}
# Each gone / rewritten row: its text's and its number's colour, and the pane behind them.
COLOURS_JS = """view => [...view.querySelectorAll('.lk-gone, .lk-changed')].map(row => {
  const bg = el => { for (; el; el = el.parentElement) { const c = getComputedStyle(el).backgroundColor;
    if (c && c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') return c; } return 'rgb(255, 255, 255)'; };
  const t = row.querySelector('.lk-t'), i = row.querySelector('.lk-i');
  return {mark: row.classList.contains('lk-gone') ? 'gone' : 'changed', text: getComputedStyle(t).color,
          number: getComputedStyle(i).color, opacity: getComputedStyle(t).opacity, background: bg(row)};
})"""


def rgba(css: str) -> list[float]:
    """A computed colour as [r, g, b, alpha]. Example: 'rgba(0, 0, 0, 0.87)' -> [0, 0, 0, 0.87]"""
    parts = [float(v) for v in css[css.index("(") + 1:css.index(")")].split(",")]
    return parts[:3] + [parts[3] if len(parts) > 3 else 1.0]


def contrast(fg: str, bg: str) -> float:
    """WCAG contrast ratio of a computed text colour (its alpha blended over `bg`) on `bg`.
    Example: contrast('rgb(0, 0, 0)', 'rgb(255, 255, 255)') -> 21.0;
             contrast('rgba(0, 0, 0, 0.87)', 'rgb(255, 255, 255)') -> 16.1"""
    *front, alpha = rgba(fg)
    back = rgba(bg)[:3]
    mixed = [alpha * f + (1 - alpha) * b for f, b in zip(front, back)]

    def lum(rgb: list[float]) -> float:
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (v / 255 for v in rgb)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(mixed), lum(back)), reverse=True)
    return round((hi + 0.05) / (lo + 0.05), 1)


def shoot(out: Path) -> dict[str, list[dict]]:
    """Run the lesson in JupyterLab, screenshot its snip compare in each theme; the rows' colours."""
    sys.path.insert(0, str(REPO / "tests"))
    from playwright.sync_api import sync_playwright

    from browser import ui
    from browser.chromium import LAUNCH_FLAGS, ensure_chromium
    from browser.lab import LabServer

    chromium, why = ensure_chromium()
    if why:
        raise SystemExit(why)
    found = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as driver:
        root = Path(tmp) / "notebooks"
        shutil.copytree(REPO / "lessons", root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        lab = LabServer(root, Path(tmp) / "jupyter").start()
        try:
            context = driver.chromium.launch_persistent_context(
                str(Path(tmp) / "profile"), executable_path=chromium, headless=True,
                args=[*LAUNCH_FLAGS, "--disable-dev-shm-usage"], viewport=VIEWPORT)
            page = context.pages[0] if context.pages else context.new_page()
            page.set_default_timeout(60_000)
            page.goto(lab.url(LESSON))
            ui.wait_notebook_ready(page, LESSON)
            if not page.evaluate("() => jupyterapp.shell.leftCollapsed === false"):
                page.evaluate("() => jupyterapp.commands.execute('filebrowser:toggle-main')")
            ui.clear_all_outputs(page)
            ui.run_all_cells(page)
            ui.wait_run_complete(page)
            cell = page.locator(".jp-NotebookPanel:visible .jp-OutputArea-child",
                                has=page.locator(".lk-compare", has_text=CAPTION)).first
            view = cell.locator(".lk-compare", has_text=CAPTION).first
            for name, theme in THEMES.items():
                ui.set_theme(page, theme)
                page.wait_for_timeout(1_000)  # the theme's CSS variables settle
                cell.scroll_into_view_if_needed()
                cell.screenshot(path=str(out / f"compare-{name}.png"))
                found[name] = view.evaluate(COLOURS_JS)
            context.close()
        finally:
            lab.stop()
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for compare-light.png and compare-dark.png")
    out = parser.parse_args(argv).out
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in shoot(out).items():
        worst = {kind: min((contrast(r[kind], r["background"]) for r in rows), default=None)
                 for kind in ("text", "number")}
        print(f"{out / f'compare-{name}.png'}: {len(rows)} gone/rewritten rows; lowest contrast: "
              f"text {worst['text']}:1, row number {worst['number']}:1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
