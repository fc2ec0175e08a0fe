"""`python -m lessonkit COMMAND`: the kit's commands, the same on every OS.

    python -m lessonkit lab                          set up .venv, open the lessons in JupyterLab
    python -m lessonkit test [-- pytest args]        set up .venv, run every test and notebook
    python -m lessonkit setup                        only set up .venv
    python -m lessonkit diff s05_budget s06_compact  what a stage adds to the one before

lab / test / setup need nothing but the standard library (lessonkit.cli.commands); diff
imports the stages, so it runs in the venv.

Example: python -m lessonkit diff s05_budget s06_compact
  -> "s06_compact adds to s05_budget: 4 new files, 2 overridden methods, ..."
"""

from __future__ import annotations

import sys

USAGE = "usage: python -m lessonkit {lab,test,setup,diff} ..."


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["diff"]:
        from .show.diff import main as diff_main
        return diff_main(argv[1:])
    if argv[:1] and argv[0] in ("lab", "test", "setup"):
        from .cli.commands import main as command_main
        return command_main(argv)
    if argv:
        print(f"error: unknown command {argv[0]!r}: use lab, test, setup or diff\n{USAGE}", file=sys.stderr)
        return 2
    print(f"{USAGE}\n{__doc__.split(chr(10) + chr(10))[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
