"""The arena in Chinese (issue 15): its tables, goal lines, notes and report speak the student's
language with the same numbers; in English they read as before; results.csv stays English data."""

from __future__ import annotations

import json
import re

import pytest

from arena import overhead
from arena.__main__ import main
from arena.bills.calibration import calibrate
from arena.chart import figure
from arena.measures.consequences import find_needs
from arena.measures.goal import goal_check
from arena.measures.spread import goal_lines, section
from arena.report import markdown_report, text_table
from arena.run import run_arena
from arena.sessions.folders import load_trace
from arena.sessions.session import session_from
from arena.strategies import breakeven
from lessonkit.i18n import tr
from lessonkit.show.textwidth import width as display_width
from tests.test_arena import tool_session
from tests.test_arena_readers import claude_session, jsonl

STRATEGIES = ["none", "ctx-edit", "masking-10", "recommended"]
# Latin words the Chinese keeps on purpose: the field's terms as Chinese engineers write them,
# the strategies' and breakpoint policies' names, and the names of products and formats.
KEPT = {"token", "schema", "none", "recorded", "recommended", "sticky", "last", "issue", "tool_use",
        "tool_result", "thinking", "reasoning", "Claude", "Sonnet", "Code", "Codex", "KiB", "API"}
HEADINGS_EN = ["strategy", "cost $", "cum. input", "cache read", "cache write", "uncached", "output", "summaries",
               "peak", "over", "invalid", "recall", "out recall", "lost"]


def numbers(text: str) -> list[str]:
    """Every number in `text`, sorted: a translation may reorder a sentence, never change a figure."""
    return sorted(re.findall(r"\d+(?:[.,]\d+)*", text))


def english_left(text: str, data: set) -> list[str]:
    """Latin words of 3+ letters in `text` that are neither data (names, paths, commands) nor KEPT."""
    text = re.sub(r"`[^`]*`|https?://\S+|\S+\.(?:py|md|csv|png|json|jsonl|txt)\b|--[a-z-]+", " ", text)
    words = [w.strip("'-") for w in re.findall(r"[A-Za-z][A-Za-z0-9_'-]{2,}", text)]
    return [w for w in words if w not in KEPT and w not in data]


@pytest.fixture(scope="module")
def small():
    """A hand-made session (a task, 14 bash calls, some failing) and its replay under four strategies."""
    session = session_from("small", tool_session(14, 300))
    return session


def outputs(session, language: str, monkeypatch) -> dict[str, str]:
    """What a lesson cell or the command shows of one arena run, in `language`."""
    monkeypatch.setenv("LESSONS_LANG", language)
    rows, _ = run_arena([session], STRATEGIES, window=12_000)
    sticky, _ = run_arena([session], STRATEGIES, window=12_000, breakpoints="sticky")
    for r in rows + sticky:
        r.ms_per_turn = 0.0          # the one measured column: it varies from run to run
    calibrations = {session.name: calibrate(session)}
    timing = [overhead.Overhead(100, (0.09, 0.1), (0.3, 0.4)), overhead.Overhead(1_000, (0.1, 0.12), (3.1, 3.3))]
    return {
        "table": text_table(rows, timing=False),
        "narrow table": text_table(rows, timing=False, width=100),
        "goal check": "\n".join(goal_check(rows)),
        "goal lines": "\n".join(goal_lines({"main": rows, "x1.32": sticky})),
        "decision": "\n".join(breakeven.decide(40, 30_000, new, 40.0, force=force).line()
                              for new, force in ((25_000, False), (10_000, False), (29_000, True))),
        "needs": find_needs(session).line(),
        "calibration": calibrations[session.name].line(),
        "overhead": overhead.table(timing),
        "results.md": markdown_report(rows, command="python -m arena", prices_source="list prices",
                                      overhead=overhead.table(timing), sticky=sticky,
                                      extra=section({"main": rows}, calibrations, [session])),
    }


def test_the_arena_speaks_chinese_with_the_same_numbers(small, monkeypatch):
    english, chinese = outputs(small, "en", monkeypatch), outputs(small, "zh", monkeypatch)
    data = {small.name, *STRATEGIES, "x1.32", "main", "python", "lessonkit", "arena", "prices", "list"}
    for name in english:
        assert numbers(chinese[name]) == numbers(english[name]), name
        assert english_left(chinese[name], data) == [], name
        assert re.search(r"[\u4e00-\u9fff]", chinese[name]), name
    # The headings and the sentences, as the catalog says them.
    head = chinese["table"].splitlines()[0].split()
    assert head[:3] == ["策略", "费用", "$"] and "召回率" in chinese["table"] and "丢失" in chinese["table"]
    assert chinese["needs"] == tr("{moments} needs of {items} earlier results, by kind: re-read {reread}, "
                                  "re-run {rerun}, quoted {quote}", language="zh", **needs_fields(small))
    assert chinese["decision"].splitlines()[0] == ("第 40 回合：清除 5,000 个 token：成本 $0.0848，"
                                                   "对比之后 40 个请求共节省 $0.0600 -> 等待")
    assert "（窗口逼得必须清）" in chinese["decision"]
    assert chinese["goal check"].startswith("small：按关键事实召回率")
    assert chinese["results.md"].startswith("# 压缩竞技场结果\n\n用 `python -m arena` 复现。")
    assert "## 跨误差范围的目标" in chinese["results.md"] and "| 会话 |" in chinese["results.md"]


def needs_fields(session) -> dict:
    needs = find_needs(session)
    kinds = needs.by_kind()
    return {"moments": needs.moments, "items": needs.items, "reread": kinds["re-read"], "rerun": kinds["re-run"],
            "quote": kinds["quote"]}


def test_in_english_the_arena_reads_as_before(small, monkeypatch):
    english = outputs(small, "en", monkeypatch)
    lines = english["table"].splitlines()
    assert re.split(r"  +", lines[0].strip()) == HEADINGS_EN
    assert lines[1] == "-" * len(lines[0])
    assert english["decision"].splitlines() == [
        "turn 40: clear 5,000 tokens: cost $0.0848 vs saving $0.0600 over 40 requests -> wait",
        "turn 40: clear 20,000 tokens: cost $0.0285 vs saving $0.2400 over 40 requests -> fire",
        "turn 40: clear 1,000 tokens: cost $0.0998 vs saving $0.0120 over 40 requests -> fire (the window demands it)"]
    kinds = needs_fields(small)
    assert english["needs"] == (f"{kinds['moments']} needs of {kinds['items']} earlier results, by kind: "
                                f"re-read {kinds['reread']}, re-run {kinds['rerun']}, quoted {kinds['quote']}")
    assert english["goal lines"].startswith("small: cost ") and " runs) · fewest needed results lost among those " \
        "under 60 % of none and Claude Code's own compaction: " in english["goal lines"]
    assert english["overhead"].splitlines()[:2] == [
        " messages        kit ms/turn  seed-style ms/turn        seed / kit",
        "              median    mean     median     mean     median   mean"]
    assert english["results.md"].startswith("# Compaction arena results\n\nReproduce with `python -m "
                                            "arena`. Prices: list prices.\n\nTwo recalls. **recall** (key facts")
    assert "## Goal across the spread: cheapest, and losing no more needed results\n\nAmong the strategies that " \
           "never exceed the window, the recommended pipeline is cheapest or within 1 % of the cheapest" \
           in english["results.md"]


def test_a_chinese_table_lines_up_where_a_chinese_character_is_two_columns(small, monkeypatch):
    chinese = outputs(small, "zh", monkeypatch)
    for name in ("table", "narrow table", "overhead"):
        for block in chinese[name].split("\n\n"):
            widths = {display_width(line) for line in block.splitlines()}
            assert len(widths) == 1, (name, block)      # every line as wide as its heading
    assert max(map(display_width, chinese["narrow table"].splitlines())) <= 100
    assert display_width("费用 $") == 6 and display_width("cost $") == 6


def test_a_trace_s_notes_are_in_the_student_s_language(tmp_path, monkeypatch):
    path = tmp_path / "abc-123.jsonl"
    jsonl(path, claude_session())
    made = {"tools_available": ["Read", "Grep"], "system": 5, "usage_per_turn": [{}]}
    notes = {}
    for language in ("en", "zh"):
        monkeypatch.setenv("LESSONS_LANG", language)
        notes[language] = load_trace(path).notes + session_from("made", tool_session(2, 5), made).notes
    assert notes["en"] == ["1 subagent (sidechain) line: 0 conversations read as sessions of their own",
                           "dropped 1 thinking block",
                           "system prompt and tool schemas are not in the log",
                           notes["en"][3],   # the measured prefix: its numbers are compared below
                           "2 tools named in the log, schemas not recorded: minimal schemas sent",
                           "the recorded system prompt is not one the API accepts: replayed without it",
                           "logged usage does not align with the turns: not used"]
    assert notes["en"][3].startswith("first request: ") and notes["en"][3].endswith("measured from its logged usage")
    assert notes["zh"][:3] == ["1 行子智能体（旁支链）记录：0 段对话作为独立会话读入", "丢弃了 1 个思考 (thinking) 块",
                               "日志里没有系统提示词和工具的 schema"]
    for en, zh in zip(notes["en"], notes["zh"], strict=True):
        assert numbers(zh) == numbers(en) and english_left(zh, set()) == [] and re.search(r"[\u4e00-\u9fff]", zh)


class NoClock:
    """A clock that never moves: every ms/turn is 0, so two runs print the same numbers."""

    @staticmethod
    def perf_counter() -> float:
        return 0.0


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_the_command_prints_and_reports_in_chinese_and_keeps_the_csv_english(tmp_path, capsys, monkeypatch):
    import importlib

    for clocked in ("arena.replay", "arena.context"):     # the turn, and its summary calls
        monkeypatch.setattr(importlib.import_module(clocked), "time", NoClock)
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "small.json").write_text(json.dumps(tool_session(6, 40)), encoding="utf-8")
    printed, written = {}, {}
    for language in ("en", "zh"):
        monkeypatch.setenv("LESSONS_LANG", language)
        out = tmp_path / language
        assert main(["--no-generated", "--traces", str(traces), "--out", str(out), "--no-overhead",
                     "--breakpoints", "last", "--strategies", "none,ctx-edit,recommended"]) == 0
        captured = capsys.readouterr()
        printed[language] = captured.out
        written[language] = ((out / "results.md").read_text(encoding="utf-8"),
                             (out / "results.csv").read_text(encoding="utf-8"))
        assert tr("wrote {markdown}, {csv}, {chart} in {seconds} s", markdown=out / "results.md",
                  csv=out / "results.csv", chart=out / "arena.png", seconds="")[:-3] in captured.err
    data = {"small", "none", "ctx-edit", "recommended", "main"}
    assert "\n总计\n" in printed["zh"] and "\noverall\n" in printed["en"]
    assert english_left(printed["zh"], data) == [] and numbers(printed["zh"]) == numbers(printed["en"])
    assert written["zh"][0].startswith("# 压缩竞技场结果") and english_left(written["zh"][0], data | {"python", "Opus", "Sonnet", "Haiku", "Fable", "Mythos", "OpenAI", "Codex", "CLI", "codex", "gpt-5",
                                    "gpt-5-codex"}) == []
    assert written["zh"][1] == written["en"][1]      # the CSV is data for tools: English column names


def test_the_arena_chart_speaks_chinese_when_a_font_draws_it(small, monkeypatch):
    from matplotlib.text import Text

    from lessonkit.i18n.fonts import cjk_font

    texts = {}
    for language in ("en", "zh"):
        monkeypatch.setenv("LESSONS_LANG", language)
        _, replays = run_arena([small], ["none", "recommended"], window=12_000)
        fig = figure(replays)
        texts[language] = [t.get_text() for t in fig.findobj(Text) if t.get_text()]
    assert "request tokens" in texts["en"] and "turn (assistant message)" in texts["en"]
    if cjk_font() is None:       # no font draws Chinese here: English labels, never empty boxes
        assert texts["zh"] == texts["en"]
        return
    assert "请求 token 数" in texts["zh"] and "回合（助手消息）" in texts["zh"] and " 窗口" in texts["zh"]
    assert all(cjk_font() in t.get_fontfamily() for t in fig.findobj(Text) if t.get_text())


def test_arena_counts_take_the_plural_that_fits(monkeypatch):
    """'1 requests', '1 subagent (sidechain) lines', '1 tools named' were shown for a count of one."""
    from arena.bills.calibration import Calibration

    monkeypatch.setenv("LESSONS_LANG", "en")
    assert "1 request, " in Calibration(0.5, "growth", 1, 10, 20).line()
    assert "2 requests, " in Calibration(0.5, "growth", 2, 10, 20).line()
    one = session_from("one", tool_session(1, 5), {"tools_available": ["Read"]}).notes
    assert "1 tool named in the log, its schema not recorded: a minimal schema sent" in one
