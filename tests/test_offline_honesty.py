"""Outside the grammar the offline model guesses at nothing: no file changes, and it says what it can do.

Also: only an error flag or an exit status makes a step failed, never words inside a file.
"""

from __future__ import annotations

import pytest

import s02_tools as s2
from offline import OfflineModel, offline_client
from offline.conversation.language import request_language

OUTSIDE = [  # 30 requests a student may type that the grammar does not serve
    "Write a poem about the sea to poem.txt",
    "Build me a REST API in app.py",
    "Refactor calc.py to use classes",
    "Add type hints to calc.py",
    "Create a web scraper in scrape.py that downloads the news",
    "Make calc.py faster",
    "Fix the bug in calc.py",
    "Implement quicksort in sort.py",
    "Translate notes.txt into French",
    "Generate unit tests for calc.py",
    "Create greet.py with a farewell_and_log(name, level) function",
    "Write a README for this project",
    "Set up a virtualenv and install requests",
    "Convert notes.txt to JSON",
    "What is the capital of France?",
    "Tell me a joke",
    "Why is the sky blue?",
    "Optimise the database queries",
    "create a class Stack in stack.py with push and pop",
    "update calc.py so it handles floats",
    "sort the lines of notes.txt",
    "帮我写一个贪吃蛇游戏",
    "重构 calc.py",
    "给 calc.py 添加注释",
    "把 notes.txt 翻译成英文",
    "创建一个网站",
    "修复 calc.py 里的错误",
    "为这个项目写一份文档",
    "天空为什么是蓝色的？",
    "生成 calc.py 的单元测试",
]


def snapshot(root):
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else None for p in sorted(root.rglob("*"))}


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "notes.txt").write_text("one\ntwo\n")
    return root


NEAR = [  # requests that look like entries of the grammar (counts, sizes, lines, commands) but are not
    "how many people live in Paris",
    "run faster",
    "run the marathon",
    "how big is the universe",
    "what is the size of the sun",
    "count the stars in the sky",
    "show me the first lines of a poem",
    "what time is it in Tokyo",
    "which python library is best for plotting",
    "pytest failed, why?",
    "echo is a shell command, right?",
    "数一下天上有多少颗星星",
    "让程序运行得更快",
]


def assert_outside(ws, prompts):
    """Each prompt changes no file, calls no tool but a read, and says how to get a real model."""
    agent = s2.Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws)
    before = snapshot(ws)
    honest = 0
    for prompt in prompts:
        messages = []
        answer = agent.ask(prompt, messages)
        assert snapshot(ws) == before, prompt
        writes = [b for m in messages if m["role"] == "assistant" for b in m["content"]
                  if b["type"] == "tool_use" and b["name"] != "read_file"]
        assert writes == [], prompt  # at most it read the file it was asked about
        honest += "LESSONS_BACKEND=anthropic" in answer
        if "ANTHROPIC_BASE_URL" in answer:
            if request_language(prompt) == "zh":  # asked in Chinese, answered in Chinese, with a Chinese example
                assert "创建文件 hello.py，打印 Hello, World!" in answer and "离线" in answer, answer
                assert len([s for s in answer.splitlines()[0].split("。") if s.strip()]) <= 3, answer
            else:
                assert "Create a file hello.py that prints Hello, World!" in answer  # one example of what it can do
                assert len([s for s in answer.split(". ") if s.strip()]) <= 3, answer  # short: what, and how to switch
    assert honest == len(prompts)


def test_thirty_requests_outside_the_grammar_change_no_file_and_say_how_to_get_a_real_model(ws):
    assert len(set(OUTSIDE)) == 30
    assert_outside(ws, OUTSIDE)


def test_requests_close_to_the_counts_sizes_and_commands_are_outside_too(ws):
    assert_outside(ws, NEAR)


def test_unknown_offered_tools_are_named_in_the_answer(client):
    tools = [{"name": n, "description": n, "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}}
             for n in ("bash", "todo", "web_search", "load_skill")]
    reply = client.messages.create(model="offline", max_tokens=500, tools=tools,
                                   messages=[{"role": "user", "content": "Plan my week for me"}])
    text = reply.content[0].text
    assert reply.stop_reason == "end_turn" and "todo, web_search, load_skill" in text and "ANTHROPIC_BASE_URL" in text


def test_a_request_whose_entry_needs_a_missing_tool_is_not_guessed(client):
    read_only = [{"name": "read_file", "description": "read",
                  "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]
    reply = client.messages.create(model="offline", max_tokens=500, tools=read_only,
                                   messages=[{"role": "user", "content": "Create a directory called out"}])
    assert reply.stop_reason == "end_turn" and "LESSONS_BACKEND=anthropic" in reply.content[0].text


def test_words_inside_a_file_are_not_a_failure(ws):
    """A file that says 'raise ValueError' or 'FAILED' was read fine: 0 of N failed."""
    (ws / "strict.py").write_text('def check(x):\n    if x < 0:\n        raise ValueError("negative")\n'
                                  '# FAILED: Traceback (most recent call last): not found, denied\n')
    agent = s2.Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws)
    answer = agent.ask("Read every Python file in this folder", [])
    assert "failed" not in answer and "error" not in answer and "strict.py: 4 lines, defines check" in answer
    answer = agent.ask("Read strict.py and calc.py", [])
    assert answer.startswith("Read 2 files.") and "did not work" not in answer


def test_a_failing_command_is_a_failure_by_its_exit_status(ws):
    agent = s2.Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws)
    answer = agent.ask("Run `python3 -c 'import sys; sys.exit(3)'`", [])
    assert answer.startswith("That did not work.") and "exit code 3" in answer


def test_an_unflagged_tool_error_is_a_failure_but_a_file_that_starts_with_error_is_not(client):
    """A course's tools return "Error: ..." without is_error: an edit that says so failed; a read's text is the file."""
    tools = [{"name": n, "description": n, "input_schema": {"type": "object", "properties": {
        p: {"type": "string"} for p in props}}} for n, props in
        (("read_file", ["path"]), ("edit_file", ["path", "old_text", "new_text"]))]
    history = [{"role": "user", "content": "Replace `zzz` with `y` in a.txt"}]
    reply = client.messages.create(model="offline", max_tokens=500, tools=tools, messages=history)
    call = next(b for b in reply.content if b.type == "tool_use")
    history += [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                              "content": "Error: Text not found in a.txt"}]}]
    reply = client.messages.create(model="offline", max_tokens=500, tools=tools, messages=history)
    assert [(b.name, b.input) for b in reply.content if b.type == "tool_use"] == [("read_file", {"path": "a.txt"})]
    history = [{"role": "user", "content": "Show notes.md"}]
    reply = client.messages.create(model="offline", max_tokens=500, tools=tools, messages=history)
    call = next(b for b in reply.content if b.type == "tool_use")
    history += [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                              "content": "Error: a page about errors\nTraceback is a word here"}]}]
    text = client.messages.create(model="offline", max_tokens=500, tools=tools, messages=history).content[0].text
    assert text.startswith("Here is notes.md.") and "did not work" not in text


MORE_THAN_READING = [  # requests a read, a listing or a typed command seems to serve, with more asked beside it
    ("Count the TODOs in every file and put the total into todo_count.txt", None),
    ("Count the lines in every python file and write the sum to total.txt", None),
    ("How many times does the word add appear across all files? Save it in count.txt", None),
    ("Read all the python files here and tell me which one is the longest", "which one is the longest"),
    ("Read every python file and count the functions", "count the functions"),
    ("List the files and tell me how many there are", "how many there are"),
    ("Run `ls` and save the output in out.txt", "save the output in out.txt"),
    ("Read calc.py and notes.txt and compare them", "compare them"),
    ("读取所有 Python 文件，然后统计一共有多少个函数", "统计一共有多少个函数"),
    ("列出这里的文件，然后把总数写进 count.txt", "把总数写进 count.txt"),
]


@pytest.mark.parametrize("prompt, left", MORE_THAN_READING, ids=[p for p, _ in MORE_THAN_READING])
def test_a_guess_never_reports_a_partial_plan_as_done(ws, prompt, left):
    """Each part of a request is done, or named as not done: reading files never stands in for counting them,
    summing them or saving a total, and nothing is written."""
    agent = s2.Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws)
    before, messages = snapshot(ws), []
    answer = agent.ask(prompt, messages)
    assert snapshot(ws) == before, answer
    if left is None:  # nothing of it can be done offline: nothing runs, and the answer says so
        assert [b for m in messages if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"] == []
        assert "LESSONS_BACKEND=anthropic" in answer and prompt[:30] in answer
    else:  # what it did, then the part it did not do, in its own words
        assert left in answer and ("Not done" in answer or "未完成" in answer), answer


def test_a_copy_into_a_folder_that_does_not_exist_makes_the_folder(ws):
    agent = s2.Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws)
    answer = agent.ask("Copy notes.txt to backup/2026/notes.txt", [])
    assert (ws / "backup" / "2026" / "notes.txt").read_text() == "one\ntwo\n", answer
    answer = agent.ask("把 calc.py 复制到 旧/calc.py", [])
    assert (ws / "旧" / "calc.py").is_file(), answer


@pytest.mark.parametrize("ask, lands", [("Move notes.txt into archive/old/", "archive/old/notes.txt"),
                                        ("move notes.txt into archive", "archive/notes.txt"),
                                        ("mv notes.txt done/2026/", "done/2026/notes.txt"),
                                        ("Copy notes.txt into spare", "spare/notes.txt"),
                                        ("把 notes.txt 移动到 归档/旧/", "归档/旧/notes.txt")])
def test_a_file_moved_into_a_folder_lands_inside_it_made_first(ws, ask, lands):
    """'move notes.md into archive/old/' made archive, not archive/old, and mv failed; 'into archive'
    renamed the file to archive."""
    agent = s2.Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws)
    answer = agent.ask(ask, [])
    assert (ws / lands).read_text() == "one\ntwo\n", answer


@pytest.mark.parametrize("ask", ["Summarize what we did so far", "What have we done?", "总结一下我们做了什么",
                                 "到目前为止做了哪些事？"])
def test_a_recap_reports_a_refused_call_as_refused(ws, ask):
    import s03_permissions as s3

    agent = s3.Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws, approve=s3.never_approve)
    history = []
    agent.ask("Delete notes.txt", history)
    agent.ask("Show calc.py", history)
    answer = agent.ask(ask, history)
    assert (ws / "notes.txt").exists()
    assert ("refused: it did not run" in answer or "被拒绝：没有运行" in answer) and "calc.py" in answer, answer
    assert "not fixed yet" not in answer and "尚未修复" not in answer and "a summary replaces" not in answer


@pytest.mark.parametrize("ask", ["Summarize what we did so far", "What have we done?", "Give me a recap",
                                 "总结一下我们做了什么"])
def test_a_recap_names_the_earlier_requests_not_only_itself(ws, ask):
    """"Summarize what we did so far" answered "So far: 3 request(s), the latest: Summarize what we did so far."."""
    agent = s2.Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws)
    history = []
    for text in ("Show calc.py", "How many lines does notes.txt have?", "Write me a poem"):
        agent.ask(text, history)
    answer = agent.ask(ask, history)
    assert all(text in answer for text in ("Show calc.py", "How many lines does notes.txt have?", "Write me a poem"))
    assert ask not in answer, answer


@pytest.mark.parametrize("approve", ["never", "always"])
def test_a_recap_never_calls_a_refused_or_deleting_find_a_listing(ws, approve):
    """A refused `find . -name "*.py" -delete` came back in the recap as "Files: find . -name "*.py" -delete: listed"."""
    import s03_permissions as s3

    agent = s3.Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws,
                     approve=s3.never_approve if approve == "never" else s3.always_approve)
    history = []
    agent.ask('run `find . -name "*.txt" -delete`', history)
    answer = agent.ask("Summarize what we did so far", history)
    assert (ws / "notes.txt").exists() == (approve == "never"), answer
    assert "listed" not in answer, answer
