"""workshop/README.md runs as written: each command of its code blocks (but the hub's and the ones
that open a browser, which are validated instead) runs in a temporary copy of the kit.

The copy shares this checkout's .venv (a symlink, with its stamp newer than pyproject.toml, so
`make` does not set up again); every command runs with that venv first on PATH, as after `make lab`.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "workshop" / "README.md"
SECTIONS = ("# Running a workshop", "## Seeing the room", "## A real model for the room")
VALIDATED = ("make lab", "jupyter lab")   # they open JupyterLab: checked, not run


def commands(section_start: str) -> list[str]:
    """The shell commands of the code blocks in one section of the guide (continuations joined, comments cut)."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(section_start)
    end = text.find("\n## ", start + len(section_start))
    body = text[start:end if end > 0 else None]
    out = []
    for block in re.findall(r"```sh\n(.*?)```", body, re.S):
        joined = re.sub(r"\\\n\s*", "", block)
        for line in joined.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    copy = tmp_path_factory.mktemp("kit")
    for part in ["lessonkit", "offline", "arena", "lessons", "workshop",   # the packages pyproject ships, too
                 *[p.name for p in ROOT.glob("s[0-9][0-9]_*") if p.is_dir()]]:
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy2(ROOT / name, copy / name)
    (copy / ".venv").symlink_to(ROOT / ".venv")
    os.utime(copy / "pyproject.toml", (time.time() - 3600,) * 2)   # older than the venv's stamp
    return copy


def run(kit: Path, line: str, timeout: int = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}", "PY": "python"}
    env.pop("LESSONS_PROGRESS", None)
    env["WORKSHOP_HOMES"] = str(kit / "homes")
    result = subprocess.run(line, shell=True, cwd=kit, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{line}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    return result


def test_the_guide_names_the_commands_this_test_runs():
    top = commands(SECTIONS[0])
    assert "make student" in top and "make progress" in top and any("verify --csv" in c for c in top)
    assert any("LESSONS_RECORD_FROM" in c or "workshop cassettes" in c for c in commands(SECTIONS[2]))


@pytest.mark.slow
def test_every_command_of_the_guide_runs_as_written(kit):
    """The first block (student, reset, progress, the page, verify), then the cassette block."""
    ran = []
    for line in commands(SECTIONS[0]):
        if line.startswith(VALIDATED):
            assert "\nlab:" in (kit / "Makefile").read_text(encoding="utf-8")
            continue
        out = run(kit, line)
        ran.append(line)
        if line == "make student":
            assert (kit / "work" / "s01_loop.ipynb").is_file() and (kit / "work" / "zh" / "s01_loop.ipynb").is_file()
        if line.startswith("make reset"):
            assert "s06_compact.ipynb: reset" in out.stdout
        if "--html room.html" in line:
            assert '<meta http-equiv="refresh"' in (kit / "room.html").read_text(encoding="utf-8")
        if "verify --csv grades.csv" in line:
            rows = list(csv.DictReader((kit / "grades.csv").open(encoding="utf-8")))
            assert rows and {r["state"] for r in rows} == {"not started"}, \
                [(r["lesson"], r["exercise"], r["state"], r["detail"][:200]) for r in rows if r["state"] != "not started"]
    assert len(ran) >= 5
    for line in commands(SECTIONS[2]):
        if "LESSONS_BACKEND=record ANTHROPIC_API_KEY" in line or line.startswith(VALIDATED):
            continue   # needs a key and a browser
        if "LESSONS_BACKEND=replay" in line and "make lab" in line:
            # validated: the folder it names resolves, from anywhere, to the cassette of the lesson that asks
            folder = re.search(r"LESSONS_CASSETTE=(\S+)", line).group(1)
            (kit / folder).mkdir(parents=True, exist_ok=True)
            shutil.copy(kit / "workshop" / "cassettes" / "s01_loop.jsonl", kit / folder / "s01_loop.jsonl")
            probe = ("from lessonkit import make_client; import os; make_client(env={'LESSONS_BACKEND': 'replay', "
                     f"'LESSONS_REPLAY': 'strict', 'LESSONS_CASSETTE': {folder!r}, 'LESSONS_LESSON': 's01_loop'}})")
            run(kit / "work", f"python -c \"{probe}\"".replace("python -c", f"PYTHONPATH={kit} python -c"))
            continue
        out = run(kit, line)
        if "workshop cassettes" in line:
            assert re.search(r"s01_loop\.jsonl: \d+ request\(s\) recorded", out.stdout)
            first = json.loads((kit / "workshop" / "cassettes" / "s01_loop.jsonl").read_text().splitlines()[0])
            assert first["request"]["users"]
