"""The summariser: three input shapes, content from the input, rolling summaries, limits, speed.

Summaries are asked for through the real SDK, the way the stages ask (no tools). A Messages
history with tool blocks is sent with its tools and `tool_choice: none`, as the API requires tools
whenever the history holds tool blocks (and as a compacting client such as Claude Code sends them).
"""

from __future__ import annotations

import json
import re

import pytest

from lessonkit import tokens
from offline import OfflineModel, offline_client
from offline.answers.sections import SECTIONS
from offline.answers.summarize import is_summary_request
from offline.conversation.calls import listing

SEED_INSTRUCTION = ("以下是一段 Agent 的对话记录。请生成一份结构化摘要，包含：\n1. 用户请求  2. 技术概念  3. 文件和代码\n"
                    "4. 错误和修复  5. 待完成任务  6. 当前工作\n\n先在 <analysis> 中梳理思路，再在 <summary> 中给出最终摘要。\n\n")


def use(i, name, **inp):
    return {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": inp}


def result(i, text, error=False):
    return {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": text, **({"is_error": True} if error else {})}


def session(path="src/app.py", command="python -m pytest -q", error="NameError: name 'total' is not defined"):
    """A small test-and-fix session: read, run (fails), edit, run (passes), then more to do."""
    return [
        {"role": "user", "content": f"Fix the failing tests in {path}"},
        {"role": "assistant", "content": [{"type": "text", "text": "Reading it first."}, use(1, "read_file", path=path)]},
        {"role": "user", "content": [result(1, "def add(a, b):\n    return total\n\nclass Report:\n    pass\n")]},
        {"role": "assistant", "content": [use(2, "bash", command=command)]},
        {"role": "user", "content": [result(2, f"Traceback (most recent call last):\n  ...\n{error}\n[exit code 1]", True)]},
        {"role": "assistant", "content": [use(3, "edit_file", path=path, old_text="total", new_text="a + b")]},
        {"role": "user", "content": [result(3, "edited")]},
        {"role": "assistant", "content": [use(4, "bash", command=command)]},
        {"role": "user", "content": [result(4, "2 passed in 0.01s")]},
        {"role": "assistant", "content": [{"type": "text", "text": "The tests pass. Next: the docs (1/2)."}]},
        {"role": "user", "content": "Now update README.md with the new API"},
    ]


NO_TOOL_CALLS = {"tools": [{"name": name, "input_schema": {"type": "object"}}
                           for name in ("read_file", "bash", "edit_file", "list_dir")],
                 "tool_choice": {"type": "none"}}


def summarize(client, messages, max_tokens=2000):
    uses_tools = any(isinstance(m["content"], list) and any(b.get("type") == "tool_use" for b in m["content"])
                     for m in messages)
    r = client.messages.create(model="offline", max_tokens=max_tokens, messages=messages,
                               **(NO_TOOL_CALLS if uses_tools else {}))
    assert r.stop_reason == "end_turn" and r.usage.output_tokens <= max_tokens
    return r.content[0].text


def sections(text):
    """{section: [bullets]} of a summary."""
    out, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^\d\. ([A-Za-z ]+):$", line)
        if m:
            current = out.setdefault(m.group(1), [])
        elif current is not None and line.startswith("- "):
            current.append(line[2:])
    return out


def as_history_plus_instruction(messages):
    """The history, and the instruction as one more user text (Claude Code's way)."""
    instruction = {"type": "text", "text": "Summarize the conversation so far in six sections."}
    if messages[-1]["role"] == "assistant":
        return messages + [{"role": "user", "content": [instruction]}]
    last = messages[-1]["content"]
    last = [{"type": "text", "text": last}] if isinstance(last, str) else last
    return messages[:-1] + [{"role": "user", "content": last + [instruction]}]


def as_seed_dump(messages, limit=80_000):
    return [{"role": "user", "content": SEED_INSTRUCTION + json.dumps(messages, default=str)[:limit]}]


def as_labelled_lines(messages, previous=None):
    lines = []
    for m in messages:
        blocks = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        lines.append(f"{m['role'].upper()}: " + " ".join(b["text"] for b in blocks if b["type"] == "text"))
        calls = [f"{b['name']}({', '.join(f'{k}={json.dumps(v)}' for k, v in b['input'].items())})"
                 for b in blocks if b["type"] == "tool_use"]
        results = [("error: " if b.get("is_error") else "") + " ".join(b["content"].split())[:100]
                   for b in blocks if b["type"] == "tool_result"]
        if calls:
            lines.append(f"  [Tool Calls: {', '.join(calls)}]")
        if results:
            lines.append(f"  [Tool Results: {', '.join(results)}]")
    text = "You are a conversation summarizer. Your task is to create a concise summary.\n\n"
    if previous:
        text += (f"## Previous Summary\n{previous}\n\nIncorporate the above previous summary with the new "
                 "messages below into a single updated summary.\n\n")
    return [{"role": "user", "content": text + "## Messages to Summarize\n\n" + "\n".join(lines) + "\n"}]


SHAPES = {"history": as_history_plus_instruction, "seed_dump": as_seed_dump, "labelled": as_labelled_lines}


@pytest.mark.parametrize("shape", SHAPES)
def test_each_shape_gives_the_six_sections_with_what_happened(client, shape):
    text = summarize(client, SHAPES[shape](session()))
    found = sections(text)
    assert list(found) == list(SECTIONS)
    assert found["User requests"] == ["Fix the failing tests in src/app.py", "Now update README.md with the new API"]
    assert any(line.startswith("src/app.py: read") and "edited" in line for line in found["Files and code"])
    assert any("python -m pytest -q" in line for line in found["Technical concepts"])
    error = next(line for line in found["Errors and fixes"])
    assert "NameError: name 'total' is not defined" in error and "python -m pytest -q" in error
    assert "fixed by editing src/app.py" in error or "a later run succeeded" in error
    assert found["Pending tasks"] == ["finish: Now update README.md with the new API"]


def test_the_history_shape_names_what_a_read_file_defines_and_tags_when_asked(client):
    text = summarize(client, session() + [{"role": "assistant", "content": "ok"}, {
        "role": "user", "content": "Summarize this conversation. Think in <analysis>, answer in <summary>."}])
    assert text.startswith("<analysis>") and "<summary>" in text and text.endswith("</summary>")
    assert "src/app.py: read, edited, 5 lines, defines add, Report" in text


@pytest.mark.parametrize("shape", SHAPES)
def test_different_conversations_give_different_summaries(client, shape):
    a = summarize(client, SHAPES[shape](session()))
    b = summarize(client, SHAPES[shape](session("lib/calc.py", "make test", "KeyError: 'rate'")))
    assert a != b and a == summarize(client, SHAPES[shape](session()))
    assert "lib/calc.py" in b and "make test" in b and "KeyError: 'rate'" in b
    assert "src/app.py" not in b and "NameError" not in b


def test_a_seed_dump_cut_mid_message_keeps_what_came_before_the_cut(client):
    messages = session()
    big = "log line\n" * 12_000  # ~100 KB: the 80,000-character cut falls inside this result
    messages[8] = {"role": "user", "content": [result(4, "2 passed\n" + big)]}
    dump = json.dumps(messages, default=str)
    assert len(dump) > 80_000 and dump.index('"toolu_4"') < 80_000
    text = summarize(client, as_seed_dump(messages))
    assert "Fix the failing tests in src/app.py" in text and "NameError" in text
    assert "last tool call: bash `python -m pytest -q`" in text  # the cut result still answers toolu_4
    assert "README.md" not in text  # the request after the cut never reached the model


def test_a_seed_dump_of_sdk_objects_reads_their_reprs(client):
    reprs = [{"role": "user", "content": "Run the tests"},
             {"role": "assistant", "content": ["TextBlock(citations=None, text='Running them.', type='text')",
                                               ("ToolUseBlock(id='toolu_9', caller=DirectCaller(type='direct'), "
                                                "input={'command': 'pytest -x'}, name='bash', type='tool_use')")]},
             {"role": "user", "content": [result(9, "FAILED test_a.py::test_one - AssertionError")]}]
    text = summarize(client, as_seed_dump(reprs))
    assert "`pytest -x`: FAILED test_a.py::test_one - AssertionError -> not fixed yet" in text
    assert "last said: Running them." in text


def test_a_rolling_summary_keeps_the_previous_summarys_facts(client):
    first = summarize(client, as_labelled_lines(session()[:9]))
    later = [{"role": "user", "content": "Add a docstring to lib/util.py"},
             {"role": "assistant", "content": [use(7, "write_file", path="lib/util.py", content='"""Util."""')]},
             {"role": "user", "content": [result(7, "wrote 12 characters")]}]
    second = sections(summarize(client, as_labelled_lines(later, previous=first)))
    assert second["User requests"] == ["Fix the failing tests in src/app.py", "Add a docstring to lib/util.py"]
    assert any(line.startswith("src/app.py: read") for line in second["Files and code"])
    assert "lib/util.py: written" in second["Files and code"]
    assert any("NameError" in line for line in second["Errors and fixes"])
    assert any(re.search(r"read_file x1.*write_file x1|write_file x1.*read_file x1", line)
               for line in second["Technical concepts"])
    assert all("(none)" not in line for lines in second.values() for line in lines)


def test_a_compacted_history_is_merged_into_the_next_summary(client):
    first = summarize(client, as_history_plus_instruction(session()))
    compacted = [{"role": "user", "content": f"[Compacted] 11 messages were summarized.\n\n{first}"},
                 {"role": "assistant", "content": [use(8, "read_file", path="README.md")]},
                 {"role": "user", "content": [result(8, "# App\n")]},
                 {"role": "assistant", "content": "Read it."},
                 {"role": "user", "content": "Summarize the conversation."}]
    found = sections(summarize(client, compacted))
    assert found["User requests"][0] == "Fix the failing tests in src/app.py"
    assert {"src/app.py", "README.md"} <= {line.split(": ")[0] for line in found["Files and code"]}


def test_a_listing_folded_onto_one_line_keeps_every_entry(client):
    """s08's prompt folds a result onto one line: "app_01.py app_02.py ..." is a listing of each name.

    Bug: only the line's last word was kept ("listed, 1 entry: app_03.py"), and a plan rebuilt
    from that summary after a snip skipped the other files.
    """
    names = [f"app_{i:02d}.py" for i in range(1, 4)]
    listed = [{"role": "user", "content": "Read every Python file in this folder"},
              {"role": "assistant", "content": [use(1, "list_dir", path=".")]},
              {"role": "user", "content": [result(1, "\n".join(names + ["notes/"]))]}]
    for shape in SHAPES:
        files = sections(summarize(client, SHAPES[shape](listed)))["Files and code"]
        assert f".: listed, 4 entries: {', '.join(names)}, notes/" in files, shape
    ls_long = "total 8\n" + "".join(f"-rw-r--r-- 1 me me 120 Dec  1 12:00 {n}\n" for n in names[:2])
    long = listed[:2] + [{"role": "user", "content": [result(1, ls_long)]}]
    for shape in SHAPES:  # `ls -l` lines, on their own lines or folded: the names, not the columns
        files = sections(summarize(client, SHAPES[shape](long)))["Files and code"]
        assert f".: listed, 2 entries: {', '.join(names[:2])}" in files, shape
    assert [listing(".\n..\na.py"), listing(". .. a.py"), listing("(empty directory)")] == [
        "1 entry: a.py", "1 entry: a.py", "0 entries: "]  # `ls -a`'s . and .., and a tool's note, are no entries


def test_a_plan_in_progress_is_pending_with_its_counter_and_list(client):
    plan = [{"role": "user", "content": "Read every Python file"},
            {"role": "assistant", "content": [{"type": "text", "text": "Found 3 files. Plan: a.py, b.py, c.py. "
                                                                       "Reading a.py (1/3)."}, use(1, "read_file", path="a.py")]},
            {"role": "user", "content": [result(1, "x = 1")]},
            {"role": "assistant", "content": [{"type": "text", "text": "Seen a.py: 1 line: x = 1 (9/9)\nReading b.py (2/3)."},
                                              use(2, "read_file", path="b.py")]},
            {"role": "user", "content": [result(2, "y = 2")]}]
    found = sections(summarize(client, plan + [{"role": "assistant", "content": "Pausing."},
                                              {"role": "user", "content": "Summarize the conversation."}]))
    assert found["Pending tasks"][0] == "plan in progress: (2/3) steps done. Plan: a.py, b.py, c.py."
    assert found["Current work"][0] == "last said: Pausing."


def test_max_tokens_is_respected_and_the_first_and_last_requests_stay(client):
    long = []
    for i in range(60):
        long += [{"role": "user", "content": f"Request number {i}: look at file_{i}.py"},
                 {"role": "assistant", "content": [use(i, "read_file", path=f"file_{i}.py")]},
                 {"role": "user", "content": [result(i, f"def f{i}(): pass")]},
                 {"role": "assistant", "content": f"file_{i}.py defines f{i}."}]
    full = summarize(client, as_history_plus_instruction(long), max_tokens=8000)
    short = summarize(client, as_history_plus_instruction(long), max_tokens=400)
    assert tokens.count_text(short) <= 400 < tokens.count_text(full)
    requests = sections(short)["User requests"]
    assert requests[0] == "Request number 0: look at file_0.py" and requests[-1] == "Request number 59: look at file_59.py"


def test_cjk_conversations_are_summarised(client):
    messages = [{"role": "user", "content": "请读取 配置.py 并修复错误"},
                {"role": "assistant", "content": [use(1, "read_file", path="配置.py")]},
                {"role": "user", "content": [result(1, "错误: 找不到文件", True)]}]
    text = summarize(client, as_seed_dump(messages))
    assert "请读取 配置.py 并修复错误" in text and "错误: 找不到文件" in text and "配置.py" in text


def test_huge_inputs_are_summarised_in_one_pass():
    client = offline_client(OfflineModel(context_window=5_000_000), max_retries=0)
    messages = []
    for i in range(400):  # about 2 MB of tool output, in English and Chinese
        messages += [{"role": "assistant" if messages else "user", "content": "start"}] if not messages else []
        messages += [{"role": "assistant", "content": [use(i, "bash", command=f"cat part_{i}.log")]},
                     {"role": "user", "content": [result(i, f"日志 line {i} ok\n" * 300)]}]
    messages = [{"role": "user", "content": "Analyse the logs"}] + messages[1:]
    text = summarize(client, as_history_plus_instruction(messages))
    assert "Analyse the logs" in text and "bash x400" in text and tokens.count_text(text) <= 2000


def test_what_counts_as_a_summary_request():
    tools = [{"name": "compact", "input_schema": {"type": "object"}}]
    before = [{"role": "user", "content": "Read a.py"}, {"role": "assistant", "content": "Done."}]

    def body(text, with_tools, history=before):
        return {"messages": [*history, {"role": "user", "content": text}], **({"tools": tools} if with_tools else {})}
    assert is_summary_request(body("Summarize the conversation so far", True))
    assert not is_summary_request(body("Please compact the conversation", True))  # a tool call, not a summary
    assert is_summary_request(body("Please compact the conversation", False))
    assert is_summary_request(body("riassumi la conversazione", False))
    assert is_summary_request(body(SEED_INSTRUCTION + "[]", True))  # the history before it
    assert not is_summary_request(body("Read app.py", False))
    assert not is_summary_request(body("Summarize what a context window is", False, history=[]))  # nothing to summarise
    assert is_summary_request(body(SEED_INSTRUCTION + '[{"role": "user", "content": "hi"}]', False, history=[]))


def test_a_fix_is_credited_to_an_edit_of_the_file_the_error_names(client):
    messages = [{"role": "user", "content": "Make the tests pass"},
                {"role": "assistant", "content": [use(1, "Bash", command="npx jest tests/unit/a.test.ts")]},
                {"role": "user", "content": [result(1, "FAIL tests/unit/a.test.ts\nTypeError: x is undefined", True)]},
                {"role": "assistant", "content": [use(2, "Edit", file_path="/ws/proj/tests/unit/a.test.ts",
                                                      old_string="x", new_string="y")]},
                {"role": "user", "content": [result(2, "ok")]},
                {"role": "assistant", "content": "Edited."},
                {"role": "user", "content": "Summarize the conversation."}]
    fixes = sections(summarize(client, messages))["Errors and fixes"]
    assert fixes == [("`npx jest tests/unit/a.test.ts`: TypeError: x is undefined -> "
                      "fixed by editing /ws/proj/tests/unit/a.test.ts")]
