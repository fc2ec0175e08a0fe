"""The REPL shows its work: each request against the window, each tool call and result, each compaction,
refusals and retries; --quiet turns it off; a refusal is one line saying what the stage does; --window and
--backend exist on every stage; and the s06 transcript in the README is a real run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import s01_loop
import s06_compact
from lessonkit.cli.repl import Narrator, failure_line, main, result_line, short
from lessonkit.show.demo import make_workspace
from offline import OfflineModel
from offline.serve.server import serve_in_thread

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "docs" / "student-guide.md"
TASKS = ["Read every Python file in this folder, one at a time",
         "Read every Python file in this folder again and list the classes"]
KIT_VARIABLES = ("LESSONS_BACKEND", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "MODEL_ID", "LESSONS_CONTEXT_WINDOW",
                 "LESSONS_WINDOW_COUNT")
STAGES = sorted(p.name for p in ROOT.glob("s[0-9][0-9]_*") if (p / "__main__.py").is_file())


@pytest.fixture
def offline_env(monkeypatch):
    for name in KIT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LESSONS_LANG", "en")  # these tests read the English lines; a zh locale must not change them
    monkeypatch.setattr("lessonkit.backends.settings.REPO_ROOT", ROOT / "no-such-folder")  # no .env


def chat(monkeypatch, capsys, stage_main, argv, prompts):
    """Run a stage's REPL in-process with `prompts` typed in; (exit code, stdout, stderr)."""
    typed = iter(prompts)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed))
    code = stage_main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def s06(argv):
    return main(s06_compact.Agent, "s06", argv, options=lambda w: {"threshold": w // 2} if w else {},
                refused="s06 has no answer to a refusal.")


def s01(argv):
    return main(s01_loop.Agent, "s01", argv, refused="s01 does not compact.")


def test_each_step_is_one_line_as_it_happens(offline_env, monkeypatch, capsys, tmp_path):
    ws = make_workspace(tmp_path / "ws", files=12, lines=40)
    code, out, err = chat(monkeypatch, capsys, s06, ["--window", "3000", "--workspace", str(ws)], [TASKS[0], ""])
    assert code == 0 and err == ""
    lines = out.splitlines()
    requests = [line for line in lines if re.match(r"\s+request \d+: [\d,]+ tokens of 3,000 \(\d+%\), \d+ messages?$",
                                                    line)]
    reads = [line for line in lines if line.startswith('  tool read_file {"path": "app_')]
    compactions = [line for line in lines if re.match(r"  compact (micro|auto): \d+ -> \d+ messages, [\d,]+ -> "
                                                      r"[\d,]+ tokens of messages$", line)]
    assert len(requests) >= 13 and len(reads) == 12 and all("-> 41 lines, " in r for r in reads)
    assert any(" auto: " in c for c in compactions) and any(" micro: " in c for c in compactions)
    assert "threshold 1,500" in lines[0] and "window 3,000 tokens" in lines[0]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_a_chinese_student_reads_the_repl_in_chinese_with_the_same_numbers(offline_env, monkeypatch, capsys,
                                                                           tmp_path):
    ws = make_workspace(tmp_path / "ws", files=12, lines=40)
    argv = ["--window", "3000", "--workspace", str(ws)]
    _, english, _ = chat(monkeypatch, capsys, s06, argv, [TASKS[0], ""])
    monkeypatch.setenv("LESSONS_LANG", "zh")
    _, chinese, _ = chat(monkeypatch, capsys, s06, argv, [TASKS[0], ""])
    en, zh = english.splitlines(), chinese.splitlines()
    narration = [(e, z) for e, z in zip(en, zh) if e.startswith(("  request ", "  compact ", "  tool "))]
    assert len(narration) >= 25 and len(en) == len(zh)
    for e, z in [(en[0], zh[0]), *narration]:
        assert re.findall(r"\d+(?:,\d{3})*", e) == re.findall(r"\d+(?:,\d{3})*", z), (e, z)  # the same run, the same figures
        assert re.search(r"[\u4e00-\u9fff]", z) and not re.search(r"\b(request|tokens|messages|leaves)\b", z), z
    assert zh[0].startswith("s06 智能体") and "上下文窗口 3,000 个 token" in zh[0]


def test_every_stages_refusal_sentence_reads_in_chinese():
    from lessonkit.exercises.checks import translated
    for stage in STAGES:
        text = (ROOT / stage / "__main__.py").read_text(encoding="utf-8")
        refused = eval("(" + re.search(r"REFUSED = \((.*?)\)\n", text, re.S).group(1) + ")")  # noqa: S307 - our literal
        os.environ["LESSONS_LANG"] = "zh"
        try:
            assert re.search(r"[\u4e00-\u9fff]", translated(refused)), stage
        finally:
            del os.environ["LESSONS_LANG"]


def test_quiet_prints_the_answers_only(offline_env, monkeypatch, capsys, tmp_path):
    ws = make_workspace(tmp_path / "ws", files=3, lines=10)
    code, out, _ = chat(monkeypatch, capsys, s06, ["--quiet", "--workspace", str(ws)], ["Run `ls`", ""])
    assert code == 0 and "request 1" not in out and "tool " not in out and "Ran 1 command" in out


def test_a_refusal_is_one_line_naming_the_request_and_what_the_stage_does(offline_env, monkeypatch, capsys,
                                                                          tmp_path):
    ws = make_workspace(tmp_path / "ws", files=12, lines=40)
    code, out, err = chat(monkeypatch, capsys, s01, ["--window", "2000", "--workspace", str(ws)], [TASKS[0], ""])
    refused = [line for line in out.splitlines() if line.startswith("  request")][-1]
    n = refused.split(":")[0].split()[-1]
    assert code == 0 and len(err.splitlines()) == 1 and "{" not in err
    assert re.match(rf"error: request {n} was refused: prompt is too long \([\d,]+ tokens > 2,000 maximum\)\. "
                    r"s01 does not compact\.$", err.strip()), err


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_the_anthropic_backend_shows_the_same_run_and_the_sdks_retries(offline_env, monkeypatch, capsys, tmp_path):
    ws = make_workspace(tmp_path / "ws", files=6, lines=40)
    _, offline_out, _ = chat(monkeypatch, capsys, s06, ["--window", "3000", "--workspace", str(ws)], [TASKS[0], ""])
    model = OfflineModel()
    server = serve_in_thread(model, port=0)
    try:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "x")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}")
        model.inject_fault(529, count=1)
        code, out, err = chat(monkeypatch, capsys, s06, ["--backend", "anthropic", "--window", "3000",
                                                         "--workspace", str(ws)], [TASKS[0], ""])
    finally:
        server.shutdown()
        server.server_close()
    assert code == 0 and err == "" and "on the anthropic backend" in out
    assert re.search(r"^  retry: the SDK sends /v1/messages again in \d+ ms$", out, re.M)
    steps = [line for line in out.splitlines()[1:] if not line.startswith("  retry")]
    assert steps == offline_out.splitlines()[1:]  # the same window, the same steps


def test_failure_lines_never_show_a_raw_body():
    import anthropic
    import httpx2

    request = httpx2.Request("POST", "http://x/v1/messages")
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    error = anthropic.InternalServerError("Error code: 529 - {...}", response=httpx2.Response(529, request=request),
                                          body=body)
    line = failure_line(error, 3, "")
    assert line == ("error: request 3 failed (529): Overloaded, after the SDK's retries. This turn stops; the "
                    "history is kept: try again.")
    assert short("a\n  b" + "c" * 100, 10) == "a bcccccc…"
    assert result_line({"content": "x\ny"}) == "2 lines, 3 characters"
    assert result_line({"content": "no such file", "is_error": True}) == "error: no such file"


@pytest.mark.parametrize("content, shown, lines", [("hello", "hello", "1 line:"), ("hello\n", "hello", "1 line:"),
                                                   ("a\nb\n", "2 lines, 4 characters", "2 lines:")])
def test_a_result_counts_its_lines_as_the_offline_model_does(content, shown, lines):
    """Bug: the REPL said "2 lines" for "hello\n", which the offline model's answer calls 1 line."""
    from offline.conversation.calls import describe

    assert result_line({"content": content}) == shown
    assert describe(content).startswith(lines)


def test_the_narrator_counts_what_the_model_is_sent():
    lines = []
    narrator = Narrator(lines.append, 1_000)
    narrator("request", {"messages": [{"role": "user", "content": "hi"}], "tools": []})
    narrator("error", {"error": ValueError("prompt is too long: 1200 tokens > 1000 maximum")})
    assert lines == ["  request 1: 7 tokens of 1,000 (1%), 1 message",
                     "  refused: prompt is too long: 1200 tokens > 1000 maximum"]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("stage", STAGES)
def test_every_stage_has_window_backend_and_quiet(stage):
    done = subprocess.run([sys.executable, "-m", stage, "--help"], capture_output=True, text=True, cwd=ROOT,
                          timeout=60, check=False)
    assert done.returncode == 0
    for option in ("--window", "--context-window", "--backend", "--quiet", "--workspace"):
        assert option in done.stdout, (stage, option)


# ------------------------------------------------------------------ the README's transcript

def readme_transcript() -> list[str]:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- s06-transcript -->\n```text\n(.*?)```", text, re.S)
    assert block, "the README has no s06 transcript"
    return block.group(1).splitlines()


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_the_readme_s06_transcript_is_a_real_run(tmp_path):
    shown = readme_transcript()
    command = re.search(r"^\$ (python -m s06_compact .*)$", "\n".join(shown), re.M).group(1).split()
    make_workspace(tmp_path / "demo", files=12, lines=40)
    env = {k: v for k, v in os.environ.items() if k not in KIT_VARIABLES}
    done = subprocess.run([sys.executable, *command[1:]], input="\n".join(TASKS) + "\n", capture_output=True,
                          text=True, cwd=tmp_path, env=dict(env, PYTHONPATH=str(ROOT)), timeout=120, check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    out = done.stdout.replace(str((tmp_path / "demo").resolve()), "demo")
    first, *turns = out.split("s06 >> ")  # what a terminal shows: each prompt, then what was typed there
    typed = TASKS + [""]
    out = first + "".join(f"s06 >> {typed[i]}\n{turn}" for i, turn in enumerate(turns))
    real = out.splitlines()
    expected = [line for line in shown if not line.startswith("$ ") and line.strip() != "…"]
    at = 0
    for line in expected:  # every line the README shows, in the same order (the "…" lines abridge)
        assert line in real[at:], f"README line not in the real run (after line {at}): {line!r}"
        at = real.index(line, at) + 1
