"""Drive JupyterLab like a user: open a notebook, Run All Cells, play with a message view.

    page.goto(lab.url(nb)); wait_notebook_ready(page, nb)
    clear_all_outputs(page); run_all_cells(page); wait_run_complete(page)
    view = find_players(page).first; step_frames(page, view) -> [Frame(...), ...]

Everything goes through the UI (menus, clicks, keys); waits are conditions on the
page, never sleeps. The kernel's status comes from the live kernel connection
(`window.jupyterapp`, exposed by the server's `expose_app_in_browser`): it turns
busy before a kernel message's effects reach the DOM and idle only after them, so
"the label changed, then the kernel is idle" means a frame has fully rendered.
DOM contract of a message view (lessonkit.show.views, drawn by lessonkit/show/widget/view.js): a root
`.lk-msgview` holding the `.lk-frame-play` button, the `.lk-frame-slider` range input
(min/max/value, `aria-pressed` "true" while playing), the `.lk-frame-label`, a `.lk-bar[data-kind]`
per content block in `.lk-rows` and the `.lk-total` line ("N messages ..." in English) with its
numbers in `data-messages` and `data-blocks`, so a Chinese view reads the same.
Frames are drawn in the browser: a step needs no kernel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LOAD_TIMEOUT = 120_000  # ms: JupyterLab's bundle and a cold kernel on a slow, shared machine
RUN_TIMEOUT = 120_000
STEP_TIMEOUT = 30_000
MAX_FRAMES = 200

KERNEL_STATUS_JS = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return k ? k.status : null;
}"""


class RunFailed(AssertionError):
    """Run All Cells stopped early; the message carries the error outputs."""


@dataclass(frozen=True)
class Frame:
    value: int  # the slider's value
    label: str  # the .lk-frame-label text
    kinds: tuple  # data-kind of each .lk-bar in the DOM, in order (the rows in sight)
    total: str  # the .lk-total text
    messages: int | None = None  # the .lk-total's data-messages (None if it has none)
    blocks: int | None = None  # its data-blocks: every row of the frame, in sight or not


def kernel_status(page) -> str | None:
    return page.evaluate(KERNEL_STATUS_JS)


def dismiss_dialogs(page) -> list[str]:
    """Accept any modal dialog (kernel choice, notices) the way a user would; returns their texts."""
    seen = []
    dialog = page.locator(".jp-Dialog")
    while dialog.count() and dialog.first.is_visible():
        seen.append(dialog.first.inner_text().strip())
        dialog.first.locator(".jp-Dialog-button.jp-mod-accept").first.click()
        dialog.first.wait_for(state="detached", timeout=10_000)
    return seen


def wait_notebook_ready(page, notebook: str, timeout: int = LOAD_TIMEOUT) -> list[str]:
    """Wait for `notebook` to be the current tab, with cells and an idle kernel, accepting
    dialogs on the way. Returns the dialogs' texts."""
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=timeout)
    dialogs = dismiss_dialogs(page)
    page.wait_for_function(f"() => ({KERNEL_STATUS_JS})() === 'idle'", timeout=timeout)
    current = page.evaluate("() => jupyterapp.shell.currentWidget.context.path")
    assert current == notebook, f"the current tab is {current!r}, not {notebook!r}"
    return dialogs + dismiss_dialogs(page)


def menu(page, top: str, command: str) -> None:
    """Open the top menu `top` and click the item bound to `command` (its data-command)."""
    page.locator(".lm-MenuBar-item", has_text=re.compile(rf"^\s*{top}\s*$")).first.click()
    item = page.locator(f'.lm-Menu-item[data-command="{command}"]')
    item.wait_for(state="visible", timeout=10_000)
    item.click()
    item.wait_for(state="hidden", timeout=10_000)


def clear_all_outputs(page) -> None:
    """Edit > Clear Outputs of All Cells: stored outputs and counts go, so fresh ones can be seen."""
    menu(page, "Edit", "editmenu:clear-all")
    page.wait_for_function(
        "() => ![...document.querySelectorAll('.jp-Notebook .jp-InputPrompt')]"
        ".some(p => /\\[\\d+\\]/.test(p.textContent))", timeout=10_000)


def run_all_cells(page) -> None:
    """Run > Run All Cells."""
    menu(page, "Run", "runmenu:run-all")


RUN_STATE_JS = """() => {
  const panel = window.jupyterapp.shell.currentWidget.node;  // the notebook being run
  const cells = [...panel.querySelectorAll('.jp-Notebook .jp-CodeCell')];
  const prompt = c => (c.querySelector('.jp-InputPrompt') || {}).textContent || '';
  const code = c => ((c.querySelector('.cm-content') || {}).textContent || '').trim();
  const status = (KERNEL_STATUS)();
  if (status !== 'idle' || cells.some(c => prompt(c).includes('*'))) return null;
  const todo = cells.filter(c => code(c));
  const done = todo.filter(c => /\\[\\d+\\]/.test(prompt(c)));
  if (done.length === 0) return null;  // not started yet
  const errors = [...panel.querySelectorAll(
      '.jp-Notebook .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
      .map(e => e.innerText.trim());
  return {cells: todo.length, done: done.length, errors};
}""".replace("KERNEL_STATUS", KERNEL_STATUS_JS)


def wait_run_complete(page, timeout: int = RUN_TIMEOUT) -> dict:
    """Wait until the kernel is idle with no cell queued; raise RunFailed if some never ran."""
    state = page.wait_for_function(RUN_STATE_JS, timeout=timeout, polling=100).json_value()
    if state["done"] != state["cells"]:
        raise RunFailed(f"Run All Cells stopped after {state['done']} of {state['cells']} code "
                        "cells:\n" + "\n".join(state["errors"])[-3000:])
    return state


# -- the message view --------------------------------------------------------------------------

# A view's root holds its slider; bars, totals and label are looked up inside that root.
PLAYER = ".lk-msgview:has(.lk-frame-slider)"

READ_FRAME_JS = """v => ({
  value: Number(v.querySelector('.lk-frame-slider').value),
  label: v.querySelector('.lk-frame-label').innerText.trim(),
  kinds: [...v.querySelectorAll('.lk-rows .lk-bar')].map(b => b.dataset.kind),
  total: (v.querySelector('.lk-total') || {innerText: ''}).innerText.trim(),
  messages: (v.querySelector('.lk-total') || {dataset: {}}).dataset.messages,
  blocks: (v.querySelector('.lk-total') || {dataset: {}}).dataset.blocks,
})"""


def find_players(page):
    """Every message view with a frame slider on the page, in document order."""
    return page.locator(PLAYER)


def read_frame(view) -> Frame:
    data = view.evaluate(READ_FRAME_JS)
    number = (lambda v: None if v in (None, "") else int(v))
    return Frame(data["value"], data["label"], tuple(data["kinds"]), data["total"],
                 number(data["messages"]), number(data["blocks"]))


def slider_range(view) -> tuple[int, int]:
    slider = view.locator(".lk-frame-slider")
    return int(slider.get_attribute("min")), int(slider.get_attribute("max"))


def _wait_frame(page, view, value: int, old_label: str, timeout: int) -> None:
    """Wait for the slider at `value` and a new label (the view draws in the browser, no kernel)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            """([v, value, old]) => Number(v.querySelector('.lk-frame-slider').value) === value
                 && v.querySelector('.lk-frame-label').innerText.trim() !== old""",
            arg=[view.element_handle(), value, old_label], timeout=timeout, polling=20)
    except PlaywrightTimeout:
        raise AssertionError(f"frame {value} did not render within {timeout} ms (slider at the value, "
                             f"a label other than {old_label!r}): now {read_frame(view)}") from None


def press_slider(page, view, key: str, value: int, timeout: int = STEP_TIMEOUT) -> Frame:
    """Focus the slider, press `key` (ArrowRight, Home, ...), wait for frame `value`.
    A key that leaves the slider where it is changes nothing and returns at once."""
    before = read_frame(view)
    slider = view.locator(".lk-frame-slider")
    slider.focus()
    slider.press(key)
    if value != before.value:
        _wait_frame(page, view, value, before.label, timeout)
    return read_frame(view)


def step_frames(page, view) -> list[Frame]:
    """Every frame, first to last: Home on the slider, then → one frame at a time."""
    lo, hi = slider_range(view)
    assert hi - lo < MAX_FRAMES, f"the slider has {hi - lo + 1} frames, more than {MAX_FRAMES}"
    frames = [press_slider(page, view, "Home", lo)]
    for value in range(lo + 1, hi + 1):
        frames.append(press_slider(page, view, "ArrowRight", value))
    return frames


def press_play(page, view, timeout: int = STEP_TIMEOUT) -> Frame:
    """Click Play; wait until the slider has moved on and the label has followed."""
    before = read_frame(view)
    view.locator(".lk-frame-play").click()
    page.wait_for_function(
        """([v, value, old]) => Number(v.querySelector('.lk-frame-slider').value) > value
             && v.querySelector('.lk-frame-label').innerText.trim() !== old""",
        arg=[view.element_handle(), before.value, before.label], timeout=timeout, polling=20)
    return read_frame(view)


def wait_played_to_the_end(page, view, timeout: int = STEP_TIMEOUT) -> Frame:
    """Wait until Play has stopped on its own, on the last frame."""
    page.wait_for_function(
        """v => { const s = v.querySelector('.lk-frame-slider');
                 return s.value === s.max
                     && v.querySelector('.lk-frame-play').getAttribute('aria-pressed') === 'false'; }""",
        arg=view.element_handle(), timeout=timeout, polling=50)
    return read_frame(view)


# -- layout: does every view read well? ------------------------------------------------------------

LAYOUT_JS = """root => {
  // The visible box of each piece of text inside each view: its text node's rectangles, clipped
  // by every ancestor that clips (overflow not visible), up to the view. Empty boxes (scrolled
  // away, hidden) are left out. Then: any two boxes that intersect, any view wider than its output.
  const views = [...root.querySelectorAll('.lk-view')];
  const clip = (r, el) => ({l: Math.max(r.l, el.left), t: Math.max(r.t, el.top),
                            r: Math.min(r.r, el.right), b: Math.min(r.b, el.bottom)});
  const report = {views: views.length, boxes: 0, overlaps: [], overflows: []};
  for (const [n, view] of views.entries()) {
    const boxes = [];
    const walker = document.createTreeWalker(view, NodeFilter.SHOW_TEXT);
    let id = 0;  // boxes of one text node (a range may report a box twice) are not compared
    for (let node = walker.nextNode(); node; node = walker.nextNode(), id++) {
      if (!node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const rect of range.getClientRects()) {
        let box = {l: rect.left, t: rect.top, r: rect.right, b: rect.bottom};
        for (let el = node.parentElement; el && el !== view.parentElement; el = el.parentElement) {
          const style = getComputedStyle(el);
          if (style.display === 'none' || style.visibility === 'hidden') { box = null; break; }
          if (style.overflowX !== 'visible' || style.overflowY !== 'visible') box = clip(box, el.getBoundingClientRect());
        }
        if (box && box.r - box.l > 1 && box.b - box.t > 1)
          boxes.push({...box, id, text: node.textContent.trim().slice(0, 40)});
      }
    }
    report.boxes += boxes.length;
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.id === b.id) continue;
      const w = Math.min(a.r, b.r) - Math.max(a.l, b.l), h = Math.min(a.b, b.b) - Math.max(a.t, b.t);
      if (w > 1 && h > 1 && report.overlaps.length < 10) report.overlaps.push(`view ${n}: "${a.text}" x "${b.text}"`);
    }
    const area = view.closest('.jp-OutputArea-output') || view.parentElement;
    const v = view.getBoundingClientRect(), o = area.getBoundingClientRect();
    if (v.right > o.right + 1 || v.left < o.left - 1 || view.scrollWidth > view.clientWidth + 1)
      report.overflows.push(`view ${n}: ${Math.round(v.left)}-${Math.round(v.right)} (scroll ${view.scrollWidth}) `
                            + `in an output area ${Math.round(o.left)}-${Math.round(o.right)}`);
  }
  return report;
}"""


def layout_report(page, root_selector: str = "body") -> dict:
    """{views, boxes, overlaps, overflows} for every .lk-view under `root_selector` (see LAYOUT_JS)."""
    return page.locator(root_selector).first.evaluate(LAYOUT_JS)


def set_theme(page, name: str) -> None:
    """Settings > Theme: 'JupyterLab Light' or 'JupyterLab Dark'; waits until the body says so."""
    page.evaluate("name => jupyterapp.commands.execute('apputils:change-theme', {theme: name})", name)
    light = "true" if "Light" in name else "false"
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{light}' && "
                           f"document.body.dataset.jpThemeName === {name!r}", timeout=30_000)
