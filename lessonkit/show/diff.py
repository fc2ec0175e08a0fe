"""What a stage adds to the one before: new files, overridden methods side by side, changed constants.

Motto: computed from the code, so it cannot go stale.

    stage_diff("s05_budget", "s06_compact")
      files      s06's *.py whose name s05 does not have          -> new (with their definitions)
      classes    a class of s06 with a base from an earlier stage -> each method it overrides, shown
                                                                     beside the method it replaces
                                                                     (found along the base's MRO)
                 functions of s06 with the name of one s05 exports  -> the same, side by side
      constants  CAPS names s06 assigns at module level (ast)     -> changed (s05 has another value)
                                                                     or new
        │
        ├─> str(diff)          plain text for a terminal: the two versions in two columns
        └─> diff._repr_html_() a notebook view: one <details> per file, pygments-coloured code in
                               two columns (one shared <style>, so the saved output stays small)

Every location is a path relative to the repository and a line range, so the output is
the same on every machine, and changes only when the stages change. stagecode.py reads the
stages (files, overrides, constants); diffview.py is the diff and how it reads (text, HTML).

Example: python -m lessonkit diff s05_budget s06_compact
  -> s06_compact adds to s05_budget: 4 new files, 4 overridden methods, 9 new methods ...

Not modeled: attributes set in __init__, changes inside functions a stage does not redefine.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from ..i18n import tr
from .diffview import StageDiff
from .stagecode import ROOT, file_diff, previous, stage_modules, stage_names, stages

__all__ = ["main", "stage_diff"]


def stage_diff(old: str | None = None, new: str | None = None, *, root: Path = ROOT) -> StageDiff:
    """What stage `new` adds to `old` (by default the stage before it); `root` holds the stage
    packages (importable by name).

    Example: stage_diff("s05_budget", "s06_compact").counts()["new files"] -> 4
    """
    if new is None:
        old, new = None, old
    if new is None:
        raise ValueError("stage_diff() needs the stage to show, e.g. stage_diff('s05_budget', 's06_compact')")
    known = stages(root)
    for s in (old, new):
        if s is not None and s not in known:
            raise ValueError(f"unknown stage {s!r}: use one of {', '.join(known)}")
    old = old or previous(new, root)
    old_modules = stage_modules(old)
    old_files = {p.name for p in Path(old_modules["__init__.py"].__file__).parent.glob("*.py")}
    old_names = stage_names(old)
    files = [file_diff(new, name, module, old_names, old_files) for name, module in stage_modules(new).items()]
    files.sort(key=lambda f: (not f.new, f.name == "__init__.py", f.name))
    return StageDiff(old, new, files)


def main(argv=None) -> int:
    """python -m lessonkit diff [OLD] NEW [--width N]"""
    from ..console import tolerant_console

    tolerant_console()
    parser = argparse.ArgumentParser(prog="python -m lessonkit diff",
                                     description="What a stage adds to the one before it.")
    parser.add_argument("stages", nargs="+", metavar="STAGE", help="[OLD] NEW, e.g. s05_budget s06_compact")
    parser.add_argument("--width", type=int, default=None, help="columns (default: the terminal's)")
    args = parser.parse_args(argv)
    if len(args.stages) > 2:
        parser.error("give one or two stages: [OLD] NEW")
    sys.path.insert(0, str(ROOT))
    try:
        diff = stage_diff(*args.stages)
    except (ValueError, ImportError) as exc:
        print(tr("error: {message}", message=exc), file=sys.stderr)
        return 2
    print(diff.text(args.width or shutil.get_terminal_size((120, 24)).columns), end="")
    return 0
