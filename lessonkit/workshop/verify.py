"""Verify: the grade. Re-check every student's answer in isolation, against the kit's own checks.

    python -m lessonkit.workshop verify homes/*/ --only s01,s06 --csv grades.csv --hidden hidden.py

    grader (you, root on a hub) ── reads each notebook as data (never through a link, regular files only)
       the exercise cells, the cells the student added, the definitions in a lesson cell they edited;
       never a check ──> job on stdin of
    judge (judge.py, as you, in a jail of its own: jail.py): the kit's checks, adapters, hidden cases
       └─ child (harness.py, its own uid, PID/mount/network namespaces, RLIMITs, a kit copy without the
          lesson's reference solutions): runs the cells, then each call the checks make of the student's
          function; only outputs come back, as data (wire.py)
       ── {"verdicts": ...} on a pipe ──> Row(student, lesson, exercise, state, k/n, detail, hidden, lang)

So printing ✓, writing to any descriptor, exiting, patching the check or the kit in memory, editing
the kit's files (copies checked by hash after every notebook), signalling or tracing other processes,
or reading other students' files change no verdict: the verdict is computed in a process the child
cannot reach, from outputs it returns for inputs it did not choose. A call of the stage's own function
(under any name) is seen by the judge: "uses the reference". A timeout reads "timed out after N s in
cell K" (the student's time starts at their first cell, and counts only while their code runs).
The states: passed; trying (k/n, not all cases, or a hidden case failed); not started (the exercise cell
is the starter and nothing else names the function); error (a cell raised, the function is missing or
raised on every case, a limit was hit, or the notebook is missing); uses the reference. Verify has no
`stuck`: that is a live-view state.

What to grade (the kit's exercise cells and checks, the references) is in gradeplan.py; the kit copies
in kitcopy.py; the judge in judge.py; the child in child.py; here, each notebook's rows.

Example: verify([Path("homes/ada")], only={"s01"})
  -> [Row("ada", "s01_loop", "assistant_message", "passed", 6, 6, 0, "", ...)]
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .gradeplan import answer_cells, copies_reference, defining_cell, key, mentions, plan, references
from .kitcopy import Kit
from .progress import LESSONS, Row, chosen, notebook_of, student_name, work_of

NOTEBOOK_TIMEOUT_S = 60
MEMORY_MB = 2048
MAX_NOTEBOOK_BYTES = 50 << 20
JUDGE_EXTRA_S = 420   # the judge's own time on top of the student's (the kit's imports, its agent runs)


def run_judge(kit: Kit, job: dict, timeout: float) -> dict:
    """One notebook judged by judge.py in a process of its own; its verdicts, or {"fatal": why}."""
    read, write = os.pipe()
    log = open(Path(kit.base) / f"judge-{os.getpid()}-{threading.get_ident()}.log", "ab")  # noqa: SIM115
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(kit.base),
           "LESSONS_PROGRESS": "off", "LESSONS_BACKEND": "offline", "LESSONS_LANG": "en",
           "LESSONS_REPLAY_QUIET": "1"}
    proc = subprocess.Popen([sys.executable, "-I", "-B", str(kit.root / "lessonkit" / "workshop" / "judge.py"),
                             str(write)], stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT,
                            cwd=str(kit.base), env=env, pass_fds=(write,))
    os.close(write)
    log.close()
    try:
        proc.stdin.write(json.dumps(job).encode())
        proc.stdin.close()
    except BrokenPipeError:
        pass
    data, deadline = b"", time.monotonic() + timeout + JUDGE_EXTRA_S
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([read], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            chunk = os.read(read, 1 << 20)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(read)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    try:
        out = json.loads(data.decode("utf-8", "replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"fatal": f"the judge gave no verdict (exit code {proc.returncode})"}
    return out if isinstance(out, dict) else {"fatal": "the judge gave no verdict"}


def grade_notebook(kit: Kit, student: str, home, lesson: str, lesson_plan: dict, path, *, timeout: float,
                   memory_mb: int, hidden=None, refs: dict | None = None) -> list[Row]:
    """One student's notebook of one lesson: a Row per exercise."""
    from ..i18n import LANGS
    from .kitcopy import Hidden

    names = [c["name"] for c in lesson_plan["checks"]]
    refs = refs if refs is not None else references(lesson_plan)

    def every(state, detail, **counts):
        return [Row(student, lesson, n, state, detail=detail, home=str(home), **counts) for n in names]

    if getattr(home, "missing", False):
        return every("not logged in", "")
    if path is None:
        return every("error", f"notebook missing: {lesson}.ipynb")
    try:
        from ..base.safe_files import read_text

        nb = json.loads(read_text(path, MAX_NOTEBOOK_BYTES, home=Path(path).parent if home is None else
                                  (work_of(home).parent if work_of(home).name == "work" else work_of(home))))
        cells = answer_cells(nb, lesson_plan)
    except (OSError, ValueError, AttributeError, TypeError) as exc:
        return every("error", f"{Path(path).name} cannot be read: {type(exc).__name__}: {exc}"[:300])
    if not any(fatal for _n, _src, fatal in cells):
        return every("error", f"{Path(path).name}: no cell tagged 'exercise'")
    lang = Path(path).parent.name if Path(path).parent.name in LANGS else "en"
    functions = tuple(sorted({(fn.__module__, fn.__qualname__) for r in refs.values() for fn in r["functions"]}))
    strings = tuple(sorted(set(s for r in refs.values() for s in r["strings"])))
    job = {"cells": cells, "checks": lesson_plan["checks"], "timeout": timeout, "memory": memory_mb,
           "base": str(kit.base), "hidden": str(hidden) if hidden else None, "lang": lang,
           "child_kit": str(kit.for_child(Hidden(functions, strings))),
           "references": {n: [key(fn) for fn in r["functions"]] for n, r in refs.items()}}
    result = run_judge(kit, job, timeout)
    if not kit.intact():
        return every("error", "the answer changed the grader's copy of the kit (a fresh copy is made)")
    if result.get("fatal") or not isinstance(result.get("verdicts"), dict):
        return every("error", str(result.get("fatal") or "no verdict")[:300])
    verdicts = result["verdicts"]
    exercise_cells = [c for c in cells if c[2]]
    added = [c for c in cells if not c[2]]
    out = []
    for name in names:
        v = verdicts.get(name)
        where = defining_cell(exercise_cells, name)
        untouched = (where is None or where[1].strip() in lesson_plan["starters"]) and not mentions(added, name)
        if not isinstance(v, dict):
            out.append(Row(student, lesson, name, "error", detail="no verdict", home=str(home)))
            continue
        note = f" (not isolated: {v['unisolated']}; run verify as root for a grade)" if v.get("unisolated") else ""
        if v.get("reference") or copies_reference(cells, name, refs.get(name, {})):
            out.append(Row(student, lesson, name, "uses the reference", int(v.get("passed", 0) or 0),
                           int(v.get("total", 0) or 0), 0, "the answer is the stage's own function" + note,
                           home=str(home)))
        elif v.get("error"):
            state = "not started" if untouched else "error"
            out.append(Row(student, lesson, name, state, detail=str(v["error"]) + note, home=str(home)))
        else:
            passed, total = int(v.get("passed", 0)), int(v.get("total", 0))
            secret = v.get("hidden") if isinstance(v.get("hidden"), dict) else None
            shown, all_hidden = "", True
            if secret is not None:
                ok, failed = list(secret.get("passed", [])), list(secret.get("failed", []))
                all_hidden = not failed
                shown = f"{len(ok)}/{len(ok) + len(failed)}" + "".join(
                    f"; ✓ {n}" for n in ok) + "".join(f"; ✗ {f[0]}: {f[1]}" for f in failed if isinstance(f, list))
            state = "passed" if total and passed == total and all_hidden else \
                "not started" if untouched else "trying"
            out.append(Row(student, lesson, name, state, passed, total, 0, str(v.get("first", "")) + note,
                           home=str(home), hidden=shown))
    from dataclasses import replace

    return [replace(r, lang=lang) for r in out]


def verify(homes, only=(), *, timeout: float = NOTEBOOK_TIMEOUT_S, memory_mb: int = MEMORY_MB, jobs: int = 2,
           lessons: Path = LESSONS, hidden=None) -> list[Row]:
    """Every student's exercises in `homes`, re-checked; one Row per student and exercise."""
    keep = chosen(only)
    lesson_plans = {lesson: p for lesson, p in plan(lessons).items() if keep(lesson)}
    hidden = check_hidden(hidden)
    refs = {lesson: references(p) for lesson, p in lesson_plans.items()}
    tasks = []
    with tempfile.TemporaryDirectory(prefix="lessons-verify-") as base:
        os.chmod(base, 0o711)
        kit = Kit(Path(base))
        for home in homes:
            work, student = work_of(home), student_name(home)
            for lesson, lesson_plan in lesson_plans.items():
                home_dir = work.parent if work.name == "work" else work
                path = None if getattr(home, "missing", False) else \
                    copy_to_grade(work, lesson, home_dir, lesson_plan)
                tasks.append((student, home, lesson, lesson_plan, path))
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            results = pool.map(lambda t: grade_notebook(kit, *t, timeout=timeout, memory_mb=memory_mb,
                                                        hidden=hidden, refs=refs[t[2]]), tasks)
            return [row for rows in results for row in rows]


def copy_to_grade(work: Path, lesson: str, home: Path, lesson_plan: dict):
    """The notebook to grade: the one progress names (notebook_of), unless the student never ran a check of
    the lesson and only a translation holds their work (work/zh/): then that one; both worked: the newest."""
    from ..base import safe_files as files
    from ..i18n import LANGS
    from .gradeplan import answered
    from .progress import _language

    path = notebook_of(work, lesson, home=home)
    if path is None or _language(work, lesson, home):
        return path
    worked = []
    for folder in [work, *(work / lang for lang in LANGS if lang != "en")]:
        what = files.kind(folder / f"{lesson}.ipynb", home=home)
        if not what or what[0] != "file":
            continue
        try:
            nb = json.loads(files.read_text(folder / f"{lesson}.ipynb", MAX_NOTEBOOK_BYTES, home=home))
            if answered(nb, lesson_plan):
                worked.append((what[1], folder / f"{lesson}.ipynb"))
        except (OSError, ValueError, AttributeError, TypeError):
            continue
    return max(worked, key=lambda w: w[0])[1] if worked else path


def check_hidden(path):
    """The hidden cases' file (--hidden, or WORKSHOP_HIDDEN), refused when anyone but its owner can read it."""
    path = path or os.environ.get("WORKSHOP_HIDDEN") or None
    if not path:
        return None
    path = Path(path).resolve()
    try:
        info = path.stat()
    except OSError as exc:
        raise ValueError(f"hidden cases: {path}: {exc.strerror}") from None
    if info.st_mode & 0o077:
        raise ValueError(f"hidden cases: {path} can be read by other users (mode {oct(info.st_mode & 0o777)}): "
                         f"chmod 600 it, so no student's kernel can read the cases")
    return path
