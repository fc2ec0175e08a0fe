"""Benchmark: the front-end view in headless Chromium, 2,000 messages and 300 frames.

Run: .venv/bin/python benchmarks/bench_views_browser.py   (prints figures; asserts nothing)

    a run to 2,000 messages, a request every ~7 ──> Recorder (300 frames) ──> timeline()
      ──> the widget's model state (JSON) ──> a page with view.js + view.css and a stand-in model
      ──> Chromium (Debian's /usr/bin/chromium, driven by Playwright)
            load:  render() of the last frame, style and layout forced     (target: < 1 s)
            step:  the slider's input event -> the frame drawn, layout forced (target: < 16 ms)
    and the state's size against the largest lesson notebook (target: growth ≤ 2×).

The stand-in model is what anywidget hands render() (get / set / on / off / save_changes);
the page loads the module from a blob: URL as anywidget does. A second figure loads the
same view as `make site` does: nbconvert HTML with the vendored widget manager, from disk.

Example output: "load (render + layout), 2,000 messages, 300 frames, 5 page loads: median 29.0 ms, ..."
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_views import history  # noqa: E402

from lessonkit.show import views  # noqa: E402
from lessonkit.show.record import Recorder  # noqa: E402
from lessonkit.show.widget import HERE  # noqa: E402

N, FRAMES, STEPS, RUNS = 2_000, 300, 60, 5
REPO = Path(__file__).resolve().parents[1]

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>{css}</style></head>
<body style="width:1000px"><div id="out"></div>
<script type="application/json" id="state">{state}</script>
<script type="text/plain" id="esm">{esm}</script>
<script>
const state = JSON.parse(document.getElementById('state').textContent);
const model = {{get: k => state[k], set: (k, v) => {{ state[k] = v; }}, save_changes() {{}},
               on() {{}}, off() {{}}}};
const url = URL.createObjectURL(new Blob([document.getElementById('esm').textContent],
                                         {{type: 'text/javascript'}}));
window.bench = (async () => {{
  const mod = await import(url);
  const el = document.getElementById('out');
  const t0 = performance.now();
  mod.default.render({{model, el}});
  el.offsetHeight;  // style and layout of the first frame
  const load = performance.now() - t0;
  const slider = el.querySelector('.lk-frame-slider'), steps = [], scripts = [];
  const n = state.frames.length;
  for (let k = 0; k < {steps}; k++) {{
    const to = k % 3 === 0 ? 1 + (k * 7919) % n : Math.max(1, n - k);  // jumps and single steps
    const s = performance.now();
    slider.value = String(to);
    slider.dispatchEvent(new Event('input'));
    scripts.push(performance.now() - s);
    el.offsetHeight;
    steps.push(performance.now() - s);
  }}
  steps.sort((a, b) => a - b);
  return {{load, script: scripts.reduce((a, b) => a + b) / scripts.length,
          mean: steps.reduce((a, b) => a + b) / steps.length,
          p95: steps[Math.floor(0.95 * steps.length)], max: steps[steps.length - 1],
          rows: el.querySelectorAll('.lk-row').length}};
}})();
</script></body></html>"""


def recorded(n: int = N, frames: int = FRAMES) -> Recorder:
    """A run that grows to n messages in `frames` requests (a request every ~n/frames messages)."""
    msgs, rec = history(n), Recorder()
    ends = sorted({max(1, round(n * (k + 1) / frames)) for k in range(frames)})
    for end in ends:
        end -= (end % 2 == 0)  # a request ends on a user message
        rec("request", {"messages": msgs[:end], "tools": []})
    return rec


def state_of(view) -> dict:
    w = view.widget
    return {k: getattr(w, k) for k in ("mode", "kinds", "blocks", "frames", "totals", "compacted", "window",
                                       "threshold", "scale", "full", "titles", "caption", "frame",
                                       "interval", "step")}


def chromium():
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(REPO / "tests"))
    from browser.chromium import LAUNCH_FLAGS, ensure_chromium

    path, why = ensure_chromium()
    if why:
        raise SystemExit(f"no Chromium: {why}")
    driver = sync_playwright().start()
    return driver, driver.chromium.launch(executable_path=path, headless=True,
                                          args=[*LAUNCH_FLAGS, "--disable-dev-shm-usage"])


def main() -> None:
    rec = recorded()
    start = time.perf_counter()
    view = views.timeline(rec, window=200_000, threshold=150_000)
    build = time.perf_counter() - start
    state = state_of(view)
    size = len(json.dumps(state, ensure_ascii=False).encode())
    print(f"timeline():  {len(rec):,} frames up to {N:,} messages, {len(state['blocks']):,} distinct blocks, "
          f"built in {build * 1000:.0f} ms (Python)")
    print(f"model state: {size / 1e3:,.0f} kB JSON ({size / len(rec):,.0f} bytes a frame)")

    tmp = Path(tempfile.mkdtemp(prefix="bench-views-"))
    page_path = tmp / "view.html"
    esm = (HERE / "view.js").read_text().replace("</script", "<\\/script")
    page_path.write_text(PAGE.format(css=(HERE / "view.css").read_text(), steps=STEPS, esm=esm,
                                     state=json.dumps(state, ensure_ascii=False).replace("</", "<\\/")))
    driver, browser = chromium()
    try:
        runs = []
        for _ in range(RUNS):  # a shared machine is noisy: report the median and the best run
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(page_path.as_uri())
            runs.append(page.evaluate("() => window.bench"))
            page.close()

        def spread(key):
            values = sorted(r[key] for r in runs)
            return f"median {values[len(values) // 2]:.1f} ms, best {values[0]:.1f} ms"

        print(f"load (render + layout), {N:,} messages, {len(rec)} frames, {RUNS} page loads: "
              f"{spread('load')}   (target < 1,000 ms)")
        print(f"frame step (input -> drawn + layout), mean of {STEPS} steps: {spread('mean')}   (target < 16 ms)")
        print(f"frame step, 95th percentile: {spread('p95')}; script alone (mean): {spread('script')}")
        print(f"rows in the DOM after the steps: {runs[-1]['rows']:,}")
    finally:
        browser.close()
        driver.stop()

    lessons = sorted((REPO / "lessons").glob("*.ipynb"), key=lambda p: p.stat().st_size)
    largest = lessons[-1]
    nb = json.loads(largest.read_text())
    widgets = json.dumps(nb.get("metadata", {}).get("widgets", {}))
    print(f"largest lesson: {largest.name} {largest.stat().st_size / 1e3:,.0f} kB, of which stored widget "
          f"state {len(widgets) / 1e3:,.0f} kB")


if __name__ == "__main__":
    main()
