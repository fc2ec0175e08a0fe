"""The offline model in Chinese: a Chinese request gets a Chinese answer, and a Chinese summary.

Driven through the real SDK (the s02 agent on a tmp workspace, the s06 agent with a small
window); each answer is checked for its language and for the real figure it reports.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import s02_tools as s2
from lessonkit.show.demo import make_workspace
from offline import OfflineModel, offline_client
from offline.answers.sections import SECTIONS
from offline.conversation.language import SECTION_ZH, request_language
from s03_permissions import always_approve
from s06_compact import Agent as CompactAgent
from s06_compact import read_transcript
from s06_compact.summary import summary_prompt

CJK = re.compile(r"[\u4e00-\u9fff]")
ENGLISH_HEADS = ("Done", "Wrote", "Ran ", "Listed", "Counted", "Searched", "Stopped", "That did not work",
                 "I cannot do")


def cjk_share(text: str) -> float:
    """CJK characters among the letters of a text, file names and code aside (0.0-1.0)."""
    prose = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"|https?://\S+", " ", text)  # code, quoted text, addresses
    prose = re.sub(r"\b[\w./=-]*[./=_(][\w./=()-]*|\b[A-Z][A-Z0-9_]+\b", " ", prose)  # file names, calls, NAMES
    cjk = len(CJK.findall(prose))
    latin = len(re.findall(r"[A-Za-z]", prose))
    return cjk / max(cjk + latin, 1)


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("第一行\nTODO: 写测试\n第三行\n第四行\n第五行\n第六行\nlast\n", encoding="utf-8")
    (root / "calc.py").write_text('"""A tiny calculator."""\n\n\ndef add(a, b):\n    return a + b\n')
    (root / "more.md").write_text("nothing to do\n")
    return root


def ask(ws, prompt, messages=None):
    agent = s2.Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws)
    return agent.ask(prompt, [] if messages is None else messages)


def assert_chinese(answer: str) -> None:
    assert request_language(answer) == "zh" and cjk_share(answer) >= 0.6, answer
    assert not answer.startswith(ENGLISH_HEADS), answer


# ---------------------------------------------------------------- the rule

@pytest.mark.parametrize("text, expected", [
    ("统计 a.py 的行数", "zh"), ("创建文件 hello.py，打印 Hello, World!", "zh"), ("哪些文件提到了 TODO？", "zh"),
    ("What does 压缩 mean?", "en"), ("Count the lines in a.py", "en"), ("", "en"),
    ("运行 `python3 -m pytest -q tests/test_a.py`", "zh"),  # code spans do not count
])
def test_the_answer_language_is_the_request_language(text, expected):
    assert request_language(text) == expected


# ---------------------------------------------------------------- grammar entries, answered in Chinese

def test_create_a_file_that_prints(ws):
    answer = ask(ws, "创建文件 hello.py，打印 你好，世界")
    done = subprocess.run([sys.executable, "hello.py"], cwd=ws, capture_output=True, text=True, check=False)
    assert done.stdout == "你好，世界\n"
    assert_chinese(answer)
    assert answer.startswith("已写入 hello.py。") and "hello.py：已写入，1 行" in answer


def test_run_reports_the_real_output(ws):
    (ws / "hello.py").write_text('print("hi there")\nprint("second")\n')
    answer = ask(ws, "运行 `python3 hello.py`")
    assert answer.startswith("运行了 1 条命令。"), answer
    assert "hi there" in answer and "second" in answer  # the real output, verbatim
    assert_chinese(answer.splitlines()[0])


@pytest.mark.parametrize("prompt", ["统计 notes.txt 的行数", "notes.txt 有多少行？"])
def test_a_line_count_is_the_real_one(ws, prompt):
    real = len((ws / "notes.txt").read_text(encoding="utf-8").splitlines())
    answer = ask(ws, prompt)
    assert_chinese(answer)
    assert f"notes.txt 共有 {real} 行。" in answer and real == 7


def test_list_names_every_file(ws):
    answer = ask(ws, "列出文件")
    assert_chinese(answer)
    assert "calc.py" in answer and "more.md" in answer and "notes.txt" in answer and "共 3 项" in answer


def test_which_files_mention_a_text(ws):
    answer = ask(ws, "哪些文件提到了 TODO？")
    assert_chinese(answer)
    assert "有 1 个文件提到了 'TODO'：notes.txt" in answer
    answer = ask(ws, "哪些文件提到了 不存在的词？")
    assert "没有文件提到" in answer and "没有成功" not in answer


def test_a_failed_run_says_so_in_chinese_with_the_real_exit_code(ws):
    (ws / "bad.py").write_text("import sys\nsys.exit(3)\n")
    answer = ask(ws, "运行 `python3 bad.py`")
    assert answer.startswith("没有成功。") and "退出码 3" in answer, answer


def test_outside_the_grammar_the_honest_answer_is_in_chinese(ws):
    before = sorted(p.name for p in ws.iterdir())
    answer = ask(ws, "帮我写一首关于上下文窗口的诗")
    assert sorted(p.name for p in ws.iterdir()) == before  # nothing was run
    assert_chinese(answer)
    assert "离线" in answer and "LESSONS_BACKEND=anthropic" in answer and "ANTHROPIC_BASE_URL" in answer
    assert "帮我写一首关于上下文窗口的诗" in answer  # it says what it cannot do


def test_an_english_request_is_still_answered_in_english(ws):
    answer = ask(ws, "How many lines are in notes.txt?")
    assert answer.startswith("Counted.") and "notes.txt has 7 lines." in answer and not CJK.search(
        answer.replace("notes.txt", ""))


# ---------------------------------------------------------------- the summary in Chinese

def test_a_chinese_conversation_gets_a_chinese_summary_with_the_six_sections(ws):
    client = offline_client(OfflineModel(), max_retries=0)
    history = []
    s2.Agent(client, workspace=ws).ask("统计 notes.txt 的行数", history)
    request = [{"role": "user", "content": summary_prompt(history)}]  # the s06 prompt: in English
    reply = client.messages.create(model="offline", max_tokens=2_000, messages=request)
    text = reply.content[0].text
    body = text.split("<summary>")[-1].split("</summary>")[0]
    headings = re.findall(r"^(\d)\. (.+?)：$", body, re.MULTILINE)
    assert headings == [(str(i), SECTION_ZH[name]) for i, name in enumerate(SECTIONS, 1)], text
    assert "- 统计 notes.txt 的行数" in body  # the request, verbatim
    assert "使用的工具：" in body and "这段对话有 1 个用户请求" in text
    assert cjk_share(re.sub(r"^- .*$", "", body, flags=re.MULTILINE)) > 0.9  # headings and phrases


def test_a_compacted_chinese_plan_finishes_reading_each_file_once(tmp_path):
    ws = make_workspace(tmp_path / "ws", files=12, lines=60)
    model = OfflineModel(context_window=6_000)
    client = offline_client(model, max_retries=0)
    compactions, history = [], []
    agent = CompactAgent(client, workspace=ws, threshold=3_000, transcript_dir=ws / ".tr",
                         approve=always_approve,
                         on_event=lambda kind, data: compactions.append(data["layer"]) if kind == "compact" else None)
    answer = agent.ask("读取这个文件夹里的每个 Python 文件，一次一个", history)
    assert "auto" in compactions  # the plan went through a summary
    assert "[Compacted]" in history[0]["content"] and "待办任务" in history[0]["content"]
    assert answer.startswith("已读取 12 个 .py 文件。"), answer
    assert all(f"app_{i:02d}.py" in answer for i in range(1, 13))
    assert_chinese(answer.splitlines()[0])
    reads = [b["input"]["path"] for m in read_transcript(agent.transcript.path) if m["role"] == "assistant"
             for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use" and b["name"] == "read_file"]
    assert sorted(reads) == sorted(set(reads)) and len(reads) == 12, reads  # each file once


# ---------------------------------------------------------------- answers in words

@pytest.mark.parametrize("question, term", [("什么是上下文窗口？", "上下文窗口"), ("微压缩是什么意思？", "微压缩")])
def test_a_chinese_question_about_a_term_gets_the_chinese_definition(question, term):
    client = offline_client(OfflineModel(), max_retries=0)
    reply = client.messages.create(model="offline", max_tokens=500, messages=[{"role": "user", "content": question}])
    answer = reply.content[0].text
    assert answer.startswith(f"简单地说，{term}") and "只能用文字回答" in answer
    assert_chinese(answer)


@pytest.mark.parametrize("prompt", ["用一个子代理数一下 calc.py 的行数", "让子代理数一下 calc.py 的行数",
                                    "数一下 calc.py 的行数，交给子代理去做"])
def test_a_chinese_request_for_a_subagent_delegates(ws, prompt):
    """Held out: only "用子代理…" delegated; "用一个子代理…" got the refusal 'I cannot do … offline'."""
    from s09_subagents import Agent as SubagentsAgent

    agent = SubagentsAgent(offline_client(OfflineModel(), max_retries=0), workspace=ws, approve=always_approve)
    history = []
    answer = agent.ask(prompt, history)
    calls = [b for m in history if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"]
    assert [c["name"] for c in calls] == ["task"] and calls[0]["input"]["prompt"] == "数一下 calc.py 的行数"
    lines = (ws / "calc.py").read_text(encoding="utf-8").count("\n")
    report = answer.rsplit("\n[subagent:", 1)[0]  # the footer is the task tool's own line, for the model
    assert len(agent.subagents) == 1 and f"{lines} 行" in report and cjk_share(report) > 0.5, answer
    said = [b["text"] for m in history if m["role"] == "assistant" for b in m["content"] if b["type"] == "text"]
    assert said[0].startswith("交给子代理："), said


@pytest.mark.parametrize("question", ["我们对缓存做了什么决定？", "关于缓存，我们是怎么决定的？", "缓存的决定是什么？"])
def test_a_chinese_question_about_a_decision_is_answered_from_memory(ws, question):
    """Held out: only "决定了什么" was a question; "我们对缓存做了什么决定？" got 'so far: 1 request'."""
    from s10_memory import Agent as MemoryAgent

    agent = MemoryAgent(offline_client(OfflineModel(), max_retries=0), workspace=ws, approve=always_approve)
    history = []
    assert "缓存保留 64 个条目" in agent.ask("记下来：缓存保留 64 个条目", history)
    answer = agent.ask(question, history)
    assert "缓存保留 64 个条目" in answer and "请求" not in answer, answer
    fresh = MemoryAgent(offline_client(OfflineModel(), max_retries=0), workspace=ws, approve=always_approve)
    assert "缓存保留 64 个条目" in fresh.ask(question, [])  # a new conversation reads it back from memory


def test_a_chinese_decision_line_in_a_file_is_noted(ws):
    """Held out: only 'Decision:' lines were noted; a code base commented in Chinese says '决定：'."""
    from s10_memory import Agent as MemoryAgent

    (ws / "app_01.py").write_text("x = 1\n# 决定：日志保留 30 天\n", encoding="utf-8")
    agent = MemoryAgent(offline_client(OfflineModel(), max_retries=0), workspace=ws, approve=always_approve)
    agent.ask("读取 app_01.py", [])
    assert "日志保留 30 天" in (agent.memory_dir / "notes.md").read_text(encoding="utf-8")
