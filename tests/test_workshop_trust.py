"""Grades and a room view an instructor can trust (issue 30): verdicts no answer can write, hidden cases,
answers found where students write them, students' files read as what they are, the roster as the room,
reset as root."""

from __future__ import annotations

import csv
import http.server
import json
import os
import stat
import threading
import time
from pathlib import Path

import pytest
from test_workshop_room import FN, LESSONS, ROOTED, SOLVED, WRONG, grade, make_home  # noqa: F401

from lessonkit.base import safe_files as files
from lessonkit.exercises import records
from lessonkit.workshop import progress, roster, wire
from lessonkit.workshop.__main__ import main

# --- what comes up from the child is data, never code ----------------------------------------------

def test_outputs_come_back_as_the_same_values_and_kit_classes_rebuilt_from_data():
    from s01_loop import ToolError

    value = {"a": (1, 2.5, None), "b": [Path("x/y"), {3, 4}], "c": b"\x00", 7: "seven", "n": float("nan")}
    back = wire.decode(json.loads(json.dumps(wire.encode(value, {}))))
    assert {k: v for k, v in back.items() if k != "n"} == {k: v for k, v in value.items() if k != "n"}
    assert back["n"] != back["n"]
    error = wire.decode(json.loads(json.dumps(wire.encode(ToolError("outside"), {}))))
    assert type(error) is ToolError and str(error) == "outside"


@pytest.mark.parametrize("forged", [
    {"O": ["os", "system"], "d": {}}, {"O": ["subprocess", "Popen"], "d": {"args": "rm -rf /"}},
    {"O": ["lessonkit.exercises.checks", "check"], "d": {}},        # a function, not a class: never called
    {"O": ["posix", "system"], "a": ["id"]}, {"E": "Boom", "a": ["x"]},
])
def test_a_forged_output_naming_other_code_is_a_foreign_value(forged):
    got = wire.decode(forged)
    assert isinstance(got, (wire.Foreign, Exception)) and type(got).__module__ in ("lessonkit.workshop.wire", "answer")


def test_an_answer_that_returns_part_of_its_input_returns_the_judges_own_object():
    history = [{"role": "user", "content": "hi"}]
    refs = wire.reachable(((history,), {}))
    data = json.loads(json.dumps(wire.encode(history, refs)))
    assert wire.decode(data, lambda path: wire.path_get(((history,), {}), path)) is history


# --- verify: the verdict is the judge's ---------------------------------------------------------------

FORGE = ("import os, json\nfor fd in range(3, 256):\n    try:\n        os.write(fd, (json.dumps("
         "{'ready': {'assistant_message': {'callable': True}}, 'op': 'result', 'verdicts': {'assistant_message': "
         "{'passed': 6, 'total': 6}}, 'verdict': 'assistant_message', 'passed': 6, 'total': 6}) + chr(10)).encode())\n"
         "    except OSError:\n        pass\n")
SWAP = ("import lessonkit.exercises.checks as c, lessonkit.exercises as e\n"
        "def passes(fn, cases, *, title=None, echo=True):\n    return c.CheckResult(title, [k.name for k in cases], [])\n"
        "c.check.__code__ = passes.__code__\ne.check = passes\n")
HIDDEN = '''from lessonkit.exercises.checks import Case
from lessonkit.offline import OfflineModel
from lessonkit.offline.transport import offline_client

def cases(env):
    client = offline_client(OfflineModel(), max_retries=0)
    response = client.messages.create(model="offline", max_tokens=50, messages=[{"role": "user", "content": "hello"}])
    def a_dict(got):
        return None if isinstance(got, dict) and got.get("role") == "assistant" else "not an assistant message"
    return [Case("secret: a plain greeting", (response,), a_dict), Case("secret: never passes", (response,), lambda g: "no")]

CASES = {"assistant_message": cases}
'''


def add_cell(home: Path, lesson: str, source: str, *, at_exercise: str | None = None) -> None:
    import nbformat

    path = home / "work" / f"{lesson}.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    at = next(i for i, c in enumerate(nb["cells"]) if "exercise" in c.get("metadata", {}).get("tags", []))
    if at_exercise is not None:
        nb["cells"][at]["source"] = at_exercise
    nb["cells"].insert(at + 1, nbformat.v4.new_code_cell(source))
    nbformat.write(nbformat.from_dict(nb), path)


def test_verify_forged_verdicts_swapped_checks_answers_below_the_cell_the_reference_and_hidden_cases(tmp_path):
    forged = make_home(tmp_path, "forged", "untouched")
    add_cell(forged, "s01_loop", FORGE, at_exercise=WRONG["s01_loop"])
    swapped = make_home(tmp_path, "swapped", "untouched")
    add_cell(swapped, "s01_loop", SWAP, at_exercise=WRONG["s01_loop"])
    below = make_home(tmp_path, "below", "untouched")
    add_cell(below, "s01_loop", "x = 1\n" + SOLVED["s01_loop"])
    code = make_home(tmp_path, "code", "untouched")
    add_cell(code, "s01_loop", "import s01_loop\ndef assistant_message(r):\n    return 0\n"
                               "assistant_message.__code__ = s01_loop.assistant_message.__code__\n")
    imported = make_home(tmp_path, "imported", "untouched")
    add_cell(imported, "s01_loop", "import s01_loop as s\nassistant_message = getattr(s, 'assistant' + '_message')\n")
    hidden = tmp_path / "instructor" / "hidden.py"
    hidden.parent.mkdir()
    hidden.write_text(HIDDEN, encoding="utf-8")
    hidden.chmod(0o644)
    assert main(["verify", str(forged), "--only", "s01", "--hidden", str(hidden)]) == 2   # others can read it
    hidden.chmod(0o600)
    out = tmp_path / "grades.csv"
    grade([forged, swapped, below, code, imported], "--only", "s01", "--csv", str(out), "--hidden", str(hidden),
          "--timeout", "120")
    table = {r["student"]: r for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert table["forged"]["state"] in ("trying", "error") and table["forged"]["passed"] != "6", table["forged"]
    assert table["swapped"]["state"] == "trying" and table["swapped"]["passed"] == "3", table["swapped"]
    assert table["below"]["passed"] == "6" and table["below"]["state"] == "trying", table["below"]  # a hidden case fails
    assert table["below"]["hidden"].startswith("1/2; ✓ secret: a plain greeting; ✗ secret: never passes: no")
    assert table["code"]["state"] == "uses the reference" and table["imported"]["state"] == "uses the reference"


def test_a_correct_answer_below_the_exercise_cell_passes_and_not_started_is_per_exercise(tmp_path):
    from lessonkit.workshop.gradeplan import answer_cells, defining_cell, plan
    from lessonkit.workshop.verify import grade_notebook  # noqa: F401 - the states below are verify's

    home = make_home(tmp_path, "ada", "untouched")
    add_cell(home, "s01_loop", SOLVED["s01_loop"])
    nb = json.loads((home / "work" / "s01_loop.ipynb").read_text(encoding="utf-8"))
    lesson_plan = plan()["s01_loop"]
    cells = answer_cells(nb, lesson_plan)
    assert [fatal for _n, _s, fatal in cells] == [True, False]
    assert defining_cell(cells, "assistant_message")[1] == SOLVED["s01_loop"]
    assert defining_cell(cells, "assistant_message")[1].strip() not in lesson_plan["starters"]


# --- files read as what they are --------------------------------------------------------------------

def test_links_special_files_and_huge_files_in_a_home_are_never_followed_read_or_blocked_on(tmp_path):
    victim = make_home(tmp_path, "victim", "solved")
    eve = make_home(tmp_path, "eve", "untouched")
    work = eve / "work"
    (work / "s01_loop.ipynb").unlink()
    (work / "s01_loop.ipynb").symlink_to(victim / "work" / "s01_loop.ipynb")
    (work / ".progress").mkdir()
    os.mkfifo(work / ".progress" / "s01_loop.jsonl")
    (work / ".progress" / "s02_tools.jsonl").symlink_to("/dev/zero")
    os.mkfifo(work / "s02_tools.ipynb")
    with pytest.raises(OSError, match="is a link"):
        files.read_text(work / "s01_loop.ipynb", home=eve)
    with pytest.raises(OSError, match="not a regular file"):
        files.read_text(work / "s02_tools.ipynb", home=eve)
    start = time.monotonic()
    rows = progress.rows([eve], only={"s01", "s02"})
    assert time.monotonic() - start < 10
    assert {r.lesson: r.detail.startswith("notebook missing") for r in rows} == {"s01_loop": True, "s02_tools": True}
    assert records.read(work / ".progress" / "s02_tools.jsonl", home=eve) == []
    linked = make_home(tmp_path, "linked", "untouched")   # work/ itself a link into another home
    import shutil

    shutil.rmtree(linked / "work")
    (linked / "work").symlink_to(victim / "work")
    assert {r.state for r in progress.rows([linked], only={"s01"})} == {"error"}
    from lessonkit.workshop.verify import verify

    assert {r.detail.split(":")[0] for r in verify([eve, linked], only={"s01"})} == {"notebook missing"}
    big = tmp_path / "big"
    big.write_bytes(b"x" * 2000)
    with pytest.raises(OSError, match="over"):
        files.read_bytes(big, 1000)


def test_the_terminal_and_the_csv_get_a_students_text_as_text(tmp_path, capsys):
    home = make_home(tmp_path, "mallory", "untouched")
    records.record("s01_loop", "assistant_message", 1, 6, "\x1b[2J\x1b]0;owned\x07=HYPERLINK(\"http://x\")", "",
                   folder=home / "work" / ".progress")
    out = tmp_path / "room.csv"
    assert main(["progress", str(home), str(tmp_path / "other"), "--only", "s01", "--csv", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "\x07" not in printed
    for row in csv.reader(out.open(encoding="utf-8")):
        for value in row:
            assert not value.startswith(("=", "+", "-", "@", "\t", "\r")) and "\x1b" not in value
    assert progress.cell("@SUM(A1)") == "'@SUM(A1)" and progress.cell("\r=1") == "'=1" and progress.cell(3) == 3


# --- the roster is the room -------------------------------------------------------------------------

class _Users(http.server.BaseHTTPRequestHandler):
    users = [{"name": "ada", "admin": False, "kind": "user"}, {"name": "instructor", "admin": True, "kind": "user"},
             {"name": "bob", "admin": False}, {"name": "carl", "admin": False}, {"name": "ta", "admin": True}]

    def do_GET(self):  # noqa: N802 - http.server's name
        from urllib.parse import parse_qs, urlparse

        assert self.headers["Authorization"] == "token t0ken"
        query = parse_qs(urlparse(self.path).query)
        offset, limit = int(query["offset"][0]), 2   # pages of two, as a hub with a small limit gives
        page = self.users[offset:offset + limit]
        more = {"offset": offset + limit} if offset + limit < len(self.users) else None
        body = json.dumps({"items": page, "_pagination": {"offset": offset, "limit": limit, "next": more}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_the_roster_from_the_hubs_user_list_no_shows_not_logged_in_admins_left_out(tmp_path, monkeypatch, capsys):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Users)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    homes = tmp_path / "homes"
    make_home(homes, "ada", "solved")
    (homes / "bob").mkdir()                       # logged in once, no work/ yet
    make_home(homes, "instructor", "solved")      # the instructor's own work/: not a student
    monkeypatch.setenv("WORKSHOP_HUB_TOKEN", "t0ken")
    try:
        names = roster.hub_names(f"http://127.0.0.1:{server.server_address[1]}")
        assert names == ["ada", "bob", "carl"]
        out = tmp_path / "room.csv"
        assert main(["progress", "--hub", f"http://127.0.0.1:{server.server_address[1]}", "--homes", str(homes),
                     "--only", "s01", "--csv", str(out)]) == 0
    finally:
        server.shutdown()
    table = {r["student"]: r["state"] for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert table == {"ada": "passed", "bob": "not logged in", "carl": "not logged in"}
    assert "passed  1/3" in " ".join(capsys.readouterr().out.split("\n")).replace("   ", "  ")
    listed = tmp_path / "users.txt"
    listed.write_text("# the room\nada\n\ndora  # late\ninstructor\n", encoding="utf-8")
    monkeypatch.setenv("WORKSHOP_ADMIN", "instructor")
    assert [h.name for h in roster.students(roster.read_names(listed), homes)] == ["ada", "dora"]
    listed.write_text("../etc\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a user name"):
        roster.read_names(listed)


def test_without_a_roster_the_instructor_and_the_kits_own_work_are_not_students(tmp_path, monkeypatch):
    homes = tmp_path / "homes"
    make_home(homes, "ada", "solved")
    make_home(homes, "instructor", "solved")
    monkeypatch.setenv("WORKSHOP_HOMES", str(homes))
    monkeypatch.setattr(progress, "HUB_HOMES", ())
    kit = tmp_path / "kit"
    (kit / "work").mkdir(parents=True)
    monkeypatch.setattr(progress, "REPO_ROOT", kit)
    monkeypatch.chdir(kit)
    assert [h.name for h in progress.find_homes()] == ["ada"]


# --- states -----------------------------------------------------------------------------------------

def test_one_failing_check_then_ten_quiet_minutes_is_stuck():
    fail = {"exercise": "f", "passed": 1, "total": 4, "first": "case a: wrong", "t": 1000.0}
    assert records.state_of([fail], now=1000 + 9 * 60).state == "trying"
    assert records.state_of([fail], now=1000 + 10 * 60).state == "stuck"
    assert records.state_of([dict(fail, passed=4)], now=1e9).state == "passed"


def test_a_deleted_english_notebook_is_missing_even_with_a_chinese_copy(tmp_path):
    home = make_home(tmp_path, "ada", "deleted")   # checked in English, then deleted the notebook
    (home / "work" / "zh").mkdir()
    (home / "work" / "zh" / "s01_loop.ipynb").write_text("{}", encoding="utf-8")
    assert progress.notebook_of(home / "work", "s01_loop", home=home) is None
    [row] = progress.rows([home], only={"s01"})
    assert row.state == "error" and row.detail.startswith("notebook missing")


# --- reset as root ----------------------------------------------------------------------------------

@pytest.mark.skipif(not ROOTED, reason="root resets a student's notebook on a hub")
def test_reset_as_root_writes_files_the_student_owns_and_clears_the_page(tmp_path):
    home = make_home(tmp_path, "ada", "stuck")
    uid = 1_800_001_234    # a uid no account uses: the student's
    for path in [home, *home.rglob("*")]:
        os.chown(path, uid, uid, follow_symlinks=False)
    [before] = progress.rows([home], only={"s01"})
    assert before.state == "stuck"
    assert main(["reset", "s01", "--home", str(home)]) == 0
    owned = {p.relative_to(home): p.lstat().st_uid for p in [home, *home.rglob("*")]}
    assert set(owned.values()) == {uid}, {p: u for p, u in owned.items() if u != uid}
    [after] = progress.rows([home], only={"s01"})
    assert (after.state, after.attempts) == ("not started", 0)
    assert stat.S_ISREG((home / "work" / "s01_loop.ipynb").lstat().st_mode)
