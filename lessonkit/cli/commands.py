"""The two commands, in pure Python: set up .venv, then open the lessons or run the tests.

    python -m lessonkit lab     (make lab)    .venv ready -> your own copies of the lessons in work/
                                              (written from lessons/ the first time, never overwritten;
                                              work/zh/ in Chinese) -> JupyterLab on them; `lab --lessons`
                                              opens lessons/ as shipped (what `make test` checks)
    python -m lessonkit test    (make test)   .venv ready -> pytest: every test and every notebook but
                                              the slow suites (marker `slow`: each lesson run again on
                                              another backend, from a cassette, as a student copy, in a
                                              browser or a hub); `test --slow` (make test-slow) runs them,
                                              and every property test again with 4x the examples
    python -m lessonkit setup   (make .venv/.installed)

    .venv ready = .venv/.installed exists and is newer than pyproject.toml;
                  otherwise: python -m venv .venv (if it has no python yet),
                  pip install --upgrade pip, pip install -e .[dev], then touch the stamp,
                  then the font step (also on every `setup`): a font that draws Chinese for the
                  charts (.venv's python -m lessonkit.i18n.fonts: the pip dependency's Noto Sans SC,
                  a system font, or as root Debian's fonts-wqy-microhei); it prints one line and
                  never fails setup (without one, charts keep English labels); then (also on every
                  `lab`) the venv's JupyterLab setting that saves widget state with a notebook, so a
                  view comes back after a save and a reopen (lessonkit/cli/labsettings.py)

Standard library only (pathlib, subprocess, no shell), so it runs on a bare Python 3.10+
on Linux, macOS and Windows (.venv/Scripts/python.exe there); the Makefile calls it, so
there is one implementation. The exit code is the command's own: pytest's 1 on a
failure and 5 when it collects nothing fail `make test` and CI alike.

Example: python -m lessonkit test -- -n 0 -q tests/test_checks.py
  -> (first time) "setting up .venv ..." then pytest's report; exit code 0

Not modeled: a lock against two setups at once, conda environments.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

MIN_PYTHON = (3, 10)
VENV = ".venv"
STAMP = ".installed"
FONT_STEP = ["-m", "lessonkit.i18n.fonts"]     # run by the venv's python after an install (font_step)
ROOT = Path(__file__).resolve().parents[2]


def venv_python(root: Path, windows: bool | None = None) -> Path:
    """The venv's interpreter. Example: <root>/.venv/bin/python (Scripts/python.exe on Windows)"""
    if os.name == "nt" if windows is None else windows:
        return root / VENV / "Scripts" / "python.exe"
    return root / VENV / "bin" / "python"


def is_fresh(root: Path) -> bool:
    """True when the stamp exists and is at least as new as pyproject.toml (make's rule)."""
    stamp, project = root / VENV / STAMP, root / "pyproject.toml"
    if not stamp.exists() or not venv_python(root).exists():
        return False
    return stamp.stat().st_mtime >= project.stat().st_mtime


def installed_from(root: Path) -> Path | None:
    """The folder <root>/.venv has the kit installed (editable) from, as pip recorded it; None if
    not known. Example: a .venv linked from a copy of the kit -> the original's folder"""
    import json
    from urllib.parse import unquote, urlparse

    venv = root / VENV
    for record in [*venv.glob("lib/python*/site-packages/agent_lessons-*.dist-info/direct_url.json"),
                   *venv.glob("Lib/site-packages/agent_lessons-*.dist-info/direct_url.json")]:
        try:
            url = urlparse(json.loads(record.read_text(encoding="utf-8")).get("url", ""))
        except (OSError, ValueError, AttributeError):
            continue
        if url.scheme == "file":
            return Path(unquote(url.path))
    return None


def setup_steps(root: Path, python: str = sys.executable) -> list[list[str]]:
    """The commands that create or refresh the venv, in order (no shell: argument lists)."""
    steps = []
    if not venv_python(root).exists():
        steps.append([python, "-m", "venv", str(root / VENV)])
    vpy = str(venv_python(root))
    steps.append([vpy, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    steps.append([vpy, "-m", "pip", "install", "--quiet", "-e", ".[dev]"])
    return steps


def ensure_venv(root: Path = ROOT, *, run=subprocess.run, say=print) -> int:
    """Create or refresh <root>/.venv if pyproject.toml is newer than its stamp; 0 or the failing step's code."""
    if sys.version_info < MIN_PYTHON:
        say(f"error: Python {'.'.join(map(str, MIN_PYTHON))}+ is needed, found {sys.version.split()[0]}",
            file=sys.stderr)
        return 2
    if not (root / "pyproject.toml").is_file():
        say(f"error: no pyproject.toml in {root}: run this from the project folder", file=sys.stderr)
        return 2
    owner = installed_from(root)  # None when not known; a folder that is gone: install again, whatever the stamp
    gone = owner is not None and not (owner / "pyproject.toml").is_file()
    if is_fresh(root) and not gone:
        return 0
    if owner is not None and not gone and owner.resolve() != root.resolve():
        # A .venv shared with another copy of the kit (a link): installing here would point that
        # copy's environment at this folder. Its own folder sets it up.
        say(f"{VENV} is the environment of {owner}: used as it is (to refresh it: make there)", flush=True)
        return 0
    say(f"setting up {VENV} (pip install -e .[dev]) ...", flush=True)
    for step in setup_steps(root):
        code = run(step, cwd=root).returncode
        if code != 0:
            say(f"error: {' '.join(step[1:4])} ... failed with exit code {code}", file=sys.stderr)
            return code
    (root / VENV / STAMP).touch()
    font_step(root, run=run, say=say)
    return 0


def font_step(root: Path, *, run=subprocess.run, say=print) -> None:
    """A font that draws Chinese for the charts, checked (and installed if it can be) by the venv's
    python, which has matplotlib; it prints its own line. Its failure is reported, never returned:
    charts without a Chinese font keep their English labels."""
    step = [str(venv_python(root)), *FONT_STEP]
    try:
        code = run(step, cwd=root).returncode
    except OSError as exc:
        code = f"{exc.__class__.__name__}: {exc}"
    if code != 0:
        say(f"Chinese font: not checked ({' '.join(FONT_STEP[1:])} ended with {code}); charts keep English "
            f"labels until one is installed (pip install pylopdf-fonts-zh-cn, or any CJK font)", flush=True)


def lab_settings(root: Path, say=print) -> None:
    """The venv's JupyterLab saves widget state with a notebook (lessonkit/cli/labsettings.py); a
    failure to write it is reported, never returned (views then come back only when re-run)."""
    from lessonkit.cli.labsettings import install

    try:
        install(root / VENV)
    except OSError as exc:
        say(f"JupyterLab settings: not written ({exc}); a reopened notebook's views show again once run",
            flush=True)


WORK = "work"  # the student's own copies: git-ignored, outside what `make test` runs
STUDENT_STEP = ["-m", "lessonkit.workshop", "student", "--quiet"]  # writes the copies a student lacks
SHIPPED = "--lessons"  # `lab --lessons`: the lessons as shipped, not the student's copies


def lessons_folder(root: Path, base: str = "lessons") -> str:
    """The lesson list in the student's language (lessonkit.i18n.lang()): <base>/zh/ or <base>/."""
    from lessonkit.i18n import lang

    language = lang()
    return f"{base}/{language}/" if language != "en" and (root / "lessons" / language).is_dir() else f"{base}/"


def lab_command(root: Path, args: list[str]) -> list[str]:
    """JupyterLab on the student's copies (work/) or, with --lessons, the lessons as shipped, in the
    student's language; --allow-root only when run as root (it refuses root otherwise)."""
    root_flag = ["--allow-root"] if getattr(os, "geteuid", lambda: 1)() == 0 else []
    folder = lessons_folder(root, "lessons" if SHIPPED in args else WORK)
    return [str(venv_python(root)), "-m", "jupyterlab", folder, *root_flag, *[a for a in args if a != SHIPPED]]


FAST = ["-m", "not slow"]  # what `test` runs unless told which tests (a path, -m) or --slow
# The slow suites, and every property test again with 200 examples (make test draws 25); the hub
# has its own extra and target (make test-hub).
SLOW = ["-m", "(slow or hypothesis) and not hub", "--hypothesis-profile", "thorough"]


def test_command(root: Path, args: list[str]) -> list[str]:
    """pytest with the project's options (pyproject.toml), plus any extra arguments.

    The fast suite by default; `--slow` (first) for the slow suites instead; a path or -m of the
    student's own is run as asked. Example: test_command(root, ["-k", "s06"]) ->
    [".venv/bin/python", "-m", "pytest", "-m", "not slow", "-k", "s06"]
    """
    if args[:1] == ["--slow"]:
        return [str(venv_python(root)), "-m", "pytest", *SLOW, *args[1:]]
    chosen = any(a.startswith("-m") or not a.startswith("-") and (root / a.split("::", 1)[0]).exists()
                 for a in args if a)
    return [str(venv_python(root)), "-m", "pytest", *([] if chosen else FAST), *args]


COMMANDS = {"lab": lab_command, "test": test_command}


def main(argv=None, root: Path = ROOT, *, run=subprocess.run) -> int:
    """`setup`, `lab` or `test` [extra arguments for JupyterLab / pytest]; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m lessonkit", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["setup", *COMMANDS])
    parser.add_argument("args", nargs=argparse.REMAINDER, help="passed on to JupyterLab or pytest")
    ns = parser.parse_args(argv)
    tolerant_console()
    extra = ns.args[1:] if ns.args[:1] == ["--"] else ns.args
    ready = (root / "pyproject.toml").is_file() and is_fresh(root)
    code = ensure_venv(root, run=run)
    if code == 0 and ready and ns.command == "setup":
        font_step(root, run=run)      # asked to set up a ready venv: the font is still checked
    if code == 0:
        lab_settings(root)            # views survive a save and reopen (labsettings.py), whatever made the venv
    if code != 0 or ns.command == "setup":
        return code
    if ns.command == "lab" and SHIPPED not in extra:
        code = run([str(venv_python(root)), *STUDENT_STEP], cwd=root).returncode  # the copies a student lacks
        if code != 0:
            print(f"error: writing the student copies in {WORK}/ failed with exit code {code}", file=sys.stderr)
            return code
    try:
        return run(COMMANDS[ns.command](root, extra), cwd=root).returncode
    except KeyboardInterrupt:  # Ctrl-C in JupyterLab: it has already shut down
        return 130


def tolerant_console() -> None:
    """What cannot be shown on this console becomes '?' (the same as lessonkit.console, which this
    file cannot import when it runs as a script)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")


if __name__ == "__main__":  # python lessonkit/cli/commands.py test: without importing the package
    sys.exit(main())
