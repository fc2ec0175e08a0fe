"""A room of students: live records, the room view (text, CSV, page), verify, and fakes of every kind.

The room is built as students make it: each home is the kit's student notebook with the exercise
cell edited (and, for some fakes, a cell added), and the live records are written by the kit's
own checks, called from the student's work/ folder as their kernel calls them.
"""

from __future__ import annotations

import csv
import importlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from lessonkit.exercises import records
from lessonkit.workshop import progress
from lessonkit.workshop.__main__ import main
from lessonkit.workshop.student import student_version
from lessonkit.workshop.tags import EXERCISE, tags

ROOT = Path(__file__).resolve().parent.parent
LESSONS = ROOT / "lessons"
STARTER = {"s01_loop": None, "s02_tools": None}   # None: keep the lesson's starter

SOLVED = {"s01_loop": '''from s01_loop import to_dict


def assistant_message(response):
    blocks = [to_dict(b) for b in response.content]
    if response.stop_reason != "tool_use":
        blocks = [b for b in blocks if b["type"] != "tool_use"] or [{"type": "text", "text": "(cut off)"}]
    return {"role": "assistant", "content": blocks}
''', "s02_tools": '''from pathlib import Path

from s01_loop import ToolError


def resolve_in(workspace, path):
    if "\\x00" in str(path):
        raise ToolError(f"{path!r} names no file")
    root = Path(workspace).resolve()
    real = (root / path).resolve()
    if real != root and root not in real.parents:
        raise ToolError(f"{path} leads outside the workspace")
    return real
'''}
REFERENCE = {"s01_loop": "from s01_loop import assistant_message\n", "s02_tools": "from s02_tools import resolve_in\n"}
WRONG = {"s01_loop": '''def assistant_message(response):
    return {"role": "assistant", "content": [b.to_dict() for b in response.content]}   # keeps cut-off calls
''', "s02_tools": '''from pathlib import Path


def resolve_in(workspace, path):
    return Path(workspace) / path
'''}
ERRORING = {lesson: f"def {name}(*args):\n    raise KeyError('oops')\n"
            for lesson, name in (("s01_loop", "assistant_message"), ("s02_tools", "resolve_in"))}
FN = {"s01_loop": "assistant_message", "s02_tools": "resolve_in"}
N01 = len(importlib.import_module("lessonkit.exercises.s01_loop").exercise.cases())   # s01's cases


def starter(lesson):
    nb = json.loads((LESSONS / f"{lesson}.ipynb").read_text(encoding="utf-8"))
    return next("".join(c["source"]) for c in nb["cells"] if EXERCISE in tags(c))


def fake_print(lesson):
    return starter(lesson) + f'\nprint("✓ {FN[lesson]}: 5/5 cases pass")\n'


def fake_secret(lesson):
    """Passes only when it can see a key: the solved answer if ANTHROPIC_API_KEY is set."""
    return f"import os\n{starter(lesson)}\nif os.environ.get('ANTHROPIC_API_KEY') or os.environ.get('HUB_TOKEN'):\n" + \
        "\n".join("    " + ln for ln in SOLVED[lesson].splitlines()) + "\n"


def fake_kit(lesson):
    """Rewrites the kit's exercise check (every copy it can find) to pass everything, then keeps the starter."""
    return f'''import pathlib, lessonkit.exercises.checks as c
for p in {{pathlib.Path(c.__file__), pathlib.Path({str(ROOT / "lessonkit" / "exercises" / "checks.py")!r})}} if {ROOTED} else []:
    try:
        p.chmod(0o644)
        p.write_text(p.read_text().replace("return not self.failures", "return True"))
    except OSError:
        pass
{starter(lesson)}'''


def fake_other(lesson, victim: Path):
    """Copies another student's answer from their notebook, if it can read it."""
    return f'''import json
try:
    nb = json.load(open({str(victim / "work" / f"{lesson}.ipynb")!r}))
    exec("".join(next(c["source"] for c in nb["cells"] if "exercise" in c["metadata"].get("tags", []))))
except OSError:
{chr(10).join("    " + ln if ln else "" for ln in starter(lesson).splitlines())}
'''


FAKE_CELLS = {  # cells a faking student adds after the exercise cell, in their own kernel
    "redefine": "class exercise:\n    def check(fn):\n        print('✓ all cases pass')\n",
    "patch": "import lessonkit.exercises as ex\nex.Exercise.check = lambda self, fn: print('✓ all cases pass')\n",
    # a verdict written on every pipe and descriptor the process has, then a clean exit
    "forge": "import os, json, sys\nfor fd in range(3, 64):\n    for name in ('assistant_message', 'resolve_in'):\n"
             "        try:\n            os.write(fd, (json.dumps({'nonce': os.environ.get('LESSONS_GRADE_RUN'), "
             "'verdict': name, 'check': name, 'passed': 6, 'total': 6, 'first': '', 'done': True, 'op': 'result', "
             "'verdicts': {name: {'passed': 6, 'total': 6}}}) + chr(10)).encode())\n"
             "        except OSError:\n            pass\nos._exit(0)\n",
    # the kit's check function's code swapped in place for one that passes everything
    "swap": "import lessonkit.exercises.checks as c\nfrom lessonkit.exercises.checks import CheckResult\n"
            "def passes(fn, cases, *, title=None, echo=True):\n    return CheckResult(title or 'x', [k.name for k in cases], [])\n"
            "c.check.__code__ = passes.__code__\n",
    # kills every other process it can see (another student's grading)
    "killer": "import os, signal\nfor pid in os.listdir('/proc'):\n    if pid.isdigit() and int(pid) != os.getpid():\n"
              "        try:\n            os.kill(int(pid), signal.SIGKILL)\n        except OSError:\n            pass\n",
}
BELOW = {"below"}   # a correct answer written in a new cell below the (untouched) exercise cell


def make_home(root: Path, name: str, kind: str, lessons=("s01_loop",), victim: Path | None = None) -> Path:
    """A student's home after working the way `kind` says; records written by the real checks."""
    home = root / name
    work = home / "work"
    work.mkdir(parents=True)
    for lesson in lessons:
        code = {"untouched": None, "solved": SOLVED[lesson], "wrong": WRONG[lesson], "erroring": ERRORING[lesson],
                "print": fake_print(lesson), "secret": fake_secret(lesson), "kit": fake_kit(lesson),
                "other": fake_other(lesson, victim) if victim else None, "record": None,
                "redefine": None, "patch": None, "deleted": SOLVED[lesson], "stuck": WRONG[lesson],
                "forge": WRONG[lesson], "swap": WRONG[lesson], "killer": SOLVED[lesson], "below": None,
                "reference": REFERENCE[lesson]}[kind]
        nb = student_version(json.loads((LESSONS / f"{lesson}.ipynb").read_text(encoding="utf-8")), lesson)
        at = next(i for i, c in enumerate(nb["cells"]) if EXERCISE in tags(c))
        if code is not None:
            nb["cells"][at]["source"] = code
        if kind in FAKE_CELLS:
            nb["cells"].insert(at + 1, nbformat.v4.new_code_cell(FAKE_CELLS[kind]))
        if kind in BELOW:
            nb["cells"].insert(at + 1, nbformat.v4.new_code_cell(SOLVED[lesson]))
        nbformat.write(nbformat.from_dict(nb), work / f"{lesson}.ipynb")
        if kind in ("solved", "wrong", "erroring", "print", "deleted", "stuck", "reference", "killer"):
            run_check(work, lesson, code, times=4 if kind == "stuck" else 1)
        if kind == "below":
            run_check(work, lesson, SOLVED[lesson])
        if kind == "record":   # writes a passing record by hand
            records.record(lesson, FN[lesson], 5, 5, folder=work / records.FOLDER)
        if kind == "deleted":
            (work / f"{lesson}.ipynb").unlink()
    return home


def run_check(work: Path, lesson: str, code: str, times: int = 1) -> None:
    """Run the exercise cell and the kit's check as the student's kernel does (cwd: their work/)."""
    import importlib

    exercise = importlib.import_module(f"lessonkit.exercises.{lesson}").exercise
    here = os.getcwd()
    os.chdir(work)
    try:
        namespace: dict = {}
        exec(compile(code, "<cell>", "exec"), namespace)
        for _ in range(times):
            exercise.check(namespace[FN[lesson]])
    finally:
        os.chdir(here)


LIVE = {"untouched": "not started", "solved": "passed", "wrong": "trying", "erroring": "error",
        "deleted": "error", "stuck": "stuck", "print": "trying", "redefine": "not started",
        "patch": "not started", "record": "passed", "secret": "not started", "kit": "not started",
        "other": "not started", "forge": "not started", "swap": "not started", "killer": "passed",
        "below": "passed", "reference": "uses the reference"}
GRADE = {"untouched": "not started", "solved": "passed", "wrong": "trying", "erroring": "error",
         "deleted": "error", "stuck": "trying", "print": "trying", "redefine": "not started",
         "patch": "not started", "record": "not started", "secret": "trying", "kit": "trying",
         "other": "not started", "forge": "error", "swap": "trying", "killer": "passed", "below": "passed",
         "reference": "uses the reference"}


# --- records and states ---------------------------------------------------------------------------

def test_a_check_records_where_the_student_works_and_nowhere_else(tmp_path, monkeypatch):
    monkeypatch.delenv("LESSONS_PROGRESS", raising=False)
    work = tmp_path / "home" / "work"
    (work / "zh").mkdir(parents=True)
    assert records.records_folder(work) == work / ".progress"
    assert records.records_folder(work / "zh") == work / ".progress"
    assert records.records_folder(LESSONS) is None and records.records_folder(tmp_path) is None
    run_check(work, "s01_loop", WRONG["s01_loop"], times=2)
    [first, second] = records.read(work / ".progress" / "s01_loop.jsonl")
    assert (first["exercise"], first["passed"], first["total"], first["attempt"]) == ("assistant_message", 3, N01, 1)
    assert second["attempt"] == 2 and first["first"] and first["error"] == "" and first["time"].endswith("Z")
    monkeypatch.setenv("LESSONS_PROGRESS", "off")
    run_check(work, "s01_loop", WRONG["s01_loop"])
    assert len(records.read(work / ".progress" / "s01_loop.jsonl")) == 2


def test_states_from_records_stuck_by_attempts_or_minutes():
    fail = {"exercise": "f", "passed": 1, "total": 4, "first": "case a: wrong", "t": 0}
    assert records.state_of([]).state == "not started"
    assert records.state_of([fail]).state == "trying"
    assert records.state_of([fail] * 3).state == "stuck"
    other = dict(fail, first="case b: wrong")
    assert records.state_of([fail, fail, other]).state == "trying"       # moved on to another case
    assert records.state_of([fail, dict(fail, t=601)]).state == "stuck"  # ten minutes on the same case
    assert records.state_of([fail, dict(fail, passed=4)]).state == "passed"
    error = records.state_of([fail, dict(fail, error="KeyError: 'x'")])
    assert (error.state, error.detail, error.attempts) == ("error", "KeyError: 'x'", 2)


def test_a_broken_or_foreign_records_file_is_read_around(tmp_path):
    path = tmp_path / "s01_loop.jsonl"
    path.write_text('not json\n[1, 2]\n{"exercise": "f", "passed": "x"}\n', encoding="utf-8")
    [item] = records.read(path)
    assert records.state_of([item]).state == "trying"


# --- the room, live -------------------------------------------------------------------------------

ROOTED = os.geteuid() == 0   # as root, verify grades as its own user: only then can it refuse to read
KINDS = [k for k in LIVE if ROOTED or k not in ("other", "kit", "killer")]   # another's home, the kit, processes


def room(tmp_path, n=30, lessons=("s01_loop",)):
    homes = []
    victim = make_home(tmp_path, "s00-solved", "solved", lessons)
    homes.append(victim)
    for i in range(1, n):
        kind = KINDS[i % len(KINDS)]
        homes.append(make_home(tmp_path, f"s{i:02d}-{kind}", kind, lessons, victim=victim))
    return homes


def kind_of(student: str) -> str:
    return student.split("-", 1)[1]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_thirty_students_live_each_in_the_right_state_fast(tmp_path):
    homes = room(tmp_path)
    for home in homes:   # the other lessons: records as a busy room leaves them (30 x 9 lessons)
        for lesson in progress.exercises(LESSONS):
            if lesson != "s01_loop":
                for name in progress.exercises(LESSONS)[lesson]:
                    records.record(lesson, name, 1, 3, "case a: no", folder=home / "work" / ".progress")
    start = time.perf_counter()
    rows = progress.rows(homes)
    took = time.perf_counter() - start
    assert took <= 2.0, took
    mine = [r for r in rows if r.lesson == "s01_loop"]
    assert len(mine) == 30 and {r.student: r.state for r in mine} == {r.student: LIVE[kind_of(r.student)] for r in mine}
    by = {kind_of(r.student): r for r in mine}
    assert (by["wrong"].passed, by["wrong"].total, by["wrong"].attempts) == (3, N01, 1) and by["wrong"].detail
    assert by["stuck"].attempts == 4 and by["erroring"].detail == "KeyError: 'oops'"
    assert by["deleted"].detail.startswith("notebook missing: s01_loop.ipynb")
    others = [r for r in rows if r.lesson == "arena"]   # no notebook for the other lessons: missing
    assert all(r.state == "error" and "missing" in r.detail for r in others)


def test_the_room_command_writes_csv_and_a_page_and_exits_0(tmp_path, capsys):
    n = len(KINDS) + 1   # every kind once
    homes = room(tmp_path, n=n)
    capsys.readouterr()
    out = tmp_path / "room.csv"
    page = tmp_path / "room.html"
    assert main(["progress", *map(str, homes), "--only", "s01", "--csv", str(out), "--html", str(page)]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].split() == ["student", "s01:assistant_message", "last", "activity"]
    assert [ln.split() for ln in text.splitlines() if ln.startswith("passed ")] == \
        [["passed", f"{sum(LIVE[kind_of(h.name)] == 'passed' for h in homes)}/{n}"]]
    table = list(csv.DictReader(out.open(encoding="utf-8")))
    assert list(table[0])[:8] == ["student", "lesson", "exercise", "state", "passed", "total", "attempts", "detail"]
    assert {r["state"] for r in table} == set(records.STATES)
    html = page.read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh"' in html and "Advisory" in html and html.count("<tr>") == n + 2
    assert main(["progress", str(tmp_path / "nobody")]) == 0   # a missing home is rows with the error
    assert "no such folder" in capsys.readouterr().out


def test_no_homes_at_all_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(progress, "HUB_HOMES", ())
    monkeypatch.setattr(progress, "REPO_ROOT", tmp_path)
    monkeypatch.setenv("WORKSHOP_HOMES", str(tmp_path / "none"))
    assert progress.find_homes() == []
    assert main(["progress"]) == 2 and capsys.readouterr().err.count("\n") == 1


def test_with_no_folders_progress_finds_the_hubs_homes(tmp_path, monkeypatch):
    homes = tmp_path / "homes"
    make_home(homes, "ada", "solved")
    make_home(homes, "bob", "untouched")
    (homes / "carl").mkdir()   # no work/: not a student home
    monkeypatch.setenv("WORKSHOP_HOMES", str(homes))
    monkeypatch.chdir(tmp_path)
    found = progress.find_homes()
    assert [h.name for h in found][:2] == ["ada", "bob"] and "carl" not in [h.name for h in found]


# --- reset and student act where they run -----------------------------------------------------------

def test_reset_and_student_act_on_the_home_they_run_in(tmp_path, monkeypatch, capsys):
    home = tmp_path / "ada"
    monkeypatch.chdir(home.parent)
    home.mkdir()
    monkeypatch.chdir(home)
    monkeypatch.setenv("JUPYTERHUB_USER", "ada")
    assert main(["student", "--quiet"]) == 0
    mine = home / "work" / "s01_loop.ipynb"
    assert mine.is_file() and (home / "work" / "zh" / "s01_loop.ipynb").is_file()
    mine.write_text(mine.read_text(encoding="utf-8").replace("the seed's line", "my line"), encoding="utf-8")
    monkeypatch.chdir(home / "work")   # a terminal in the notebook's folder, as the header says
    assert main(["reset", "s01"]) == 0
    assert "my line" not in mine.read_text(encoding="utf-8")
    assert "my line" in next((home / "work" / ".backup").glob("s01_loop.*.ipynb")).read_text(encoding="utf-8")
    monkeypatch.chdir(home / "work" / "zh")
    assert main(["reset", "s02"]) == 0 and list((home / "work" / "zh" / ".backup").glob("s02_tools.*"))
    monkeypatch.chdir(tmp_path)
    assert main(["reset", "s03", "--home", str(home)]) == 0
    assert list((home / "work" / ".backup").glob("s03_permissions.*"))
    header = "".join(json.loads(mine.read_text(encoding="utf-8"))["cells"][0]["source"])
    assert "`python -m lessonkit.workshop reset s01` in a terminal" in header and "work/.progress/" in header


# --- verify ---------------------------------------------------------------------------------------

def grade(homes, *extra, env=None):
    """verify as a user runs it: a separate process, with secrets in its environment."""
    run = subprocess.run([sys.executable, "-m", "lessonkit.workshop", "verify", *map(str, homes), *extra],
                         cwd=ROOT, capture_output=True, text=True, timeout=1800,
                         env={**os.environ, "ANTHROPIC_API_KEY": "sk-ant-secret", "HUB_TOKEN": "hub-secret",
                              "JUPYTERHUB_API_TOKEN": "t0ken", **(env or {})})
    assert run.returncode == 0, run.stderr
    return run


PROBE = f"""import json, os
def assistant_message(response):   # what the grading child sees of the machine, as its error
    raise KeyError(json.dumps([os.getpid(), os.getuid(), [p for p in os.listdir('/proc') if p.isdigit()],
                               os.path.exists({str(ROOT / 's01_loop')!r}), os.path.exists('/home'), os.listdir('/tmp')]))
"""


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_verify_grades_a_few_students_and_no_fake_passes(tmp_path):
    homes = [make_home(tmp_path, f"s{i:02d}-{kind}", kind) for i, kind in
             enumerate(["solved", "print", "secret", "redefine", "erroring"])]
    probe = make_home(tmp_path, "probe", "untouched")
    path = probe / "work" / "s01_loop.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    next(c for c in nb["cells"] if EXERCISE in tags(c))["source"] = PROBE
    path.write_text(json.dumps(nb), encoding="utf-8")
    out = tmp_path / "grades.csv"
    grade([*homes, probe], "--only", "s01", "--csv", str(out), "--timeout", "120")
    table = list(csv.DictReader(out.open(encoding="utf-8")))
    assert {r["student"]: r["state"] for r in table if r["student"] != "probe"} == \
        {h.name: GRADE[kind_of(h.name)] for h in homes}
    solved = next(r for r in table if r["student"].endswith("solved"))
    assert (solved["passed"], solved["total"]) == (str(N01), str(N01))
    assert next(r for r in table if r["student"].endswith("erroring"))["detail"].startswith("raised on every case")
    if ROOTED:   # each grading child: PID 1 of its own PID namespace, its own uid, a filesystem without the kit
        import ast

        from lessonkit.workshop.child import UIDS

        seen = next(r for r in table if r["student"] == "probe")["detail"].split("KeyError: ", 1)[1]
        pid, uid, processes, kit, homes_seen, tmp = json.loads(ast.literal_eval(seen))
        assert (pid, processes, kit, homes_seen) == (1, ["1"], False, False) and uid in UIDS, seen
        assert all(name.startswith("lessons-verify-") for name in tmp), tmp


@pytest.mark.slow
def test_verify_times_out_in_the_cell_and_leaves_no_process_behind(tmp_path):
    home = make_home(tmp_path, "eve", "untouched")
    path = home / "work" / "s01_loop.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    at = next(i for i, c in enumerate(nb["cells"]) if EXERCISE in tags(c))
    marker = f"sleep {os.getpid() % 1000 + 1000}"
    nb["cells"][at]["source"] = (f"import os, subprocess\nsubprocess.Popen('{marker} &', shell=True)\n"
                                 "os.system('setsid " + marker + " &')\nwhile True:\n    pass\n")
    path.write_text(json.dumps(nb), encoding="utf-8")
    probes = {"big": "import sys\nfor i in range(300):\n    sys.stdout.write('x' * 1_000_000)\n",
              "mem": "blob = bytearray(3 * 1024**3)\n"}
    for name, code in probes.items():
        other = make_home(tmp_path, name, "untouched")
        mine = other / "work" / "s01_loop.ipynb"
        mine.write_text(mine.read_text(encoding="utf-8").replace('"from s01_loop import to_dict',
                                                                   json.dumps(code)[:-1] + 'from s01_loop import to_dict'),
                        encoding="utf-8")
    out = tmp_path / "g.csv"
    grade([home, tmp_path / "big", tmp_path / "mem"], "--only", "s01", "--csv", str(out), "--timeout", "20",
          "--memory", "1024")
    row, big, mem = list(csv.DictReader(out.open(encoding="utf-8")))
    assert row["state"] == "error" and row["detail"] == f"timed out after 20 s in cell {at + 1}"
    assert big["state"] == "error" and big["detail"] == f"cell {at + 1}: printed more than the output cap (1024 KB)"
    assert mem["state"] == "error" and mem["detail"] == f"cell {at + 1}: MemoryError: over the memory cap (1024 MB)"
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    assert left == [], f"processes survived grading: {left}"


@pytest.mark.slow
def test_thirty_students_two_lessons_verified_no_fake_passes(tmp_path):
    lessons = ("s01_loop", "s02_tools")
    homes = room(tmp_path, lessons=lessons)
    out = tmp_path / "grades.csv"
    checks = ROOT / "lessonkit" / "exercises" / "checks.py"
    before = checks.read_bytes()
    start = time.perf_counter()
    grade(homes, "--only", "s01,s02", "--csv", str(out), "--timeout", "120")
    took = time.perf_counter() - start
    assert checks.read_bytes() == before
    table = list(csv.DictReader(out.open(encoding="utf-8")))
    per_student = sum(len(progress.exercises(LESSONS)[lesson]) for lesson in lessons)   # s02 has two
    assert len(table) == 30 * per_student
    def expected(r):   # a deleted notebook, or one whose process exits (forge), is an error for every
        kind = kind_of(r["student"])   # exercise in it; otherwise only the exercise touched has a grade
        return GRADE[kind] if r["exercise"] == FN[r["lesson"]] or kind in ("deleted", "forge") else "not started"
    wrong = [(r["student"], r["lesson"], r["exercise"], r["state"], r["detail"][:80]) for r in table
             if r["state"] != expected(r)]
    assert wrong == []
    print(f"\nverify: 30 students x 2 lessons in {took:.0f} s")


@pytest.mark.slow
def test_the_room_page_in_a_browser_shows_each_state_in_its_colour_and_reloads(tmp_path):
    """The page `progress --html` writes, opened in Chromium (tests/browser): a row per student, a
    cell per exercise coloured by state, the advisory note, and a reload on its own."""
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(Path(__file__).parent))
    from browser.chromium import LAUNCH_FLAGS, ensure_chromium

    chromium, why = ensure_chromium()
    if why:
        pytest.skip(why)
    homes = room(tmp_path / "homes", n=13)
    page_file = tmp_path / "room.html"
    assert main(["progress", *map(str, homes), "--only", "s01,s02", "--html", str(page_file)]) == 0
    fast = tmp_path / "fast.html"   # the same page reloading every second, to see it reload
    fast.write_text(page_file.read_text(encoding="utf-8").replace('content="10"', 'content="1"'), encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=[*LAUNCH_FLAGS])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            loads = []
            page.on("load", lambda: loads.append(1))
            page.goto(page_file.as_uri())
            rows = page.locator("#room tbody tr")
            assert rows.count() == 13
            colours = page.eval_on_selector_all(
                "#room tbody td:not(.last)", "cells => cells.map(c => [c.className, getComputedStyle(c).backgroundColor])")
            by_state = {}
            for state, colour in colours:
                by_state.setdefault(state, set()).add(colour)
            assert set(by_state) == {"not-started", "trying", "stuck", "passed", "error"}
            assert all(len(c) == 1 for c in by_state.values()) and len({c.pop() for c in by_state.values()}) == 5
            assert "Advisory" in page.inner_text("body")
            page.screenshot(path=str(tmp_path / "room.png"), full_page=True)
            loads.clear()
            page.goto(fast.as_uri())
            page.wait_for_timeout(4000)
            assert len(loads) >= 2, "the page reloads on its own"
        finally:
            browser.close()


@pytest.mark.skipif(not ROOTED, reason="the sweep of the grading user's processes runs as root only")
def test_one_runs_sweep_spares_another_runs_children():
    """Two verify runs at once (two test workers, two instructors): the sweep after one child ends
    kills the grading user's strays, not the other run's child still grading (before: the other run's
    child was 'killed by SIGKILL' whenever the two overlapped). Once that run is gone, its child is
    a stray too."""
    from lessonkit.workshop import sessions
    from lessonkit.workshop.child import UIDS

    user = (UIDS[-1], UIDS[-1])
    as_grader = {"user": user[0], "group": user[1], "extra_groups": [], "start_new_session": True}
    owner = subprocess.Popen(["sleep", "60"])                     # stands for the other verify process
    theirs = subprocess.Popen(["sleep", "61"], **as_grader)       # its child, in a session it registered
    stray = subprocess.Popen(["sleep", "62"], **as_grader)        # left its session: registered by no one
    entry = sessions._registry() / str(theirs.pid)
    entry.write_text(str(owner.pid), encoding="utf-8")
    try:
        sessions.kill_all(2**22 + 1, user, "LESSONS_GRADE_RUN=no-such-run")
        assert stray.wait(timeout=10) == -9
        time.sleep(0.2)
        assert theirs.poll() is None, "the other run's child was killed"
        owner.kill()
        owner.wait()
        sessions.kill_all(2**22 + 1, user, "LESSONS_GRADE_RUN=no-such-run")
        assert theirs.wait(timeout=10) == -9
    finally:
        for proc in (owner, theirs, stray):
            proc.kill()
            proc.wait()
        entry.unlink(missing_ok=True)
