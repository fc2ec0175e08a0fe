"""The raw-log readers: each format read from a small file the test writes; bad input named by file and line."""

from __future__ import annotations

import json

import pytest

from arena.sessions.folders import load_trace, load_traces
from arena.sessions.readers import ReaderError, detect, read
from tests.strategies import assert_api_valid


def jsonl(path, lines) -> None:
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")


def usage(read_, write=0, fresh=2, out=5) -> dict:
    return {"input_tokens": fresh, "cache_creation_input_tokens": write, "cache_read_input_tokens": read_,
            "output_tokens": out}


def claude_session() -> list:
    """A Claude Code session: split response lines, a sidechain, progress noise, one compaction."""
    line = lambda kind, content, **extra: {"type": kind, "uuid": "u", "sessionId": "s",  # noqa: E731
                                           "message": {"role": kind, "content": content, **extra.pop("m", {})},
                                           **extra}
    return [
        {"type": "summary", "summary": "a title line"},
        line("user", "Fix the bug in src/app.py"),
        line("assistant", [{"type": "thinking", "thinking": "hmm"}], m={"id": "m1", "usage": usage(1000, 3000)}),
        line("assistant", [{"type": "text", "text": "Reading it."}], m={"id": "m1", "usage": usage(1000, 3000)}),
        line("assistant", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "src/app.py"}}],
             m={"id": "m1", "usage": usage(1000, 3000)}),
        line("assistant", [{"type": "tool_use", "id": "side1", "name": "Bash", "input": {"command": "ls"}}],
             isSidechain=True, m={"id": "m9"}),
        {"type": "progress", "data": {"type": "agent_progress"}},
        line("user", [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "x = 1"}]}]),
        line("assistant", [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "pytest"}}],
             m={"id": "m2", "usage": usage(4000, 300)}),
        line("user", [{"type": "tool_result", "tool_use_id": "t2", "content": "1 failed", "is_error": True}]),
        {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"trigger": "auto", "preTokens": 4400}},
        line("user", "This session is being continued from a previous conversation. Summary: app.py fails.",
             isCompactSummary=True),
        line("assistant", [{"type": "text", "text": "Fixed."}], m={"id": "m3", "usage": usage(1000, 200)}),
    ]


def test_a_claude_code_session_keeps_the_main_chain_its_usage_and_its_compaction(tmp_path):
    path = tmp_path / "abc-123.jsonl"
    jsonl(path, claude_session())
    assert detect(path) == "claude-code"
    session = read(path)
    assert_api_valid(session.messages)
    assert [m["role"] for m in session.messages] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert session.messages[1]["content"][0] == {"type": "text", "text": "Reading it."}   # lines merged
    assert "side1" not in json.dumps(session.messages)                                    # sidechain dropped
    assert [u["cache_read_input_tokens"] for u in session.usage] == [1000, 4000, 1000]
    assert len(session.recorded) == 1 and session.recorded[0][1].startswith("This session is being continued")
    assert any("sidechain" in n for n in session.notes) and any("thinking" in n for n in session.notes)
    assert session.messages[4]["content"][0]["is_error"] is True


def test_agent_sdk_stream_json_takes_the_prompt_beside_it_and_the_tool_names(tmp_path):
    lines = [{"type": "system", "subtype": "init", "tools": ["Bash", "Read", "Write"], "model": "claude-x"},
             {"type": "assistant", "parent_tool_use_id": None, "message": {"id": "m1", "content": [
                 {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}], "usage": usage(0, 900)}},
             {"type": "user", "parent_tool_use_id": None, "message": {"content": [
                 {"type": "tool_result", "tool_use_id": "t1", "content": "a.py"}]}},
             {"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": "Done"}]}},
             {"type": "result", "total_cost_usd": 0.5, "num_turns": 2}]
    jsonl(tmp_path / "run.jsonl", lines)
    (tmp_path / "prompt.txt").write_text("List the files", encoding="utf-8")
    session = load_trace(tmp_path / "run.jsonl")
    assert session.messages[0]["content"][0]["text"] == "List the files"
    assert {t["name"] for t in session.tools} == {"Bash", "Read", "Write"}
    assert session.logged["cost_usd"] == 0.5 and session.usage[1] is None
    (tmp_path / "prompt.txt").unlink()
    assert "not recorded" in read(tmp_path / "run.jsonl").messages[0]["content"][0]["text"]


def codex_log(output: str) -> list:
    return [{"type": "thread.started", "thread_id": "th"}, {"type": "turn.started"},
            {"type": "item.started", "item": {"id": "i0", "type": "todo_list", "items": [{"text": "a"}]}},
            {"type": "item.completed", "item": {"id": "i1", "type": "agent_message", "text": "Running tests"}},
            {"type": "item.started", "item": {"id": "i2", "type": "command_execution", "command": "npm test"}},
            {"type": "item.completed", "item": {"id": "i2", "type": "command_execution", "command": "npm test",
                                                "aggregated_output": output, "exit_code": 1, "status": "failed"}},
            {"type": "item.completed", "item": {"id": "i3", "type": "file_change", "status": "completed",
                                                "changes": [{"path": "a.ts", "kind": "update"}]}},
            {"type": "item.completed", "item": {"id": "i4", "type": "reasoning", "text": "..."}},
            {"type": "turn.completed", "usage": {"input_tokens": 5000, "cached_input_tokens": 4000,
                                                 "output_tokens": 70}}]


def test_codex_exec_json_is_cut_as_codex_cut_it_unless_told_not_to(tmp_path):
    output = "".join(f"test line {k}\n" for k in range(2_000))
    jsonl(tmp_path / "codex.jsonl", codex_log(output))
    session = read(tmp_path / "codex.jsonl")
    assert_api_valid(session.messages)
    names = [b["name"] for m in session.messages if m["role"] == "assistant" for b in m["content"]
             if b["type"] == "tool_use"]
    assert names == ["update_plan", "shell", "apply_patch"]
    result = session.messages[4]["content"][0]
    assert result["is_error"] and result["content"].endswith("[exit_code: 1]")
    assert len(result["content"].encode()) < 10 * 1024 + 200 and "omitted" in result["content"]
    assert "test line 0\n" in result["content"] and "test line 1999" in result["content"]   # head and tail
    full = read(tmp_path / "codex.jsonl", truncate=False)
    assert output.strip() in full.messages[4]["content"][0]["content"]
    assert session.logged["input_tokens"] == 5000 and any("reasoning" in n for n in session.notes)


def test_mini_swe_agent_v2_and_v1_keep_the_system_prompt_and_the_exit_output(tmp_path):
    v2 = {"info": {"exit_status": "Submitted", "config": {"model": {"model_name": "m"}}}, "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Fix django"},
        {"role": "assistant", "content": "look", "tool_calls": [
            {"id": "c1", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "setup.py"},
        {"role": "assistant", "content": "submit", "tool_calls": [
            {"id": "c2", "function": {"name": "bash", "arguments": "{\"command\": \"submit\"}"}}]},
        {"role": "exit", "content": "diff --git a/x b/x"}]}
    (tmp_path / "run.traj.json").write_text(json.dumps(v2), encoding="utf-8")
    session = load_trace(tmp_path / "run.traj.json")
    assert session.system == "You are a helpful assistant." and session.name == "run"
    assert session.messages[-1]["content"][0]["content"] == "diff --git a/x b/x"
    v1 = {"info": {}, "messages": [{"role": "user", "content": "task"},
                                   {"role": "assistant", "content": "Let me see\n```bash\nls -la\n```"},
                                   {"role": "user", "content": "total 0"},
                                   {"role": "assistant", "content": "done"}]}
    (tmp_path / "old.traj.json").write_text(json.dumps(v1), encoding="utf-8")
    old = read(tmp_path / "old.traj.json")
    assert old.messages[1]["content"][-1]["input"] == {"command": "ls -la"}
    assert old.messages[2]["content"][0]["content"] == "total 0"


def test_an_openhands_completion_keeps_its_tools_as_anthropic_schemas(tmp_path):
    call = {"messages": [{"role": "system", "content": [{"type": "text", "text": "You are OpenHands."}]},
                         {"role": "user", "content": [{"type": "text", "text": "Fix it"}]},
                         {"role": "assistant", "content": "", "tool_calls": [
                             {"id": "call_1", "type": "function",
                              "function": {"name": "execute_bash", "arguments": "{\"command\": \"ls\"}"}}]},
                         {"role": "tool", "tool_call_id": "call_1", "content": "README.md"}],
            "response": {"choices": [], "usage": {"prompt_tokens": 1234}},
            "kwargs": {"tools": [{"type": "function", "function": {
                "name": "execute_bash", "description": "Run bash",
                "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}}]}}
    (tmp_path / "completion.json").write_text(json.dumps(call), encoding="utf-8")
    session = load_trace(tmp_path / "completion.json")
    assert session.system == "You are OpenHands."
    assert session.tools[0]["name"] == "execute_bash" and session.tools[0]["input_schema"]["properties"]
    assert session.messages[1]["content"][0]["input"] == {"command": "ls"}


@pytest.mark.parametrize("name,text,expected", [
    ("bad.jsonl", '{"type": "user", "message": {"content": "hi"}}\n{"type": "assistant", oops\n', "bad.jsonl:2: not a JSON line"),
    ("nomsg.jsonl", '{"type": "user", "message": {"content": "hi"}}\n{"type": "assistant"}\n',
     "nomsg.jsonl:2: a assistant line without a 'message' object"),
    ("what.jsonl", '{"type": "weird"}\n', "what.jsonl:1: not a log format the arena reads"),
    ("cx.jsonl", '{"type": "thread.started"}\n{"type": "item.completed", "item": 3}\n', "cx.jsonl:2: an item.completed"),
    ("traj.traj.json", '{"info": {}, "messages": [{"content": "no role"}]}', "traj.traj.json: message 0"),
])
def test_what_a_reader_cannot_parse_is_refused_naming_the_file_and_line(tmp_path, name, text, expected):
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ReaderError) as caught:
        load_trace(tmp_path / name)
    assert str(caught.value).startswith(expected) and "\n" not in str(caught.value)
    sessions, skipped = load_traces(tmp_path)
    assert not sessions and skipped[0][1].startswith(expected)
