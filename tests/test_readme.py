"""The README's example runs as written and prints what its comment says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_offline_client_example_runs_and_prints_its_comment(monkeypatch):
    monkeypatch.delenv("LESSONS_BACKEND", raising=False)
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks, "the README has no python example"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "README.md", "exec"), {})  # noqa: S102 - it is our own README
    assert out.getvalue() == "tool_use {'command': 'ls'}\n"


def test_the_commands_it_names_exist():
    text = README.read_text(encoding="utf-8")
    makefile = (README.parent / "Makefile").read_text(encoding="utf-8")
    for target in set(re.findall(r"`make (\w+)`", text)):
        assert re.search(rf"^{target}:", makefile, re.M), f"make {target} is in the README, not in the Makefile"
    for script in set(re.findall(r"python (benchmarks/\w+\.py)", text)):
        assert (README.parent / script).is_file(), script
