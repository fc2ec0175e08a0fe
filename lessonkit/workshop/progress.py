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
from ..base import safe_files as files
from ..exercises import records

LESSONS = REPO_ROOT / "lessons"
LESSON = re.compile(r"^(s\d\d_\w+|arena)$")
CHECK_CALL = re.compile(r"\.check\(\s*([A-Za-z_]\w*)")
COLUMNS = ("student", "lesson", "exercise", "state", "passed", "total", "attempts", "detail", "since", "last",
           "hidden", "home", "points", "max_points", "lang")
POINTS = 10     # what an exercise is worth unless --points says otherwise
MARKS = {"not logged in": "-", "not started": "·", "trying": "…", "stuck": "!", "passed": "✓", "error": "E",
         "uses the reference": "R"}
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
FORMULA = ("=", "+", "-", "@", "\t", "\r")
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
    hidden: str = ""      # verify with hidden cases: "k/n; ✓ name; ✗ name: why"
    points: float = 0     # what the exercise earned (with_points): its worth x the share of cases passing
    max_points: float = 0
    lang: str = ""        # the student's language for this lesson (their notebook's, or their last check's)


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
    if home.name == "work" or (files.kind(home / "work") or ("",))[0] == "dir":
        return home if home.name == "work" else home / "work"
    try:
        kinds = files.entries(home)
    except OSError:
        kinds = {}
    if any(n.startswith("s0") and n.endswith(".ipynb") for n in kinds):
        return home
    return home / "work"


def student_name(home: Path) -> str:
    """homes/ada -> ada; homes/ada/work -> ada; work -> the folder holding it."""
    home = Path(os.path.abspath(home))
    return home.parent.name if home.name == "work" else home.name


def find_homes(extra=()) -> list[Path]:
    """Every home with a work/ folder that a hub on this machine uses: $WORKSHOP_HOMES/*, the kit's
    .hub/homes/* (make hub), ./homes/* (the hub's default), /home/*, /srv/homes/* (the image); the
    local work/ (a checkout's `make student`) only when there is no hub's home. The instructor
    (WORKSHOP_ADMIN, default instructor) is not a student."""
    places = [os.environ.get("WORKSHOP_HOMES", ""), str(REPO_ROOT / ".hub" / "homes"), "homes", *HUB_HOMES, *extra]
    staff = {n.strip() for n in os.environ.get("WORKSHOP_ADMIN", "instructor").split(",")}
    found, seen = [], set()
    for place in filter(None, places):
        try:
            homes = sorted(Path(place).iterdir())
        except OSError:
            continue
        for home in homes:
            if home.name in staff:
                continue
            if files.is_folder(home / "work", home=home) and home.resolve() not in seen:
                seen.add(home.resolve())
                found.append(home)
    if found:
        return found
    for local in (Path.cwd() / "work", Path.cwd(), REPO_ROOT / "work"):
        if local.name == "work" and local.is_dir():
            return [local]
    return found


def _language(work: Path, lesson: str, home) -> str:
    """The language the student last checked this lesson in (its records), or "" when none (or not a
    language of the kit: a record is the student's text, never a path)."""
    from ..i18n import LANGS

    items = records.read(work / records.FOLDER / f"{lesson}.jsonl", home=home)
    lang = str(items[-1].get("lang", "")) if items else ""
    return lang if lang in LANGS else ""


def notebook_of(work: Path, lesson: str, *, home=None) -> Path | None:
    """The student's notebook of a lesson: in the language of their last check of it (work/ for English,
    work/zh/ for Chinese); with no check, the English one, else the newest translation (verify looks
    further: verify.copy_to_grade). A deleted English notebook of a student who checks in English is
    missing: the Chinese copy is never graded instead."""
    from ..i18n import LANGS

    home = home if home is not None else work.parent if work.name == "work" else work
    name = f"{lesson}.ipynb"

    def found(folder: Path):
        what = files.kind(folder / name, home=home)
        return (what[1], folder / name) if what and what[0] == "file" else None
    lang = _language(work, lesson, home)
    if lang and lang != "en":
        copy = found(work / lang)
        return copy[1] if copy else None
    english = found(work)
    if lang == "en" or english:
        return english[1] if english else None
    copies = [c for c in (found(work / other) for other in LANGS if other != "en") if c]
    return max(copies, key=lambda c: c[0])[1] if copies else None


def rows(homes, only=(), lessons: Path = LESSONS, *, now: float | None = None, notebooks: bool = True) -> list[Row]:
    """One Row per student and exercise, from the records alone. A home given as roster.Missing (a
    student on the roster who never logged in) is "not logged in". notebooks=False: records only, no
    notebook beside them to look for (the room service holds records, not homes)."""
    import time

    now = time.time() if now is None else now
    keep, out = chosen(only), []
    plan = {lesson: names for lesson, names in exercises(lessons).items() if keep(lesson)}
    for home in homes:
        work, student = work_of(home), student_name(home)
        home_dir = work.parent if work.name == "work" else work
        if getattr(home, "missing", False) or not files.is_folder(work, home=home_dir):
            state = "not logged in" if getattr(home, "missing", False) or getattr(home, "rostered", False) \
                else "error"
            detail = "" if state == "not logged in" else f"{work}: no such folder"
            out += [Row(student, lesson, name, state, detail=detail, home=str(home))
                    for lesson, names in plan.items() for name in names]
            continue
        from ..i18n import LANGS

        for lesson, names in plan.items():
            items = records.read(work / records.FOLDER / f"{lesson}.jsonl", home=home_dir)
            lang = str(items[-1].get("lang", "")) if items else ""
            lang = lang if lang in LANGS else ""
            missing = notebooks and notebook_of(work, lesson, home=home_dir) is None
            for name in names:
                s = records.state_of([r for r in items if r.get("exercise") == name], now=now)
                detail = s.detail
                if missing:
                    s = records.State("error", s.passed, s.total, s.attempts, s.since, s.last, "")
                    detail = f"notebook missing: {lesson}.ipynb (write it again: python -m lessonkit.workshop " \
                             f"reset {lesson.split('_')[0]})"
                out.append(Row(student, lesson, name, s.state, s.passed, s.total, s.attempts, detail,
                               s.since, s.last, str(home), lang=lang))
    return out


def read_points(path: Path) -> dict[str, float]:
    """--points FILE: what each exercise is worth, as JSON: {"s01_loop:assistant_message": 5, "s06": 20,
    "with_cache_breakpoint": 4}; a key is lesson:exercise, an exercise, a lesson or its sNN. A bad file
    is a one-line ValueError naming it."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"--points {path}: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0
                                             for v in data.values()):
        raise ValueError(f"--points {path}: a JSON object of exercise -> points (numbers, 0 or more)")
    return {str(k): float(v) for k, v in data.items()}


def worth(row: Row, weights: dict | None) -> float:
    """An exercise's points: the most specific key of `weights` that names it, else POINTS."""
    weights = weights or {}
    for key in (f"{row.lesson}:{row.exercise}", row.exercise, row.lesson, row.lesson.split("_")[0]):
        if key in weights:
            return weights[key]
    return float(POINTS)


def with_points(table: list[Row], weights: dict | None = None) -> list[Row]:
    """Each row with the points it earned: its worth times the share of its cases that pass (the hidden
    ones too); nothing for an exercise not started, in error, using the reference or not logged in.
    Example: a row trying at 3/6 worth 10 -> points 5.0, max_points 10.0"""
    from dataclasses import replace

    out = []
    for r in table:
        most = worth(r, weights)
        k, n = r.passed, r.total
        secret = re.match(r"^(\d+)/(\d+)", r.hidden or "")
        if secret:
            k, n = k + int(secret[1]), n + int(secret[2])
        share = 1.0 if r.state == "passed" else k / n if r.state in ("trying", "stuck") and n else 0.0
        out.append(replace(r, points=round(most * share, 2), max_points=most))
    return out


def plain(value) -> str:
    """A student's text, safe on a terminal: control characters (escapes, bells, bidi overrides) dropped.
    Example: plain("\\x1b[2Jhi") -> "[2Jhi" """
    return CONTROL.sub("", str(value))


def cell(value):
    """A CSV cell a spreadsheet shows as text: one starting like a formula (= + - @ tab CR) gets a quote.
    Example: cell("=HYPERLINK(...)") -> "'=HYPERLINK(...)"; cell(3) -> 3"""
    if isinstance(value, str):
        text = plain(value)
        starts = (value, text, value.lstrip(), text.lstrip())   # a spreadsheet may trim the spaces before "="
        return "'" + text if any(v.startswith(FORMULA) for v in starts) else text
    return value


def write_csv(table: list[Row], path: Path) -> None:
    """The gradebook: one line per student and exercise, with COLUMNS as its header."""
    Path(path).write_text(csv_text(table), encoding="utf-8", newline="")


def csv_text(table: list[Row]) -> str:
    """The gradebook as text (write_csv's file; the room service's room.csv)."""
    import io

    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=COLUMNS)
    writer.writeheader()
    for row in table:
        writer.writerow({k: cell(v) for k, v in asdict(row).items()})
    return out.getvalue()


def text(table: list[Row]) -> str:
    """One student: one line per exercise. Several: a mark per exercise, then who is stuck or in error."""
    students = list(dict.fromkeys(r.student for r in table))
    if not table:
        return "no student homes found: name them (python -m lessonkit.workshop progress homes/*/)"
    if len(students) == 1:
        lines = [("lesson", "exercise", "state", "cases", "attempts", "last", "detail")]
        lines += [(r.lesson, r.exercise, r.state, f"{r.passed}/{r.total}" if r.total else "-",
                   str(r.attempts), r.last or "-", plain(r.detail)[:100]) for r in table]
        return _format(lines)
    columns = list(dict.fromkeys((r.lesson, r.exercise) for r in table))
    lines = [("student", *(f"{lesson.split('_')[0]}:{name}" for lesson, name in columns), "last activity")]
    by = {(r.student, r.lesson, r.exercise): r for r in table}
    for student in students:
        last = max((r.last for r in table if r.student == student and r.last), default="-")
        lines.append((plain(student), *(_mark(by[(student, *c)]) for c in columns), last))
    passed = [sum(by[(s, *c)].state == "passed" for s in students) for c in columns]
    lines.append(("passed", *(f"{n}/{len(students)}" for n in passed), ""))
    notes = [plain(f"{r.student} {r.lesson.split('_')[0]}:{r.exercise} {r.state}: {r.detail[:120]}")
             for r in table if r.state in ("stuck", "error", "uses the reference")]
    legend = "  ".join(f"{m} {s}" for s, m in MARKS.items()) + "   (k/n: cases passing)"
    return "\n".join([_format(lines), legend, *notes])


def _mark(r: Row) -> str:
    if r.state in ("trying", "stuck"):
        return f"{r.passed}/{r.total}{'!' if r.state == 'stuck' else ''}"
    return MARKS[r.state]


def _format(lines) -> str:
    widths = [max(len(str(r[i])) for r in lines) for i in range(len(lines[0]))]
    return "\n".join("  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip() for r in lines)
