"""lessonkit.console: the kit prints on any console, and reads and writes its files as UTF-8.

A console whose encoding is not UTF-8 (a Windows console in GBK or cp1252, a pipe under
LANG=C with PYTHONIOENCODING set) shows '?' for what it cannot encode; nothing crashes.
"""

from __future__ import annotations

import ast
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lessonkit.console import tolerant_console

ROOT = Path(__file__).resolve().parent.parent
CONSOLES = [{"PYTHONIOENCODING": "cp1252"}, {"PYTHONIOENCODING": "cp1252", "LANG": "C", "LC_ALL": "C"},
            {"PYTHONIOENCODING": "gbk:strict"}]
IDS = ["cp1252", "cp1252-LANG=C", "gbk"]


def env_with(extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "PYTHONIOENCODING"))}
    env.update(extra)
    env["LESSONS_BACKEND"] = "offline"
    return env


def test_tolerant_console_replaces_what_the_console_cannot_show(monkeypatch):
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="cp1252", errors="strict", write_through=True)
    monkeypatch.setattr(sys, "stdout", stream)
    with pytest.raises(UnicodeEncodeError):
        print("上下文 ✓")
    tolerant_console()
    print("上下文 ✓ café")
    assert raw.getvalue().decode("cp1252").endswith("??? ? café\n")


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("console", CONSOLES, ids=IDS)
def test_the_repl_prints_cjk_output_on_a_console_that_cannot_show_it(tmp_path, console):
    (tmp_path / "notes.txt").write_text("上下文压缩 ✓ ½\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "s01_loop", "--workspace", str(tmp_path)],
                         input=b"Run `cat notes.txt`\n", capture_output=True, cwd=ROOT,
                         env=env_with(console), timeout=120)
    encoding = console["PYTHONIOENCODING"].split(":")[0]
    stdout, stderr = out.stdout.decode(encoding), out.stderr.decode(encoding)
    assert out.returncode == 0 and "Error" not in stderr, stderr
    answer = next(line for line in stdout.splitlines() if "`cat notes.txt`" in line)
    if encoding == "cp1252":
        assert answer.endswith("1 line: ????? ? ½")           # what cp1252 has is shown, the rest is '?'
    else:
        assert answer.endswith("1 line: 上下文压缩 ? ?")        # GBK has the Chinese, not ✓ or ½


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("console", CONSOLES[:2], ids=IDS[:2])
def test_the_lesson_runner_on_such_a_console(tmp_path, console):
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {}, "outputs": [],
                     "source": ["print('上下文 ✓')"]}],
          "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "课程_上下文.ipynb"
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "lessonkit.cli.notebooks", str(path)], capture_output=True,
                         cwd=ROOT, env=env_with(console), timeout=300)
    stdout, stderr = out.stdout.decode("cp1252"), out.stderr.decode("cp1252", errors="replace")
    assert out.returncode == 0, stderr
    assert "??_???.ipynb: 1 code cells in" in stdout                  # the name, as the console can show it
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert "".join(saved["cells"][0]["outputs"][0]["text"]) == "上下文 ✓\n"   # the file keeps every character


# ---------------------------------------------------------------- every open() says its encoding

TEXT_CALLS = ("open", "read_text", "write_text")
POSITIONAL = {"read_text": 0, "write_text": 1}   # pathlib's positional operands (encoding is a keyword)
PACKAGES = ["lessonkit"] + sorted(p.name for p in ROOT.glob("s[0-9][0-9]_*") if (p / "__init__.py").is_file())


def unencoded_calls(source: str) -> list[tuple[int, str]]:
    """(line, call) of each open()/.open()/.read_text()/.write_text() in text mode without encoding=.
    os.open (a file descriptor), tarfile/zipfile.open (archives), PIL's Image.open (an image) and
    binary modes ('rb', 'wb', ...) need none.
    Example: 'p.read_text()' -> [(1, 'read_text')]; 'open(p, "rb")' -> []"""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if name not in TEXT_CALLS or (isinstance(f, ast.Name) and name != "open"):
            continue
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("os", "tarfile", "zipfile", "Image"):
            continue
        if name in POSITIONAL and len(node.args) > POSITIONAL[name]:
            continue   # more operands than Path.read_text()/write_text(data) takes: not pathlib's
        if any(k.arg == "encoding" for k in node.keywords):
            continue
        mode_pos = 1 if isinstance(f, ast.Name) else 0
        mode = next((k.value for k in node.keywords if k.arg == "mode"),
                    node.args[mode_pos] if name == "open" and len(node.args) > mode_pos else None)
        if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and "b" in mode.value:
            continue
        found.append((node.lineno, name))
    return found


def test_the_checker_finds_what_it_should():
    assert unencoded_calls("p.read_text()\nopen(p)\nopen(p, 'w')\nq.open()\np.write_text(s)") == [
        (1, "read_text"), (2, "open"), (3, "open"), (4, "open"), (5, "write_text")]
    assert unencoded_calls("p.read_text(encoding='utf-8')\nopen(p, 'rb')\np.open(mode='wb')\n"
                           "os.open(p, os.O_RDONLY)\nopen(p, 'w', encoding='utf-8')\nread_text()\n"
                           "tarfile.open(p)\nfiles.read_text(p, 100)\np.write_text(home, s, 9)") == []


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("package", PACKAGES)
def test_every_text_file_the_kit_opens_names_its_encoding(package):
    missing = [f"{path.relative_to(ROOT)}:{line} {call}()" for path in sorted((ROOT / package).rglob("*.py"))
               for line, call in unencoded_calls(path.read_text(encoding="utf-8"))]
    assert missing == [], "open without encoding=: " + ", ".join(missing)
