"""Verify: the grade. Re-check every student's answer in isolation, against the kit's own checks.

    python -m lessonkit.workshop verify homes/*/ --only s01,s06 --csv grades.csv

    grader (you) ── reads the notebook as data ──> the cells tagged `exercise` (or with the
       lesson's exercise cell ids), nothing else ──> job on stdin
    child: python -I harness.py   (a read-only copy of the kit, made once; its own temporary cwd and HOME;
       an environment of PATH, HOME, LANG only; as user `lessons-grader` when the grader is root;
       RLIMIT_AS, output (RLIMIT_FSIZE) and process-count caps; wall-clock limit per notebook)
       ── one JSON line per verdict, on a pipe ──> Row(student, lesson, exercise, state, k/n, detail)
    afterwards: its process group is killed, and (as root) every process of the grading user

So printing ✓, redefining or patching the check in another cell, editing the kit's files
(the child imports a copy the grader made, checked by hash after every notebook) or reading
other students' files (as root: the grading user cannot) change no verdict. A timeout reads
"timed out after N s in cell K". The states: passed; trying (k/n, not all cases); not started
(the exercise cell is the starter, untouched); error (a cell raised, the function is missing or
raised on every case, a limit was hit, or the notebook is missing). Verify has no `stuck`: that
is a live-view state (lessonkit/exercises/records.py).

What to grade (the kit's exercise cells and checks) is in gradeplan.py; the read-only copy of the kit
in kitcopy.py; the child, its user, limits and clean-up in child.py; here, each notebook's rows.

Example: verify([Path("homes/ada")], only={"s01"})
  -> [Row("ada", "s01_loop", "assistant_message", "passed", 5, 5, 0, "", ...)]
"""

from __future__ import annotations

import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .child import grader_user, run_child
from .gradeplan import exercise_cells, plan
from .kitcopy import Kit
from .progress import LESSONS, Row, chosen, notebook_of, student_name, work_of

NOTEBOOK_TIMEOUT_S = 60
MEMORY_MB = 2048
MAX_NOTEBOOK_BYTES = 50 << 20


def grade_notebook(kit: Kit, student: str, home, lesson: str, lesson_plan: dict, path, *, user,
                   timeout: float, memory_mb: int) -> list[Row]:
    """One student's notebook of one lesson: a Row per exercise."""
    names = [c["name"] for c in lesson_plan["checks"]]

    def every(state, detail, **counts):
        return [Row(student, lesson, n, state, detail=detail, home=str(home), **counts) for n in names]

    if path is None:
        return every("error", f"notebook missing: {lesson}.ipynb")
    try:
        if path.stat().st_size > MAX_NOTEBOOK_BYTES:
            return every("error", f"{path.name}: over {MAX_NOTEBOOK_BYTES >> 20} MB")
        nb = json.loads(path.read_text(encoding="utf-8"))
        cells = exercise_cells(nb, lesson_plan)
    except (OSError, ValueError, AttributeError) as exc:
        return every("error", f"{path.name} cannot be read: {type(exc).__name__}: {exc}"[:300])
    if not cells:
        return every("error", f"{path.name}: no cell tagged 'exercise'")
    checks = [dict(c, cell=max((n for n, src in cells if f"def {c['name']}(" in src), default=cells[-1][0]))
              for c in lesson_plan["checks"]]
    lines = run_child(kit, cells, checks, user=user, timeout=timeout, memory_mb=memory_mb)
    if not kit.intact():
        return every("error", "the answer changed the grader's copy of the kit (a fresh copy is made)")
    fatal = next((i.get("fatal") or i["error"] for i in lines if "fatal" in i or "error" in i and "verdict" not in i),
                 None)
    if fatal:
        return every("error", fatal)
    untouched = all(src.strip() in lesson_plan["starters"] for _, src in cells)
    verdicts = {i["verdict"]: i for i in lines if "verdict" in i}
    out = []
    for name in names:
        v = verdicts.get(name)
        if v is None:
            out.append(Row(student, lesson, name, "error", detail="no verdict", home=str(home)))
        elif v.get("error"):
            out.append(Row(student, lesson, name, "error", detail=str(v["error"]), home=str(home)))
        else:
            passed, total = int(v.get("passed", 0)), int(v.get("total", 0))
            state = "passed" if total and passed == total else "not started" if untouched else "trying"
            out.append(Row(student, lesson, name, state, passed, total, 0, str(v.get("first", "")),
                           home=str(home)))
    return out


def verify(homes, only=(), *, timeout: float = NOTEBOOK_TIMEOUT_S, memory_mb: int = MEMORY_MB, jobs: int = 2,
           lessons: Path = LESSONS) -> list[Row]:
    """Every student's exercises in `homes`, re-checked; one Row per student and exercise."""
    keep = chosen(only)
    lesson_plans = {lesson: p for lesson, p in plan(lessons).items() if keep(lesson)}
    user = grader_user()
    tasks = []
    with tempfile.TemporaryDirectory(prefix="lessons-verify-") as base:
        os.chmod(base, 0o755)
        kit = Kit(Path(base))
        for home in homes:
            work, student = work_of(home), student_name(home)
            for lesson, lesson_plan in lesson_plans.items():
                path = notebook_of(work, lesson) if work.is_dir() else None
                tasks.append((student, home, lesson, lesson_plan, path))
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            results = pool.map(lambda t: grade_notebook(kit, *t, user=user, timeout=timeout, memory_mb=memory_mb),
                               tasks)
            return [row for rows in results for row in rows]
