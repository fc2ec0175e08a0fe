"""lessonkit.cli.commands: `python -m lessonkit lab|test|setup`, the same two commands on every OS."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lessonkit.cli import commands
from lessonkit.cli.commands import ensure_venv, lab_command, main, venv_python

ROOT = Path(__file__).resolve().parent.parent


class Runner:
    """A stand-in for subprocess.run that records each command; creating the venv makes its python."""

    def __init__(self, root: Path, fail_at: int | None = None, code: int = 1):
        self.root, self.calls, self.fail_at, self.code = root, [], fail_at, code

    def __call__(self, cmd, cwd=None):
        self.calls.append(list(cmd))
        if cmd[1:3] == ["-m", "venv"]:
            venv_python(self.root).parent.mkdir(parents=True)
            venv_python(self.root).write_text("", encoding="utf-8")
        failed = self.fail_at is not None and len(self.calls) - 1 == self.fail_at
        return subprocess.CompletedProcess(cmd, self.code if failed else 0)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    return tmp_path


def quiet(*args, **kwargs):
    pass


def test_a_fresh_clone_gets_a_venv_then_pip_then_the_stamp(project):
    run = Runner(project)
    assert ensure_venv(project, run=run, say=quiet) == 0
    vpy = str(venv_python(project))
    assert run.calls == [[sys.executable, "-m", "venv", str(project / ".venv")],
                         [vpy, "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
                         [vpy, "-m", "pip", "install", "--quiet", "-e", ".[dev]"],
                         [vpy, "-m", "lessonkit.i18n.fonts"]]          # a font that draws Chinese
    assert (project / ".venv" / ".installed").is_file()


def test_a_venv_linked_from_another_copy_of_the_kit_is_not_repointed(tmp_path):
    """A copy whose .venv links to the original's (the docs test's copy did this): a stale stamp must
    not run `pip install -e .` from the copy, which points the original's environment at the copy
    (found when make test-slow left /work/main importing a deleted temporary folder)."""
    import json

    original, copy = tmp_path / "kit", tmp_path / "copy"
    for root in (original, copy):
        root.mkdir()
        (root / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    info = original / ".venv" / "lib" / "python3.11" / "site-packages" / "agent_lessons-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "direct_url.json").write_text(json.dumps({"dir_info": {"editable": True},
                                                      "url": original.as_uri()}), encoding="utf-8")
    (copy / ".venv").symlink_to(original / ".venv")
    said, run = [], Runner(copy)
    assert ensure_venv(copy, run=run, say=lambda *a, **k: said.append(a[0])) == 0
    assert run.calls == [] and said == [f".venv is the environment of {original}: used as it is (to refresh it: make there)"]
    own = Runner(original)  # the original itself is set up as usual
    assert ensure_venv(original, run=own, say=quiet) == 0 and own.calls
    # installed from a folder that is gone (the copy was deleted): installed again, fresh stamp or not
    (info / "direct_url.json").write_text(json.dumps({"url": (tmp_path / "gone").as_uri()}), encoding="utf-8")
    again = Runner(original)
    assert ensure_venv(original, run=again, say=quiet) == 0 and again.calls


def test_a_fresh_stamp_installs_nothing_and_a_newer_pyproject_reinstalls(project):
    ensure_venv(project, run=Runner(project), say=quiet)
    again = Runner(project)
    assert ensure_venv(project, run=again, say=quiet) == 0 and again.calls == []
    later = time.time() + 5
    os.utime(project / "pyproject.toml", (later, later))        # edited after the install
    refresh = Runner(project)
    assert ensure_venv(project, run=refresh, say=quiet) == 0
    assert [c[3:] for c in refresh.calls] == [["install", "--quiet", "--upgrade", "pip"],
                                               ["install", "--quiet", "-e", ".[dev]"], []]   # no new venv
    assert refresh.calls[-1][1:] == ["-m", "lessonkit.i18n.fonts"]


def test_a_failing_step_returns_its_code_and_leaves_no_stamp(project, capsys):
    run = Runner(project, fail_at=2, code=7)
    assert ensure_venv(project, run=run) == 7
    assert not (project / ".venv" / ".installed").exists()
    assert "failed with exit code 7" in capsys.readouterr().err


@pytest.mark.parametrize("font", ["fails", "cannot start"])
def test_a_font_step_that_fails_prints_one_line_and_setup_still_succeeds(project, capsys, font):
    runner = Runner(project, fail_at=3, code=1)       # venv, pip, pip, then the font step

    def run(cmd, cwd=None):
        if font == "cannot start" and cmd[1:] == ["-m", "lessonkit.i18n.fonts"]:
            raise FileNotFoundError(2, "No such file or directory")
        return runner(cmd, cwd)

    assert ensure_venv(project, run=run) == 0
    assert (project / ".venv" / ".installed").is_file()
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("setting up .venv") and len(out) == 2
    assert out[1].startswith("Chinese font: not checked (lessonkit.i18n.fonts ended with ")
    assert out[1].endswith("charts keep English labels until one is installed (pip install pylopdf-fonts-zh-cn, "
                           "or any CJK font)")


def test_setup_checks_the_font_even_when_the_venv_is_ready_and_lab_does_not(project):
    ensure_venv(project, run=Runner(project), say=quiet)
    again = Runner(project)
    assert main(["setup"], root=project, run=again) == 0
    assert again.calls == [[str(venv_python(project)), "-m", "lessonkit.i18n.fonts"]]
    failing = Runner(project, fail_at=0, code=1)
    assert main(["setup"], root=project, run=failing) == 0       # a font is never a reason to fail
    lab = Runner(project)
    main(["lab", "--", "--no-browser"], root=project, run=lab)
    assert [c[1:3] for c in lab.calls] == [["-m", "lessonkit.workshop"], ["-m", "jupyterlab"]]  # no font step


def test_lab_writes_the_students_copies_first_and_stops_if_it_cannot(project, capsys):
    ensure_venv(project, run=Runner(project), say=quiet)
    lab = Runner(project)
    main(["lab"], root=project, run=lab)
    assert lab.calls[0] == [str(venv_python(project)), "-m", "lessonkit.workshop", "student", "--quiet"]
    shipped = Runner(project)
    main(["lab", "--", "--lessons"], root=project, run=shipped)  # the lessons as shipped: no copies written
    assert [c[1:3] for c in shipped.calls] == [["-m", "jupyterlab"]] and "--lessons" not in shipped.calls[0]
    failing = Runner(project, fail_at=0, code=3)
    assert main(["lab"], root=project, run=failing) == 3 and len(failing.calls) == 1
    assert "writing the student copies in work/ failed with exit code 3" in capsys.readouterr().err


def test_outside_a_project_is_a_one_line_error(tmp_path, capsys):
    assert ensure_venv(tmp_path, run=Runner(tmp_path)) == 2
    assert capsys.readouterr().err == (f"error: no pyproject.toml in {tmp_path}: run this from the project folder\n")


def test_lab_opens_the_lessons_with_the_venv_python(monkeypatch):
    monkeypatch.setenv("LESSONS_LANG", "en")
    cmd = lab_command(Path("/p"), ["--no-browser"])
    assert cmd[:4] == [str(venv_python(Path("/p"))), "-m", "jupyterlab", "work/"]  # the student's own copies
    assert cmd[-1] == "--no-browser"
    assert lab_command(Path("/p"), ["--lessons", "--no-browser"])[3:] == ["lessons/", *cmd[4:]]
    assert ("--allow-root" in cmd) is (hasattr(os, "geteuid") and os.geteuid() == 0)


def test_lab_opens_the_chinese_lessons_for_a_chinese_student(monkeypatch, tmp_path):
    monkeypatch.delenv("LESSONS_LANG", raising=False)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    monkeypatch.chdir(tmp_path)
    assert lab_command(tmp_path, [])[3] == "work/"  # no Chinese lessons there: the English ones
    (tmp_path / "lessons" / "zh").mkdir(parents=True)
    assert lab_command(tmp_path, [])[3] == "work/zh/"
    assert lab_command(tmp_path, ["--lessons"])[3] == "lessons/zh/"
    monkeypatch.setenv("LESSONS_LANG", "en")
    assert lab_command(tmp_path, [])[3] == "work/"


def fake_venv(project: Path) -> None:
    """A .venv whose python is this interpreter (a small launcher script), installed and fresh."""
    vpy = venv_python(project)
    vpy.parent.mkdir(parents=True)
    vpy.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    vpy.chmod(0o755)
    (project / ".venv" / ".installed").touch()


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.skipif(os.name == "nt", reason="the launcher script is POSIX sh")
@pytest.mark.parametrize("tests, code", [
    ({"test_ok.py": "def test_ok():\n    assert True\n"}, 0),
    ({"test_bad.py": "def test_bad():\n    assert False\n"}, 1),
    ({}, 5),                                                     # nothing collected fails too
], ids=["passes", "fails", "collects-nothing"])
def test_the_test_command_returns_pytests_exit_code(project, tests, code):
    (project / "pyproject.toml").write_text("[tool.pytest.ini_options]\naddopts = '-p no:cacheprovider'\n",
                                            encoding="utf-8")
    fake_venv(project)
    for name, text in tests.items():
        (project / name).write_text(text, encoding="utf-8")
    assert main(["test", "--", "-q", "-p", "no:xdist", "-p", "no:nbval"], root=project) == code


def test_main_passes_extra_arguments_to_pytest(project):
    fake_venv(project)
    run = Runner(project)
    main(["test", "--", "-k", "x"], root=project, run=run)
    assert run.calls == [[str(venv_python(project)), "-m", "pytest", "-m", "not slow", "-k", "x"]]


@pytest.mark.parametrize("args, marker", [
    ([], ["-m", "not slow"]),                                    # make test: the fast suite
    (["--slow"], ["-m", "(slow or hypothesis) and not hub", "--hypothesis-profile", "thorough"]),                    # make test-slow
    (["--slow", "-x"], ["-m", "(slow or hypothesis) and not hub", "--hypothesis-profile", "thorough"]),
    (["-m", "browser"], []),                                     # the student's own -m wins
    (["-mbrowser"], []),
    (["tests/test_x.py"], []),                                   # a file asked for runs whole
    (["tests/test_x.py::test_a"], []),
    (["-k", "tests/nothing_here"], ["-m", "not slow"]),
], ids=["none", "slow", "slow-x", "m", "m-joined", "path", "node", "k"])
def test_make_test_runs_the_fast_suite_unless_told_which_tests(project, args, marker):
    (project / "tests").mkdir()
    (project / "tests" / "test_x.py").write_text("def test_a():\n    pass\n", encoding="utf-8")
    rest = args[1:] if args[:1] == ["--slow"] else args
    assert commands.test_command(project, args) == [str(venv_python(project)), "-m", "pytest", *marker, *rest]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_the_slow_marker_covers_every_suite_that_reruns_the_lessons():
    """browser, backends and hub are slow by themselves (conftest); pyproject registers slow."""
    assert '    "slow: ' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", "-n", "0", "-m", "slow",
                          "tests/test_browser.py", "tests/test_backends.py", "tests/test_hub.py",
                          "tests/test_cassette.py"], cwd=ROOT, capture_output=True, text=True)
    listed = [line.split("::")[0] for line in out.stdout.splitlines() if "::" in line]
    assert {"tests/test_browser.py", "tests/test_backends.py", "tests/test_hub.py",
            "tests/test_cassette.py"} <= set(listed), out.stdout[-2000:]


def test_the_commands_need_only_the_standard_library():
    """A clean clone has python3 and make: no third-party import on the way to the venv."""
    out = subprocess.run([sys.executable, "-S", "-c", "import lessonkit.__main__, lessonkit.cli.commands"],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    out = subprocess.run([sys.executable, "-S", "-m", "lessonkit"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("usage: python -m lessonkit {lab,test,setup,diff}")
    out = subprocess.run([sys.executable, "-S", "-m", "lessonkit", "bogus"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2 and out.stderr.splitlines()[0] == (
        "error: unknown command 'bogus': use lab, test, setup or diff")


def test_the_makefile_calls_the_same_commands():
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipes = dict(re.findall(r"^(\S+):.*\n\t(.+)$", make, re.M))
    assert recipes["lab"] == "$(PY) -m lessonkit lab"
    assert recipes["test"] == "$(PY) -m lessonkit test"
    assert recipes["$(STAMP)"] == "$(PY) -m lessonkit setup"


def test_the_readme_shows_both_pairs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for line in ("make lab", "make test", "python -m lessonkit lab", "python -m lessonkit test"):
        assert line in readme


def test_windows_has_its_venv_python_in_scripts():
    assert venv_python(Path("p"), windows=True) == Path("p") / ".venv" / "Scripts" / "python.exe"
    assert venv_python(Path("p"), windows=False) == Path("p") / ".venv" / "bin" / "python"


def test_every_command_makes_the_venvs_jupyterlab_save_widget_state(project):
    """Issue 34: a work copy run and saved came back with "model not found" in every view, because
    JupyterLab saved no widget state (ipywidgets' saveState is off by default)."""
    import json

    settings = project / ".venv" / "share" / "jupyter" / "lab" / "settings" / "overrides.d" / "agent-lessons.json"
    ensure_venv(project, run=Runner(project), say=quiet)
    assert not settings.exists()
    assert main(["setup"], root=project, run=Runner(project)) == 0
    assert json.loads(settings.read_text())["@jupyter-widgets/jupyterlab-manager:plugin"] == {"saveState": True}
    settings.unlink()
    main(["lab", "--", "--no-browser"], root=project, run=Runner(project))
    assert settings.is_file()                       # every `lab` puts it back
    settings.unlink()
    main(["test", "--", "-k", "x"], root=project, run=Runner(project))
    assert settings.is_file()   # a venv `make test` made has it too (the browser test of a reopen ran without it)


def test_the_widget_setting_names_a_real_jupyterlab_plugin_setting():
    """The key and value are the ones ipywidgets' own schema declares (not a guess that JupyterLab
    would ignore)."""
    import json

    from lessonkit.cli.labsettings import SETTINGS

    found = list(Path(sys.prefix, "share", "jupyter", "labextensions").glob(
        "@jupyter-widgets/jupyterlab-manager/schemas/@jupyter-widgets/jupyterlab-manager/plugin.json"))
    assert found, "jupyterlab_widgets is a dependency (ipywidgets): its schema must be installed"
    schema = json.loads(found[0].read_text())
    [(plugin, values)] = SETTINGS.items()
    assert plugin == "@jupyter-widgets/jupyterlab-manager:plugin"
    assert set(values) <= set(schema["properties"]) and schema["properties"]["saveState"]["default"] is False
