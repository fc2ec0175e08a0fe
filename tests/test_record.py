"""lessonkit.show.record: a real agent run (offline model) recorded as frames, and the bar memo."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lessonkit import tokens
from lessonkit.show.bars import bars
from lessonkit.show.demo import make_workspace
from lessonkit.show.record import COLUMNS, BarMemo, Recorder, format_table
from offline import OfflineModel, offline_client
from s01_loop import Agent
from tests.strategies import histories

TASK = "Read every python file and summarise what each one does"


def run(tmp_path, **options):
    model = OfflineModel()
    rec = Recorder(**options)
    agent = Agent(offline_client(model, max_retries=0), workspace=make_workspace(tmp_path / "ws", files=3),
                  on_event=rec)
    agent.ask(TASK)
    return rec, agent, model


def test_one_frame_per_request_with_what_was_sent_and_what_came_back(tmp_path):
    rec, agent, model = run(tmp_path, keep_messages=True)
    assert len(rec) == model.calls >= 4
    for i, frame in enumerate(rec):
        assert frame.request == i + 1 and frame.n_messages == len(frame.messages) == 2 * i + 1
        assert frame.tokens == tokens.count_messages(frame.messages) == sum(b.tokens for b in frame.bars)
        usage = frame.usage
        assert type(usage) is dict and usage["output_tokens"] > 0
        sent = tokens.count_request({"tools": agent.tools, "system": agent.system, "messages": frame.messages})
        assert usage["input_tokens"] + usage["cache_read_input_tokens"] + usage["cache_creation_input_tokens"] == sent
    assert [f.stop_reason for f in rec][-1] == "end_turn"
    assert all(f.stop_reason == "tool_use" and f.tools for f in rec.frames[:-1])
    assert rec.frames[1].tools[0]["name"] == "bash" and rec.frames[1].tools[0]["is_error"] is False
    assert rec.frames[-1].kinds["tool_result"] > 0 and sum(rec.frames[-1].kinds.values()) == rec.frames[-1].tokens


def test_table_is_plain_values_and_the_summary_is_the_same_every_run(tmp_path):
    rec, _, _ = run(tmp_path / "a")
    rows = rec.table()
    json.dumps(rows)  # plain values only
    assert rows[0] == {"request": 1, "messages": 1, "tokens": rec.frames[0].tokens,
                       "input": rec.frames[0].usage["input_tokens"], "cache_read": 0, "cache_write": 0,
                       "output": rec.frames[0].usage["output_tokens"], "stop": "tool_use", "compactions": ""}
    again, _, _ = run(tmp_path / "b")
    assert rec.summary() == again.summary()
    assert not any(s in rec.summary() for s in ("toolu_", "msg_", "0x", "req_"))
    assert rec.summary().splitlines()[0].split() == list(rows[0])


def test_frames_share_unchanged_bars_and_keep_no_messages_by_default(tmp_path):
    rec, _, _ = run(tmp_path)
    first, last = rec.frames[0], rec.frames[-1]
    assert first.messages is None
    assert last.bars[0] is first.bars[0]  # the same object, not a copy


def test_frames_are_snapshots_even_when_the_history_is_rewritten_in_place():
    history = [{"role": "user", "content": "go"},
               {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash",
                                                  "input": {"command": "cat big"}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x\n" * 900}]}]
    rec = Recorder(keep_messages=True)
    rec("request", {"messages": history, "tools": []})
    history[2]["content"][0]["content"] = "[Previous: used bash]"  # micro-compact rewrites in place
    rec("request", {"messages": history, "tools": []})
    assert rec.frames[0].bars[2].kind == "tool_result" and rec.frames[1].bars[2].kind == "placeholder"
    assert rec.frames[0].messages[2]["content"][0]["content"].startswith("x\n")
    assert rec.frames[1].tokens < rec.frames[0].tokens


def test_compactions_attach_to_the_next_request():
    rec = Recorder()
    msgs = [{"role": "user", "content": "hello " * 100}]
    rec("request", {"messages": msgs, "tools": []})
    event = {"layer": "micro", "tokens_before": 9000, "tokens_after": 2000, "messages_before": 41,
             "messages_after": 41, "note": "3 results replaced"}
    rec("compact", event)
    assert rec.pending and rec.frames[0].compactions == []
    rec("request", {"messages": msgs, "tools": []})
    (got,) = rec.frames[1].compactions
    assert got == {**event, "request": 2} and rec.compactions == [got] and rec.pending == []
    assert rec.table()[1]["compactions"] == "micro 9,000->2,000"
    rec("compact", {**event, "layer": "auto"})
    assert rec.pending[0]["request"] is None and len(rec.compactions) == 2


def test_an_api_error_is_recorded_with_the_api_message():
    client = offline_client(OfflineModel(context_window=50), max_retries=0)
    msgs = [{"role": "user", "content": "word " * 400}]
    rec = Recorder()
    rec("request", {"messages": msgs, "tools": []})
    with pytest.raises(Exception) as caught:
        client.messages.create(model="offline", max_tokens=10, messages=msgs)
    rec("error", {"error": caught.value})
    sent = tokens.count_messages(msgs)
    assert rec.frames[0].error == f"BadRequestError: prompt is too long: {sent} tokens > 50 maximum"
    assert rec.table()[0]["stop"] == "error" and rec.table()[0]["input"] is None


def test_recorder_is_always_truthy_and_passes_events_on():
    seen = []
    rec = Recorder(on_event=lambda kind, data: seen.append(kind))
    assert len(rec) == 0 and bool(rec) is True  # `if self.on_event:` must call an empty recorder
    rec("request", {"messages": [], "tools": []})
    rec("something_new", {})
    assert seen == ["request", "something_new"] and len(rec) == 1


def test_format_table_aligns_numbers_right_and_text_left():
    rows = [{"request": 1, "tokens": 950, "stop": "tool_use"}, {"request": 12, "tokens": None, "stop": "end_turn"}]
    assert format_table(rows, ("request", "tokens", "stop")) == (
        "request  tokens  stop\n"
        "      1     950  tool_use\n"
        "     12       -  end_turn")


def test_a_table_is_headed_in_the_lessons_language_and_stays_in_line(monkeypatch):
    """Bug: a Chinese lesson's tables were headed 'request  messages  tokens ...'."""
    from lessonkit.show import textwidth
    from lessonkit.show.record import headings

    rows = [{"request": 1, "tokens": 950, "stop": "tool_use", "s05_read": 3},
            {"request": 12, "tokens": None, "stop": "end_turn", "s05_read": None}]
    monkeypatch.setenv("LESSONS_LANG", "zh")
    table = format_table(rows, ("request", "tokens", "stop", "s05_read"))
    assert table == ("请求  token 数  停止原因  s05_read\n"
                     "   1       950  tool_use         3\n"
                     "  12         -  end_turn         -")
    lines = table.splitlines()
    assert len({textwidth.width(line) for line in lines}) == 1  # Chinese heads take two cells a character
    rec = Recorder()
    rec("request", {"messages": [{"role": "user", "content": "hi"}]})
    assert rec.summary().splitlines()[0].split()[:3] == ["请求", "消息数", "token"]
    assert set(headings()) >= set(COLUMNS) | {"msg", "kind", "text"}  # every column the kit makes
    monkeypatch.setenv("LESSONS_LANG", "en")
    assert all(k == v for k, v in headings().items())  # English heads are the keys themselves


def test_text_width_counts_cells():
    from lessonkit.show import textwidth

    assert textwidth.width("用户 ok") == 7 and textwidth.width("") == 0
    assert textwidth.ljust("令牌", 6) == "令牌  " and textwidth.rjust("请求", 6) == "  请求"
    assert textwidth.ljust("toolong", 3) == "toolong"
    assert textwidth.cut("工具结果+标记", 9) == "工具结果+" and textwidth.cut("工具", 3) == "工"
    assert textwidth.cut("abc", 5) == "abc"


OPS = st.lists(st.sampled_from(["append", "placeholder", "nested", "input", "snip", "copy", "same"]),
               max_size=6)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@settings(max_examples=20)
@given(histories(max_turns=8), OPS, st.integers(0, 10_000))
def test_bar_memo_equals_counting_from_scratch(history, ops, seed):
    memo, history = BarMemo(), list(history)
    assert memo(history) == tuple(bars(history))
    for n, op in enumerate(ops):
        target = history[(seed + n) % len(history)]
        blocks = target["content"] if isinstance(target["content"], list) else []
        if op == "append":
            history.append({"role": "assistant" if history[-1]["role"] == "user" else "user", "content": f"m{n}"})
        elif op == "snip" and len(history) > 2:
            del history[:2]
        elif op == "copy":
            history = json.loads(json.dumps(history))
        for b in blocks:
            if op == "placeholder" and b.get("type") == "tool_result":
                b["content"] = "[Previous: used bash]"
            elif op == "nested" and b.get("type") == "tool_result" and isinstance(b["content"], list):
                b["content"][0]["text"] = "short"
            elif op == "input" and b.get("type") == "tool_use":
                b["input"].clear()
        assert memo(history) == tuple(bars(history)), op


def test_an_error_between_requests_does_not_mark_the_previous_request():
    """A summary call that fails after request 1 was answered belongs to no frame: it is kept
    in `errors` for request 2, and request 1 still shows its own stop reason."""
    from types import SimpleNamespace

    from lessonkit.show.record import Recorder

    rec = Recorder()
    rec("request", {"messages": [{"role": "user", "content": "hi"}]})
    rec("response", {"response": SimpleNamespace(usage=None, stop_reason="tool_use")})
    rec("error", {"error": RuntimeError("summary call failed")})
    rec("request", {"messages": [{"role": "user", "content": "hi"}]})
    rec("error", {"error": RuntimeError("prompt is too long")})
    assert rec.frames[0].stop_reason == "tool_use" and rec.frames[0].error is None
    assert rec.frames[1].error and "too long" in rec.frames[1].error
    assert [e["request"] for e in rec.errors] == [2, 2]
