"""The offline model's agent policy, driven through the real SDK by a small agent loop.

The loop here runs real tools on a tmp workspace (bash, file tools in three naming
styles, a compact tool) and applies compaction layers the way the stages do:
micro-compact placeholders, a pair-safe snip with its marker, a six-section
summary ("[Compacted]", "[Reactive compact]", "[Summary]") made by the model itself.
"""

from __future__ import annotations

import json
import re

import anthropic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lessonkit.show.demo import make_workspace
from lessonkit.tokens import count_messages
from offline import OfflineModel, offline_client
from offline.agent import policy
from offline.agent.scenarios import load_scenarios, write_workspace
from s01_loop.bash import run_bash
from tests.strategies import assert_api_valid


def tool(name: str, *props: str) -> dict:
    return {"name": name, "description": f"the {name} tool",
            "input_schema": {"type": "object", "properties": {p: {"type": "string"} for p in props},
                             "required": list(props)}}


SIMPLE = [tool("bash", "command"), tool("read_file", "path"), tool("write_file", "path", "content"),
          tool("edit_file", "path", "old_text", "new_text"), tool("list_dir", "path")]
CLAUDE = [tool("Bash", "command"), tool("Read", "file_path"), tool("Write", "file_path", "content"),
          tool("Edit", "file_path", "old_string", "new_string"), tool("Glob", "pattern"),
          tool("TodoWrite", "todos")]
LS_READ = [tool("LS", "path"), tool("Read", "file_path")]
BASH_ONLY = [tool("bash", "command")]
SHELL_ONLY = [tool("shell", "cmd")]
COMPACT = tool("compact", "focus")
TOOLSETS = {"simple": SIMPLE, "claude": CLAUDE, "ls_read": LS_READ, "bash": BASH_ONLY, "shell": SHELL_ONLY}
EVERY = "Read every Python file in this folder, one at a time, then tell me what they define."


class Box:
    """Runs tool calls on a workspace, as a stage's tools would (errors are results)."""

    def __init__(self, root, deny=()):
        self.root, self.deny, self.log, self.compact_asked = root, deny, [], False

    def path(self, inp):
        return self.root / (inp.get("path") or inp.get("file_path"))

    def run(self, name: str, inp: dict) -> tuple[str, bool]:
        self.log.append((name, inp))
        kind = name.lower()
        try:
            if kind in ("bash", "shell"):
                command = inp.get("command") or inp.get("cmd")
                if any(d in command for d in self.deny):
                    return f"Permission denied: `{command}` matches the deny list", True
                return run_bash(command, cwd=self.root, timeout=20)   # the stages' own bash
            if kind in ("read_file", "read"):
                return self.path(inp).read_text(), False
            if kind in ("write_file", "write"):
                self.path(inp).parent.mkdir(parents=True, exist_ok=True)
                self.path(inp).write_text(inp["content"])
                return f"wrote {len(inp['content'])} characters", False
            if kind in ("edit_file", "edit"):
                old = inp.get("old_text", inp.get("old_string"))
                new = inp.get("new_text", inp.get("new_string"))
                text = self.path(inp).read_text()
                if old not in text:
                    return f"Error: old text not found in {self.path(inp).name}", True
                self.path(inp).write_text(text.replace(old, new, 1))
                return "edited", False
            if kind in ("list_dir", "ls"):
                where = self.path(inp)
                return "\n".join(sorted(p.name + "/" * p.is_dir() for p in where.iterdir())), False
            if kind == "glob":
                return "\n".join(sorted(str(p.relative_to(self.root)) for p in self.root.glob(inp["pattern"])
                                        if not any(part.startswith(".") for part in p.parts))), False
            if kind == "compact":
                self.compact_asked = True
                return "Compacting conversation...", False
        except OSError as exc:
            return f"Error: {exc}", True
        return f"Error: unknown tool {name}", True


def loop(client, box, prompt, tools, messages=None, *, compactor=None, max_turns=40):
    """The agent loop; returns (messages, final text, turns) with turns None if it never ended."""
    messages = [] if messages is None else messages
    messages.append({"role": "user", "content": prompt})
    for turn in range(1, max_turns + 1):
        assert_api_valid(messages)
        response = client.messages.create(model="offline", max_tokens=4096, messages=messages, tools=tools,
                                          system="You are a coding agent.")
        blocks = [b.model_dump(mode="json", exclude_none=True) for b in response.content]
        messages.append({"role": "assistant", "content": blocks})
        if response.stop_reason != "tool_use":
            return messages, "\n".join(b["text"] for b in blocks if b["type"] == "text"), turn
        results = []
        for b in blocks:
            if b["type"] == "tool_use":
                text, failed = box.run(b["name"], b["input"])
                results.append({"type": "tool_result", "tool_use_id": b["id"], "content": text or "(empty)",
                                **({"is_error": True} if failed else {})})
        messages.append({"role": "user", "content": results})
        if box.compact_asked:
            box.compact_asked = False
            summary_compact(client, messages, "[Compacted]")
        elif compactor:
            compactor(client, messages)
    return messages, None, None


# ------------------------------------------------------------------ compaction layers, as the stages do them

def micro(client, messages, keep=2):
    names = {b["id"]: b["name"] for m in messages if m["role"] == "assistant"
             for b in m["content"] if b["type"] == "tool_use"}
    results = [b for m in messages if m["role"] == "user" and isinstance(m["content"], list)
               for b in m["content"] if b["type"] == "tool_result"]
    for b in results[:-keep]:
        b["content"] = f"[Previous: used {names[b['tool_use_id']]}]"


def snip(client, messages, keep_tail=4):
    """Keep the task and the newest turns; the marker joins the task's message."""
    if len(messages) <= keep_tail + 3:
        return
    n = len(messages) - 1 - keep_tail
    task = messages[0]["content"] if isinstance(messages[0]["content"], str) else messages[0]["content"][0]["text"]
    messages[:] = [{"role": "user", "content": [{"type": "text", "text": task},
                                                {"type": "text", "text": f"[snipped {n} messages]"}]}] \
        + messages[-keep_tail:]


def one_line(text, limit=100):
    """A tool result as s08's prompt shows it: folded onto one line, cut to 100 characters with '...'."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."


def summary_text(client, messages, shape="kit"):
    """Ask the model for a summary in one of the three shapes the stages send."""
    if shape == "kit":  # s06: instruction + whole messages as JSON
        prompt = ("Summarize the conversation below so that the work can continue from the summary alone.\n"
                  "Write these sections, each a list of '- ' bullets. First think in <analysis>, then "
                  "<summary>.\n\nThe conversation, as JSON:\n" + json.dumps(messages, ensure_ascii=False))
    elif shape == "seed":  # seed 000: a Chinese instruction, the dump cut at 80,000 characters
        prompt = ("以下是一段 Agent 的对话记录。请生成一份结构化摘要，包含：\n1. 用户请求  2. 技术概念  3. 文件和代码\n"
                  "4. 错误和修复  5. 待完成任务  6. 当前工作\n\n先在 <analysis> 中梳理思路，再在 <summary> 中给出最终摘要。\n\n"
                  + json.dumps(messages, default=str)[:80000])
    else:  # s08: labelled lines with the previous summary
        lines, previous = [], []
        for m in messages:
            texts = [b["text"] for b in (m["content"] if isinstance(m["content"], list) else
                                         [{"type": "text", "text": m["content"]}]) if b["type"] == "text"]
            if texts and texts[0].startswith("[Summary]"):
                previous.append(texts[0][len("[Summary]"):].strip())
                continue
            lines.append(f"{m['role'].upper()}: {' '.join(texts)}")
            calls = [f"{b['name']}({', '.join(f'{k}={json.dumps(v)}' for k, v in b['input'].items())})"
                     for b in m["content"] if isinstance(m["content"], list) and b["type"] == "tool_use"]
            results = [one_line(b["content"]) for b in m["content"]
                       if isinstance(m["content"], list) and b["type"] == "tool_result"]
            if calls:
                lines.append(f"  [Tool Calls: {', '.join(calls)}]")
            if results:
                lines.append(f"  [Tool Results: {', '.join(results)}]")
        prompt = "You are a conversation summarizer. Create a concise summary.\n\n"
        if previous:
            prompt += ("## Previous Summary\n" + previous[-1] + "\n\nIncorporate the above previous summary "
                       "with the new messages below into a single updated summary.\n\n")
        prompt += "## Messages to Summarize\n\n" + "\n".join(lines) + "\n"
    response = client.messages.create(model="offline", max_tokens=2000, messages=[{"role": "user", "content": prompt}])
    text = response.content[0].text
    m = re.search(r"<summary>\s*(.*?)\s*</summary>", text, re.DOTALL)
    return m.group(1) if m else text


def summary_compact(client, messages, tag, keep_tail=0, shape="kit"):
    summary = summary_text(client, messages if not keep_tail else messages[:-keep_tail], shape)
    tail = messages[-keep_tail:] if keep_tail else []
    head = {"role": "user", "content": f"{tag} {len(messages)} earlier messages were summarized.\n\n{summary}\n\n"
                                       "Continue from where the work stopped."}
    messages[:] = [head] + tail


def every(n, layer):
    """Apply a layer whenever the history has more than n messages."""
    def apply(client, messages):
        if len(messages) > n:
            layer(client, messages)
    return apply


LAYERS = {
    "micro": micro,
    "snip": snip,
    "summary": lambda c, m: summary_compact(c, m, "[Compacted]"),
    "seed_dump": lambda c, m: summary_compact(c, m, "[Compacted]", shape="seed"),
    "reactive": lambda c, m: summary_compact(c, m, "[Reactive compact]", keep_tail=2),
    "rolling": lambda c, m: summary_compact(c, m, "[Summary]", keep_tail=2, shape="labelled"),
}
COMPACTORS = {
    "none": None,
    "micro": micro,
    "snip": every(6, snip),
    "summary": every(4, LAYERS["summary"]),
    "seed_dump": every(6, LAYERS["seed_dump"]),
    "reactive": every(8, lambda c, m: summary_compact(c, m, "[Reactive compact]", keep_tail=4)),
    "rolling": every(6, LAYERS["rolling"]),
    "every_turn": every(1, LAYERS["summary"]),
}


@pytest.fixture
def ws(tmp_path):
    root = make_workspace(tmp_path / "ws", files=5, lines=20)
    (root / "README.md").write_text("# demo\n")
    (root / ".transcripts").mkdir()
    (root / ".transcripts" / "old.py").write_text("x = 1\n")  # hidden: never read
    return root


def reads(box):
    """Files read, in order (a read tool or `cat`)."""
    out = []
    for name, inp in box.log:
        if name.lower() in ("read", "read_file"):
            out.append((inp.get("path") or inp.get("file_path")).removeprefix("./"))
        elif name.lower() in ("bash", "shell") and (inp.get("command") or inp.get("cmd", "")).startswith("cat "):
            out.append((inp.get("command") or inp["cmd"])[4:].strip("'").removeprefix("./"))
    return out


PY = [f"app_{i:02d}.py" for i in range(1, 6)]


def lines(path):
    return len(path.read_text().splitlines())


# ------------------------------------------------------------------ reading every file

@pytest.mark.parametrize("toolset", TOOLSETS)
def test_reads_every_python_file_one_per_turn_with_any_tool_naming(client, ws, toolset):
    box = Box(ws)
    messages, answer, turns = loop(client, box, EVERY, TOOLSETS[toolset])
    assert reads(box) == PY  # in order, one each, the hidden folder skipped
    assert turns == 1 + 1 + 5  # discover, five reads, the answer
    calls_per_turn = [sum(b["type"] == "tool_use" for b in m["content"]) for m in messages if m["role"] == "assistant"]
    assert calls_per_turn == [1, 1, 1, 1, 1, 1, 0]
    for name in PY:  # the answer says what each file defines, from what it read
        defined = re.findall(r"^def (\w+)", (ws / name).read_text(), re.MULTILINE)
        assert name in answer and defined[0] in answer


@pytest.mark.parametrize("toolset", ["simple", "claude", "bash"])
def test_in_parallel_reads_all_files_in_one_turn(client, ws, toolset):
    box = Box(ws)
    messages, answer, turns = loop(client, box, "Read all the .py files at once", TOOLSETS[toolset])
    assert sorted(reads(box)) == PY and turns == 3 and all(name in answer for name in PY)
    assert sum(b["type"] == "tool_use" for b in messages[3]["content"]) == 5


def test_explicit_paths_are_read_in_parallel_and_reported(client, ws):
    box = Box(ws)
    messages, answer, turns = loop(client, box, "Read app_02.py and README.md", CLAUDE)
    assert turns == 2 and [b["name"] for b in messages[1]["content"] if b["type"] == "tool_use"] == ["Read", "Read"]
    assert "README.md: 1 line: # demo" in answer and f"app_02.py: {lines(ws / 'app_02.py')} lines, defines" in answer


def test_subfolders_are_listed_then_read(client, ws):
    make_workspace(ws / "pkg", files=2, lines=8, prefix="mod")
    box = Box(ws)
    _, answer, _ = loop(client, box, EVERY, SIMPLE)
    assert reads(box) == PY + ["pkg/mod_01.py", "pkg/mod_02.py"] and "pkg/mod_02.py: " in answer
    box = Box(ws)
    loop(client, box, "Read every python file in pkg/", SIMPLE)
    assert reads(box) == ["pkg/mod_01.py", "pkg/mod_02.py"]


def test_no_matching_files_is_said_not_looped(client, ws):
    box = Box(ws)
    _, answer, turns = loop(client, box, "Read every rust file here", BASH_ONLY)
    assert turns == 2 and "found no .rs files" in answer


# ------------------------------------------------------------------ write, edit, list, run

@pytest.mark.parametrize("toolset", ["simple", "claude", "bash"])
def test_write_edit_list_and_run(client, ws, toolset):
    tools = TOOLSETS[toolset]
    box = Box(ws)
    _, answer, _ = loop(client, box, "Write notes/todo.md with `- [ ] ship it`", tools)
    assert (ws / "notes/todo.md").read_text().strip() == "- [ ] ship it" and "Wrote notes/todo.md" in answer
    _, answer, _ = loop(client, box, "In notes/todo.md replace `[ ]` with `[x]`", tools)
    assert (ws / "notes/todo.md").read_text().strip() == "- [x] ship it" and "Edited notes/todo.md" in answer
    _, answer, _ = loop(client, box, "List the files in notes/", tools)
    assert "todo.md" in answer
    _, answer, turns = loop(client, box, "Run `wc -l app_01.py` and then `echo done`", tools)
    newlines = (ws / "app_01.py").read_text().count("\n")
    assert turns == 3 and f"`wc -l app_01.py`: 1 line: {newlines} app_01.py" in answer and "done" in answer


@pytest.mark.parametrize("toolset", ["simple", "claude", "bash"])
def test_an_edit_that_fails_reads_the_file_and_reports(client, ws, toolset):
    box = Box(ws)
    before = (ws / "app_01.py").read_text()
    _, answer, turns = loop(client, box, "Replace `no_such_name` with `x` in app_01.py", TOOLSETS[toolset])
    assert turns == 3 and reads(box) == ["app_01.py"]  # edit, then read once, then answer
    assert "could not replace `no_such_name` in app_01.py" in answer and "does not appear" in answer
    assert (ws / "app_01.py").read_text() == before


def test_tool_errors_and_permission_denials_are_reported(client, ws):
    box = Box(ws, deny=("rm -rf",))
    _, answer, _ = loop(client, box, "Read missing.py", SIMPLE)
    assert "missing.py: error:" in answer
    _, answer, turns = loop(client, box, "Run `rm -rf build` then `echo after`", SIMPLE)
    assert turns == 2 and "Stopped" in answer and "deny list" in answer  # denial: no second command
    assert [inp for name, inp in box.log if name == "bash"] == [{"command": "rm -rf build"}]
    _, answer, _ = loop(client, box, "Run `ls no_dir`", SIMPLE)
    assert "`ls no_dir`: error:" in answer and "No such file" in answer


def test_free_form_prompts_get_answers_that_depend_on_the_prompt(client, ws):
    box = Box(ws)
    messages, a1, turns = loop(client, box, "What is the capital of France?", SIMPLE)
    assert turns == 1 and "capital of France" in a1 and not box.log
    _, a2, _ = loop(client, box, "Explain what a context window is", SIMPLE)
    assert "context window is the most tokens" in a2 and a1 != a2
    loop(client, box, "Read app_03.py", SIMPLE, messages)
    # No tools, from memory: the API refuses tool blocks in a request without tools (so does the
    # offline model), so the policy's answer is asked of the policy itself.
    asked = {"model": "offline", "max_tokens": 4096, "tools": [],
             "messages": [*messages, {"role": "user", "content": "What does app_03.py define?"}]}
    with pytest.raises(anthropic.BadRequestError, match="must define tools"):
        client.messages.create(**asked)
    a3 = policy.decide(asked, load_scenarios()).text
    assert f"From this conversation: app_03.py: {lines(ws / 'app_03.py')} lines, defines" in a3 and "No tools" in a3


# ------------------------------------------------------------------ compaction rewrites the history

@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("compactor", COMPACTORS)
@pytest.mark.parametrize("toolset", ["simple", "claude", "bash"])
def test_plans_resume_after_every_compaction_layer(client, ws, toolset, compactor):
    box = Box(ws)
    _, answer, turns = loop(client, box, EVERY, TOOLSETS[toolset], compactor=COMPACTORS[compactor])
    assert turns is not None, "the loop never ended"
    done = reads(box)
    assert sorted(set(done)) == PY and len(done) == 5  # each file exactly once, resumed not restarted
    assert all(name in answer for name in PY)


def test_micro_compacted_results_do_not_lose_what_was_seen(client, ws):
    box = Box(ws)
    _, answer, _ = loop(client, box, EVERY, SIMPLE, compactor=micro)
    for name in PY:  # the assistant's "Seen ..." notes outlive the placeholders
        first_def = re.search(r"^def (\w+)", (ws / name).read_text(), re.MULTILINE).group(1)
        assert re.search(rf"- {name}: {lines(ws / name)} lines, defines {first_def}", answer)


def test_compact_tool_is_called_once_and_not_again_after_the_summary(client, ws):
    box = Box(ws)
    messages, _, _ = loop(client, box, "Read app_01.py", SIMPLE + [COMPACT])
    messages, answer, turns = loop(client, box, "Please compact the conversation", SIMPLE + [COMPACT], messages)
    assert [name for name, _ in box.log].count("compact") == 1 and turns == 2
    assert messages[0]["content"].startswith("[Compacted]") and "Compacted" in answer
    assert "app_01.py" in messages[0]["content"]  # the summary kept the earlier work
    _, answer, _ = loop(client, box, "Read app_02.py", SIMPLE + [COMPACT], messages)  # and work goes on
    assert reads(box)[-1] == "app_02.py"


def test_compact_passes_a_focus_only_when_asked_and_supported(client, ws):
    box = Box(ws)
    loop(client, box, "compact now, focusing on the failing tests", [COMPACT])
    loop(client, box, "compact", [COMPACT, tool("bash", "command")])
    loop(client, box, "compact keeping the file list", [tool("compact")])
    assert [inp for name, inp in box.log if name == "compact"] == [{"focus": "the failing tests"}, {}, {}]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@settings(max_examples=25, deadline=None)
@given(schedule=st.lists(st.sampled_from(["micro", "snip", "summary", "reactive", "rolling", "-"]),
                         min_size=1, max_size=12),
       toolset=st.sampled_from(["simple", "claude", "bash", "ls_read"]), files=st.integers(0, 12))
def test_any_compaction_schedule_ends_and_reads_each_file_once(tmp_path_factory, schedule, toolset, files):
    root = make_workspace(tmp_path_factory.mktemp("ws"), files=files, lines=6)
    client = offline_client(OfflineModel(), max_retries=0)
    box = Box(root)
    turn = [0]

    def compactor(c, messages):
        name = schedule[turn[0] % len(schedule)]
        turn[0] += 1
        if name != "-":
            LAYERS[name](c, messages)

    _, answer, turns = loop(client, box, EVERY, TOOLSETS[toolset], compactor=compactor, max_turns=30)
    names = [f"app_{i:02d}.py" for i in range(1, files + 1)]
    assert turns is not None and (answer.startswith(f"Read {files} .py file{'s' * (files > 1)}.") if files
                                  else "found no .py files" in answer)
    assert all(f"- {name}: " in answer for name in names)  # each file reported, across the compactions
    assert sorted(reads(box)) == names


@pytest.mark.parametrize("toolset", ["simple", "claude", "bash", "ls_read"])
def test_a_rolling_summary_of_the_listing_then_a_snip_of_the_plan_reads_every_file(tmp_path, toolset):
    """Found by the property above: micro, rolling, micro, micro, snip with 6 files.

    The rolling summary saw the listing folded onto one line and kept only its last name;
    the snip then removed the "Plan: ..." text, so the plan was rebuilt from that summary
    as [app_06.py]: app_05.py was never read and the answer said "Read 1 .py files".
    """
    root = make_workspace(tmp_path / "ws", files=6, lines=6)
    client = offline_client(OfflineModel(), max_retries=0)
    box, schedule = Box(root), iter(["micro", "rolling", "micro", "micro", "snip"] * 4)
    _, answer, turns = loop(client, box, EVERY, TOOLSETS[toolset],
                            compactor=lambda c, m: LAYERS[next(schedule)](c, m), max_turns=30)
    names = [f"app_{i:02d}.py" for i in range(1, 7)]
    assert reads(box) == names and turns == 1 + 1 + 6
    assert answer.startswith("Read 6 .py files.") and all(f"- {name}: " in answer for name in names)


def test_a_summary_with_a_pending_plan_is_resumed_from_its_counter(client, ws):
    summary = ("[Compacted] 9 earlier messages were summarized.\n\n1. User requests:\n- " + EVERY + "\n\n"
               "3. Files and code:\n- app_01.py: read, 20 lines, defines f\n- app_02.py: read\n\n"
               "5. Pending tasks:\n- plan in progress: (2/5) steps done. Plan: " + ", ".join(PY) + ".\n\n"
               "6. Current work:\n- last said: Reading app_02.py (2/5).")
    box = Box(ws)
    _, answer, turns = loop(client, box, summary, SIMPLE)
    assert reads(box) == PY[2:] and turns == 4
    assert "app_01.py: read, 20 lines, defines f" in answer  # known only from the summary


def test_a_snip_marker_and_placeholders_are_not_mistaken_for_requests(client, ws):
    history = [{"role": "user", "content": [{"type": "text", "text": "Run `echo one` and `echo two`"},
                                            {"type": "text", "text": "[snipped 6 messages]"}]},
               {"role": "assistant", "content": [{"type": "text", "text": "Running `echo one` (1/2)."},
                                                 {"type": "tool_use", "id": "toolu_1", "name": "bash",
                                                  "input": {"command": "echo one"}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                             "content": "[Previous: used bash]"},
                                            {"type": "text", "text": "<reminder>keep going</reminder>"}]}]
    r = client.messages.create(model="offline", max_tokens=500, messages=history, tools=SIMPLE)
    assert [b.input for b in r.content if b.type == "tool_use"] == [{"command": "echo two"}]


def test_long_sessions_stay_bounded(client, ws):
    """Many tasks in one history: each ends, and compaction keeps the history small."""
    box = Box(ws)
    messages = []
    for k in range(6):
        _, answer, turns = loop(client, box, f"Run `echo task{k}`", BASH_ONLY, messages,
                                compactor=every(10, lambda c, m: summary_compact(c, m, "[Compacted]")))
        assert turns is not None and f"task{k}" in answer
    assert count_messages(messages) < 3000


# ------------------------------------------------------------------ scripted scenarios

def test_the_shipped_scenario_drives_the_loop_exactly(client, tmp_path):
    scenario = next(s for s in load_scenarios() if s["name"] == "fix_failing_test")
    root = write_workspace(scenario, tmp_path / "demo")
    box = Box(root)
    messages, answer, turns = loop(client, box, "Please fix the failing test in this project.", SIMPLE)
    sent = [(m["content"][0]["text"], [(b["name"], b["input"]) for b in m["content"] if b["type"] == "tool_use"])
            for m in messages if m["role"] == "assistant"][:-1]
    n = len(scenario["steps"])
    assert [text for text, _ in sent] == [f"{s['say'].rstrip('.')} ({k}/{n})." for k, s in enumerate(scenario["steps"], 1)]
    assert answer == scenario["final"].replace("{tests}", "2") and turns == n + 1  # the count read back
    assert [name for name, _ in box.log] == ["bash", "read_file", "edit_file", "bash"]
    assert "[exit code" in box_results(messages)[0] and "OK" in box_results(messages)[-1]  # it really fixed it


FAILING_ELSEWHERE = {  # one failing test, in a workspace the scenario was not written for
    "shop.py": "def total(prices):\n    return sum(prices) - 1\n",
    "test_shop.py": "import unittest\n\nfrom shop import total\n\n\nclass ShopTest(unittest.TestCase):\n"
                    "    def test_total(self):\n        self.assertEqual(total([1, 2]), 3)\n",
}


def scenario_in(client, root, files, tools=SIMPLE):
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text)
    box = Box(root)
    _, answer, turns = loop(client, box, "Please fix the failing test in this project.", tools)
    return box, answer, turns


@pytest.mark.parametrize("tools", [SIMPLE, CLAUDE], ids=["simple", "claude"])
def test_a_scenario_elsewhere_stops_and_claims_nothing(client, tmp_path, tools):
    """Another project with one failing test: the script stops at its first check, quoting the tool."""
    box, answer, turns = scenario_in(client, tmp_path / "shop", FAILING_ELSEWHERE, tools)
    assert turns is not None and answer.startswith("Stopped after step 1 of 4")
    assert "Fixed" not in answer and "pass" not in answer.replace("passes", "")
    assert [name.lower() for name, _ in box.log] == ["bash"]  # nothing read, nothing edited
    assert "return sum(prices) - 1" in (tmp_path / "shop" / "shop.py").read_text()


def test_a_scenario_whose_files_differ_stops_before_editing(client, tmp_path):
    """The same failing test, but calc.py is not the file the script expects: no edit, no claim."""
    scenario = next(s for s in load_scenarios() if s["name"] == "fix_failing_test")
    files = dict(scenario["workspace"])
    files["calc.py"] = "def add(a, b):\n    return b - a - 2 * b + a - a\n\n\ndef mul(a, b):\n    return a * b\n"
    box, answer, _ = scenario_in(client, tmp_path / "calc", files)
    assert answer.startswith("Stopped after step") and "Fixed" not in answer
    assert "edit_file" not in [name for name, _ in box.log]


def test_a_scenario_whose_fix_does_not_work_says_so(client, tmp_path):
    """The edit is made but the tests still fail: the answer quotes the run, never "pass"."""
    scenario = next(s for s in load_scenarios() if s["name"] == "fix_failing_test")
    files = dict(scenario["workspace"])
    files["test_calc.py"] = files["test_calc.py"].replace(  # a test that passes only while add() is wrong
        "        self.assertEqual(mul(2, 3), 6)\n",
        "        self.assertEqual(mul(2, 3), 6)\n\n    def test_odd(self):\n        self.assertNotEqual(add(2, 2), 4)\n")
    box, answer, _ = scenario_in(client, tmp_path / "calc2", files)
    assert "Fixed" not in answer and "tests pass" not in answer
    assert answer.startswith("Stopped after step 4 of 4") and "FAIL" in answer  # the run quoted
    assert [name for name, _ in box.log] == ["bash", "read_file", "edit_file", "bash"]


def test_the_s02_agent_elsewhere_hears_no_made_up_fix(tmp_path):
    """The stage's own tools, the kit's client: a project with one failing test and no calc.py."""
    import s02_tools
    from lessonkit import make_client

    for name, text in FAILING_ELSEWHERE.items():
        (tmp_path / name).write_text(text)
    rec = []
    agent = s02_tools.Agent(make_client(), workspace=tmp_path, on_event=lambda kind, data: rec.append(kind))
    answer = agent.ask("fix the failing test")
    assert answer.startswith("Stopped after step 1 of 4") and "Fixed" not in answer
    assert rec.count("tool") == 1 and "return sum(prices) - 1" in (tmp_path / "shop.py").read_text()


def test_a_scenario_final_must_read_its_claims_from_a_result():
    from offline.agent.scenarios import ScenarioError, check_scenario

    bad = {"match": "x", "steps": [{"calls": [{"role": "bash", "args": {"command": "true"}}]}],
           "final": "all {tests} tests pass"}
    with pytest.raises(ScenarioError, match="no step's expect captures"):
        check_scenario(bad)
    bad["steps"][0]["expect"] = "Ran (?P<tests>\\d+)"
    assert check_scenario(bad) is bad


def box_results(messages):
    return [b["content"] for m in messages if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"] if b["type"] == "tool_result"]


def test_a_scenario_passed_to_the_model_wins_and_survives_compaction(ws):
    scenario = {"name": "t", "match": r"^tidy up", "final": "Tidied.",
                "steps": [{"say": "Listing", "calls": [{"role": "list", "args": {"path": "."}}]},
                          {"say": "Reading the readme", "calls": [{"role": "read", "args": {"path": "README.md"}}]},
                          {"say": "Writing", "calls": [{"role": "write", "args": {"path": "x.txt", "content": "x"}}]}]}
    client = offline_client(OfflineModel(scenarios=[scenario]), max_retries=0)
    box = Box(ws)
    _, answer, _ = loop(client, box, "tidy up please", CLAUDE,
                        compactor=every(2, lambda c, m: summary_compact(c, m, "[Compacted]")))
    assert [name for name, _ in box.log] == ["Glob", "Read", "Write"] and answer == "Tidied."
    with pytest.raises(ValueError, match="steps"):
        OfflineModel(scenarios=[{"match": "x"}]).scenarios()


def test_a_request_merged_beside_tool_results_is_still_the_task(client):
    """s07's snip merges the marker and the next user message into one user message."""
    history = [{"role": "user", "content": "Run `echo one`"},
               {"role": "assistant", "content": [{"type": "text", "text": "Running `echo one` (1/1)."},
                                                 {"type": "tool_use", "id": "toolu_1", "name": "bash",
                                                  "input": {"command": "echo one"}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "one"},
                                            {"type": "text", "text": "[snipped 4 messages]"},
                                            {"type": "text", "text": "Now run `echo two`"}]}]
    r = client.messages.create(model="offline", max_tokens=500, messages=history, tools=SIMPLE)
    assert [b.input for b in r.content if b.type == "tool_use"] == [{"command": "echo two"}]


def test_a_step_after_a_denial_is_reported_as_not_run(tmp_path):
    """The final answer never claims a step ran when nothing in the history shows it did."""
    import s03_permissions as s3
    from lessonkit.show.demo import make_workspace
    from offline import OfflineModel, offline_client

    ws = make_workspace(tmp_path / "ws", files=3)
    agent = s3.Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws, approve=s3.never_approve)
    answer = agent.ask("Run `ls` and `rm app_03.py` and `wc -l app_01.py`", [])
    assert "`wc -l app_01.py`: not run" in answer
    assert "compacted away" not in answer
    assert (ws / "app_03.py").exists()


def test_dotfiles_are_read_so_the_sandbox_can_refuse_them_and_absolute_paths_are_refused(client):
    """A dotfile is in the workspace: s02's sandbox decides. A path outside it is never asked for (guard.py)."""
    tools = [{"name": "read_file", "description": "read",
              "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]
    reply = client.messages.create(model="offline", max_tokens=500, tools=tools,
                                   messages=[{"role": "user", "content": "Read .env"}])
    assert reply.stop_reason == "tool_use"
    assert [b.input for b in reply.content if b.type == "tool_use"] == [{"path": ".env"}]
    reply = client.messages.create(model="offline", max_tokens=500, tools=tools,
                                   messages=[{"role": "user", "content": "Read /etc/passwd"}])
    assert reply.stop_reason == "end_turn" and "/etc/passwd is outside the workspace" in reply.content[0].text


def test_an_ambiguous_edit_is_explained_by_the_count(tmp_path):
    import s02_tools as s2
    from offline import OfflineModel, offline_client

    (tmp_path / "x.py").write_text("a = 1\na = 1\n")
    answer = s2.Agent(offline_client(OfflineModel(), max_retries=0), workspace=tmp_path).ask(
        "Replace `a = 1` with `a = 2` in x.py", [])
    assert "appears 2 times" in answer and "another reason" not in answer
    assert (tmp_path / "x.py").read_text() == "a = 1\na = 1\n"


def test_a_read_whose_call_was_snipped_stays_read_through_a_summary(tmp_path):
    """Found by the property above at 200 examples: micro, micro, micro, snip, summary with 3 files.

    The snip removed app_01.py's read_file call; only the model's own note "Seen app_01.py: ..." was
    left, and the summary listed files from calls alone, so app_01.py was listed and read again.
    """
    root = make_workspace(tmp_path / "ws", files=3, lines=6)
    client = offline_client(OfflineModel(), max_retries=0)
    box, schedule = Box(root), iter(["micro", "micro", "micro", "snip", "summary"] * 6)

    def compactor(c, messages):
        LAYERS[next(schedule)](c, messages)

    _, answer, turns = loop(client, box, EVERY, TOOLSETS["simple"], compactor=compactor, max_turns=30)
    assert sorted(reads(box)) == ["app_01.py", "app_02.py", "app_03.py"]
    assert answer.startswith("Read 3 .py files.") and "- app_01.py: " in answer
