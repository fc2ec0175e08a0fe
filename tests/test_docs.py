"""The README and docs/ hold up: short, links that resolve, examples and shell commands that run as written.

A shell block (```sh) is run line by line, as written, in a temporary copy of the kit (its files from
git, its .venv linked), and every line must exit 0. A block that cannot run here is preceded by
`<!-- not run: REASON -->`, and the test is skipped with that reason, so a reader sees why too.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(?:<!--\s*not run:\s*(?P<why>.*?)\s*-->\s*\n)?```(?P<lang>sh|python)\n(?P<body>.*?)```", re.S)
MAX_README_LINES = 150


def blocks(lang: str):
    for page in PAGES:
        for m in BLOCK.finditer(page.read_text(encoding="utf-8")):
            if m.group("lang") == lang:
                yield page, m.group("body"), m.group("why")


def shell_lines():
    for page, body, why in blocks("sh"):
        for line in body.splitlines():
            command = line.split("  #")[0].strip()
            if command and not command.startswith("#"):
                yield pytest.param(command, why, id=f"{page.name}: {command}"[:90])


def test_the_readme_is_short():
    n = len(README.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_README_LINES, f"README.md has {n} lines: move a topic to docs/ (at most {MAX_README_LINES})"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_resolve(page):
    text = page.read_text(encoding="utf-8")
    broken = [target for target in re.findall(r"\]\(([^)\s]+)\)", text)
              if not re.match(r"[a-z]+:", target)
              and not (page.parent / target.split("#")[0]).exists()]
    assert not broken, f"{page.relative_to(ROOT)}: links to nothing: {broken}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_commands_named_exist(page):
    text = page.read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in set(re.findall(r"`make ([\w-]+)", text)):
        assert re.search(rf"^{target}:", makefile, re.M), f"make {target} is in {page.name}, not in the Makefile"
    for script in set(re.findall(r"(benchmarks/\w+\.py)", text)):
        assert (ROOT / script).is_file(), f"{page.name} names {script}, which does not exist"


def test_every_shell_block_runs_or_says_why_not():
    """A skipped block must give a reason a reader can check."""
    for page, _body, why in blocks("sh"):
        assert why is None or len(why.split()) >= 3, f"{page.name}: 'not run' needs a reason: {why!r}"


def test_the_python_examples_run_and_print_their_comments(monkeypatch):
    monkeypatch.delenv("LESSONS_BACKEND", raising=False)
    ran = 0
    for page, body, why in blocks("python"):
        if why:
            continue
        expected = [c.strip() for c in re.findall(r"print\(.*\)\s*#\s*(.+)$", body, re.M)]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(body, str(page), "exec"), {})  # noqa: S102 - our own docs
        assert out.getvalue().splitlines() == expected, f"{page.name}: the example printed {out.getvalue()!r}"
        ran += 1
    assert ran, "no python example in the docs ran"


@pytest.fixture(scope="module")
def kit_copy(tmp_path_factory):
    """The kit's tracked files in a temporary folder, its .venv linked (never set up again there)."""
    copy = tmp_path_factory.mktemp("kit")
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        src = ROOT / name
        if src.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, copy / name)
    venv = ROOT / ".venv"
    if venv.is_dir():
        (copy / ".venv").symlink_to(venv)
    return copy


@pytest.mark.slow
@pytest.mark.parametrize("command,why", list(shell_lines()))
def test_shell_commands_run_as_written(command, why, kit_copy):
    if why:
        pytest.skip(why)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "LESSONS_"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(["bash", "-c", command], cwd=kit_copy, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"`{command}` ended with {done.returncode}:\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}"


def test_every_lesson_opens_with_start_here_and_the_one_line_interrupt():
    """s03, s09, s10 and the arena (en and zh) had neither the Start here link nor start(): an interrupt
    there printed the whole traceback. Every lesson now links Start here before its first code cell and
    calls start() in it."""
    import json

    root = Path(__file__).resolve().parent.parent
    for notebook in sorted((root / "lessons").glob("*.ipynb")) + sorted((root / "lessons" / "zh").glob("*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        first_code = next(i for i, c in enumerate(cells) if c["cell_type"] == "code")
        link = "../../docs/start-here.zh.md" if notebook.parent.name == "zh" else "../docs/start-here.md"
        assert any(link in "".join(c["source"]) for c in cells[:first_code]), notebook
        assert "start()" in "".join(cells[first_code]["source"]), notebook


def test_start_here_times_every_lesson():
    root = Path(__file__).resolve().parent.parent
    for page in ("start-here.md", "start-here.zh.md"):
        text = (root / "docs" / page).read_text(encoding="utf-8")
        for notebook in sorted((root / "lessons").glob("*.ipynb")):
            assert f"| {notebook.stem} |" in text, (page, notebook.stem)
