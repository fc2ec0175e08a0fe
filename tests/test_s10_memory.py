"""s10: the memory tool (six commands under /memories, sandboxed, capped) and the agent that reads it back."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import assert_api_valid, histories

from lessonkit.show.demo import make_workspace
from s01_loop import ToolError
from s03_permissions import always_approve
from s09_subagents import Agent as SubagentsAgent
from s10_memory import REMINDER, Agent, MemoryStore, format_tasks, parse_tasks, remind

DECISION = "# Decision: the cache keeps 64 entries, agreed with ops on day 1.\n"
PARTS = st.sampled_from(["memories", "/memories", "..", ".", "", "notes.md", "a", "link", "x/..", "%2e%2e",
                         "/etc", "~", "\\..", "memories..", "ü"])


def store(tmp_path, **kw):
    (tmp_path / "outside").mkdir(exist_ok=True)
    (tmp_path / "outside" / "secret.txt").write_text("secret")
    root = tmp_path / "mem"
    root.mkdir(exist_ok=True)
    if not (root / "link").exists():
        os.symlink(tmp_path / "outside", root / "link")
    return MemoryStore(root, **kw)


def listing(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.one_of(st.lists(PARTS, min_size=1, max_size=6).map("/".join), st.text(max_size=30)),
       command=st.sampled_from(["view", "create", "str_replace", "insert", "delete", "rename"]))
def test_no_memory_path_gets_out_of_the_folder(tmp_path, path, command):
    s = store(tmp_path)
    before = listing(tmp_path / "outside")
    try:
        real = s.real(path)
    except ToolError as exc:
        assert str(exc).startswith("memory")
    else:
        assert real == s.root or s.root in real.parents
        assert path == "/memories" or path.startswith("/memories/")
    args = {"view": {"path": path}, "create": {"path": path, "file_text": "x"},
            "str_replace": {"path": path, "old_str": "secret", "new_str": "y"},
            "insert": {"path": path, "insert_line": 0, "insert_text": "x"}, "delete": {"path": path},
            "rename": {"old_path": "/memories/link/secret.txt", "new_path": path}}[command]
    try:
        out = s.run({"command": command, **args})
    except ToolError:
        out = ""
    assert listing(tmp_path / "outside") == before and (tmp_path / "outside" / "secret.txt").read_text() == "secret"
    assert "secret" not in out


def test_the_six_commands(tmp_path):
    s = store(tmp_path)
    assert "Created /memories/notes.md" in s.run({"command": "create", "path": "/memories/notes.md",
                                                  "file_text": "a\nb\n"})
    assert s.run({"command": "view", "path": "/memories/notes.md"}) == "     1\ta\n     2\tb"
    assert s.run({"command": "view", "path": "/memories/notes.md", "view_range": [2, 2]}) == "     2\tb"
    s.run({"command": "str_replace", "path": "/memories/notes.md", "old_str": "b", "new_str": "c"})
    s.run({"command": "insert", "path": "/memories/notes.md", "insert_line": 1, "insert_text": "z"})
    assert (s.root / "notes.md").read_text() == "a\nz\nc\n"
    s.run({"command": "rename", "old_path": "/memories/notes.md", "new_path": "/memories/old/notes.md"})
    assert "- /memories/old/notes.md (6 characters)" in s.run({"command": "view", "path": "/memories"})
    s.run({"command": "delete", "path": "/memories/old"})
    assert not (s.root / "old").exists()


@pytest.mark.parametrize("args, says", [
    ({"command": "view", "path": "/memories/none.md"}, "no such file"),
    ({"command": "str_replace", "path": "/memories/n.md", "old_str": "a", "new_str": "b"}, "occurs 2 times"),
    ({"command": "insert", "path": "/memories/n.md", "insert_line": 9, "insert_text": "b"}, "insert_line must be 0-2"),
    ({"command": "delete", "path": "/memories"}, "cannot be deleted"),
    ({"command": "rename", "old_path": "/memories/n.md", "new_path": "/memories/n.md"}, "already exists"),
    ({"command": "create", "path": "/memories/n.md"}, "'file_text' is required"),
    ({"command": "grep", "path": "/memories"}, "unknown command"),
    ({"command": "view", "path": "/memories/n.md", "view_range": [3, 1]}, "view_range"),
    ({"command": "view", "path": "notes.md"}, "starts with /memories/"),
])
def test_a_bad_command_is_one_clear_error_and_changes_nothing(tmp_path, args, says):
    s = store(tmp_path)
    (s.root / "n.md").write_text("a\na\n")
    with pytest.raises(ToolError, match=says):
        s.run(args)
    assert (s.root / "n.md").read_text() == "a\na\n"


def test_a_write_past_the_cap_is_refused_and_asks_to_consolidate(tmp_path):
    s = store(tmp_path, max_chars=20)
    s.run({"command": "create", "path": "/memories/a.md", "file_text": "x" * 15})
    with pytest.raises(ToolError, match="memory is full.*Consolidate"):
        s.run({"command": "insert", "path": "/memories/a.md", "insert_line": 1, "insert_text": "y" * 10})
    assert (s.root / "a.md").read_text() == "x" * 15
    s.run({"command": "create", "path": "/memories/a.md", "file_text": "z" * 19})  # rewriting shorter fits


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@given(tasks=st.lists(st.tuples(st.text(st.characters(blacklist_categories=["Cc", "Zl", "Zp", "Cs"]), min_size=1,
                                        max_size=20).filter(lambda t: t.strip() == t and t), st.booleans()),
                      max_size=8))
def test_a_task_list_reads_back_as_written(tasks):
    assert parse_tasks(format_tasks(tasks)) == tasks


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@settings(max_examples=40, deadline=None)
@given(history=histories(min_turns=1, max_turns=8, end_with_answer=False))
def test_the_reminder_keeps_a_history_valid_and_is_added_once(history):
    history = json.loads(json.dumps(history))
    if remind(history):
        remind(history)
        assert_api_valid(history)
        texts = [b for b in history[-1]["content"] if b.get("type") == "text" and b["text"] == REMINDER]
        assert len(texts) == 1 and history[-1]["content"][-1]["text"] == REMINDER


def test_the_file_tools_do_not_write_the_memory(client, tmp_path):
    ws = make_workspace(tmp_path / "ws", files=1, lines=3)
    agent = Agent(client, workspace=ws, approve=always_approve)
    out = agent.run_tool({"type": "tool_use", "id": "t", "name": "write_file",
                          "input": {"path": ".memories/notes.md", "content": "x"}})
    assert out.get("is_error") and "own record" in out["content"]


def long_job(cls, tmp_path, **kw):
    from lessonkit import make_client
    ws = make_workspace(tmp_path / cls.__module__, files=12, lines=40)
    (ws / "app_02.py").write_text((ws / "app_02.py").read_text() + DECISION)
    agent = cls(make_client(context_window=4_000), workspace=ws, approve=always_approve, keep_recent=50, **kw)
    history, events = [], []
    agent.on_compact = events.append
    agent.ask("Read every Python file in this folder, one at a time", history)
    return agent, history, events


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_without_memory_a_compaction_drops_the_decision_with_memory_it_is_kept(tmp_path):
    plain, history, events = long_job(SubagentsAgent, tmp_path)
    assert events and "64 entries" not in json.dumps(history)
    assert "I see no decision" in plain.ask("What did we decide about the cache?", history)
    kept, history, events = long_job(Agent, tmp_path)
    assert events, "the job must compact for the test to mean anything"
    answer = kept.ask("What did we decide about the cache?", history)
    assert "the cache keeps 64 entries" in answer
    assert "the cache keeps 64 entries" in (kept.memory_dir / "notes.md").read_text()
    assert_api_valid(history)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_after_a_compaction_the_agent_views_its_memory_again(tmp_path):
    agent, history, events = long_job(Agent, tmp_path)
    from s06_compact import read_transcript
    log = read_transcript(agent.transcript.path)
    views = [b for m in log if m["role"] == "assistant" for b in m["content"]
             if b.get("type") == "tool_use" and b["name"] == "memory" and b["input"] == {"command": "view",
                                                                                           "path": "/memories"}]
    reminders = [m for m in log if m["role"] == "user" and isinstance(m["content"], list)
                 and any(b.get("text") == REMINDER for b in m["content"])]
    assert reminders and len(views) >= 1 + 1  # the first look, and once more after a compaction
    # the job goes on to its end after each compaction: no summary takes a reminder for the user's request
    assert parse_tasks((agent.memory_dir / "tasks.md").read_text()) == [(f"app_{i:02d}.py", True) for i in range(1, 13)]
    summaries = [b["text"] for m in log if m["role"] == "user" and isinstance(m["content"], list)
                 for b in m["content"] if b.get("type") == "text" and b["text"].startswith("[Summary]")]
    assert summaries and not any(REMINDER in s for s in summaries)


def test_a_full_memory_is_consolidated_by_the_model(client, tmp_path):
    ws = make_workspace(tmp_path / "ws", files=6, lines=5)
    for i in range(1, 7):
        p = ws / f"app_{i:02d}.py"
        p.write_text(p.read_text() + f"# Decision: module {i} keeps its buffer at {i * 8} items, "
                     "after the load test of week 3, reviewed by the whole team.\n")
    agent = Agent(client, workspace=ws, approve=always_approve, memory_max_chars=400)
    agent.ask("Read every Python file in this folder, one at a time", [])
    notes = (agent.memory_dir / "notes.md").read_text()
    assert len(notes) <= 400 and "module 1 keeps its buffer at 8 items" in notes
    log = json.dumps([m for m in __import__("s06_compact").read_transcript(agent.transcript.path)])
    assert "memory is full" in log and "consolidating notes.md" in log


def test_remember_without_a_memory_tool_says_it_may_be_lost(client, tmp_path):
    ws = make_workspace(tmp_path / "ws", files=1, lines=3)
    answer = SubagentsAgent(client, workspace=ws).ask("Remember: the port is 8080", [])
    assert "no memory tool" in answer and "the port is 8080" in answer
    agent = Agent(client, workspace=ws)
    answer = agent.ask("Remember: the port is 8080", [])
    assert "Noted in /memories/notes.md: the port is 8080" in answer
    fresh = Agent(client, workspace=ws)  # a new session: same folder, empty history
    assert "the port is 8080" in fresh.ask("What did we decide about the port?", [])


def test_the_model_keeps_its_task_list_in_memory_and_ticks_each_file(client, tmp_path):
    ws = make_workspace(tmp_path / "ws", files=5, lines=5)
    agent = Agent(client, workspace=ws, approve=always_approve)
    agent.ask("Read every Python file in this folder, one at a time", [])
    tasks = parse_tasks((agent.memory_dir / "tasks.md").read_text())
    assert tasks == [(f"app_{i:02d}.py", True) for i in range(1, 6)]
    log = [b["input"] for m in __import__("s06_compact").read_transcript(agent.transcript.path)
           if m["role"] == "assistant" for b in m["content"] if b.get("type") == "tool_use" and b["name"] == "memory"]
    ticks = [c for c in log if c["command"] == "str_replace" and c["path"] == "/memories/tasks.md"]
    assert len(ticks) == 4  # app_01.py was read before the list was written: it starts ticked


@pytest.mark.parametrize("request_text, fact", [("Remember: the port is 8080", "the port is 8080"),
                                                ("Note that the cache is cold.", "the cache is cold"),
                                                ("notes.txt 有多少行？", None), ("Notebook cells, please", None),
                                                ("Count the lines of notes.md", None)])
def test_a_remember_request_is_told_from_a_file_named_notes(request_text, fact):
    from offline.agent.notes import remembered
    assert remembered(request_text) == fact


def test_the_exercise_rejects_held_out_answers_each_told_why():
    """Held out: the real path compared with the root as text (mem-old beside mem passed), no NUL check (its
    ValueError escaped the memory tool) and /memories itself refused all passed 9/9, or were told nothing."""
    from pathlib import Path

    from lessonkit.exercises.s10_memory import exercise
    from s01_loop import ToolError

    def answer(compare="parts", nul=True, root_ok=True):
        def memory_path(root, path):
            if not (path.startswith("/memories/") or (root_ok and path == "/memories")):
                raise ToolError("not a memory path")
            if nul and "\x00" in path:
                raise ToolError("NUL")
            top = os.path.realpath(root)
            real = os.path.realpath(os.path.join(top, path[len("/memories"):].lstrip("/")))
            inside = real.startswith(top) if compare == "text" else real == top or real.startswith(top + os.sep)
            if not inside:
                raise ToolError("outside")
            return Path(real)
        return memory_path

    assert exercise.check(answer())
    for wrong, case, says in [
        (answer(compare="text"), "a folder beside the memory, named like it",
         "mem-old is beside the memory, and its name starts with the memory folder's: compare path parts"),
        (answer(nul=False), "a name with a NUL character", "raised ValueError: embedded null byte: refuse with "
                                                          "ToolError, which the memory tool turns into an error"),
        (answer(root_ok=False), "the memory folder", "/memories itself is the memory folder"),
    ]:
        failures = dict(exercise.check(wrong).failures)
        assert set(failures) == {case} and says in failures[case], failures


@pytest.mark.parametrize("path, says", [
    ("/memories/" + "a" * 300, "is too long: a name may have 255 bytes"),
    ("/memories/" + "d/" * 2500 + "x.md", "is too long"),
    ("/memories/" + "笔" * 90 + ".md", "is too long"),                   # 272 bytes in UTF-8, 93 characters
    ("/memories/a\x00b.md", "contains a NUL character"),
    ("/memories/notes.md/x.md", "/memories/notes.md is a file, so it cannot hold /memories/notes.md/x.md"),
])
def test_a_path_the_file_system_cannot_take_is_refused_in_memory_words(tmp_path, path, says):
    """Held out: a 300-byte name, a deep path and a name under a file raised OSError through the tool,
    and the model read the memory folder's real path; a NUL was called 'outside /memories'."""
    s = store(tmp_path)
    s.run({"command": "create", "path": "/memories/notes.md", "file_text": "- a\n"})
    with pytest.raises(ToolError) as caught:
        s.run({"command": "create", "path": path, "file_text": "x"})
    assert says in str(caught.value) and str(tmp_path) not in str(caught.value), caught.value
    assert "outside" not in str(caught.value)
    with pytest.raises(ToolError, match="is a file, so it cannot hold"):
        s.run({"command": "rename", "old_path": "/memories/notes.md", "new_path": "/memories/notes.md/y.md"})


def test_a_symlink_put_in_the_memory_by_a_command_is_never_read_nor_counted(tmp_path):
    """Without the OS sandbox an approved command can link a file into the memory folder: view listed
    the outside file with its size, and size() counted it, so one link to a big file kept the memory
    'full' for good. A link is now never one of the memory's files (with the sandbox, the command cannot
    make it: the folder is mounted read-only for every command)."""
    s = store(tmp_path)
    (tmp_path / "big.txt").write_text("x" * 50_000)
    os.symlink(tmp_path / "big.txt", s.root / "big.md")
    os.symlink(s.root / "link" / "secret.txt", s.root / "s.md")
    assert "Created /memories/notes.md" in s.run({"command": "create", "path": "/memories/notes.md", "file_text": "a\n"})
    listed = s.run({"command": "view", "path": "/memories"})
    assert "/memories/big.md" not in listed and "/memories/s.md" not in listed and "50,000" not in listed
    assert s.size() == 2
    for path in ("/memories/big.md", "/memories/s.md"):
        with pytest.raises(ToolError, match="outside /memories"):
            s.run({"command": "view", "path": path})
    (s.root / "bin.md").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ToolError, match="memory view: a file it reads is not UTF-8 text"):
        s.run({"command": "view", "path": "/memories/bin.md"})


def test_a_command_cannot_change_the_memory_folder_under_the_sandbox(tmp_path):
    """Bash, even approved, writes no link, hard link or file into the memory folder, nor moves it."""
    from offline import OfflineModel, offline_client

    ws = make_workspace(tmp_path / "ws", files=1, lines=3)
    (tmp_path / "outside.txt").write_text("outside\n")
    agent = Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws, approve=always_approve)
    if not agent.sandboxed()[0]:
        pytest.skip("no OS sandbox here: " + agent.sandboxed()[1])
    agent.memory.run({"command": "create", "path": "/memories/notes.md", "file_text": "- a\n"})
    before = listing(agent.memory_dir)
    for command in (f"ln -s {tmp_path} .memories/out", f"ln {tmp_path}/outside.txt .memories/h.md",
                    "echo x > .memories/new.md", "mv .memories m2", "rm -rf .memories/notes.md"):
        agent.run_tool({"type": "tool_use", "id": "toolu_b", "name": "bash", "input": {"command": command}})
    assert listing(agent.memory_dir) == before and (agent.memory_dir / "notes.md").read_text() == "- a\n"


@pytest.mark.parametrize("question", ["What do you remember?", "What's in your memory?", "what have you noted so far",
                                      "Tell me what you remember about the style", "你记得什么？", "你的记忆里有什么？"])
def test_asked_what_it_remembers_the_model_answers_from_its_memory(client, tmp_path, question):
    """"What do you remember?" in the stage about memory was answered "I cannot do that offline"."""
    ws = make_workspace(tmp_path / "ws", files=1, lines=3)
    Agent(client, workspace=ws).ask("Remember that we prefer tabs over spaces", [])
    answer = Agent(client, workspace=ws).ask(question, [])   # a new session: only the memory has it
    assert "we prefer tabs over spaces" in answer and "offline:" not in answer, answer


@pytest.mark.parametrize("make", [SubagentsAgent, Agent])
def test_an_answer_never_calls_the_subagent_or_memory_tool_unknown(client, tmp_path, make):
    """The offline model delegates through `task` and keeps notes through `memory`: it must not say it does not
    know how to use them offline."""
    ws = make_workspace(tmp_path / "ws", files=1, lines=3)
    agent, history = make(client, workspace=ws), []
    answers = [agent.ask(text, history) for text in ("Write me a poem about autumn", "What have we done so far?")]
    assert all("do not know how to use" not in a for a in answers), answers
