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

Example: verify([Path("homes/ada")], only={"s01"})
  -> [Row("ada", "s01_loop", "assistant_message", "passed", 5, 5, 0, "", ...)]
"""

from __future__ import annotations

import ast
import compileall
import functools
import hashlib
import json
import os
import pwd
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..backends.client import REPO_ROOT
from .progress import LESSONS, Row, chosen, notebook_of, student_name, work_of

NOTEBOOK_TIMEOUT_S = 60
MEMORY_MB = 2048
OUTPUT_BYTES = 1 << 20
MAX_NOTEBOOK_BYTES = 50 << 20
PROCESSES = 64            # per grading user (as root): enough for a cell that forks, not for a fork bomb
GRADER_USER = "lessons-grader"
ENV_KEEP = {"LANG": "C.UTF-8", "LESSONS_PROGRESS": "off", "LESSONS_BACKEND": "offline"}
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


def grader_user() -> tuple[int, int] | None:
    """(uid, gid) to grade as: None when not root (the child keeps your uid); else lessons-grader,
    created as a system user if missing (or nobody when it cannot be)."""
    if os.geteuid() != 0:
        return None
    for attempt in range(2):
        try:
            entry = pwd.getpwnam(GRADER_USER)
            return entry.pw_uid, entry.pw_gid
        except KeyError:
            if attempt == 0 and shutil.which("useradd"):
                subprocess.run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                                "--shell", "/usr/sbin/nologin", GRADER_USER], capture_output=True, check=False)
    entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


class Kit:
    """A read-only copy of the kit's code (lessonkit/ and the stage packages), compiled, with its hash."""

    def __init__(self, base: Path, source: Path = REPO_ROOT):
        self.base, self.source = base, source
        self.build()

    def build(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="kit-", dir=self.base))
        for part in [self.source / "lessonkit", *sorted(self.source.glob("s0*_*"))]:
            if part.is_dir():
                shutil.copytree(part, self.root / part.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        compileall.compile_dir(self.root, quiet=1)
        for folder, _dirs, files in os.walk(self.root):
            for f in files:
                os.chmod(os.path.join(folder, f), 0o444)
            os.chmod(folder, 0o555)
        self.digest = self.hash()

    def hash(self) -> str:
        h = hashlib.sha256()
        for folder, dirs, files in sorted(os.walk(self.root)):
            dirs.sort()
            for f in sorted(files):
                p = os.path.join(folder, f)
                h.update(p.encode() + b"\0" + oct(os.lstat(p).st_mode).encode())
                with open(p, "rb") as data:
                    h.update(hashlib.sha256(data.read()).digest())
        return h.hexdigest()

    def intact(self) -> bool:
        """False (and a fresh copy made) when a child changed the copy."""
        if self.hash() == self.digest:
            return True
        self.build()
        return False


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


RUNNING: set[int] = set()   # the sessions of the children still grading (one per job)
RUNNING_LOCK = threading.Lock()


def kill_all(pgid: int, user, marker: str) -> None:
    """Nothing the child started survives: its process group; then every process carrying this
    run's marker in its environment, and (as root) every process of the grading user outside the
    sessions of the children still grading (a process that left its session with setsid too)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    with RUNNING_LOCK:
        RUNNING.discard(pgid)
        alive = set(RUNNING)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            session = int((entry / "stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[3])
            mine = user is not None and entry.stat().st_uid == user[0] and session not in alive
            mine = mine or marker.encode() in (entry / "environ").read_bytes()
            if mine:
                os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            continue


@functools.lru_cache(maxsize=4)
def kit_imports(root: Path) -> tuple[str, ...]:
    """The standard-library modules the kit imports anywhere (also inside functions): the child
    imports them before it drops to the grading user, who may not read the interpreter's library."""
    names = set()
    parts = [root / "lessonkit" / p for p in ("exercises", "arena", "offline", "backends", "show", "tokens.py")]
    files = [f for p in parts for f in ([p] if p.is_file() else p.rglob("*.py"))]
    for path in files + [f for stage in root.glob("s0*_*") for f in stage.rglob("*.py")]:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
    return tuple(sorted(n for n in names if n.split(".")[0] in sys.stdlib_module_names
                        and not n.startswith(("_", "tkinter", "idlelib", "win", "msvc", "distutils"))))


@functools.lru_cache(maxsize=4)
def can_run_python(user: tuple[int, int]) -> bool:
    """Whether the grading user can start this interpreter and read its library (a pyenv under
    /root cannot be): if not, the child starts as root and drops to the user before any student code."""
    try:
        return subprocess.run([sys.executable, "-I", "-c", "import shlex, json"], user=user[0], group=user[1],
                              extra_groups=[], capture_output=True, timeout=60, cwd="/").returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def run_child(kit: Kit, cells, checks, *, user, timeout: float, memory_mb: int) -> list[dict]:
    """Run the harness on one notebook's exercise cells; the verdict lines it sent (or one error)."""
    nonce = secrets.token_hex(16)
    marker = f"LESSONS_GRADE_RUN={nonce}"
    with tempfile.TemporaryDirectory(prefix="grade-", dir=kit.base) as tmp:
        os.chmod(tmp, 0o700)
        if user is not None:
            os.chown(tmp, *user)
        env = {**ENV_KEEP, "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": tmp, "TMPDIR": tmp,
               "LESSONS_GRADE_RUN": nonce}
        job = {"nonce": nonce, "cells": cells, "checks": checks, "user": list(user) if user else None,
               "preload": kit_imports(kit.root),
               "limits": {"memory": memory_mb << 20, "output": OUTPUT_BYTES, "processes": PROCESSES if user else 0}}
        read, write = os.pipe()
        out_path = Path(tmp) / "output.txt"
        direct = user is not None and can_run_python(tuple(user))
        if direct:
            job["user"], job["preload"] = None, ()
        with open(out_path, "wb") as out:
            extra = {"user": user[0], "group": user[1], "extra_groups": []} if direct else {}
            child = subprocess.Popen([sys.executable, "-I", "-B", str(kit.root / "lessonkit" / "workshop" /
                                      "harness.py"), str(write)], stdin=subprocess.PIPE, stdout=out,
                                     stderr=subprocess.STDOUT, cwd=tmp, env=env, pass_fds=(write,),
                                     start_new_session=True, **extra)
        with RUNNING_LOCK:
            RUNNING.add(child.pid)
        os.close(write)
        lines, buffer, cell, timed_out = [], b"", 0, False
        try:
            child.stdin.write(json.dumps(job).encode())
            child.stdin.close()
        except BrokenPipeError:
            pass
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read], [], [], left)
            if not ready:
                continue
            chunk = os.read(read, 65536)
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    item = json.loads(line)
                except ValueError:
                    continue
                if isinstance(item, dict) and item.get("nonce") == nonce:
                    lines.append(item)
                    cell = item.get("cell", cell)
            if len(buffer) > OUTPUT_BYTES:
                buffer = b""
        os.close(read)
        kill_all(child.pid, user, marker)
        try:
            code = child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        if timed_out:
            return lines + [{"fatal": f"timed out after {timeout:g} s in cell {cell}"}]
        if not any(item.get("done") for item in lines) and not any("error" in i and "verdict" not in i
                                                                    for i in lines):
            tail = out_path.read_bytes()[-2000:].decode("utf-8", "replace").strip().splitlines()
            why = f"the grading process ended ({_signal(code)})"
            if tail:
                why += f": {tail[-1][:200]}"
            return lines + [{"fatal": why}]
        return lines


def _signal(code) -> str:
    if code is None:
        return "did not stop"
    if code < 0:
        name = signal.Signals(-code).name
        return f"killed by {name}"
    return f"exit code {code}"


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
