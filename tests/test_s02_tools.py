"""s02: the tool registry, schema checks, the workspace sandbox and the file tools."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessonkit.exercises import exercise_cells
from lessonkit.exercises.s02_tools import exercise, lexical_only, string_prefix
from lessonkit.show.demo import make_workspace
from s01_loop import ToolError, final_text
from s02_tools import (
    BASH,
    FILE_TOOLS,
    READ_FILE,
    Agent,
    Tool,
    ToolRegistry,
    agent_loop,
    check_input,
    default_tools,
    edit_file,
    list_dir,
    read_file,
    resolve_in,
    write_file,
)
from tests.strategies import api_error


def ended(answer, messages):
    """The loop stopped on a final answer: the last message is the assistant's text, with no tool call."""
    last = messages[-1]
    return (last["role"] == "assistant" and answer == final_text(last) != ""
            and all(b["type"] == "text" for b in last["content"]))


@pytest.fixture
def outside(workspace):
    """A file next to the workspace that no file tool may touch."""
    secret = workspace.parent / "outside.txt"
    secret.write_text("secret\n")
    (workspace.parent / "elsewhere").mkdir()
    return secret


def call(agent, name, **tool_input):
    return agent.run_tool({"type": "tool_use", "id": "toolu_1", "name": name, "input": tool_input})


def tool_events(events):
    return [(d["call"]["name"], d["call"]["input"], d["result"]) for k, d in events if k == "tool"]


# ---------------------------------------------------------------- the loop, driven by the offline model

def test_reads_every_python_file_one_at_a_time(client, workspace):
    make_workspace(workspace, files=3, lines=12)
    (workspace / "notes.md").write_text("# notes\n")
    events, messages = [], []
    answer = Agent(client, workspace=workspace, on_event=lambda k, d: events.append((k, d))).ask(
        "Read every Python file in this folder, one at a time", messages)
    calls = tool_events(events)
    assert [(n, i) for n, i, _ in calls] == [("list_dir", {"path": "."})] + [
        ("read_file", {"path": f"app_0{k}.py"}) for k in (1, 2, 3)]
    assert calls[0][2]["content"] == "app_01.py\napp_02.py\napp_03.py\nnotes.md"
    assert calls[1][2]["content"] == (workspace / "app_01.py").read_text()
    assert ended(answer, messages) and api_error(messages) is None


def test_edit_and_write_through_the_loop(client, workspace):
    (workspace / "x.py").write_text("a = 1\nb = a\n")
    agent = Agent(client, workspace=workspace)
    agent.ask("Replace `a = 1` with `a = 2` in x.py")
    assert (workspace / "x.py").read_text() == "a = 2\nb = a\n"
    agent.ask("Write the file out/new.txt with `hello world`")
    assert (workspace / "out" / "new.txt").read_text() == "hello world"


def test_bad_input_is_an_error_result_and_the_loop_goes_on(client, workspace):
    (workspace / "a.py").write_text("print(1)\n")
    strict = Tool("read_file", "read", {"type": "object", "required": ["path", "encoding"],
                                        "properties": {"path": {"type": "string"},
                                                       "encoding": {"type": "string"}}},
                  lambda ws, path, encoding: "never")
    messages = []
    answer = Agent(client, workspace=workspace, registry=ToolRegistry([strict])).ask(
        "Read a.py", messages)
    result = messages[2]["content"][0]
    assert result["is_error"] is True and result["content"] == "read_file: 'encoding' is required"
    assert ended(answer, messages)


def test_unknown_tool_is_an_error_result_and_the_loop_goes_on(client, workspace):
    class Offers(Agent):  # offers a `shell` tool the registry does not have
        @property
        def tools(self):
            return [{"name": "shell", "description": "run", "input_schema": BASH.input_schema}]

    messages = []
    Offers(client, workspace=workspace).ask("Run `echo hi`", messages)
    result = messages[2]["content"][0]
    assert result["is_error"] is True
    assert result["content"] == ("unknown tool 'shell': the tools are bash, read_file, write_file, "
                                 "edit_file, list_dir")
    assert len(messages) == 4


def test_offers_the_registry_and_registries_do_not_leak(client, workspace):
    a, b = Agent(client, workspace=workspace), Agent(client, workspace=workspace)
    assert [t["name"] for t in a.tools] == ["bash", "read_file", "write_file", "edit_file", "list_dir"]
    a.registry.add(Tool("echo", "say it back", {"type": "object", "properties": {"s": {"type": "string"}}},
                        lambda ws, s="": s))
    assert call(a, "echo", s="hi")["content"] == "hi"
    assert "echo" not in b.registry and len(default_tools()) == 5
    json.dumps(a.tools)


def test_agent_loop_function(client, workspace):
    messages = [{"role": "user", "content": "List the files"}]
    answer = agent_loop(messages, client=client, workspace=workspace)
    assert messages[1]["content"][-1]["name"] == "list_dir" and ended(answer, messages)


# ---------------------------------------------------------------- sandbox

ESCAPES = ["../outside.txt", "sub/../../outside.txt", "{parent}/outside.txt", "/etc/passwd",
           "link_file", "link_dir/x.txt", "link_dir"]


def _setup_links(workspace):
    (workspace / "sub").mkdir()
    (workspace / "link_file").symlink_to(workspace.parent / "outside.txt")
    (workspace / "link_dir").symlink_to(workspace.parent / "elsewhere")


@pytest.mark.parametrize("path", ESCAPES)
@pytest.mark.parametrize("tool, extra", [("read_file", {}), ("list_dir", {}),
                                         ("write_file", {"content": "pwned\n"}),
                                         ("edit_file", {"old_string": "secret", "new_string": "pwned"})])
def test_escapes_are_refused_and_touch_nothing(client, workspace, outside, path, tool, extra):
    _setup_links(workspace)
    path = path.format(parent=workspace.parent)
    result = call(Agent(client, workspace=workspace), tool, path=path, **extra)
    assert result["is_error"] is True
    assert result["content"].startswith(f"path {path!r} is outside the workspace (")
    assert outside.read_text() == "secret\n"
    assert list((workspace.parent / "elsewhere").iterdir()) == []


@pytest.mark.parametrize("path, why", [("../x", "it climbs out with .."), ("/tmp/x", "an absolute path"),
                                       ("link_file", "through a symlink")])
def test_escape_messages_say_why(workspace, outside, path, why):
    _setup_links(workspace)
    with pytest.raises(ToolError, match=f"outside the workspace \\({why}"):
        resolve_in(workspace, path)


@pytest.mark.parametrize("path", ["a.txt", "./a.txt", "sub/../a.txt", "{ws}/a.txt", "inner_link"])
def test_paths_that_stay_inside_are_fine(workspace, path):
    (workspace / "sub").mkdir()
    (workspace / "a.txt").write_text("hi\n")
    (workspace / "inner_link").symlink_to(workspace / "a.txt")
    assert read_file(workspace, path.format(ws=workspace)) == "hi\n"


# ---------------------------------------------------------------- schema checks

@pytest.mark.parametrize("tool_input, error", [
    ({}, "'path' is required"),
    ({"path": 3}, "'path' must be a string, got integer"),
    ({"path": "a", "limit": "10"}, "'limit' must be an integer, got string"),
    ({"path": "a", "limit": True}, "'limit' must be an integer, got boolean"),
    ({"path": "a", "limit": 0}, "'limit' must be >= 1, got 0"),
    ({"path": "a", "mode": "r"}, "unknown field 'mode' (the fields are: path, offset, limit)"),
    (["a"], "the input must be an object, got array"),
])
def test_read_file_input_is_checked(tool_input, error):
    assert check_input(READ_FILE.input_schema, tool_input) == error


def test_nested_and_enum_checks():
    schema = {"type": "object", "properties": {"opts": {"type": "object", "required": ["mode"],
                                                        "properties": {"mode": {"enum": ["a", "b"]}}}}}
    assert check_input(schema, {"opts": {}}) == "'opts.mode' is required"
    assert check_input(schema, {"opts": {"mode": "c"}}) == "'opts.mode' must be one of 'a', 'b', got 'c'"
    assert check_input(schema, {"opts": {"mode": "a"}}) is None


@pytest.mark.parametrize("make, error", [
    (lambda: Tool("bad name", "", {"type": "object"}, len), "must be letters, digits"),
    (lambda: Tool("t", "", {"type": "object", "properties": {"x": {"type": "date"}}}, len),
     "input_schema.x: type 'date' is not one of"),
    (lambda: Tool("t", "", {"type": "string"}, len), "input_schema must have type object"),
    (lambda: ToolRegistry([BASH, BASH]), "a tool named 'bash' is already registered"),
], ids=["name", "schema-type", "not-object", "duplicate"])
def test_bad_tools_are_refused_when_registered(make, error):
    with pytest.raises(ValueError, match=error):
        make()


# ---------------------------------------------------------------- the file tools

def test_read_file_cuts_long_files_and_says_where_to_go_on(workspace):
    (workspace / "long.txt").write_text("".join(f"line {k}\n" for k in range(1, 11)))
    assert read_file(workspace, "long.txt", limit=3) == (
        "line 1\nline 2\nline 3\n[... lines 4-10 of 10 not shown: read on with offset=4]")
    assert read_file(workspace, "long.txt", offset=9) == "line 9\nline 10\n"
    with pytest.raises(ToolError, match="has 10 lines: offset 11 is past the end"):
        read_file(workspace, "long.txt", offset=11)


@pytest.mark.parametrize("setup, path, error", [
    (lambda ws: None, "missing.py", "no file 'missing.py'"),
    (lambda ws: (ws / "d").mkdir(), "d", "'d' is a directory: use list_dir"),
    (lambda ws: (ws / "b.bin").write_bytes(b"\xff\xfe\x00"), "b.bin", "'b.bin' is not UTF-8 text (3 bytes)"),
], ids=["missing", "directory", "binary"])
def test_read_file_errors(workspace, setup, path, error):
    setup(workspace)
    with pytest.raises(ToolError, match=re.escape(error)):
        read_file(workspace, path)


def test_read_empty_file(workspace):
    (workspace / "e.txt").write_text("")
    assert read_file(workspace, "e.txt") == "(empty file)"


def test_write_file_creates_folders_and_says_what_it_did(workspace):
    assert write_file(workspace, "a/b/c.txt", "x\ny\n") == "Created a/b/c.txt: 2 lines, 4 bytes"
    assert write_file(workspace, "a/b/c.txt", "z") == "Overwrote a/b/c.txt: 1 line, 1 byte"
    assert (workspace / "a/b/c.txt").read_text() == "z"
    with pytest.raises(ToolError, match="'a' is a directory"):
        write_file(workspace, "a", "no")


@pytest.mark.parametrize("old, new, error", [
    ("zzz", "y", "old_string not found in 'x.py'"),
    ("a", "b", "old_string occurs 3 times in 'x.py'"),
    ("", "b", "old_string is empty"),
    ("a = 1", "a = 1", "are the same"),
])
def test_edit_file_fails_clearly_and_leaves_the_file_alone(workspace, old, new, error):
    (workspace / "x.py").write_text("a = 1\nb = a\nc = a\n")
    with pytest.raises(ToolError, match=error):
        edit_file(workspace, "x.py", old, new)
    assert (workspace / "x.py").read_text() == "a = 1\nb = a\nc = a\n"


def test_edit_file_replaces_once_and_keeps_line_endings(workspace):
    (workspace / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    assert edit_file(workspace, "w.txt", "two", "2") == "Edited w.txt: replaced 1 occurrence at line 2"
    assert (workspace / "w.txt").read_bytes() == b"one\r\n2\r\nthree\r\n"
    with pytest.raises(ToolError, match="no file 'nope.txt'"):
        edit_file(workspace, "nope.txt", "a", "b")


def test_list_dir_is_sorted_with_folders_marked(workspace):
    for name in ("b.py", "a.py", ".hidden"):
        (workspace / name).write_text("")
    (workspace / "zdir").mkdir()
    (workspace / "adir").mkdir()
    assert list_dir(workspace) == ".hidden\na.py\nadir/\nb.py\nzdir/"
    assert list_dir(workspace, "adir") == "(empty directory)"
    with pytest.raises(ToolError, match="'a.py' is a file, not a directory"):
        list_dir(workspace, "a.py")
    with pytest.raises(ToolError, match="no directory 'nope'"):
        list_dir(workspace, "nope")


def test_file_tool_specs_are_api_tools():
    for tool in FILE_TOOLS:
        spec = tool.spec()
        assert set(spec) == {"name", "description", "input_schema"}
        assert spec["input_schema"]["additionalProperties"] is False


SEGMENTS = ["..", ".", "", "a", "b.txt", "sub", "link_out", "link_in", "link_loop"]


@pytest.fixture(scope="module")
def sandbox_ws(tmp_path_factory):
    """A workspace with every kind of link, made once for all examples."""
    root = tmp_path_factory.mktemp("sandbox")
    ws = root / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "b.txt").write_text("b")
    (root / "out").mkdir()
    (ws / "link_out").symlink_to(root / "out")
    (ws / "sub" / "link_in").symlink_to(ws / "sub")
    (ws / "link_loop").symlink_to(ws / "link_loop")
    return ws


# examples: the profile's (conftest.py: 50 in make test, 200 in make test-slow)
@given(parts=st.lists(st.sampled_from(SEGMENTS), max_size=6), absolute=st.sampled_from(["", "/", "ws"]))
def test_resolve_in_never_lets_a_path_out(sandbox_ws, parts, absolute):
    ws = sandbox_ws.resolve()
    path = "/".join(parts)
    if absolute == "/":
        path = "/" + path
    elif absolute == "ws":
        path = f"{ws}/{path}"
    try:
        real = resolve_in(ws, path)
    except ToolError as exc:
        assert str(exc).startswith((f"path {path!r} is outside the workspace (",
                                    f"path {path!r} cannot be resolved: "))
    else:
        assert real == ws or ws in real.parents
        assert ws.parent / "out" not in [real, *real.parents]


@pytest.mark.parametrize("tool", [read_file, list_dir])
def test_a_symlink_loop_is_a_tool_error(workspace, tool):
    (workspace / "loop").symlink_to(workspace / "loop")
    with pytest.raises(ToolError):  # "cannot be resolved" (Python < 3.13) or "no file/directory"
        tool(workspace, "loop/x")


# ---------------------------------------------------------------- the lesson's exercise

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "s02_tools.ipynb"


def test_exercise_reference_is_the_module_function_and_passes():
    assert exercise.reference is resolve_in
    result = exercise.check(resolve_in)
    assert result and result.report() == "✓ resolve_in: 13/13 cases pass"


def test_exercise_starter_is_the_notebook_cell_and_fails_saying_why():
    from lessonkit.exercises.s02_tools import tool_exercise

    assert exercise_cells(LESSON) == [exercise.starter.rstrip("\n"), tool_exercise.starter.rstrip("\n")]
    result = exercise.check(exercise.starter_function())
    failures = dict(result.failures)
    assert set(failures) == {".. that stays inside", "climbing out with ..",
                             "a sibling folder with the same prefix", "a symlink out of the workspace",
                             "a symlink that stays inside", "a name with a NUL character",
                             "the workspace named through a symlink"}
    assert failures["climbing out with .."].startswith(
        "returned ../outside.txt instead of raising ToolError: it leads outside the workspace")
    assert failures["a sibling folder with the same prefix"].startswith("returned ../ws-old/secret.txt")
    assert failures["a symlink out of the workspace"].startswith("returned link/outside.txt")
    assert failures["a symlink that stays inside"].startswith(
        "returned inner/a.py, expected the real path src/a.py")
    report = result.report()
    assert "lk-s02-" not in report and tempfile.gettempdir() not in report  # no temporary paths


def wrong_error(workspace, path):
    """Resolves and checks parts, but refuses with ValueError."""
    real = (Path(workspace) / path).resolve()
    real.relative_to(workspace)
    return real


@pytest.mark.parametrize("solution, failing, message", [
    (lexical_only, {"a symlink out of the workspace", "a symlink that stays inside", "a name with a NUL character",
                    "the workspace named through a symlink"},
     "returned link/outside.txt instead of raising ToolError"),
    (string_prefix, {"a sibling folder with the same prefix", "a name with a NUL character",
                     "the workspace named through a symlink"}, "returned ../ws-old/secret.txt"),
    (wrong_error, {"climbing out with ..", "a sibling folder with the same prefix", "an absolute path outside",
                   "a symlink out of the workspace", "a name with a NUL character",
                   "the workspace named through a symlink"}, "raised ValueError: "),
])
def test_exercise_names_what_a_wrong_answer_gets_wrong(solution, failing, message):
    result = exercise.check(solution)
    assert {name for name, _ in result.failures} == failing
    assert any(reason.startswith(message) for _, reason in result.failures)


def resolves_only(workspace, path):
    """Resolves the path and returns it, never comparing it with the workspace."""
    return (Path(workspace) / path).resolve()


def test_exercise_says_how_each_returned_path_escapes():
    """The same case, two ways out: the starter's unresolved `..`, and a real path nobody compared."""
    case = "climbing out with .."
    unresolved = dict(exercise.check(exercise.starter_function()).failures)[case]
    unchecked = dict(exercise.check(resolves_only).failures)
    assert "`..` climbs above the workspace" in unresolved and "it is the real path" not in unresolved
    assert "it is the real path, and it is outside" in unchecked[case] and "`..`" not in unchecked[case]
    assert "absolute path" not in unchecked[case]
    assert "joining an absolute path" in unchecked["an absolute path outside"]


def test_exercise_sandbox_is_gone_after_the_check():
    seen = []
    exercise.check(lambda workspace, path: seen.append(workspace) or resolve_in(workspace, path))
    assert len(set(seen)) == 2 and not any(p.exists() or p.is_symlink() for p in seen)  # the workspace, and via


def test_exercise_rejects_held_out_answers_each_told_why():
    """Held out: resolve(strict=True) (a file write_file is about to make does not exist), a workspace not
    resolved before the comparison (given through a symlink, as /tmp is on macOS) and no NUL check (its
    ValueError escaped past the loop's ToolError) all passed 10/10."""
    def answer(strict=False, resolve_root=True, nul=True):
        def resolve_in(workspace, path):
            if nul and "\x00" in path:
                raise ToolError("NUL")
            root = Path(workspace).resolve() if resolve_root else Path(workspace)
            real = (root / path).resolve(strict=strict)
            if real != root and root not in real.parents:
                raise ToolError("outside")
            return real
        return resolve_in

    assert exercise.check(answer())
    for wrong, case, says in [
        (answer(strict=True), "a file that does not exist yet", "it does not exist yet, and write_file is about "
                                                                "to make it: resolve() without strict=True"),
        (answer(resolve_root=False), "the workspace named through a symlink",
         "the workspace was given as …/via, a symlink to it: resolve the workspace too"),
        (answer(nul=False), "a name with a NUL character", "raised ValueError: embedded null byte: a path from the "
                                                          "model can hold any character, a NUL too"),
    ]:
        failures = dict(exercise.check(wrong).failures)
        assert set(failures) == {case} and says in failures[case], failures


# ---------------------------------------------------------------- issue 9: special and huge files

def within(seconds, fn, *args):
    """fn(*args) on a thread: its result or exception, or AssertionError if it blocks (a FIFO did)."""
    import threading

    out = {}

    def run():
        try:
            out["value"] = fn(*args)
        except Exception as exc:  # noqa: BLE001 -- handed back to the test
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{fn.__name__} blocked for {seconds} s"
    return out


def read_bytes_of(fn, *args):
    """How many bytes this process read from files while running fn(*args) (Linux /proc/self/io)."""
    def rchar():
        return int(re.search(r"rchar: (\d+)", Path("/proc/self/io").read_text()).group(1))

    before = rchar()
    value = fn(*args)
    return value, rchar() - before


def test_special_and_huge_files_fifo_is_refused_not_a_blocked_read(workspace):
    os.mkfifo(workspace / "pipe")
    for call in (lambda: read_file(workspace, "pipe"), lambda: edit_file(workspace, "pipe", "a", "b"),
                 lambda: write_file(workspace, "pipe", "x")):
        out = within(5, call)
        assert isinstance(out.get("error"), ToolError) and "not a regular file" in str(out["error"])


def test_special_and_huge_files_a_big_file_is_read_only_as_far_as_needed(workspace):
    line = b"x" * 79 + b"\n"
    (workspace / "big.log").write_bytes(line * (512 * 1024))  # 40 MB, 524,288 lines
    out, read = read_bytes_of(read_file, workspace, "big.log", 1, 5)
    assert out == "x" * 79 + "\n" * 1 + ("x" * 79 + "\n") * 4 + \
        "[... lines 6 and on of a 41,943,040-byte file not shown: read on with offset=6]"
    assert read < 12 << 20  # the 5 lines and the 8 MB look-ahead, not 40 MB
    small = "".join(f"{k}\n" for k in range(1, 101))
    (workspace / "small.txt").write_text(small)
    assert read_file(workspace, "small.txt", 98).startswith("98\n99\n100\n")
    assert read_file(workspace, "small.txt", 1, 2) == "1\n2\n[... lines 3-100 of 100 not shown: read on with offset=3]"


def test_special_and_huge_files_one_huge_line_is_cut_not_held(workspace):
    (workspace / "one.txt").write_bytes(b"y" * (40 << 20) + b"\nlast\n")  # a 40 MB line, then one more
    out, read = read_bytes_of(read_file, workspace, "one.txt", 1, 1)
    assert out.startswith("y" * 1000) and "more characters cut" in out and len(out) < 60_000
    assert out.endswith("[... lines 2 and on of a 41,943,046-byte file not shown: read on with offset=2]")
    assert read < 12 << 20
    (workspace / "two.txt").write_bytes(b"z" * 300_000 + b"\nlast\n")
    assert read_file(workspace, "two.txt", 1, 1).endswith("[... line 2 of 2 not shown: read on with offset=2]")
    assert read_file(workspace, "two.txt", 2) == "last\n"


@pytest.mark.parametrize("data", [b"\x00" * 4096, b"text\x00more\n", b"ok\n" * 10 + b"\x00\x01\x02"])
def test_special_and_huge_files_nul_bytes_mean_binary(workspace, data):
    (workspace / "blob").write_bytes(data)
    with pytest.raises(ToolError, match="'blob' is a binary file"):
        read_file(workspace, "blob")
    with pytest.raises(ToolError, match="'blob' is a binary file"):
        edit_file(workspace, "blob", "ok", "no")


# ---------------------------------------------------------------- the second exercise: build a tool

def test_the_tool_exercise_runs_the_handler_as_the_agent_does_and_rejects_held_out_answers():
    """Build a tool: find_text's handler, run by a real s02 agent through run_tool. Held-out answers
    (not the exercise's own mistakes): files named by name alone, a search that ignores case, os.walk
    (which lists a symlink to a file outside as a file) are each rejected, told why."""
    import os

    from lessonkit.exercises.s02_tools import FIND_TEXT, tool_exercise
    from lessonkit.exercises.s02_tools.tool_exercise import MAX_HITS, find_text

    assert tool_exercise.check(find_text) and FIND_TEXT.handler is find_text
    starter = tool_exercise.check(tool_exercise.starter_function())
    assert not starter.passed and "lk-s02-tool-" not in starter.report()  # no temporary folder shown

    def answer(name=lambda f, root: f.relative_to(root).as_posix(), match=lambda t, line: t in line, walk=None):
        def find(workspace, text, path="."):
            root, top = Path(workspace).resolve(), resolve_in(workspace, path)
            if not top.exists():
                raise ToolError(f"{path} does not exist")
            files = walk(top) if walk else sorted([top] if top.is_file() else top.rglob("*"))
            hits = []
            for f in files:
                try:
                    lines = resolve_in(workspace, str(f)).read_text(encoding="utf-8").splitlines() if walk is None \
                        else f.read_text(encoding="utf-8").splitlines()
                except (ToolError, UnicodeDecodeError, IsADirectoryError):
                    continue
                hits += [f"{name(f, root)}:{n}: {line}" for n, line in enumerate(lines, 1) if match(text, line)]
            more = len(hits) - MAX_HITS
            return ("\n".join(hits[:MAX_HITS]) + (f"\n... and {more} more lines" if more > 0 else "")) if hits \
                else f"no line contains {text!r}"
        return find

    assert tool_exercise.check(answer())
    for wrong, case, says in [
        (answer(name=lambda f, root: f.name), "every line that mentions # TODO",
         "src/b.py is named by its file name alone"),
        (answer(match=lambda t, line: t.lower() in line.lower()), "case matters", "case matters: 'todo' is not 'TODO'"),
        (answer(walk=lambda top: sorted(Path(d) / n for d, _, ns in os.walk(top) for n in ns)),
         "a symlink to a file outside", "link.txt is a symlink out of the workspace"),
    ]:
        failures = dict(tool_exercise.check(wrong).failures)
        assert case in failures and says in failures[case], failures
