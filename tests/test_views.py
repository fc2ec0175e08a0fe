"""lessonkit.views: classification, bars, the HTML of a frame, and stepping the widget (no browser)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import given, settings

from lessonkit import tokens, views
from lessonkit.views import Bar, MessageListView, bars, classify, compare, render
from tests.strategies import histories

BAR = re.compile(r'<span class="lk-bar" data-kind="([a-z_]+)" data-tokens="(\d+)" style="width:([\d.]+)%">')


def tr(content, **extra):
    return {"type": "tool_result", "tool_use_id": "toolu_1", "content": content, **extra}


def text(t):
    return {"type": "text", "text": t}


@pytest.mark.parametrize("block, role, kind", [
    ("please fix it", "user", "user"),
    (text("please fix it"), "user", "user"),
    (text("I will read the file."), "assistant", "assistant"),
    ({"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}, "assistant", "tool_use"),
    (tr("a.py\nb.py"), "user", "tool_result"),
    (tr([text("a.py")]), "user", "tool_result"),
    (tr("[exit code 2]", is_error=True), "user", "error"),
    (tr("[Previous: used bash]"), "user", "placeholder"),
    (tr("[Previous: used bash]", is_error=True), "user", "placeholder"),  # what it became wins
    (tr([text("[Previous: used read_file]")]), "user", "placeholder"),
    (tr("<persisted-output>\nOutput too large (40 KB). Saved to: .out/x.txt\n</persisted-output>"),
     "user", "persisted"),
    (text("[snipped 12 messages]"), "user", "marker"),
    ("[Truncated 40 messages]", "user", "marker"),
    (text("[Compacted]\n\n## Goal ..."), "user", "summary"),
    ("[Reactive compact] the task so far", "user", "summary"),
    (text("  [Summary] rolling"), "user", "summary"),
    ("[对话摘要]\n\n...", "user", "summary"),
    ("This session is being continued from a previous conversation", "user", "summary"),
    (text("<summary>1. Primary request</summary>"), "assistant", "summary"),
    (text("[Previous: used bash]"), "user", "placeholder"),
    ({"type": "thinking", "thinking": "hmm"}, "assistant", "assistant"),
    ({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "xx"}}, "user", "user"),
    (text("a [Summary] in the middle is just text"), "assistant", "assistant"),
])
def test_classify_every_kind(block, role, kind):
    assert classify(block, role) == kind
    assert kind in views.KINDS and kind in views.PALETTE


def test_bars_one_per_block_and_message_overhead_on_the_first():
    msgs = [{"role": "user", "content": "hi"},
            {"role": "assistant", "content": [text("ok"), {"type": "tool_use", "id": "t1", "name": "bash",
                                                           "input": {"command": "ls -la"}}]},
            {"role": "user", "content": [tr("a.py", tool_use_id="t1")]},
            {"role": "assistant", "content": []}]
    got = bars(msgs)
    assert [b.msg for b in got] == [0, 1, 1, 2, 3]
    assert [b.kind for b in got] == ["user", "assistant", "tool_use", "tool_result", "assistant"]
    assert got[0] == Bar(0, "user", tokens.count_message(msgs[0]), "hi")
    assert got[1].tokens == tokens.PER_MESSAGE + tokens.count_block(msgs[1]["content"][0])
    assert got[2].tokens == tokens.count_block(msgs[1]["content"][1])
    assert got[2].text == "bash: ls -la" and got[3].text == "bash → a.py"
    assert got[4] == Bar(3, "assistant", tokens.PER_MESSAGE, "(empty)")
    assert sum(b.tokens for b in got) == tokens.count_messages(msgs)


def test_preview_is_one_short_line():
    (b,) = bars([{"role": "user", "content": "line one\n\n   line two " + "x" * 500}])
    assert b.text.startswith("line one line two x") and len(b.text) == views.PREVIEW and b.text[-1] == "…"


def test_bad_message_is_a_clear_error():
    with pytest.raises(TypeError, match="message 1 is a str, not a dict"):
        bars([{"role": "user", "content": "hi"}, "oops"])
    with pytest.raises(TypeError, match="message 0 has a NoneType block, not a dict"):
        bars([{"role": "user", "content": [None]}])
    assert "layer: 0 → 0 tokens, 0 → 0 messages" in views.event_html({"layer": "layer", "tokens_before": None})


@settings(max_examples=15)
@given(histories())
def test_bar_tokens_add_up_to_the_token_counter(msgs):
    got = bars(msgs)
    assert sum(b.tokens for b in got) == tokens.count_messages(msgs)
    assert {b.msg for b in got} == set(range(len(msgs)))
    assert all(b.kind in views.KINDS for b in got)


def test_render_bars_widths_totals_and_kinds():
    msgs = [{"role": "user", "content": "fix the tests " * 20},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash",
                                               "input": {"command": "pytest"}}]},
            {"role": "user", "content": [tr("F" * 400, tool_use_id="t1", is_error=True)]}]
    got = bars(msgs)
    page = render(got)
    found = BAR.findall(page)
    assert [k for k, _, _ in found] == ["user", "tool_use", "error"]
    assert [int(t) for _, t, _ in found] == [b.tokens for b in got]
    biggest = max(b.tokens for b in got)
    for _, t, width in found:  # width proportional to tokens, the biggest bar full width
        assert float(width) == pytest.approx(100 * int(t) / biggest, abs=0.01)
    total = re.search(r'<div class="lk-total">([^<]*)</div>', page).group(1)
    assert total.startswith(f"3 messages · 3 blocks · {tokens.count_messages(msgs):,} tokens")
    assert page.count("<style>") == 1 and page.startswith("<style>")
    assert " id=" not in page


def test_render_marks_where_threshold_and_window_are_crossed():
    got = [Bar(i, "user", 100, f"m{i}") for i in range(10)]
    page = render(got, threshold=450, window=800)
    rows = re.findall(r'lk-line-(threshold|window)|data-tokens="100"', page.split('class="lk-rows"')[1])
    order = [r or "bar" for r in rows]
    assert order.index("threshold") == 4 and order.index("window") == 9  # 500 > 450, 900 > 800
    assert "125.0% of the 800-token window" in page and "threshold 450" in page
    assert 'lk-mark lk-mark-threshold" style="left:45.00%' in page  # the gauge: 1,000 tokens full


def test_render_escapes_text_and_is_byte_identical():
    msgs = [{"role": "user", "content": "<script>alert('x')</script> & 上下文"}]
    first, again = render(bars(msgs)), render(bars(msgs), cache={})
    assert first == again
    assert "<script>" not in first and "&lt;script&gt;" in first and "上下文" in first


def test_view_dom_contract_and_stepping():
    msgs = [{"role": "user", "content": f"message {i}"} if i % 2 == 0 else
            {"role": "assistant", "content": [text(f"answer {i}")]} for i in range(9)]
    view = MessageListView(msgs, window=200)
    assert "lk-msgview" in view.widget._dom_classes
    assert "lk-frame-slider" in view.slider._dom_classes and "lk-frame-play" in view.play._dom_classes
    assert "lk-frame-label" in view.label._dom_classes
    assert view.link.source == (view.play, "value") and view.link.target == (view.slider, "value")
    assert (view.slider.min, view.slider.max, view.slider.value) == (1, 9, 9)
    assert len(BAR.findall(view.html.value)) == 9
    view.slider.value = 4  # what dragging the slider or the Play button does
    assert len(BAR.findall(view.html.value)) == 4
    assert '<div class="lk-total">4 messages' in view.html.value
    assert view.label.value == f"message 4/9 · 4 messages · {tokens.count_messages(msgs[:4]):,} tokens"
    view.show(9)
    assert view.html.value == MessageListView(msgs, window=200).html.value  # deterministic
    assert view._repr_mimebundle_()["text/plain"] == f"MessageListView({view.label.value})"


def test_view_of_an_empty_history_and_of_several_histories():
    empty = MessageListView([])
    assert (empty.slider.min, empty.slider.max) == (0, 0)
    assert '<div class="lk-total">0 messages · 0 blocks · 0 tokens' in empty.html.value
    h = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    several = MessageListView([h[:1], h], frame=1)
    assert several.slider.value == 1 and several.label.value.startswith("history 1/2 · 1 messages")
    several.show(2)
    assert len(BAR.findall(several.html.value)) == 2


def test_view_of_2000_messages_keeps_every_bar_in_the_dom_and_steps():
    msgs = []
    for k in range(1000):
        msgs += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"t{k}", "name": "bash",
                                                    "input": {"command": f"cat f{k}"}}]},
                 {"role": "user", "content": [tr("x = 1\n" * (k % 50 + 1), tool_use_id=f"t{k}")]}]
    msgs.insert(0, {"role": "user", "content": "go"})
    view = MessageListView(msgs[:2000], threshold=20_000)
    assert len(BAR.findall(view.html.value)) == 2000
    assert view.slider.continuous_update is False  # too many bars to redraw while dragging
    assert view.play.step == 20
    view.slider.value = 1000
    assert len(BAR.findall(view.html.value)) == 1000
    view.play.playing = True  # Play steps 1, 21, ..., 1981 and stops: the view ends on frame 2000
    view.play.value = 1981
    view.play.playing = False
    assert view.slider.value == 2000 and len(BAR.findall(view.html.value)) == 2000
    assert f"max-height:{views.MAX_HEIGHT_PX}px;overflow-y:auto" in view.html.value


def test_compare_outlines_what_became_a_placeholder():
    use = {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "cat big.py"}}
    before = [{"role": "user", "content": "read it"}, {"role": "assistant", "content": [use]},
              {"role": "user", "content": [tr("x = 1\n" * 300, tool_use_id="t1")]},
              {"role": "assistant", "content": "done"}]
    after = before[:2] + [{"role": "user", "content": [tr("[Previous: used bash]", tool_use_id="t1")]}, before[3]]
    view = compare(before, after, ("before", "micro"))
    assert "lk-compare" in view.widget._dom_classes
    assert view.before.value.count("lk-row lk-first lk-gone") == 1
    assert view.after.value.count("lk-row lk-first lk-changed") == 1
    assert 'data-kind="placeholder"' in view.after.value
    saved = tokens.count_messages(before) - tokens.count_messages(after)
    assert f"(saved {saved:,}," in view.text and "1 blocks new or rewritten, 1 gone" in view.text


def test_importing_views_does_not_import_matplotlib_or_widgets():
    code = "import sys, lessonkit.views; print('matplotlib' in sys.modules, 'ipywidgets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_timeline_steps_through_requests_and_marks_each_compaction():
    from lessonkit.record import Recorder

    rec = Recorder()
    first = [{"role": "user", "content": "read the logs " * 40}]
    rec("request", {"messages": first, "tools": []})
    rec("request", {"messages": first + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "go"}]})
    rec("compact", {"layer": "auto", "tokens_before": 400, "tokens_after": 60, "messages_before": 3,
                    "messages_after": 2, "note": "[Compacted] the logs were read"})
    rec("request", {"messages": [{"role": "user", "content": "[Compacted] the logs were read"},
                                 {"role": "assistant", "content": "ok"}], "tools": []})
    view = views.timeline(rec, window=1000, threshold=300)
    assert (view.slider.min, view.slider.max, view.slider.value) == (1, 3, 3)
    page = view.html.value
    assert ('<div class="lk-event" data-layer="auto">auto: 400 → 60 tokens, 3 → 2 messages · '
            '[Compacted] the logs were read</div>') in page
    assert view.label.value == f"request 3/3 · 2 messages · {rec.frames[2].tokens:,} tokens · after auto"
    assert [k for k, _, _ in BAR.findall(page)] == ["summary", "assistant"]
    columns = re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="0.8" height="[\d.]+" fill="(#\w+)"/>', page)
    assert columns == ["#9ecae1", "#9ecae1", "#0072B2"]  # one column per request, the current one dark
    assert re.findall(r'<line class="lk-tick" x1="([\d.]+)"', page) == ["2.00"]  # before request 3
    view.show(1)
    assert "lk-event" not in view.html.value.split("</style>")[1]
    assert view.label.value == f"request 1/3 · 1 messages · {rec.frames[0].tokens:,} tokens"
    with pytest.raises(TypeError, match="needs a Recorder"):
        views.timeline([first])
