"""lessonkit.show.charts: the saw-tooth and the cache chart, read back from the matplotlib objects."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from lessonkit.show import charts
from lessonkit.show.record import Recorder


def recorded_run() -> Recorder:
    """Four requests with a micro-compact before the third, and cache usage on each."""
    rec = Recorder()
    sizes = [200, 900, 300, 700]
    usages = [(0, 0, 220), (0, 0, 920), (0, 310, 10), (300, 380, 40)]  # read, write, uncached
    for n, (size, (read, write, plain)) in enumerate(zip(sizes, usages)):
        if n == 2:
            rec("compact", {"layer": "micro", "tokens_before": 900, "tokens_after": 250,
                            "messages_before": 3, "messages_after": 3, "note": ""})
        rec("request", {"messages": [{"role": "user", "content": "x" * (4 * size)}], "tools": []})
        rec.frames[-1].usage = {"cache_read_input_tokens": read, "cache_creation_input_tokens": write,
                                "input_tokens": plain, "output_tokens": 5}
    return rec


def test_series_reads_recorders_frames_and_plain_counts():
    rec = recorded_run()
    values, events = charts.series(rec)
    assert values == [f.tokens for f in rec] and [v - values[0] for v in values] == [0, 700, 100, 500]
    assert [(r, e["layer"]) for r, e in events] == [(3, "micro")]
    assert charts.series(rec.frames) == (values, events)
    assert charts.series([5, 7.0]) == ([5, 7], [])
    with pytest.raises(TypeError, match="a run is a Recorder"):
        charts.series(["a"])


def test_a_refused_request_is_plotted_at_the_refusals_own_count():
    """Bug: s07's chart drew the refused request at the kit's estimate, under the window line."""
    rec = Recorder()
    rec("request", {"messages": [{"role": "user", "content": "x" * 400}]})
    rec("error", {"error": RuntimeError("prompt is too long: 2100 tokens > 2000 maximum")})
    rec("request", {"messages": [{"role": "user", "content": "x" * 40}]})
    values, _ = charts.series(rec)
    assert values == [2100, rec.frames[1].tokens]
    (line, window) = charts.sawtooth(rec, window=2000).axes[0].lines
    assert list(line.get_ydata()) == values and line.get_ydata()[0] > window.get_ydata()[0]


def test_sawtooth_draws_each_request_the_limits_and_each_compaction():
    fig = charts.sawtooth(recorded_run(), window=1000, threshold=800)
    (ax,) = fig.axes
    run, threshold, window = ax.lines
    rec = recorded_run()
    assert list(run.get_ydata()) == [f.tokens for f in rec] and list(run.get_xdata()) == [1, 2, 3, 4]
    assert list(threshold.get_ydata()) == [800, 800] and list(window.get_ydata()) == [1000, 1000]
    arrow, label = ax.texts  # one arrow and one label per compaction, between requests 2 and 3
    assert arrow.xy == (2.5, 250) and arrow.xyann == (2.5, 900)
    assert label.get_text() == "micro 900→250" and label.xy == (2.5, 0.97)  # in the band above the data
    assert ax.get_ylim()[1] > 1000 / 0.75  # the band (top quarter) stays clear of the data
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["tokens sent", "threshold 800", "context window 1,000"]


def test_sawtooth_puts_several_runs_on_one_axes():
    fig = charts.sawtooth({"s06": recorded_run(), "s08": [100, 200, 150]})
    labels = [line.get_label() for line in fig.axes[0].lines]
    assert labels == ["s06", "s08"]
    fig = charts.sawtooth([[1, 2], [3, 4], recorded_run()])
    assert [line.get_label() for line in fig.axes[0].lines] == ["run 1", "run 2", "run 3"]


def test_cache_chart_stacks_read_write_and_uncached_per_request():
    fig = charts.cache_chart(recorded_run())
    (ax,) = fig.axes
    heights = [[p.get_height() for p in c] for c in ax.containers]
    assert heights == [[0, 0, 0, 300], [0, 0, 310, 380], [220, 920, 10, 40]]
    bottoms = [p.get_y() for p in ax.containers[2]]
    assert bottoms == [0, 0, 310, 680]  # uncached sits on top of read + write
    assert "cache read 14% of input" in ax.get_title()
    assert [t.get_text() for t in ax.texts] == ["micro"]
    assert charts.cache_split(None) == (0, 0, 0)
    with pytest.raises(TypeError, match="needs a Recorder"):
        charts.cache_chart([1, 2, 3])


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_png_is_deterministic_and_shown_by_jupyter():
    first, again = charts.sawtooth([1, 5, 2], threshold=4).png(), charts.sawtooth([1, 5, 2], threshold=4).png()
    assert first == again and first.startswith(b"\x89PNG")
    assert charts.sawtooth([1])._repr_png_().startswith(b"\x89PNG")


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_importing_and_drawing_uses_no_pyplot_and_opens_no_window():
    code = ("import sys, lessonkit.show.charts as c; c.sawtooth([1, 2, 3]).png(); "
            "print('matplotlib.pyplot' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "MPLBACKEND": "TkAgg"})  # a GUI backend, never touched
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------- Chinese charts (issue 15)

def chart_texts(fig) -> list[str]:
    from matplotlib.text import Text

    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_a_chinese_lesson_draws_chinese_charts_with_a_font_that_has_the_glyphs(monkeypatch):
    from lessonkit.i18n.fonts import cjk_font
    from lessonkit.show.charts import sawtooth

    frames = [[1_000, 2_000, 500]]
    monkeypatch.setenv("LESSONS_LANG", "en")
    english = chart_texts(sawtooth(frames, window=3_000, threshold=2_500))
    assert "Tokens sent per request" in english and "request" in english
    monkeypatch.setenv("LESSONS_LANG", "zh")
    fig = sawtooth(frames, window=3_000, threshold=2_500)
    texts = chart_texts(fig)
    if cjk_font() is None:  # no font draws Chinese here: English labels, never empty boxes
        assert texts == english
        return
    assert "每个请求发送的 token" in texts and "请求" in texts and "上下文窗口 3,000" in texts
    from matplotlib.text import Text

    assert all(cjk_font() in t.get_fontfamily() for t in fig.findobj(Text) if t.get_text())


def test_every_chart_title_the_lessons_use_has_a_translation():
    import json
    import re
    from pathlib import Path

    from lessonkit.i18n import catalog

    titles = set()
    for nb in sorted((Path(__file__).resolve().parent.parent / "lessons").glob("*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                titles |= set(re.findall(r'(?:sawtooth|cache_chart)\([^)]*title="([^"]+)"', "".join(cell["source"])))
    assert titles and not (titles - set(catalog("zh"))), sorted(titles - set(catalog("zh")))


def test_a_runs_label_is_shown_in_the_lessons_language(monkeypatch):
    from lessonkit import i18n
    from lessonkit.i18n.fonts import cjk_font
    from lessonkit.show.charts import sawtooth

    label = "s05 (budget)"  # an entry of lessonkit/i18n/zh/lessons.json
    monkeypatch.setenv("LESSONS_LANG", "en")
    assert [line.get_label() for line in sawtooth({label: [1, 2]}).axes[0].lines] == [label]
    assert [line.get_label() for line in sawtooth([[1, 2]], labels=[label]).axes[0].lines] == [label]
    monkeypatch.setenv("LESSONS_LANG", "zh")
    shown = [line.get_label() for line in sawtooth({label: [1, 2], "s06": [3]}).axes[0].lines]
    assert shown == [i18n.catalog("zh")[label] if cjk_font() else label, "s06"]
