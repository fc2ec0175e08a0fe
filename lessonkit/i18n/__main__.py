"""python -m lessonkit.i18n: build or check the translated lessons.

    python -m lessonkit.i18n check zh            list missing and stale translations (exit 1 if any)
    python -m lessonkit.i18n build zh [LESSON…]  write lessons/zh/*.ipynb and execute them

Example: python -m lessonkit.i18n build zh lessons/s01_loop.ipynb
  -> "lessons/zh/s01_loop.ipynb: built and executed"
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import LANGS
from .lessons import build, english_lessons, problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lessonkit.i18n", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("check", "build"))
    parser.add_argument("language", choices=[x for x in LANGS if x != "en"])
    parser.add_argument("lessons", nargs="*", help="English lesson notebooks (default: all of lessons/)")
    parser.add_argument("--no-execute", action="store_true", help="build without running the notebooks")
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.lessons] or english_lessons()
    found = [line for path in paths for line in problems(path, args.language)]
    for line in found:
        print(line, file=sys.stderr)
    if args.command == "check" or found:
        print(f"{len(found)} problem(s) in {len(paths)} lesson(s)")
        return 1 if found else 0
    from lessonkit.cli.notebooks import execute  # the entry point chooses how lessons run

    for path in paths:
        target = build(path, args.language, execute=None if args.no_execute else execute)
        print(f"{target}: built" + ("" if args.no_execute else " and executed"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
