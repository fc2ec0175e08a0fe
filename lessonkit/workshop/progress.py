"""Progress for the room: run every student notebook, read what each exercise check said.

    python -m lessonkit.workshop progress work/                 one student: one row per exercise
    python -m lessonkit.workshop progress /home/*/              one row per student, a summary per exercise

    folder ──find_notebooks──> sNN_*.ipynb ──run (own kernel, time limit)──> check cells' outputs
           ──> Result(student, lesson, exercise, "pass" | "fail" | "error" | "not run", first line)

Each notebook runs in a fresh kernel (nbclient) in its own folder, with a time limit per cell,
and errors allowed, so a student's broken cell shows in its check instead of stopping the run.
A notebook that cannot be read or run is a result with its one-line error, never a crash.
The committed lessons are never run or touched here; only the notebooks in the given folders.

Example: progress(["work"]) -> [Result("work", "s01_loop", "assistant_message", "fail",
                                       "✗ assistant_message: 0/6 cases pass"), ...]

Not modeled: grading, partial credit, a student who edits the check cell itself.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .tags import CHECK, CHECK_CALL, source, tags

CELL_TIMEOUT_S = 60
STARTUP_TIMEOUT_S = 180  # a kernel that starts while a room's worth of others do can take a minute
STARTS = 3  # kernels started side by side can race for a port and die before any cell runs: start again
LESSON = re.compile(r"^(s\d\d_\w+|arena)\.ipynb$")
MARKS = {"pass": "✓", "fail": "✗", "error": "!", "not run": "·"}


@dataclass(frozen=True)
class Result:
    student: str
    lesson: str
    exercise: str      # the checked function's name; "-" when the notebook did not run
    status: str        # pass | fail | error | not run
    line: str          # the check's own first line, or the error


def find_notebooks(folder: Path) -> list[Path]:
    """A student's lesson notebooks: in `folder`, or in `folder/work` (a home folder)."""
    folder = Path(folder)
    for place in (folder, folder / "work"):
        found = sorted(p for p in place.glob("*.ipynb") if LESSON.match(p.name))
        if found:
            return found
    return []


def student_name(folder: Path) -> str:
    """work/ -> the folder's parent name when it is called 'work' (a home's work/), else its own."""
    folder = Path(folder).resolve()
    return folder.parent.name if folder.name == "work" else folder.name


def first_line(cell) -> tuple[str, str]:
    """(status, first line) of an executed check cell."""
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "error":
            return "error", f"{out.get('ename')}: {out.get('evalue')}".splitlines()[0][:200]
        text = out.get("data", {}).get("text/plain") if kind in ("execute_result", "display_data") else out.get("text")
        text = "".join(text) if isinstance(text, list) else (text or "")
        line = next((ln for ln in text.splitlines() if ln.strip()), "")
        if line.lstrip().startswith("✓"):
            return "pass", line.strip()
        if line.lstrip().startswith("✗"):
            return "fail", line.strip()
    return "not run", "the check printed no ✓/✗ line"


def run_notebook(path: Path, student: str, timeout: int = CELL_TIMEOUT_S) -> list[Result]:
    """Run one student notebook in its own kernel; one Result per check cell (or one error)."""
    import nbformat
    from nbclient import NotebookClient

    lesson = Path(path).stem
    try:
        nb = nbformat.read(path, as_version=4)
        for start in range(1, STARTS + 1):
            client = NotebookClient(nb, timeout=timeout, startup_timeout=STARTUP_TIMEOUT_S,
                                    kernel_name="python3", allow_errors=True,
                                    shutdown_kernel="immediate", record_timing=False,
                                    resources={"metadata": {"path": str(Path(path).parent)}})
            try:
                client.execute()
                break
            except RuntimeError as exc:  # the kernel died at start (no cell has run): once more
                if start == STARTS or "before replying to kernel_info" not in str(exc):
                    raise
    except Exception as exc:  # noqa: BLE001 - a broken notebook is a row, never a crash
        message = (str(exc).strip().splitlines() or [""])[-1] if not isinstance(exc, json.JSONDecodeError) else str(exc)
        return [Result(student, lesson, "-", "error", f"{type(exc).__name__}: {message}"[:200])]
    results = []
    for cell in nb.cells:
        if cell.cell_type != "code" or CHECK not in tags(cell):
            continue
        names = CHECK_CALL.findall(source(cell))
        status, line = first_line(cell)
        results.append(Result(student, lesson, names[0] if names else "?", status, line))
    if not results:
        results.append(Result(student, lesson, "-", "not run", "no cell tagged 'check' in this notebook"))
    return results


def progress(folders, *, timeout: int = CELL_TIMEOUT_S, jobs: int = 2, lessons=None) -> list[Result]:
    """Every check of every student notebook in `folders`, `jobs` notebooks at a time."""
    tasks = []
    results: list[Result] = []
    for folder in folders:
        student = student_name(folder)
        found = [p for p in find_notebooks(folder)
                 if not lessons or p.stem in lessons or p.stem.split("_")[0] in lessons]
        if not Path(folder).is_dir():
            results.append(Result(student, "-", "-", "error", f"{folder}: no such folder"))
        elif not found:
            results.append(Result(student, "-", "-", "error", f"{folder}: no lesson notebooks here or in work/"))
        tasks += [(p, student) for p in found]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for rows in pool.map(lambda t: run_notebook(t[0], t[1], timeout), tasks):
            results += rows
    order = {f: i for i, f in enumerate(student_name(f) for f in folders)}
    return sorted(results, key=lambda r: (order.get(r.student, 0), r.lesson))


def table(results: list[Result]) -> str:
    """One row per exercise, or, for several students, one row per student and a summary row."""
    students = list(dict.fromkeys(r.student for r in results))
    if len(students) == 1:
        rows = [("lesson", "exercise", "result", "first line")]
        rows += [(r.lesson, r.exercise, r.status, r.line) for r in results]
        return _format(rows)
    columns = list(dict.fromkeys((r.lesson, r.exercise) for r in results if r.exercise != "-"))
    head = ("student",) + tuple(f"{lesson.split('_')[0]}:{name}" for lesson, name in columns) + ("problems",)
    rows = [head]
    for student in students:
        mine = {(r.lesson, r.exercise): r for r in results if r.student == student}
        problems = "; ".join(f"{r.lesson}: {r.line}" for r in results
                             if r.student == student and r.status in ("error", "not run"))
        rows.append((student, *(MARKS[mine[c].status] if c in mine else "-" for c in columns), problems))
    passed = [sum(1 for r in results if (r.lesson, r.exercise) == c and r.status == "pass") for c in columns]
    rows.append(("passed", *(f"{n}/{len(students)}" for n in passed), ""))
    return _format(rows) + "\n" + "  ".join(f"{m} {s}" for s, m in MARKS.items())


def _format(rows) -> str:
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows)
