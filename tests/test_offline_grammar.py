"""The offline model's task grammar, driven through the s02 and s03 agents on a tmp workspace.

Each entry is checked by its effect: the written file really prints the text when run,
the folder exists, the count is the real one, and the answer says what really happened.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

import s02_tools as s2
import s03_permissions as s3
from offline import OfflineModel, offline_client
from offline.conversation.language import request_language
from offline.grammar.table import clauses, parse, unquote

CALC = '"""A tiny calculator."""\n\n\ndef add(a, b):\n    if a is None:\n        raise ValueError("no a")\n    return a + b\n'
NOTES = "alpha beta\ngamma TODO delta\nepsilon\n"


@pytest.fixture
def ws(tmp_path, monkeypatch):
    # The workspace's one test needs no pytest plugin; the kit's own (nbval, hypothesis, xdist) take
    # about 1.9 s to import in every pytest the agent runs here, measured on 2026-12-02.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "calc.py").write_text(CALC)
    (root / "notes.txt").write_text(NOTES)
    (root / "test_calc.py").write_text("import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n"
                                       "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n")
    return root


class Asked:
    """An s03 approve callback that says yes and remembers what it was asked."""

    def __init__(self, answer=True):
        self.calls, self.answer = [], answer

    def __call__(self, call):
        self.calls.append(call["input"].get("command"))
        return self.answer


def make_agent(stage, ws, approve=None):
    client = offline_client(OfflineModel(), max_retries=0)
    if stage == "s02":
        return s2.Agent(client, workspace=ws)
    return s3.Agent(client, workspace=ws, approve=approve or Asked())


def ask(agent, prompt):
    messages = []
    answer = agent.ask(prompt, messages)
    calls = [(b["name"], b["input"]) for m in messages if m["role"] == "assistant"
             for b in m["content"] if b["type"] == "tool_use"]
    return answer, calls


def run(ws, *argv):
    return subprocess.run(list(argv), cwd=ws, capture_output=True, text=True, timeout=30, check=False)


STAGES = pytest.mark.parametrize("stage", ["s02", "s03"])


def said(prompt: str, english: str, chinese: str) -> str:
    """What the answer should say: the model answers in the language it was asked in."""
    return chinese if request_language(prompt) == "zh" else english


# ------------------------------------------------------------------ the tester's cases

@STAGES
def test_a_file_that_prints_hello_world_prints_it(ws, stage):
    answer, calls = ask(make_agent(stage, ws), "Create a file hello.py that prints Hello, World!")
    assert (ws / "hello.py").read_text() == 'print("Hello, World!")\n'
    assert run(ws, sys.executable, "hello.py").stdout == "Hello, World!\n"
    assert calls == [("write_file", {"path": "hello.py", "content": 'print("Hello, World!")\n'})]
    assert answer.startswith("Wrote hello.py.")


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@STAGES
@pytest.mark.parametrize("prompt", ["create hello.py that prints hi and run it", "创建文件 hello.py，打印 hi，然后运行它",
                                    "Create hello.py which prints 'hi', then run hello.py"])
def test_create_then_run_reports_the_real_output(ws, stage, prompt):
    answer, calls = ask(make_agent(stage, ws), prompt)
    assert run(ws, sys.executable, "hello.py").stdout == "hi\n"
    assert [name for name, _ in calls] == ["write_file", "bash"] and calls[1][1] == {"command": "python3 hello.py"}
    assert said(prompt, "- `python3 hello.py`: 1 line: hi", "- `python3 hello.py`：1 行：hi") in answer


@STAGES
def test_a_greet_function_is_written_and_works(ws, stage):
    ask(make_agent(stage, ws), "Create greet.py with a greet(name) function")
    done = run(ws, sys.executable, "-c", "from greet import greet; print(greet('Ada'))")
    assert done.stdout == "Hello, Ada!\n"


@STAGES
def test_content_in_backticks_then_a_command(ws, stage):
    answer, calls = ask(make_agent(stage, ws), "create hello.py containing `print('hi')` and then run `python3 hello.py`")
    assert (ws / "hello.py").read_text() == "print('hi')"
    assert calls[1] == ("bash", {"command": "python3 hello.py"}) and "1 line: hi" in answer


@STAGES
@pytest.mark.parametrize("prompt", ["What is the current git branch?", "当前是哪个分支？"])
def test_the_git_branch_is_asked_of_git(ws, stage, prompt):
    run(ws, "git", "init", "-q", "-b", "lesson-branch")
    answer, calls = ask(make_agent(stage, ws), prompt)
    assert calls == [("bash", {"command": "git branch --show-current"})]
    assert said(prompt, "the current branch is lesson-branch", "当前分支是 lesson-branch") in answer


@STAGES
@pytest.mark.parametrize("prompt", ["Create a directory called test_output", "新建文件夹 test_output",
                                    "make a folder named test_output"])
def test_a_folder_is_made(ws, stage, prompt):
    answer, calls = ask(make_agent(stage, ws), prompt)
    assert (ws / "test_output").is_dir() and calls == [("bash", {"command": "mkdir -p test_output"})]
    assert "test_output" in answer


# ------------------------------------------------------------------ every entry, by its effect

@pytest.mark.parametrize("ext, argv", [(".py", [sys.executable]), (".sh", ["sh"]), (".js", ["node"]),
                                       (".rb", ["ruby"]), (".go", ["go", "run"])])
def test_a_program_in_the_language_its_extension_names(ws, ext, argv):
    if not shutil.which(argv[0]):
        pytest.skip(f"{argv[0]} is not installed")
    ask(make_agent("s02", ws), f'Create a file say{ext} that prints "It\'s 5 o\'clock!"')
    assert run(ws, *argv, f"say{ext}").stdout == "It's 5 o'clock!\n"


@pytest.mark.parametrize("name", ["a.txt", "b.md"])
def test_a_text_file_holds_the_text(ws, name):
    ask(make_agent("s02", ws), f"write {name} that says hello there")
    assert (ws / name).read_text() == "hello there\n"


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@STAGES
@pytest.mark.parametrize("prompt", ["Run the tests", "运行测试"])
def test_the_test_suite_runs_and_its_result_is_reported(ws, stage, prompt):
    answer, _ = ask(make_agent(stage, ws), prompt)
    assert "OK" in answer or "1 passed" in answer
    (ws / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    answer, _ = ask(make_agent(stage, ws), prompt)
    assert answer.startswith(said(prompt, "That did not work.", "没有成功。"))
    assert said(prompt, "exit code 1", "退出码 1") in answer


@STAGES
@pytest.mark.parametrize("prompt, unit, expected", [
    ("How many lines are in notes.txt?", "lines", 3), ("count the words in notes.txt", "words", 6),
    ("notes.txt 有多少行？", "lines", 3), ("统计 notes.txt 的字数", "words", 6)])
def test_counts_are_the_real_counts(ws, stage, prompt, unit, expected):
    answer, _ = ask(make_agent(stage, ws), prompt)
    assert said(prompt, f"notes.txt has {expected} {unit}.",
                f"notes.txt 共有 {expected} {dict(lines='行', words='个词')[unit]}。") in answer


READ_ONLY = [{"name": "Read", "description": "read", "input_schema": {"type": "object",
                                                                      "properties": {"file_path": {"type": "string"}}}}]


def with_read_only(prompt: str, folder):
    """A client offering only a Read tool (no shell): the model's call, then its answer once the file
    it asked for is read from `folder`. Example: with_read_only("how many lines are in a.py", ws)"""
    client = offline_client(OfflineModel(), max_retries=0)
    messages = [{"role": "user", "content": prompt}]
    reply = client.messages.create(model="offline", max_tokens=500, tools=READ_ONLY, messages=messages)
    call = next(b for b in reply.content if b.type == "tool_use")
    messages += [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                               "content": (folder / call.input["file_path"]).read_text()}]}]
    reply = client.messages.create(model="offline", max_tokens=500, tools=READ_ONLY, messages=messages)
    return call, reply.content[0].text


def test_a_count_without_a_shell_counts_what_it_read(ws):
    _, answer = with_read_only("how many lines are in calc.py", ws)
    assert f"calc.py has {len(CALC.splitlines())} lines." in answer


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@STAGES
@pytest.mark.parametrize("prompt", ["Which files mention TODO?", "哪些文件提到了 TODO？", "find files containing TODO"])
def test_files_that_mention_a_text(ws, stage, prompt):
    (ws / "sub").mkdir()
    (ws / "sub" / "more.md").write_text("a TODO here\n")
    answer, _ = ask(make_agent(stage, ws), prompt)
    assert said(prompt, "2 files mention 'TODO': notes.txt, sub/more.md",
                "有 2 个文件提到了 'TODO'：notes.txt, sub/more.md") in answer
    answer, _ = ask(make_agent(stage, ws), "Which files mention nowhere_to_be_seen?")
    assert "no file mentions 'nowhere_to_be_seen'" in answer and "did not work" not in answer


@pytest.mark.parametrize("prompt, src, dst", [("Rename notes.txt to todo.txt", "notes.txt", "todo.txt"),
                                              ("把 notes.txt 移动到 docs/", "notes.txt", "docs/notes.txt"),
                                              ("move notes.txt into docs/", "notes.txt", "docs/notes.txt")])
def test_rename_and_move_ask_first_in_s03(ws, prompt, src, dst):
    (ws / "docs").mkdir()
    asked = Asked()
    answer, _ = ask(make_agent("s03", ws, asked), prompt)
    assert asked.calls and re.search(r"(^|&& )mv ", asked.calls[0])
    assert (ws / dst).read_text() == NOTES and not (ws / src).exists() and said(prompt, "moved to", "已移动到") in answer


@STAGES
@pytest.mark.parametrize("prompt", ["Copy notes.txt to copy.txt", "把 notes.txt 复制到 copy.txt"])
def test_copy(ws, stage, prompt):
    answer, _ = ask(make_agent(stage, ws), prompt)
    assert (ws / "copy.txt").read_text() == NOTES and (ws / "notes.txt").exists()
    assert said(prompt, "copied to copy.txt", "已复制到 copy.txt") in answer


@pytest.mark.parametrize("prompt", ["Delete notes.txt", "删除 notes.txt", "remove the file notes.txt"])
def test_delete_asks_in_s03_and_a_no_keeps_the_file(ws, prompt):
    no = Asked(answer=False)
    answer, _ = ask(make_agent("s03", ws, no), prompt)
    assert no.calls == ["rm notes.txt"] and (ws / "notes.txt").exists() and answer.startswith(said(prompt, "Stopped", "已停止"))
    yes = Asked()
    answer, _ = ask(make_agent("s03", ws, yes), prompt)
    assert yes.calls == ["rm notes.txt"] and not (ws / "notes.txt").exists()
    assert said(prompt, "notes.txt: deleted", "notes.txt：已删除") in answer


@STAGES
@pytest.mark.parametrize("prompt", ['Replace "gamma" with "GAMMA" in notes.txt', "把 notes.txt 里的 gamma 替换成 GAMMA",
                                    "in notes.txt change gamma to GAMMA"])
def test_replace(ws, stage, prompt):
    answer, _ = ask(make_agent(stage, ws), prompt)
    assert (ws / "notes.txt").read_text() == NOTES.replace("gamma", "GAMMA") and "Edited notes.txt" in answer


@STAGES
@pytest.mark.parametrize("prompt", ["Append the line zeta to notes.txt", "在 notes.txt 末尾追加一行 zeta",
                                    'add the line "zeta" to the end of notes.txt'])
def test_append_a_line(ws, stage, prompt):
    ask(make_agent(stage, ws), prompt)
    assert (ws / "notes.txt").read_text() == NOTES + "zeta\n"


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@STAGES
@pytest.mark.parametrize("prompt, command", [("git status", "git status --short --branch"),
                                             ("show the git log", "git log --oneline -10"),
                                             ("what changed? (git diff)", "git diff"), ("查看提交记录", "git log --oneline -10"),
                                             ("show the last 3 commits", "git log --oneline -3"),
                                             ("What changed?", "git diff"), ("看看改动", "git diff")])
def test_git_status_log_and_diff_report_git_output(ws, stage, prompt, command):
    run(ws, "git", "init", "-q", "-b", "main")
    run(ws, "git", "add", ".")
    run(ws, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first commit")
    (ws / "notes.txt").write_text(NOTES + "new line\n")
    answer, calls = ask(make_agent(stage, ws), prompt)
    assert calls == [("bash", {"command": command})]
    expected = {"git status --short --branch": " M notes.txt", "git log --oneline -10": "first commit",
                "git log --oneline -3": "first commit", "git diff": "+new line"}[command]
    assert expected in answer


@STAGES
@pytest.mark.parametrize("prompt", ["Show calc.py", "查看 calc.py", "cat calc.py"])
def test_show_a_file(ws, stage, prompt):
    answer, _ = ask(make_agent(stage, ws), prompt)
    assert 'raise ValueError("no a")' in answer and "did not work" not in answer and "error" not in answer


@STAGES
@pytest.mark.parametrize("prompt", ["What does calc.py do?", "calc.py 是做什么的？", "explain calc.py"])
def test_what_a_file_does_is_answered_from_what_was_read(ws, stage, prompt):
    answer, calls = ask(make_agent(stage, ws), prompt)
    assert calls == [("read_file", {"path": "calc.py"})]
    assert "A tiny calculator" in answer and said(prompt, "defines add", "定义了 add") in answer and "failed" not in answer


@STAGES
@pytest.mark.parametrize("prompt", ["List the files", "列出文件", "what files are here"])
def test_list(ws, stage, prompt):
    answer, _ = ask(make_agent(stage, ws), prompt)
    assert "calc.py, notes.txt, test_calc.py" in answer


@STAGES
def test_a_chain_of_four(ws, stage):
    answer, _ = ask(make_agent(stage, ws), "make a folder called out, then create out/x.sh that prints done "
                                           "and then run out/x.sh, then count the lines in out/x.sh")
    assert run(ws, "sh", "out/x.sh").stdout == "done\n"
    assert answer.startswith("Done: 4 steps.") and "- `bash out/x.sh`: 1 line: done" in answer
    assert "out/x.sh has 2 lines." in answer


# ------------------------------------------------------------------ the parser

def test_clauses_split_at_then_but_never_inside_backticks():
    assert clauses("create a.py containing `x and then y` and then run it") == \
        ["create a.py containing `x and then y`", "run it"]
    assert clauses("创建 a.py，然后运行它") == ["创建 a.py", "运行它"]
    assert clauses("create a.py that prints Tom and Jerry") == ["create a.py that prints Tom and Jerry"]


def test_unquote():
    assert unquote('"Hello, World!".') == "Hello, World!" and unquote("hi.") == "hi" and unquote("「你好」") == "你好"


def test_a_clause_outside_the_grammar_makes_the_whole_request_outside():
    assert parse("create a.py that prints hi and then build me a website", {"bash": {}, "write": {}}) is None
    assert parse("Create a directory called x", {"read": {}}) is None  # no shell: it cannot make a folder


def test_it_means_the_file_the_conversation_worked_on_last(ws):
    agent = make_agent("s02", ws)
    messages = []
    agent.ask("Create a file hello.py that prints hi", messages)
    assert "- `python3 hello.py`: 1 line: hi" in agent.ask("run it", messages)
    assert "hello.py has 1 line." in agent.ask("how many lines does it have?", messages)
    assert "it prints \"hi\"" in agent.ask("what does it do", messages)


def test_chinese_without_spaces_around_names(ws):
    answer, calls = ask(make_agent("s02", ws), "创建hello.py打印你好，然后运行它")
    assert calls[-1] == ("bash", {"command": "python3 hello.py"}) and "1 行：你好" in answer
    assert "notes.txt 共有 3 行。" in ask(make_agent("s02", ws), "notes.txt有多少行？")[0]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("toolset", ["claude", "bash", "shell"])
def test_any_tool_naming_and_a_shell_alone_serve_the_grammar(tmp_path, toolset):
    from tests.test_offline_policy import TOOLSETS, Box, loop

    client = offline_client(OfflineModel(), max_retries=0)
    box = Box(tmp_path)
    tools = TOOLSETS[toolset]
    _, answer, _ = loop(client, box, "Create a file hello.py that prints Hello, World! and then run it", tools)
    assert run(tmp_path, sys.executable, "hello.py").stdout == "Hello, World!\n" and "1 line: Hello, World!" in answer
    loop(client, box, "Create a directory called test_output", tools)
    assert (tmp_path / "test_output").is_dir()
    _, answer, _ = loop(client, box, "how many lines are in hello.py", tools)
    assert "hello.py has 1 line." in answer
    loop(client, box, "replace World with There in hello.py", tools)
    assert run(tmp_path, sys.executable, "hello.py").stdout == "Hello, There!\n"
    names = {name for name, _ in box.log}
    assert names <= {t["name"] for t in tools}


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@STAGES
def test_more_ways_students_ask(ws, stage):
    answer, _ = ask(make_agent(stage, ws), "List all Python files in this directory")
    assert "2 .py files: calc.py, test_calc.py" in answer and "notes.txt" not in answer
    ask(make_agent(stage, ws), "write hello.txt with hello world in it")
    assert (ws / "hello.txt").read_text() == "hello world"
    assert "hello world" in ask(make_agent(stage, ws), "what's in hello.txt?")[0]
    ask(make_agent(stage, ws), "Create a file called hi.py that prints 'hi'")
    answer, calls = ask(make_agent(stage, ws), "Run python hi.py")
    assert calls == [("bash", {"command": "python3 hi.py"})] and "1 line: hi" in answer


@STAGES
@pytest.mark.parametrize("prompt, english, chinese", [
    ("Find TODO in notes.txt", "- notes.txt: 1 line mentions 'TODO':", "- notes.txt：有 1 行提到 'TODO'："),
    ("search for return in calc.py", "- calc.py: 1 line mentions 'return':", ""),
    ("Show the lines containing `raise` in calc.py", "- calc.py: 1 line mentions 'raise':", ""),
    ("在 calc.py 里搜索 add", "", "- calc.py：有 1 行提到 'add'："),
    ("Find FIXME in notes.txt", "- notes.txt does not mention 'FIXME'", ""),
    ("How many times does TODO appear in notes.txt?", "- 'TODO' appears 1 time in notes.txt", ""),
    ("How many TODOs are in notes.txt?", "- 'TODO' appears 1 time in notes.txt", ""),
    ("Count the occurrences of `a` in calc.py", "- 'a' appears 9 times in calc.py", ""),
    ("How many lines contain a in calc.py?", "- 5 lines of calc.py contain 'a'", ""),
    ("notes.txt 里有多少个 TODO？", "", "- 'TODO' 在 notes.txt 里出现了 1 次"),
])
def test_a_text_in_one_named_file_is_searched_in_that_file(ws, stage, prompt, english, chinese):
    """"Find TODO in notes.py" searched every file for 'TODO in notes.py' and said no file mentions it."""
    answer, calls = ask(make_agent(stage, ws), prompt)
    assert said(prompt, english, chinese) in answer, answer
    assert [name for name, _ in calls] == ["bash"] and "grep" in calls[0][1]["command"]


@pytest.mark.parametrize("prompt", ["find the bug in calc.py", "How many tests are in test_calc.py?",
                                    "Count the functions in calc.py"])
def test_a_request_about_a_file_that_is_not_a_text_search_is_not_grepped(ws, prompt):
    answer, calls = ask(make_agent("s02", ws), prompt)
    assert not any("grep" in str(c) for c in calls) and "mention" not in answer, answer
    assert "I cannot" in answer, answer   # said honestly, never answered with a search
