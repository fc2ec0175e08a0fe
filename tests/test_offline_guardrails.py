"""The offline model's guard rails, rule by rule (issue 22): it never does the wrong thing, it says so.

1. never outside the workspace; a command typed without backticks only if s03's classifier calls it read-only;
2. "it" is the file acted on last, or a question back; 这里 is the workspace;
3. nothing dropped silently: politeness, question forms and typos still work, a clause outside is said;
4. counts match the file.
Structured output (rule 5) is in test_offline_structured.py, the prompt set (rule 6) in test_offline_promptset.py.
The prompts here are variants of the review's, not the review's own.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import s02_tools as s2
import s03_permissions as s3
from offline import OfflineModel, offline_client
from offline.grammar.polite import core, fixes, thanked


def tools():
    return [t.to_api() if hasattr(t, "to_api") else t for t in s2.Agent(
        offline_client(OfflineModel(), max_retries=0), workspace=".").tools]


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "inner" / "ws"
    root.mkdir(parents=True)
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "todo.txt").write_text("water plants")  # one line, no final newline
    (root / "hi.py").write_text('print("hey")\n')
    (tmp_path / "inner" / "secret.txt").write_text("s\n")
    return root


def agent(ws, stage=s3, approve=s3.never_approve):
    client = offline_client(OfflineModel(), max_retries=0)
    return stage.Agent(client, workspace=ws, approve=approve) if stage is s3 else stage.Agent(client, workspace=ws)


def run(a, *prompts):
    """(the last answer, every tool call made) for prompts asked in turn in one conversation."""
    messages: list = []
    answer = ""
    for p in prompts:
        answer = a.ask(p, messages)
    calls = [(b["name"], b["input"]) for m in messages if m["role"] == "assistant" for b in m["content"]
             if b["type"] == "tool_use"]
    return answer, calls


def tree(root):
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else None for p in sorted(root.rglob("*"))
            if ".git" not in p.parts}


# ---------------------------------------------------------------- 1. never outside the workspace

@pytest.mark.parametrize("prompt", [
    "Append the text owned to ../../elsewhere.txt", "copy calc.py to /tmp/calc_copy.py",
    "make a folder named ../sibling", "show ~/.bashrc", "run cat ../secret.txt", "run grep -rn s /etc",
    "list the files in /", "rename todo.txt to ../todo.txt", "创建文件 ../外面.txt，内容为 hi",
    "Create a file src/../../up.py that prints hi", "run head -n 3 ../secret.txt", "run git diff --output=../d.txt",
    "please move hi.py into ../", "run find . -fprint ../list.txt"])
def test_a_path_outside_the_workspace_is_refused_and_nothing_changes(ws, prompt):
    before = tree(ws.parent)
    answer, calls = run(agent(ws, approve=s3.always_approve), prompt)
    assert calls == [] and tree(ws.parent) == before
    assert "outside the workspace" in answer or "工作区之外" in answer, answer


@pytest.mark.parametrize("prompt, command", [
    ("run git push --force", "git push --force"), ("run sed -i s/a/b/ calc.py", "sed -i s/a/b/ calc.py"),
    ("run find . -name '*.py' -delete", "find . -name '*.py' -delete"), ("run git stash", "git stash"),
    ("run sort -o sorted.txt todo.txt", "sort -o sorted.txt todo.txt"), ("execute git checkout -f", "git checkout -f"),
    ("run ruby -e 'File.write(\"x\", 1)'", "ruby -e 'File.write(\"x\", 1)'")])
def test_a_typed_command_that_may_write_is_not_run_from_plain_words(ws, prompt, command):
    before = tree(ws)
    answer, calls = run(agent(ws, approve=s3.always_approve), prompt)
    assert all(name == "read_file" for name, _ in calls) and tree(ws) == before  # at most it read a file named
    assert "backticks" in answer or "LESSONS_BACKEND=anthropic" in answer, answer  # honest either way
    if "backticks" in answer:
        assert f"run `{command}`" in answer


@pytest.mark.parametrize("prompt, command", [("run git log --oneline", "git log --oneline"),
                                             ("run grep -n water todo.txt", "grep -n water todo.txt"),
                                             ("run wc -w todo.txt", "wc -w todo.txt"), ("run ls -la", "ls -la")])
def test_a_typed_command_that_only_reads_still_runs(ws, prompt, command):
    _, calls = run(agent(ws, stage=s2), prompt)
    assert calls == [("bash", {"command": command})]


def test_a_command_in_backticks_goes_to_the_agents_own_permission_rules(ws):
    answer, calls = run(agent(ws), "Run `git tag -d v9`")
    assert calls == [("bash", {"command": "git tag -d v9"})]  # asked for explicitly: s03 decides
    assert "not allowed" in answer or "Permission" in answer or "did not work" in answer


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_the_classifier_is_imported_only_when_a_typed_command_is_checked():
    """s03's import chain never imports the offline model (no circle), and importing the model imports no s03."""
    code = ("import sys, lessonkit.base.readonly; assert 'offline' not in sys.modules;"
            "import offline.agent.guard")
    subprocess.run([sys.executable, "-c", code], check=True)
    code = "import sys, offline; assert 's03_permissions' not in sys.modules, 'imported at import time'"
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------- 2. references, or a question

def test_it_is_the_file_the_last_request_acted_on_and_the_answer_names_it(ws):
    answer, calls = run(agent(ws), "run hi.py", "how many words are in todo.txt", "ok, remove it")
    assert calls[-1] == ("bash", {"command": "rm todo.txt"})
    assert "todo.txt" in answer and '"it"' in answer
    assert (ws / "hi.py").exists()


@pytest.mark.parametrize("prompt", ["remove it", "delete that file", "删除这个文件", "run it", "show me that one",
                                    "delete that", "remove the file"])
def test_a_reference_with_nothing_to_point_at_gets_a_question_and_no_call(ws, prompt):
    answer, calls = run(agent(ws), prompt)
    assert calls == []
    assert "Which file do you mean" in answer or "哪个文件" in answer, answer


def test_a_reference_to_two_files_asks_which_one(ws):
    answer, calls = run(agent(ws), "Read calc.py and hi.py", "delete it")
    assert [c for c in calls if c[0] == "bash"] == []
    assert "calc.py or hi.py" in answer or "hi.py or calc.py" in answer


@pytest.mark.parametrize("prompt", ["这儿有哪些文件", "列出当前文件夹的文件", "这里有什么文件？", "当前目录下有哪些文件"])
def test_here_in_chinese_is_the_workspace(ws, prompt):
    answer, calls = run(agent(ws, stage=s2), prompt)
    assert calls and calls[0][1].get("path", ".") == "." and "todo.txt" in answer


def test_it_inside_a_question_is_not_a_file(ws):
    _, calls = run(agent(ws, stage=s2), "show calc.py", "what time is it?")
    assert calls[-1] == ("bash", {"command": "date"})


# ---------------------------------------------------------------- 3. say it, never drop it

@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("prompt, call", [
    ("Hello! Would you please make a folder called out2?", ("bash", {"command": "mkdir -p out2"})),
    ("Could you tell me how many lines are in calc.py?", ("bash", {"command": "sed -n '$=' calc.py"})),
    ("Show me todo.txt, thanks!", ("read_file", {"path": "todo.txt"})),
    ("请帮我运行 hi.py，谢谢", ("bash", {"command": "python3 hi.py"})),
    ("Good morning, can you run the tests for me?", None),
    ("dleete todo.txt", ("bash", {"command": "rm todo.txt"})),
    ("how mnay lines are in calc.py", ("bash", {"command": "sed -n '$=' calc.py"})),
    ("craete b.txt with the text hi", ("write_file", {"path": "b.txt", "content": "hi"})),
    ("rnu hi.py", ("bash", {"command": "python3 hi.py"}))])
def test_supported_requests_survive_politeness_question_forms_and_typos(ws, prompt, call):
    _, calls = run(agent(ws, approve=s3.always_approve), prompt)
    if call is None:  # the test runner: its command, whatever it finds
        assert calls and "pytest" in calls[0][1]["command"]
    else:
        assert calls[0] == call


@pytest.mark.parametrize("prompt, printed", [
    ("Could you create q.py that prints Are you sure?", "Are you sure"),  # the ? ends the question
    ("Create r.py that prints Ready!", "Ready!"),  # no question: the ! is the user's text
    ('Can you create s.py that prints "Done?"', "Done?"),  # quoted: kept exactly
    ("craete w.py that prints Helo Wrold", "Helo Wrold")])  # a typo in the content is the user's own
def test_what_the_user_typed_as_content_is_kept(ws, prompt, printed):
    run(agent(ws, stage=s2), prompt)
    made = [p for p in ws.glob("*.py") if p.name not in ("calc.py", "hi.py")]
    assert [p.read_text() for p in made] == [f'print("{printed}")\n']


def test_polite_forms_are_taken_off_and_thanks_alone_is_thanked():
    assert core("Hi there! Could you please list the files, thanks") == ("list the files", True)
    assert core("能帮我查看 a.txt 吗？") == ("查看 a.txt", True)
    assert thanked("Thank you!") and thanked("谢谢") and not thanked("thanks, now delete a.txt")
    assert fixes("delete the fiel") and not fixes("delete `fiel`")


@pytest.mark.parametrize("prompt", ["Thank you!", "thanks a lot", "谢谢你"])
def test_thanks_gets_a_polite_reply_not_a_refusal(ws, prompt):
    answer, calls = run(agent(ws), prompt)
    assert calls == [] and "LESSONS_BACKEND" not in answer and "offline" not in answer


@pytest.mark.parametrize("prompt, done, not_done", [
    ("Read todo.txt and translate it to French", ("read_file", {"path": "todo.txt"}), "translate it to French"),
    ("Count the words in todo.txt, then deploy to production", ("bash", {"command": "wc -w < todo.txt"}),
     "deploy to production"),
    ("show calc.py and make it faster", ("read_file", {"path": "calc.py"}), "make it faster")])
def test_a_clause_outside_the_grammar_is_said_not_done(ws, prompt, done, not_done):
    answer, calls = run(agent(ws, stage=s2), prompt)
    assert calls == [done]
    assert f'Not done: "{not_done}"' in answer, answer


@pytest.mark.parametrize("prompt", ["Edit calc.py to add logging", "Add a docstring to calc.py",
                                    "Improve the error handling in hi.py"])
def test_a_change_it_cannot_make_is_an_honest_cant_not_a_summary(ws, prompt):
    before = tree(ws)
    answer, calls = run(agent(ws, stage=s2), prompt)
    assert tree(ws) == before and all(name == "read_file" for name, _ in calls)
    assert "LESSONS_BACKEND=anthropic" in answer


def test_deleting_every_file_of_a_kind_reads_none_of_them_and_goes_through_permission(ws):
    (ws / "a.log").write_bytes(b"\x00\xff")
    (ws / "sub").mkdir()
    (ws / "sub" / "b.log").write_bytes(b"\x01")
    answer, calls = run(agent(ws), "Remove all the .log files and then list the files")
    assert [n for n, _ in calls] == ["bash"] and "-delete" in calls[0][1]["command"]  # denied: the plan stopped
    assert (ws / "a.log").exists() and "not allowed" in answer
    answer, calls = run(agent(ws, approve=s3.always_approve), "Remove all the .log files and then list the files")
    assert not (ws / "a.log").exists() and not (ws / "sub" / "b.log").exists()
    assert "a.log" in answer and "sub/b.log" in answer and calls[-1][0] == "list_dir"


# ---------------------------------------------------------------- 4. right facts

@pytest.mark.parametrize("content, lines", [(b"", 0), (b"one", 1), (b"one\n", 1), (b"a\r\nb", 2), (b"a\r\nb\r\n", 2),
                                            ("中\n文".encode(), 2), (b"a\n\n", 2), (b"\n", 1)])
@pytest.mark.parametrize("stage", [s2, "read-only"])
def test_a_line_count_matches_the_file(tmp_path, content, lines, stage):
    (tmp_path / "f.txt").write_bytes(content)
    if stage is s2:
        answer, _ = run(agent(tmp_path, stage=s2), "how many lines are in f.txt?")
    else:  # no shell: it reads the file and counts
        read = [t for t in tools() if t["name"] == "read_file"]
        client = offline_client(OfflineModel(), max_retries=0)
        history = [{"role": "user", "content": "how many lines are in f.txt?"}]
        reply = client.messages.create(model="offline", max_tokens=500, tools=read, messages=history)
        call = next(b for b in reply.content if b.type == "tool_use")
        text = s2.files.read_file(tmp_path, "f.txt") if content else ""
        history += [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                                  "content": text or "(empty file)"}]}]
        answer = client.messages.create(model="offline", max_tokens=500, tools=read, messages=history).content[0].text
    assert f"f.txt has {lines} line{'s' if lines != 1 else ''}." in answer, answer
