"""What verify grades: per lesson, the exercise cells and checks, read from the kit's own notebook.

    plan()                       lessons/*.ipynb -> {lesson: {ids, starters, checks}}
      a cell tagged `exercise`     its id and its text (the starter: an untouched answer)
      a cell tagged `check`        per exercise.check(fn) in it: (fn's name, the cell's imports, its call)
    exercise_cells(nb, plan)     a student's notebook -> the cells to run: tagged `exercise`, or with
                                 the lesson's exercise ids (the tag removed); nothing else runs

Example: plan()["s01_loop"]["checks"][0]
  -> {"name": "assistant_message", "prelude": "from lessonkit.exercises.s01_loop import exercise",
      "call": "exercise.check(assistant_message)"}
"""

from __future__ import annotations

import json
from pathlib import Path

from .progress import LESSONS

SETUP = {  # what a lesson's check needs from the notebook above it, as the kit's lesson computes it
    "arena": "from lessonkit import tokens\nfrom lessonkit.arena.generate import small_session\n"
             "session = small_session()\n"
             "window = int(round(tokens.count_request({'system': session.system, 'tools': session.tools, "
             "'messages': session.messages}) * 2 / 3, -3))\n",
}


def plan(lessons: Path = LESSONS) -> dict[str, dict]:
    """Per lesson, from the kit's own notebook: the exercise cells' ids and starters, and each check
    as (function, the check cell's imports, its call). Example: plan()["s01_loop"]["checks"][0]
    -> {"name": "assistant_message", "prelude": "from lessonkit.exercises.s01_loop import exercise",
        "call": "exercise.check(assistant_message)"}"""
    from .progress import CHECK_CALL, LESSON

    out = {}
    for path in sorted(Path(lessons).glob("*.ipynb")):
        if not LESSON.match(path.stem):
            continue
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        ids, starters, checks = set(), set(), []
        for cell in cells:
            roles, text = cell.get("metadata", {}).get("tags", []), "".join(cell["source"])
            if cell["cell_type"] != "code":
                continue
            if "exercise" in roles:
                ids.add(cell.get("id"))
                starters.add(text.strip())
            elif "check" in roles:
                lines = text.strip().splitlines()
                imports = [ln for ln in lines if ln.startswith(("from ", "import "))]
                call = "\n".join(ln for ln in lines if ln.strip() and ln not in imports)
                for name in CHECK_CALL.findall(text):
                    checks.append({"name": name, "prelude": SETUP.get(path.stem, "") + "\n".join(imports),
                                   "call": call})
        out[path.stem] = {"ids": ids, "starters": starters, "checks": checks}
    return out


def exercise_cells(nb: dict, lesson_plan: dict) -> list[tuple[int, str]]:
    """(1-based cell number, source) of the cells tagged `exercise` or with the lesson's exercise ids."""
    out = []
    for n, cell in enumerate(nb.get("cells", []), 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        roles = (cell.get("metadata") or {}).get("tags") or []
        if "exercise" in roles or cell.get("id") in lesson_plan["ids"]:
            text = cell.get("source", "")
            out.append((n, text if isinstance(text, str) else "".join(map(str, text))))
    return out
