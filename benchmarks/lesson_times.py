"""Time each lesson's execution (a copy, in a temporary folder) and write the table in docs/start-here*.md.

    python benchmarks/lesson_times.py [lessons/s01_loop.ipynb ...]   (default: every English lesson)
      -> | lesson | code cells | seconds |   between the LESSON_TIMES markers of both pages (a lesson
         timed again replaces its row; the others stay)

Example: python benchmarks/lesson_times.py lessons/s01_loop.ipynb -> "s01_loop: 12 code cells in 3.1 s"
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = (ROOT / "docs" / "start-here.md", ROOT / "docs" / "start-here.zh.md")
MARK = re.compile(r"<!-- lesson-times -->.*?<!-- /lesson-times -->", re.S)


def table(rows: list[tuple[str, int, float]]) -> str:
    """The markdown table. Example: [("s01_loop", 12, 3.1)] -> '| s01_loop | 12 | 3.1 |' row"""
    lines = ["<!-- lesson-times -->", "| lesson | code cells | seconds |", "|---|---:|---:|"]
    lines += [f"| {name} | {cells} | {seconds:.1f} |" for name, cells, seconds in rows]
    return "\n".join([*lines, "<!-- /lesson-times -->"])


ROW = re.compile(r"^\| (\w+) \| (\d+) \| ([\d.]+) \|$", re.M)


def merged(text: str, rows) -> list[tuple[str, int, float]]:
    """The page's rows with `rows` put in (a lesson timed again replaces its row), in lesson order.
    Example: a table of s01..s08 and rows [("s09_subagents", 20, 9.0)] -> s01..s09"""
    block = MARK.search(text)
    kept = {m.group(1): (m.group(1), int(m.group(2)), float(m.group(3))) for m in ROW.finditer(block.group(0))} \
        if block else {}
    kept.update({name: (name, cells, seconds) for name, cells, seconds in rows})
    order = [p.stem for p in sorted((ROOT / "lessons").glob("*.ipynb"))]
    return sorted(kept.values(), key=lambda r: (order.index(r[0]) if r[0] in order else len(order), r[0]))


def write(rows) -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        every = table(merged(text, rows))
        new = MARK.sub(every, text) if MARK.search(text) else text.replace("LESSON_TIMES", every)
        page.write_text(new, encoding="utf-8")


def main(argv=None) -> int:
    sys.path.insert(0, str(ROOT))
    from lessonkit.cli.notebooks import execute

    args = argv if argv is not None else sys.argv[1:]
    paths = [Path(a) for a in args] or sorted((ROOT / "lessons").glob("*.ipynb"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            copy = Path(tmp) / path.name
            shutil.copy(path, copy)
            seconds, cells = execute(copy)
            rows.append((path.stem, cells, seconds))
            print(f"{path.stem}: {cells} code cells in {seconds:.1f} s", flush=True)
    write(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
