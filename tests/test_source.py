"""lessonkit.show.source: a module's own code with its file and lines, the same on every machine."""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path

import pytest

import s01_loop
import s03_permissions
from lessonkit.show.source import show, source_of

REPO = Path(__file__).resolve().parent.parent


def file_lines(path: str, first: int, last: int) -> str:
    return "\n".join((REPO / path).read_text(encoding="utf-8").splitlines()[first - 1:last])


@pytest.mark.parametrize("obj, path, label", [
    (s01_loop.final_text, "s01_loop/loop.py", "final_text"),
    (s01_loop.Agent.loop, "s01_loop/loop.py", "Agent.loop"),
    (s01_loop.Agent.tools, "s01_loop/loop.py", "Agent.tools"),     # a property
    (s01_loop.Agent, "s01_loop/loop.py", "Agent"),
    (s03_permissions.rules.check_permission, "s03_permissions/rules.py", "check_permission"),
])
def test_header_names_the_repository_file_and_the_lines_shown(obj, path, label):
    header, text = source_of(obj)
    where, name = header.split(" · ")
    file, lines = where.split(":")
    first, last = map(int, lines.split("-"))
    assert (file, name) == (path, label)
    target = obj.fget if isinstance(obj, property) else obj
    block, start = inspect.getsourcelines(target)
    assert (first, last) == (start, start + len(block) - 1)
    # the text is those lines of the file, dedented (methods lose their class indent)
    assert [line.strip() for line in text.splitlines()] == \
        [line.strip() for line in file_lines(file, first, last).splitlines()]
    assert not text.startswith(" ")


def test_a_method_of_an_instance_shows_the_function():
    assert source_of(s01_loop.Agent.run_tool) == source_of(
        s01_loop.Agent.__new__(s01_loop.Agent).run_tool)


def test_a_module_is_shown_whole():
    header, text = source_of(importlib.import_module("s01_loop.bash"))  # s01_loop.bash is the function
    n = len((REPO / "s01_loop/bash.py").read_text(encoding="utf-8").splitlines())
    assert header == f"s01_loop/bash.py:1-{n} · s01_loop.bash"
    assert text.startswith('"""The one tool of s01') and "def run_bash(" in text


def test_a_top_level_assignment_by_name():
    header, text = source_of((s03_permissions.rules, "DENY_LIST"))
    assert header.startswith("s03_permissions/rules.py:") and header.endswith(" · DENY_LIST")
    assert text.startswith("DENY_LIST = (") and text.endswith(")")
    # every rule of the tuple is in the text shown
    assert all(what in text for _, what in s03_permissions.DENY_LIST)


def test_plain_text_and_markdown_hold_every_object_and_no_absolute_path():
    shown = show(s01_loop.final_text, s01_loop.tool_result)
    plain, markdown = repr(shown), shown._repr_markdown_()
    for obj in (s01_loop.final_text, s01_loop.tool_result):
        header, text = source_of(obj)
        assert f"# {header}\n{text}" in plain
        assert f"**`{header}`**\n\n```python\n{text}\n```" in markdown
    assert str(REPO) not in plain and str(REPO) not in markdown
    assert repr(show(s01_loop.final_text)) == repr(show(s01_loop.final_text))  # nothing volatile


def test_fence_is_longer_than_any_backticks_in_the_source(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "fenced.py").write_text(
        'def quoted():\n    """Example:\n\n    ```python\n    quoted()\n    ```\n    """\n    return 1\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("pkg.fenced")
    try:
        shown = show(module.quoted)
        assert repr(shown).startswith("# pkg/fenced.py:1-8 · quoted\n")  # relative to the package's folder
        markdown = shown._repr_markdown_()
        assert "\n````python\n" in markdown and markdown.endswith("\n````")
        assert str(tmp_path) not in markdown
    finally:
        sys.modules.pop("pkg.fenced", None)
        sys.modules.pop("pkg", None)


@pytest.mark.parametrize("obj, message", [
    (len, "cannot show the source of builtin_function_or_method objects"),
    (42, "cannot show the source of int objects"),
    ((s03_permissions.rules, "NO_SUCH_RULES"), "has no top-level assignment to 'NO_SUCH_RULES'"),
])
def test_what_has_no_source_is_a_one_line_type_error(obj, message):
    with pytest.raises(TypeError, match=message.replace("(", r"\(")):
        show(obj)


def test_show_needs_something_to_show():
    with pytest.raises(TypeError, match="at least one object"):
        show()
