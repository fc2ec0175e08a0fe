"""The room, live: every student's exercises from the records their checks wrote. Runs no student code.

    python -m lessonkit.workshop progress                      the hub's homes (and a local work/)
    python -m lessonkit.workshop progress homes/ada homes/bob --only s01,s06 --csv room.csv --html room.html

    HOME (a folder holding work/, or work/ itself)
      work/<lesson>.ipynb  (or work/zh/<lesson>.ipynb)   there? else "notebook missing"
      work/.progress/<lesson>.jsonl ──records.state_of──> Row(student, lesson, exercise, state, k/n, attempts, ...)

The exercises of each lesson come from the kit's own lessons (their `check` cells), so a student
who never ran a check still has a row for each exercise: `not started`. A deleted notebook is an
`error` row saying "notebook missing" (the instructor has something to do: `reset` writes it again).

Records are advisory: a student can write them. `verify` (verify.py) re-checks the answers in
isolation; that is the grade.

Example: rows([Path("homes/ada")], only={"s01"})
  -> [Row("ada", "s01_loop", "assistant_message", "trying", 2, 5, 3, "a text answer ...", ...)]
"""

from __future__ import annotations

import csv
import functools
import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from ..backends.client import REPO_ROOT
from ..exercises import records

LESSONS = REPO_ROOT / "lessons"
LESSON = re.compile(r"^(s\d\d_\w+|arena)$")
CHECK_CALL = re.compile(r"\.check\(\s*([A-Za-z_]\w*)")
COLUMNS = ("student", "lesson", "exercise", "state", "passed", "total", "attempts", "detail", "since", "last", "home")
MARKS = {"not started": "·", "trying": "…", "stuck": "!", "passed": "✓", "error": "E"}
HUB_HOMES = ("/home", "/srv/homes")   # where a hub's homes live (workshop/jupyterhub_config.py, the image)


@dataclass(frozen=True)
class Row:
    student: str
    lesson: str
    exercise: str
    state: str
    passed: int = 0
    total: int = 0
    attempts: int = 0
    detail: str = ""
    since: str = ""
    last: str = ""
    home: str = ""


@functools.lru_cache(maxsize=4)
def exercises(lessons: Path = LESSONS) -> dict[str, list[str]]:
    """Each lesson's exercises (the functions its `check` cells check), from the kit's lessons.
    Example: {"s01_loop": ["assistant_message"], "s05_budget": ["persist_large_output", ...], ...}"""
    out = {}
    for path in sorted(Path(lessons).glob("*.ipynb")):
        if not LESSON.match(path.stem):
            continue
        names = []
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code" and "check" in cell.get("metadata", {}).get("tags", []):
                text = "".join(cell["source"])
                names += [n for n in CHECK_CALL.findall(text) if n not in names]
        out[path.stem] = names
    return out


def chosen(only) -> callable:
    """A filter on lesson stems from --only: {"s01", "s06_compact"} -> s01_loop, s06_compact."""
    only = {s.strip() for s in (only or ()) if s.strip()}
    return lambda stem: not only or stem in only or stem.split("_")[0] in only


def work_of(home: Path) -> Path:
    """A HOME's work/ folder: the folder itself when it is called work or holds lesson notebooks."""
    home = Path(home)
    if home.name == "work" or not (home / "work").is_dir() and any(home.glob("s0*_*.ipynb")):
        return home
    return home / "work"


def student_name(home: Path) -> str:
    """homes/ada -> ada; homes/ada/work -> ada; work -> the folder holding it."""
    home = Path(home).resolve()
    return home.parent.name if home.name == "work" else home.name


def find_homes(extra=()) -> list[Path]:
    """Every home with a work/ folder that a hub on this machine uses, then the local work/:
    $WORKSHOP_HOMES/*, the kit's .hub/homes/* (make hub), ./homes/* (the hub's default), /home/*,
    /srv/homes/* (the image)."""
    places = [os.environ.get("WORKSHOP_HOMES", ""), str(REPO_ROOT / ".hub" / "homes"), "homes", *HUB_HOMES, *extra]
    found, seen = [], set()
    for place in filter(None, places):
        try:
            homes = sorted(Path(place).iterdir())
        except OSError:
            continue
        for home in homes:
            try:
                ok = (home / "work").is_dir()
            except OSError:
                ok = False
            if ok and home.resolve() not in seen:
                seen.add(home.resolve())
                found.append(home)
    for local in (Path.cwd() / "work", Path.cwd(), REPO_ROOT / "work"):
        if local.name == "work" and local.is_dir() and local.resolve() not in seen:
            seen.add(local.resolve())
            found.append(local)
            break
    return found


def notebook_of(work: Path, lesson: str) -> Path | None:
    """The student's notebook of a lesson: work/<lesson>.ipynb or a translation's (work/zh/), newest first."""
    found = [p for p in [work / f"{lesson}.ipynb", *work.glob(f"*/{lesson}.ipynb")] if p.is_file()]
    return max(found, key=lambda p: p.stat().st_mtime) if found else None


def notebooks_in(work: Path) -> set[str]:
    """The lessons a work/ folder (or a language folder in it) holds a notebook of, in one listing each."""
    found = set()
    try:
        with os.scandir(work) as entries:
            for entry in entries:
                if entry.name.endswith(".ipynb"):
                    found.add(entry.name[:-6])
                elif entry.is_dir() and len(entry.name) <= 5 and entry.name.isalpha():
                    found |= {n[:-6] for n in os.listdir(entry.path) if n.endswith(".ipynb")}
    except OSError:
        pass
    return found


def rows(homes, only=(), lessons: Path = LESSONS) -> list[Row]:
    """One Row per student and exercise, from the records alone."""
    keep, out = chosen(only), []
    plan = {lesson: names for lesson, names in exercises(lessons).items() if keep(lesson)}
    for home in homes:
        work, student = work_of(home), student_name(home)
        if not work.is_dir():
            out += [Row(student, lesson, name, "error", detail=f"{work}: no such folder", home=str(home))
                    for lesson, names in plan.items() for name in names]
            continue
        present = notebooks_in(work)
        for lesson, names in plan.items():
            items = records.read(work / records.FOLDER / f"{lesson}.jsonl")
            missing = lesson not in present
            for name in names:
                s = records.state_of([r for r in items if r.get("exercise") == name])
                detail = s.detail
                if missing:
                    s = records.State("error", s.passed, s.total, s.attempts, s.since, s.last, "")
                    detail = f"notebook missing: {lesson}.ipynb (write it again: python -m lessonkit.workshop " \
                             f"reset {lesson.split('_')[0]})"
                out.append(Row(student, lesson, name, s.state, s.passed, s.total, s.attempts, detail,
                               s.since, s.last, str(home)))
    return out


def write_csv(table: list[Row], path: Path) -> None:
    """The gradebook: one line per student and exercise, with COLUMNS as its header."""
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=COLUMNS)
        writer.writeheader()
        for row in table:
            writer.writerow(asdict(row))


def text(table: list[Row]) -> str:
    """One student: one line per exercise. Several: a mark per exercise, then who is stuck or in error."""
    students = list(dict.fromkeys(r.student for r in table))
    if not table:
        return "no student homes found: name them (python -m lessonkit.workshop progress homes/*/)"
    if len(students) == 1:
        lines = [("lesson", "exercise", "state", "cases", "attempts", "detail")]
        lines += [(r.lesson, r.exercise, r.state, f"{r.passed}/{r.total}" if r.total else "-",
                   str(r.attempts), r.detail[:100]) for r in table]
        return _format(lines)
    columns = list(dict.fromkeys((r.lesson, r.exercise) for r in table))
    lines = [("student", *(f"{lesson.split('_')[0]}:{name}" for lesson, name in columns))]
    by = {(r.student, r.lesson, r.exercise): r for r in table}
    for student in students:
        lines.append((student, *(_mark(by[(student, *c)]) for c in columns)))
    passed = [sum(by[(s, *c)].state == "passed" for s in students) for c in columns]
    lines.append(("passed", *(f"{n}/{len(students)}" for n in passed)))
    notes = [f"{r.student} {r.lesson.split('_')[0]}:{r.exercise} {r.state}: {r.detail[:120]}"
             for r in table if r.state in ("stuck", "error")]
    legend = "  ".join(f"{m} {s}" for s, m in MARKS.items()) + "   (k/n: cases passing)"
    return "\n".join([_format(lines), legend, *notes])


def _mark(r: Row) -> str:
    if r.state in ("trying", "stuck"):
        return f"{r.passed}/{r.total}{'!' if r.state == 'stuck' else ''}"
    return MARKS[r.state]


def _format(lines) -> str:
    widths = [max(len(str(r[i])) for r in lines) for i in range(len(lines[0]))]
    return "\n".join("  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip() for r in lines)
