"""Benchmark: the message-list view's Python side and the recorder on a 2,000-message history.

Run: .venv/bin/python benchmarks/bench_views.py   (prints milliseconds; asserts nothing)
(The browser side, load and frame step in Chromium: benchmarks/bench_views_browser.py.)

    history(2000) ──> bars() ──> encode() ──> MessageListView (the widget's model) ──> text picture
    a growing run ──> Recorder (one frame per request) ──> timeline() (every frame in the model)

Example output: "view: build 2,000 messages  ... ms"
"""

from __future__ import annotations

import json
import time
import tracemalloc

from lessonkit.show import bars, views
from lessonkit.show.record import Recorder

N = 2_000


def history(n: int) -> list[dict]:
    """A deterministic history of n messages: tool calls, results of varied size, a few errors,
    placeholders and a summary, like a long session after some compaction."""
    out = [{"role": "user", "content": "[Compacted] summary of the earlier work\n" + "- did a thing\n" * 40}]
    k = 0
    while len(out) < n:
        k += 1
        if len(out) % 2 == 0:  # a user turn can only follow an assistant turn
            out.append({"role": "user", "content": "please continue"})
            continue
        out.append({"role": "assistant", "content": [
            {"type": "text", "text": f"Step {k}: reading file {k % 17}."},
            {"type": "tool_use", "id": f"toolu_{k:05d}", "name": "bash", "input": {"command": f"cat f{k}.py"}}]})
        body = "[Previous: used bash]" if k % 5 == 0 else ("def f():\n    return 1\n" * (5 + (k * 37) % 200))
        result = {"type": "tool_result", "tool_use_id": f"toolu_{k:05d}", "content": body}
        if k % 23 == 0:
            result["is_error"] = True
        out.append({"role": "user", "content": [result]})
    return out[:n]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def timed(fn, repeat: int = 1):
    start = time.perf_counter()
    for _ in range(repeat):
        value = fn()
    return value, (time.perf_counter() - start) / repeat


def deep_size(value) -> int:
    """Bytes a deep copy of `value` allocates."""
    import copy
    tracemalloc.start()
    copied = copy.deepcopy(value)
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del copied
    return size


def main() -> None:
    msgs = history(N)
    _, t = timed(lambda: __import__("lessonkit.show.widget"))
    print(f"import the widget:  once per kernel  {ms(t)}")
    found, t = timed(lambda: bars.bars(msgs), 5)
    print(f"bars():             {N:,} messages -> {len(found):,} bars  {ms(t)}")
    (blocks, _), t = timed(lambda: bars.encode([found]), 5)
    print(f"encode():           {len(found):,} bars -> {len(blocks):,} blocks  {ms(t)}")
    view, t = timed(lambda: views.MessageListView(msgs, window=200_000, threshold=150_000))
    size = len(json.dumps([view.widget.blocks, view.widget.frames], ensure_ascii=False).encode())
    print(f"MessageListView():  {N:,} frames in the model, {size / 1e3:,.0f} kB JSON  {ms(t)}")
    page, t = timed(lambda: view.text_at(N), 5)
    print(f"text picture:       the last frame, {len(page.splitlines())} lines  {ms(t)}")

    # a run that grows to N messages: one request every two messages
    def run(recorder):
        for end in range(1, N + 1, 2):
            recorder("request", {"messages": msgs[:end], "tools": []})
        return recorder

    recorder, elapsed = timed(lambda: run(Recorder()))
    print(f"Recorder:           {len(recorder):,} requests up to {N:,} messages  {ms(elapsed)} "
          f"({ms(elapsed / len(recorder)).strip()} per request)")
    tracemalloc.start()
    kept = run(Recorder())
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"Recorder memory:    {len(kept):,} frames hold {size / 1e6:.1f} MB "
          f"(a deep copy of the last history alone: {deep_size(msgs) / 1e6:.1f} MB)")
    start = time.perf_counter()
    recorder("request", {"messages": msgs, "tools": []})
    print(f"Recorder:           one request at {N:,} messages  {ms(time.perf_counter() - start)}")
    tl, t = timed(lambda: views.timeline(recorder, window=200_000, threshold=150_000))
    size = len(json.dumps([tl.widget.blocks, tl.widget.frames], ensure_ascii=False).encode())
    print(f"timeline():         {len(recorder):,} frames in the model, {size / 1e3:,.0f} kB JSON  {ms(t)}")


if __name__ == "__main__":
    main()
