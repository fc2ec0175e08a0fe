"""Build the static site: every lesson as HTML with its views live from stored widget state.

Motto: what an instructor publishes and a student reads on a phone, with no server and no CDN.

    lessons/*.ipynb ──nbconvert (lab template, widget state)──> site/<lesson>.html
    npm pack @jupyter-widgets/html-manager, requirejs ──> site/_static/  (the widget manager)
    anywidget's AMD module (from the installed package) ──> site/_static/anywidget.js
    site/index.html: a link per lesson, with its title

    python -m lessonkit.cli.site lessons/*.ipynb --out site      (or: make site)

The npm tarballs are fetched once with the ordinary `npm pack` into a cache folder
(build/site-npm), so a rebuild needs no network. Every page loads only files under site/.

Example: python -m lessonkit.cli.site lessons/s06_compact.ipynb --out site
  -> "site/s06_compact.html (...)" and "site/index.html: 1 lesson(s)"
Not modeled: search, navigation between lessons beyond the index.
"""

from __future__ import annotations

import argparse
import html
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

HTML_MANAGER = "@jupyter-widgets/html-manager@1.0.15"  # the manager ipywidgets 8 pages use
REQUIREJS = "requirejs@2.3.8"
TEMPLATES = Path(__file__).resolve().parent.parent / "show" / "widget" / "site"
NPM_TIMEOUT_S = 300


def npm_pack(spec: str, cache: Path) -> Path:
    """The npm tarball of `spec` in `cache`, fetched with `npm pack` when missing.
    Example: npm_pack("requirejs@2.3.8", Path("build/site-npm")) -> build/site-npm/requirejs-2.3.8.tgz"""
    name, version = spec.rsplit("@", 1)
    path = cache / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    if path.is_file():
        return path
    if shutil.which("npm") is None:
        raise SystemExit(f"error: npm is needed once to fetch {spec} (install Node.js), then the cache is used")
    cache.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["npm", "pack", "--silent", spec], cwd=cache, capture_output=True, text=True,
                          timeout=NPM_TIMEOUT_S, check=False)
    if proc.returncode != 0 or not path.is_file():
        raise SystemExit(f"error: npm pack {spec} failed: {(proc.stderr or proc.stdout).strip()[-300:]}")
    return path


def _extract(tgz: Path, member_prefix: str, dest: Path, skip=(".map",)) -> int:
    """Copy the tarball's files under `member_prefix` into dest; returns how many."""
    count = 0
    with tarfile.open(tgz) as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.startswith(member_prefix) and not m.name.endswith(skip):
                target = dest / m.name[len(member_prefix):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(tar.extractfile(m).read())
                count += 1
    return count


def vendor(static: Path, cache: Path) -> None:
    """Fill site/_static: the widget manager (its dist/ with fonts), require.js, anywidget's AMD module."""
    import anywidget

    _extract(npm_pack(HTML_MANAGER, cache), "package/dist/", static / "html-manager")
    _extract(npm_pack(REQUIREJS, cache), "package/require.js", static / "require.js")
    amd = Path(anywidget.__file__).parent / "nbextension" / "index.js"
    if not amd.is_file():
        raise SystemExit(f"error: anywidget {anywidget.__version__} has no {amd.name} (its AMD module)")
    shutil.copy(amd, static / "anywidget.js")


def lesson_html(path: Path, theme: str = "light") -> tuple[str, str]:
    """(title, HTML) of one notebook: the lab template, scripts from _static/, widget state kept."""
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.read(path, as_version=4)
    exporter = HTMLExporter(template_name="lab", extra_template_paths=[str(TEMPLATES)], theme=theme,
                            require_js_url="_static/require.js",
                            widget_renderer_url="_static/html-manager/embed-amd.js")
    exporter.template_file = "lesson.html.j2"
    body, _ = exporter.from_notebook_node(nb)
    title = next((line.lstrip("# ").strip() for c in nb.cells if c.cell_type == "markdown"
                  for line in c.source.splitlines() if line.startswith("# ")), path.stem)
    return title, body


INDEX = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agent Lessons</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}}
li{{margin:.4rem 0}} code{{font-size:.9em}}</style></head>
<body><h1>Agent Lessons</h1>
<p>Build an AI coding agent stage by stage, and watch its context grow and shrink. Every view on
these pages moves in the browser from its stored state: no kernel, no server.</p>
<ol>
{items}
</ol></body></html>
"""


def build(paths, out: Path, *, cache: Path, theme: str = "light") -> list[Path]:
    """Write out/<lesson>.html for each notebook, out/_static and out/index.html; returns the pages."""
    out.mkdir(parents=True, exist_ok=True)
    vendor(out / "_static", cache)
    pages, items = [], []
    for path in map(Path, paths):
        if not path.is_file():
            raise SystemExit(f"error: {path}: no such notebook")
        title, body = lesson_html(path, theme)
        page = out / f"{path.stem}.html"
        page.write_text(body, encoding="utf-8")
        pages.append(page)
        items.append(f'<li><a href="{page.name}">{html.escape(title)}</a> <code>{path.name}</code></li>')
        print(f"{page} ({len(body) / 1e3:,.0f} kB)", flush=True)
    (out / "index.html").write_text(INDEX.format(items="\n".join(items)), encoding="utf-8")
    print(f"{out / 'index.html'}: {len(pages)} lesson(s)")
    return pages


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lessonkit.cli.site", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="lesson notebooks")
    parser.add_argument("--out", default="site", help="output folder (default: site)")
    parser.add_argument("--cache", default="build/site-npm", help="where npm tarballs are kept")
    parser.add_argument("--theme", default="light", choices=("light", "dark"))
    args = parser.parse_args(argv)
    build(sorted(args.paths), Path(args.out), cache=Path(args.cache), theme=args.theme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
