"""The workshop commands: student notebooks, reset, the room (live and graded), tags, cassettes.

    python -m lessonkit.workshop student [--home HOME]            write the student notebooks into HOME/work (default:
                                                                  the home it runs in) (keeps existing ones), every
                                                                  language (work/zh/); `make lab` runs it
    python -m lessonkit.workshop reset s06 [--home HOME]          start one again (the old copy goes to work/.backup/)
    python -m lessonkit.workshop progress [HOME ...] [--only s01,s06] [--csv FILE] [--html FILE]
                                                                  the room, live, from the records checks wrote
    python -m lessonkit.workshop verify [HOME ...] [--only s01,s06] [--csv FILE]
                                                                  the grade: every answer re-checked in isolation
    python -m lessonkit.workshop tag lessons/*.ipynb              apply the tagging rule (tags.py), pin the kernelspec
    python -m lessonkit.workshop cassettes lessons/*.ipynb        record each lesson's cassette from the offline model

The home a command runs in (`here`): the folder you are in when it is called `work`, or its work/
when it has one (or on a hub); otherwise the kit's own work/ (a checkout: `make lab`).

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


def here() -> Path:
    """The work/ folder of the home this command runs in: the folder itself when it is called work
    (or its parent, from work/zh/), else ./work when it exists or on a hub (JUPYTERHUB_USER, or your
    home folder), else the kit's own work/ (a checkout)."""
    import os

    from ..i18n import LANGS

    cwd = Path.cwd()
    if cwd.name == "work":
        return cwd
    if cwd.parent.name == "work" and cwd.name in LANGS:
        return cwd   # work/zh/: reset resets the Chinese copy (student writes into its parent)
    if (cwd / "work").is_dir() or os.environ.get("JUPYTERHUB_USER") or cwd.resolve() == Path.home().resolve():
        return cwd / "work"
    return WORK


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lessonkit.workshop", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("student", "write the student notebooks"), ("reset", "start one student notebook again")):
        p = sub.add_parser(name, help=text)
        if name == "reset":
            p.add_argument("lesson", help="s01 … s08, arena, or a notebook's name")
        p.add_argument("--home", type=Path, help="the student's home, or its work/ (default: the home it runs in)")
        p.add_argument("--out", type=Path, help="the student folder itself (default: HOME/work)")
        p.add_argument("--lessons", type=Path, default=LESSONS, help="the lessons folder (default: the kit's)")
        if name == "student":
            p.add_argument("--quiet", action="store_true", help="say only what was written, and how many were kept")
    for name, text in (("progress", "the room, live, from the records students' checks wrote (runs no code)"),
                       ("verify", "the grade: re-check every answer in isolation")):
        p = sub.add_parser(name, help=text)
        p.add_argument("folders", nargs="*", type=Path, help="homes, or work/ folders (default: the hub's homes, "
                       "then the local work/)")
        p.add_argument("--only", default="", help="lessons, comma-separated (e.g. s01,s06)")
        p.add_argument("--csv", type=Path, help="write the gradebook here")
        p.add_argument("--roster", type=Path, help="the room's students: a file of user names, one a line")
        p.add_argument("--hub", help="the room's students: the hub's user list (its URL; token in WORKSHOP_HUB_TOKEN)")
        p.add_argument("--homes", type=Path, help="with --roster/--hub: the folder of the homes (default "
                       "WORKSHOP_HOMES, else ./homes)")
        p.add_argument("--feedback", type=Path, help="write a feedback page per student into this folder (default "
                       "with --csv: beside it, in <csv name>-feedback/)")
        p.add_argument("--points", type=Path, help="what each exercise is worth: a JSON file {\"s01_loop:"
                       "assistant_message\": 5, \"s06\": 20} (default 10 each)")
        if name == "progress":
            p.add_argument("--room", help="the room service's address (the hub's /services/lessons-room/; token in "
                           "WORKSHOP_HUB_TOKEN): the records students' checks sent it, where no home can be read")
            p.add_argument("--html", type=Path, help="write the room as a page that reloads itself")
            p.add_argument("--watch", type=float, default=0, help="with --html: rewrite it every N seconds")
        else:
            p.add_argument("--html", type=Path, help="write the grades as the room's page (hidden cases included)")
            p.add_argument("--timeout", type=float, default=60, help="seconds per notebook (default 60)")
            p.add_argument("--memory", type=int, default=2048, help="MB of memory per notebook (default 2048)")
            p.add_argument("--jobs", type=int, default=2, help="notebooks checked at a time (default 2)")
            p.add_argument("--hidden", type=Path, help="the instructor's hidden cases (a .py file only you can "
                           "read; default WORKSHOP_HIDDEN)")
    sub.add_parser("room-service", help="the room service a hub runs (lessonkit/workshop/roomservice.py)")
    p = sub.add_parser("tag", help="apply the cell tagging rule to lesson notebooks")
    p.add_argument("paths", nargs="+", type=Path)
    p = sub.add_parser("cassettes", help="record each lesson's cassette (workshop/cassettes/)")
    p.add_argument("paths", nargs="+", type=Path)
    args = parser.parse_args(argv)

    try:
        if args.command in ("student", "reset"):
            from . import student
            from .progress import work_of

            out = args.out or (work_of(args.home) if args.home else here())
            from ..i18n import LANGS

            if out.name in LANGS and out.parent.name == "work" and not args.out:
                out, lessons = (out.parent, args.lessons) if args.command == "student" else \
                    (out, args.lessons / out.name if args.lessons == LESSONS else args.lessons)
                args.lessons = lessons
            if args.command == "student":
                lines = student.write_courses(args.lessons, out)
                if args.quiet:
                    kept = sum(": kept" in line for line in lines)
                    lines = [line for line in lines if ": kept" not in line] + (
                        [tr("{n} notebook(s) in {folder} kept as you left them", n=kept, folder=out)] if kept else [])
            else:
                lines = [student.reset(args.lesson, args.lessons, out)]
        elif args.command in ("tag", "cassettes"):
            missing = [str(p) for p in args.paths if not p.is_file()]
            if missing:
                raise ValueError(f"no such notebook: {', '.join(missing)}")
            if args.command == "tag":
                lines = tag_files(args.paths)
            else:
                from .cassettes import record_lesson

                lines = [f"{path}: {n} request(s) recorded" for path, n in map(record_lesson, args.paths)]
        elif args.command == "room-service":
            from .roomservice import main as serve

            return serve()
        else:
            return room(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


def room(args) -> int:
    """progress and verify: the rows, as text, and as CSV / a page / feedback pages when asked."""
    import time

    from . import progress, roster

    only = args.only.split(",")
    weights = progress.read_points(args.points) if args.points else None
    homes = []
    if getattr(args, "room", None):
        from .roomservice import fetch_rows
    elif args.roster or args.hub:
        names = roster.read_names(args.roster) if args.roster else roster.hub_names(args.hub)
        homes = roster.students(names, args.homes)
    else:
        homes = args.folders or progress.find_homes()
    if not homes and not getattr(args, "room", None):
        print("error: no student homes found here or on this hub: name them "
              "(python -m lessonkit.workshop progress homes/*/)", file=sys.stderr)
        return 2
    feedback = args.feedback or (args.csv.parent / f"{args.csv.stem}-feedback" if args.csv else None)
    while True:
        if args.command == "verify":
            from .verify import verify

            rows = verify(homes, only, timeout=args.timeout, memory_mb=args.memory, jobs=args.jobs,
                          hidden=args.hidden)
        elif getattr(args, "room", None):
            rows = fetch_rows(args.room, only)
        else:
            rows = progress.rows(homes, only)
        rows = progress.with_points(rows, weights)
        if args.csv:
            progress.write_csv(rows, args.csv)
        if feedback:
            from .page import feedback_pages

            feedback_pages(rows, feedback)
        if getattr(args, "html", None):
            from .page import html

            args.html.write_text(html(rows, links=f"{feedback.name}/" if feedback and feedback.parent ==
                                      args.html.parent else None), encoding="utf-8")
        if not getattr(args, "watch", 0) or not getattr(args, "html", None):
            break
        try:
            time.sleep(args.watch)
        except KeyboardInterrupt:   # Ctrl-C ends --watch: the last page stays, the table is printed
            break
    print(progress.text(rows))
    if feedback:
        print(f"feedback pages: {feedback}/ (one per student)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
