"""The workshop commands: student notebooks, reset, progress, and the cell tagging rule.

    python -m lessonkit.workshop student [--out work]        write the student notebooks (keeps existing ones),
                                                             every language (work/zh/); `make lab` runs it
    python -m lessonkit.workshop reset s06 [--out work]      start one again (the old copy goes to work/.backup/)
    python -m lessonkit.workshop progress [DIR ...]          run every check: one row per exercise / student
    python -m lessonkit.workshop tag lessons/*.ipynb         apply the tagging rule (tags.py) and pin the kernelspec
    python -m lessonkit.workshop cassettes lessons/*.ipynb   record each lesson's cassette from the offline model

Example: python -m lessonkit.workshop reset s01 -> "work/s01_loop.ipynb: reset; your copy is in ..."
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..backends.client import REPO_ROOT
from ..i18n import tr

LESSONS = REPO_ROOT / "lessons"
WORK = REPO_ROOT / "work"


def tag_files(paths) -> list[str]:
    """Tag cells and pin the kernelspec in each notebook; rewrite only the files that change."""
    import nbformat

    from .student import KERNELSPEC
    from .tags import known_starters, tag_cells

    starters, lines = known_starters(), []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        changed = tag_cells(nb.cells, starters)
        pinned = nb.metadata.get("kernelspec") != KERNELSPEC
        if changed or pinned:
            nb.metadata["kernelspec"] = dict(KERNELSPEC)
            nbformat.write(nb, path)
        lines.append(f"{path}: {changed} cell(s) retagged{', kernelspec pinned' if pinned else ''}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lessonkit.workshop", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("student", "write the student notebooks"), ("reset", "start one student notebook again")):
        p = sub.add_parser(name, help=text)
        if name == "reset":
            p.add_argument("lesson", help="s01 … s08, arena, or a notebook's name")
        p.add_argument("--out", type=Path, default=WORK, help="the student folder (default: work/)")
        p.add_argument("--lessons", type=Path, default=LESSONS, help="the lessons folder (default: lessons/)")
        if name == "student":
            p.add_argument("--quiet", action="store_true", help="say only what was written, and how many were kept")
    p = sub.add_parser("progress", help="run every exercise check in student notebooks")
    p.add_argument("folders", nargs="*", type=Path, help="student folders or home folders (default: work/)")
    p.add_argument("--timeout", type=int, default=60, help="seconds per cell (default 60)")
    p.add_argument("--jobs", type=int, default=2, help="notebooks run at a time (default 2)")
    p.add_argument("--only", default="", help="lessons to run, comma-separated (e.g. s01,s06)")
    p = sub.add_parser("tag", help="apply the cell tagging rule to lesson notebooks")
    p.add_argument("paths", nargs="+", type=Path)
    p = sub.add_parser("cassettes", help="record each lesson's cassette (workshop/cassettes/)")
    p.add_argument("paths", nargs="+", type=Path)
    args = parser.parse_args(argv)

    from . import progress, student

    try:
        if args.command == "student":
            lines = student.write_courses(args.lessons, args.out)
            if args.quiet:
                kept = sum(": kept" in line for line in lines)
                lines = [line for line in lines if ": kept" not in line] + (
                    [tr("{n} notebook(s) in {folder} kept as you left them", n=kept, folder=args.out)] if kept else [])
        elif args.command == "reset":
            lines = [student.reset(args.lesson, args.lessons, args.out)]
        elif args.command in ("tag", "cassettes"):
            missing = [str(p) for p in args.paths if not p.is_file()]
            if missing:
                raise ValueError(f"no such notebook: {', '.join(missing)}")
            if args.command == "tag":
                lines = tag_files(args.paths)
            else:
                from .cassettes import record_lesson

                lines = [f"{path}: {n} request(s) recorded" for path, n in map(record_lesson, args.paths)]
        else:
            only = {s.strip() for s in args.only.split(",") if s.strip()}
            results = progress.progress(args.folders or [WORK], timeout=args.timeout, jobs=args.jobs, lessons=only)
            lines = [progress.table(results)]
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
