"""The message view in real JupyterLab, in a real headless Chromium, driven like a user.

    tmp copy of the notebooks -> jupyter lab (127.0.0.1, token) <- Playwright <- /usr/bin/chromium
                                      |                               |
                              venv's ipykernel            Run > Run All Cells, → on the slider,
                                                          Play; screenshots -> artifacts/browser/

Chromium is Debian's package, apt-installed by the setup when missing (never a downloaded
browser); the tests skip, naming what failed, only when it cannot be installed. Screenshots
land in artifacts/browser/<test>-<step>.png (git-ignored) and are listed in the output.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from browser import chromium as chromium_setup
from browser import ui
from browser.chromium import LAUNCH_FLAGS, ensure_chromium
from browser.lab import LabServer
from playwright.sync_api import Error as PlaywrightError

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "artifacts" / "browser"
LESSONS = REPO / "lessons"
S06 = "s06_compact.ipynb"
FIXTURE = Path(__file__).parent / "browser" / "fixture_view.ipynb"
VIEWPORT = {"width": 1280, "height": 900}


@pytest.fixture(scope="session")
def chromium():
    path, why = ensure_chromium()
    if why:
        pytest.skip(why)
    return path


@pytest.fixture
def lab(chromium, tmp_path):
    """A JupyterLab of the test's own (port, token, kernels, workspace) over a tmp copy of
    the notebooks: no tab, kernel or setting carries over from another test."""
    root = tmp_path / "notebooks"
    root.mkdir()
    shutil.copy(FIXTURE, root)
    shutil.copytree(LESSONS, root, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    server = LabServer(root, tmp_path / "jupyter")
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def playwright():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        yield driver


class Shots:
    """Screenshots named <test>-<step>.png in artifacts/browser/ (and the test's tmp_path)."""

    def __init__(self, test_name: str, tmp_path: Path):
        self.prefix = re.sub(r"[^\w.-]+", "_", test_name)
        self.tmp = tmp_path
        self.paths: list[Path] = []
        for old in ARTIFACTS.glob(f"{self.prefix}-*.png"):  # no stale picture passes for new
            old.unlink()

    def __call__(self, target, step: str, full_page: bool = False) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{self.prefix}-{step}.png"
        kwargs = {"full_page": True} if full_page else {}
        target.screenshot(path=str(path), **kwargs)
        shutil.copy(path, self.tmp / path.name)
        self.paths.append(path)
        return path


@pytest.fixture
def page(playwright, chromium, lab, tmp_path, request, capsys):
    """A fresh Chromium profile and page; a last screenshot and the artifact list at teardown."""
    shots = Shots(request.node.name, tmp_path)
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "chromium-profile"), executable_path=chromium, headless=True,
        args=[*LAUNCH_FLAGS, "--disable-dev-shm-usage"], viewport=VIEWPORT)
    page = context.pages[0] if context.pages else context.new_page()
    page.set_default_timeout(60_000)
    page.shots = shots
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    try:
        yield page
    finally:
        try:
            shots(page, "last", full_page=True)
        except PlaywrightError as exc:  # a crashed page: say so, keep the test's own error
            print(f"no last screenshot: {exc}")
        finally:
            context.close()
            with capsys.disabled():
                names = " ".join(p.name for p in shots.paths)
                print(f"\n[browser] screenshots in {ARTIFACTS.relative_to(REPO)}/: {names}")


def open_and_run(page, lab: LabServer, notebook: str) -> dict:
    """Open `notebook` as a user would, clear its stored outputs, Run All Cells, wait for the end."""
    page.goto(lab.url(notebook))
    ui.wait_notebook_ready(page, notebook)
    ui.clear_all_outputs(page)
    ui.run_all_cells(page)
    try:
        return ui.wait_run_complete(page)
    except (AssertionError, PlaywrightError) as exc:
        raise AssertionError(f"{notebook} did not run through: {exc}\n--- JupyterLab log ---\n"
                             f"{lab.log_tail()}") from None


def assert_kernel_is_the_venv(lab: LabServer) -> None:
    specs = lab.api("kernelspecs")
    argv0 = specs["kernelspecs"][specs["default"]]["spec"]["argv"][0]
    # jupyter_client runs a spec's bare "python" as the server's own interpreter: the venv's.
    assert specs["default"] == "python3" and argv0 in ("python", "python3", sys.executable), specs


def check_frame(frame: ui.Frame) -> None:
    assert frame.kinds, f"no .lk-bar in the view at {frame.label!r}"
    assert all(frame.kinds), f"a .lk-bar without data-kind at {frame.label!r}: {frame.kinds}"
    assert frame.messages, f".lk-total has no data-messages > 0 (it reads {frame.total!r})"


def first_drop(frames: list[ui.Frame]) -> int | None:
    """Index of the first frame with fewer bars than the one before (a compaction), or None."""
    counts = [f.blocks for f in frames]
    return next((i for i in range(1, len(counts)) if counts[i] < counts[i - 1]), None)


def check_message_view(page, view, name: str) -> list[ui.Frame]:
    """The contract, through the UI: bars render; Home then → walks every frame, each with its
    own label; Home and → replay the same frames up to the first compaction (screenshots on
    both sides of it); Play advances on its own. Returns the frames, first to last."""
    shots = page.shots
    view.scroll_into_view_if_needed()
    shots(page, f"{name}-opened", full_page=True)
    shots(view, f"{name}-view-opened")
    check_frame(ui.read_frame(view))

    frames = ui.step_frames(page, view)
    for frame in frames:
        check_frame(frame)
    labels = [f.label for f in frames]
    assert len(set(labels)) == len(labels), f"a frame label repeats: {labels}"
    if len(frames) == 1:
        return frames

    first = ui.press_slider(page, view, "Home", frames[0].value)
    assert first == frames[0], "the first frame renders differently the second time"
    drop = first_drop(frames)
    if drop is not None:  # → again up to the frame right after the compaction
        for i in range(1, drop + 1):
            if i == drop:
                shots(view, f"{name}-view-before-compaction")
            ui.press_slider(page, view, "ArrowRight", frames[i].value)
        after = ui.read_frame(view)
        assert after == frames[drop], f"replayed {after}, first walk showed {frames[drop]}"
        shots(view, f"{name}-view-after-compaction")
        shots(page, f"{name}-after-compaction", full_page=True)
        ui.press_slider(page, view, "Home", frames[0].value)

    # Play from the start: the slider moves on its own and the label follows.
    played = ui.press_play(page, view)
    assert played.value > frames[0].value and played.label != frames[0].label, played
    shots(view, f"{name}-view-playing")
    return frames


@pytest.mark.browser
def test_fixture_view_machinery(page, lab):
    """The machinery against a known timeline: 9 frames of 1..7 messages, then a compaction to 3;
    the frames step in the browser, Play at 4× runs to the last frame, a strip column picks one."""
    started = time.monotonic()
    assert_kernel_is_the_venv(lab)
    state = open_and_run(page, lab, FIXTURE.name)
    assert state["done"] == 2, state
    kernel_out = page.locator(".jp-OutputArea-output", has_text="kernel prefix:").inner_text()
    assert kernel_out.strip() == f"kernel prefix: {sys.prefix}", "the kernel is not the venv's"

    views = ui.find_players(page)
    assert views.count() == 1
    view = views.first
    opened = ui.read_frame(view)
    assert (opened.value, opened.messages, len(opened.kinds)) == (9, 4, 5), opened
    frames = check_message_view(page, view, "fixture")
    assert first_drop(frames) == 7
    assert [f.value for f in frames] == list(range(1, 10))
    assert [len(f.kinds) for f in frames] == [f.blocks for f in frames] == [1, 3, 4, 6, 7, 9, 10, 4, 5]
    assert [f.messages for f in frames] == [1, 2, 3, 4, 5, 6, 7, 3, 4]
    assert frames[7].kinds == ("summary", "assistant", "tool_use", "tool_result")
    assert frames[7].label.startswith("request 8/9 · 3 messages · ") and frames[7].label.endswith(" · after auto")
    # Play (started by check_message_view) ends on the last frame; at 4× it takes 9 × 75 ms
    assert ui.wait_played_to_the_end(page, view) == frames[-1]
    ui.press_slider(page, view, "Home", 1)
    view.locator(".lk-speed").select_option("4")
    started_play = time.monotonic()
    view.locator(".lk-frame-play").click()
    assert ui.wait_played_to_the_end(page, view) == frames[-1]
    assert time.monotonic() - started_play < 2.0, "Play at 4× took about as long as at 1× (8 × 300 ms)"
    # a click on a strip column shows that request
    view.locator(".lk-strip .lk-col").nth(2).click()
    assert ui.read_frame(view) == frames[2]
    layout = ui.layout_report(page, ".jp-NotebookPanel")
    assert layout["boxes"] > 10 and not layout["overlaps"] and not layout["overflows"], layout
    assert not page.js_errors, page.js_errors
    print(f"fixture view checked in {time.monotonic() - started:.1f} s")


LAYOUT_LESSONS = ("s05_budget.ipynb", "s06_compact.ipynb", "s07_reactive.ipynb", "s08_compact4.ipynb",
                  "s09_subagents.ipynb", "s10_memory.ipynb")
DARK = "JupyterLab Dark"
LIGHT = "JupyterLab Light"


def stored_views(notebook: Path) -> int:
    """How many outputs of the saved notebook are views (widget outputs with our text picture)."""
    nb = json.loads(notebook.read_text())
    return sum(1 for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", ())
               if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
               and "".join(o["data"].get("text/plain", "")).startswith(("MessageListView ·", "CompareView ·")))


BEFORE_RUN_JS = """() => {
  const panel = window.jupyterapp.shell.currentWidget.node;
  const pictures = [...panel.querySelectorAll('.jp-OutputArea-output pre')]
      .filter(p => /^(MessageListView|CompareView) · /.test(p.textContent));
  return {live: panel.querySelectorAll('.lk-view').length, text: pictures.length,
          bars: pictures.map(p => (p.textContent.match(/█/g) || []).length).reduce((a, b) => a + b, 0),
          errors: [...panel.querySelectorAll('.jp-OutputArea-output')]
              .filter(o => /Error displaying widget/.test(o.textContent)).length};
}"""


def luminance(css: str) -> float:
    """0 (black) .. 1 (white) of a computed 'rgb(r, g, b)' / 'rgba(...)' colour."""
    r, g, b = (int(v) for v in re.findall(r"\d+", css)[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def check_layout(page, name: str, theme: str) -> dict:
    report = ui.layout_report(page, ".jp-NotebookPanel")
    assert report["views"] > 0 and report["boxes"] > 0, f"{name} ({theme}): no view drawn: {report}"
    assert not report["overlaps"], f"{name} ({theme}): text boxes intersect: {report['overlaps']}"
    assert not report["overflows"], f"{name} ({theme}): a view overflows its output area: {report['overflows']}"
    return report


@pytest.mark.browser
def test_lessons_read_well_in_light_and_dark_before_and_after_running(page, lab):
    """s05-s10 at 1280×900 with the file browser open: every view is readable before any cell
    runs (from stored state or the text picture), and after Run All in the light and the dark
    theme no two text boxes inside a view intersect and no view overflows its output area.
    s06's views are walked frame by frame, and one shows the compaction drop to a summary."""
    shots, seen = page.shots, {}
    page.goto(lab.url(LAYOUT_LESSONS[0]))
    ui.wait_notebook_ready(page, LAYOUT_LESSONS[0])
    if not page.evaluate("() => jupyterapp.shell.leftCollapsed === false"):
        page.evaluate("() => jupyterapp.commands.execute('filebrowser:toggle-main')")
    page.wait_for_function("() => jupyterapp.shell.leftCollapsed === false")
    for k, notebook in enumerate(LAYOUT_LESSONS):
        name = notebook.split("_")[0]
        if k:
            page.evaluate("nb => { jupyterapp.commands.execute('docmanager:open', {path: nb}); }", notebook)
            page.wait_for_function("nb => ((jupyterapp.shell.currentWidget || {}).context || {}).path === nb",
                                   arg=notebook, timeout=ui.LOAD_TIMEOUT)
            ui.wait_notebook_ready(page, notebook)
        expected = stored_views(LESSONS / notebook)
        before = page.evaluate(BEFORE_RUN_JS)
        picture = page.locator(".jp-NotebookPanel:visible .jp-OutputArea-output",
                               has_text=re.compile(r"^(MessageListView|CompareView) · ")).first
        if picture.count():
            picture.scroll_into_view_if_needed()
            shots(picture, f"{name}-before-run-text-picture")
        # Lab 4 does not draw stored widget state (jupyterlab#15361): each view shows its text picture.
        assert before["live"] + before["text"] >= expected > 0 and before["bars"] > 0, (notebook, before)
        seen[name] = "stored state" if before["live"] else "text picture"
        ui.clear_all_outputs(page)
        ui.run_all_cells(page)
        ui.wait_run_complete(page)
        assert page.locator(".jp-NotebookPanel:visible .lk-view").count() == expected
        report = check_layout(page, name, "light")
        first = page.locator(".jp-NotebookPanel:visible .lk-view").first
        if name == "s06":  # every frame of every view, by the keyboard; the first view is left on its fullest frame
            players = ui.find_players(page)
            walks = [ui.step_frames(page, players.nth(i)) for i in range(players.count())]
            compacted = [f[first_drop(f)] for f in walks if first_drop(f) is not None]
            assert any("summary" in f.kinds for f in compacted), [[x.blocks for x in f] for f in walks]
            in_sight = 420 // 16  # rows the list shows before it scrolls: each must be drawn
            assert all(len(f.kinds) >= min(f.blocks, in_sight) for w in walks for f in w), \
                [[(len(f.kinds), f.blocks) for f in w] for w in walks]
            fullest = max(walks[0], key=lambda f: f.blocks)
            for _ in range(walks[0][-1].value - fullest.value):
                ui.press_slider(page, players.first, "ArrowLeft", ui.read_frame(players.first).value - 1)
            assert ui.read_frame(players.first) == fullest
            check_layout(page, name, "light, after stepping")
        first.scroll_into_view_if_needed()
        shots(first, f"{name}-light-view1")
        compare = page.locator(".jp-NotebookPanel:visible .lk-compare")
        if compare.count():
            compare.first.scroll_into_view_if_needed()
            shots(compare.first, f"{name}-light-compare1")
        ui.set_theme(page, DARK)
        check_layout(page, name, "dark")
        colours = first.evaluate("v => [getComputedStyle(v).color, "
                                 "getComputedStyle(v.querySelector('.lk-rows')).backgroundColor, "
                                 "getComputedStyle(document.querySelector('.jp-Notebook')).backgroundColor]")
        assert luminance(colours[0]) > 0.6 and luminance(colours[2]) < 0.3, colours  # light text, dark page
        assert colours[1] in ("rgba(0, 0, 0, 0)", "transparent") or luminance(colours[1]) < 0.3, colours
        first.scroll_into_view_if_needed()
        shots(first, f"{name}-dark-view1")
        if compare.count():
            compare.first.scroll_into_view_if_needed()
            shots(compare.first, f"{name}-dark-compare1")
        ui.set_theme(page, LIGHT)
        print(f"{notebook}: {expected} views, {report['boxes']} text boxes; before running: {before}")
        # not awaited: the command waits for its dialog ("Shut down the notebook?"), accepted here
        page.evaluate("() => { jupyterapp.commands.execute('notebook:close-and-shutdown'); }")
        page.locator(".jp-Dialog").wait_for(timeout=10_000)
        ui.dismiss_dialogs(page)
        page.wait_for_function("() => !document.querySelector('.jp-NotebookPanel')", timeout=30_000)
    assert not page.js_errors, page.js_errors
    print(f"before any cell runs, the views show: {seen}")


@pytest.mark.browser
def test_a_chinese_lesson_reads_and_runs_in_chinese(page, lab):
    """lessons/zh/s06_compact.ipynb at 1280×900: its markdown is Chinese, its views show before any
    cell runs, and Run All runs in Chinese (the kernel starts in lessons/zh, so the stage's motto
    prints in Chinese) with no error and a readable layout; its views speak Chinese (totals line,
    legend, Play) and still step frame by frame."""
    notebook = "zh/s06_compact.ipynb"
    page.goto(lab.url(notebook))
    ui.wait_notebook_ready(page, notebook)
    panel = page.locator(".jp-NotebookPanel:visible")
    assert panel.locator(".jp-RenderedMarkdown", has_text="上下文").count() > 0
    before = page.evaluate(BEFORE_RUN_JS)
    assert before["live"] + before["text"] >= stored_views(LESSONS / notebook) > 0, before
    ui.clear_all_outputs(page)
    ui.run_all_cells(page)
    ui.wait_run_complete(page)
    assert panel.locator(".jp-OutputArea-output", has_text="格言：").count() == 1
    assert panel.locator(".jp-OutputArea-output", has_text="Traceback").count() == 0
    check_layout(page, "zh-s06", "light")
    page.shots(panel.locator(".jp-RenderedMarkdown").first, "zh-s06-markdown")
    first = panel.locator(".lk-view").first
    first.scroll_into_view_if_needed()
    page.shots(first, "zh-s06-view1")
    player = ui.find_players(page).first
    frame = ui.read_frame(player)
    check_frame(frame)
    assert "条消息" in frame.total and "messages" not in frame.total, frame.total
    assert player.locator(".lk-frame-play").get_attribute("title") == "播放"
    legend = player.locator(".lk-legend").inner_text()
    assert re.search(r"[\u4e00-\u9fff]", legend) and not re.search(r"[a-z_]{4,}", legend), legend  # kinds named in Chinese
    stepped = ui.press_slider(page, player, "Home", ui.slider_range(player)[0])
    assert stepped.messages and stepped.label != frame.label and "条消息" in stepped.label, stepped
    assert not page.js_errors, page.js_errors


@pytest.mark.browser
def test_static_site_page_scrubs_with_no_server(playwright, chromium, tmp_path, request):
    """`make site`'s page for s06, opened from disk: its views draw from stored widget state,
    every request stays on file:// (no CDN), and the slider moves a view with no kernel."""
    from lessonkit.cli import site

    cache = REPO / "build" / "site-npm"
    if not cache.is_dir() and shutil.which("npm") is None:
        pytest.skip("no npm and no build/site-npm cache: the site cannot vendor the widget manager")
    out = tmp_path / "site"
    (page_path,) = site.build([LESSONS / S06], out, cache=cache)
    shots = Shots(request.node.name, tmp_path)
    browser = playwright.chromium.launch(executable_path=chromium, headless=True,
                                         args=[*LAUNCH_FLAGS, "--disable-dev-shm-usage"])
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
        requests, errors = [], []
        page.on("request", lambda r: requests.append(r.url))
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(page_path.as_uri())
        view = page.locator(ui.PLAYER).first
        view.wait_for(timeout=60_000)
        assert page.locator(".lk-view").count() == stored_views(LESSONS / S06)
        before = ui.read_frame(view)
        lo, _ = ui.slider_range(view)
        after = ui.press_slider(page, view, "Home", lo)
        assert after.value == lo < before.value and after.label != before.label and after.kinds
        view.scroll_into_view_if_needed()
        shots(view, "s06-site-phone")
        page.set_viewport_size({"width": 1280, "height": 900})
        report = ui.layout_report(page)
        assert not report["overlaps"] and not report["overflows"], report
        outside = [u for u in requests if not u.startswith(("file:", "blob:", "data:"))]
        assert not outside, f"the static page asked the network for {outside}"
        assert not errors, errors
    finally:
        browser.close()


# -- the setup's skip reasons (no browser needed) --------------------------------------------------

def _apt_says(calls, *codes):
    """A stand-in for apt-get that records its arguments and answers with `codes` in turn."""
    def run(*args):
        calls.append(args)
        return subprocess.CompletedProcess(args, codes[len(calls) - 1], "",
                                           "E: Unable to locate package chromium")
    return run


def test_setup_names_why_chromium_cannot_be_installed(monkeypatch):
    monkeypatch.setattr(chromium_setup, "find_chromium", lambda: None)
    monkeypatch.setattr(chromium_setup.os, "geteuid", lambda: 1000)
    path, why = ensure_chromium()
    assert path is None and "do not run as root" in why and "'chromium'" in why

    monkeypatch.setattr(chromium_setup.os, "geteuid", lambda: 0)
    monkeypatch.setattr(chromium_setup.shutil, "which", lambda name: None)
    assert "there is no apt-get" in ensure_chromium()[1]


def test_setup_refreshes_package_lists_once_then_reports_apts_error(monkeypatch):
    calls = []
    monkeypatch.setattr(chromium_setup, "find_chromium", lambda: None)
    monkeypatch.setattr(chromium_setup.os, "geteuid", lambda: 0)
    monkeypatch.setattr(chromium_setup.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(chromium_setup, "_apt", _apt_says(calls, 100, 0, 100))
    path, why = ensure_chromium()
    assert path is None
    assert why == "`apt-get install chromium` failed: E: Unable to locate package chromium"
    assert [c[0] for c in calls] == ["install", "update", "install"]
    assert "--no-install-recommends" in calls[0]


INTERRUPT_CELLS = [
    "import pathlib\nimport s01_loop\nfrom lessonkit import make_client\n"
    "ws = pathlib.Path('interrupt-ws')\nws.mkdir(exist_ok=True)\n"
    "agent, history = s01_loop.Agent(make_client(), workspace=ws), []",
    "agent.ask('Run `sleep 45 && echo late > late.txt`', history)",
    "last = history[-1]\n"
    "print(len(history), last['role'], [b.get('content') for b in last['content']])",
    "print(agent.ask('Run `echo after`', history))",
]


@pytest.mark.browser
def test_interrupting_a_running_cell_stops_the_tool_and_the_agent_goes_on(page, lab):
    """Kernel > Interrupt while an agent's bash call runs: the cell stops with KeyboardInterrupt,
    the shell command is killed (no `sleep` left, the file it would write never appears), the open
    call is answered "interrupted by the user", and the same agent answers the next prompt."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in INTERRUPT_CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, lab.root_dir / "interrupt.ipynb")
    page.goto(lab.url("interrupt.ipynb"))
    ui.wait_notebook_ready(page, "interrupt.ipynb")
    panel = page.locator(".jp-NotebookPanel:visible")
    cells = panel.locator(".jp-CodeCell")

    def run(i: int) -> None:
        cells.nth(i).locator(".jp-InputPrompt").click()
        page.keyboard.press("Shift+Enter")

    def sleeping() -> list[str]:
        out = subprocess.run(["pgrep", "-f", "sleep 45"], capture_output=True, text=True)
        return [pid for pid in out.stdout.split() if int(pid) != os.getpid()]

    run(0)
    run(1)
    deadline = time.monotonic() + 60
    while not sleeping():
        assert time.monotonic() < deadline, "the agent's `sleep 45` never started"
        time.sleep(0.2)
    ui.menu(page, "Kernel", "kernelmenu:interrupt")
    page.wait_for_function(f"() => ({ui.KERNEL_STATUS_JS})() === 'idle'", timeout=30_000)
    assert cells.nth(1).locator(".jp-OutputArea-output", has_text="KeyboardInterrupt").count() == 1
    deadline = time.monotonic() + 10
    while sleeping():
        assert time.monotonic() < deadline, f"`sleep 45` still runs after the interrupt: {sleeping()}"
        time.sleep(0.2)
    run(2)
    run(3)
    for i in (2, 3):
        cells.nth(i).locator(".jp-OutputArea-output").first.wait_for(timeout=60_000)
    shown = cells.nth(2).locator(".jp-OutputArea-output").inner_text()
    assert "user" in shown and "interrupted by the user" in shown, shown
    answer = cells.nth(3).locator(".jp-OutputArea-output").inner_text()
    assert "after" in answer, answer
    assert not (lab.root_dir / "interrupt-ws" / "late.txt").exists()
    page.shots(panel, "interrupted")
    assert not page.js_errors, page.js_errors


SAVE_REOPEN = "s06_compact.ipynb"  # three views, one of them a compare


def saved_view_models(path: Path) -> tuple[list[str], set[str]]:
    """(the model id of every view output, the ids the notebook's saved widget state holds)."""
    nb = json.loads(path.read_text())
    ids = [o["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
           for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", ())
           if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    return ids, set(state.get("state", {}))


@pytest.mark.browser
@pytest.mark.slow
def test_a_run_and_saved_work_copy_shows_its_views_when_reopened(page, lab):
    """Issue 34: after Run All and a save, reopening the notebook showed "Error displaying widget:
    model not found" in every view cell (JupyterLab saved no widget state, and a saved notebook is
    trusted, so Lab asks the widget manager, which has no model). With the kit's JupyterLab setting
    (lessonkit/cli/labsettings.py) the save carries the state and the reopened views are drawn from it,
    in the light and the dark theme, before any cell runs again."""
    shots, notebook = page.shots, SAVE_REOPEN
    open_and_run(page, lab, notebook)
    live = page.locator(".jp-NotebookPanel:visible .lk-view").count()
    assert live == stored_views(LESSONS / notebook) > 0
    page.evaluate("() => jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function("() => !jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000)
    ids, state = saved_view_models(lab.root_dir / notebook)
    assert len(ids) == live and set(ids) <= state, f"views {ids} not in the saved widget state {sorted(state)[:5]}"
    page.evaluate("() => { jupyterapp.commands.execute('notebook:close-and-shutdown'); }")
    page.locator(".jp-Dialog").wait_for(timeout=10_000)
    ui.dismiss_dialogs(page)
    page.wait_for_function("() => !document.querySelector('.jp-NotebookPanel')", timeout=30_000)
    page.goto(lab.url(notebook))                    # a new page load: nothing of the run is left in the browser
    ui.wait_notebook_ready(page, notebook)
    page.wait_for_function(f"() => document.querySelectorAll('.jp-NotebookPanel .lk-view').length >= {live}",
                           timeout=ui.LOAD_TIMEOUT)
    after = page.evaluate(BEFORE_RUN_JS)
    assert after["errors"] == 0 and after["live"] == live, after
    assert not page.get_by_text("model not found").count()
    prompts = page.evaluate("() => [...document.querySelectorAll('.jp-InputPrompt')].filter("
                            "p => /\\[\\d+\\]/.test(p.textContent)).length")
    assert prompts > 0                               # the saved run's outputs, not a fresh run
    first = page.locator(".jp-NotebookPanel:visible .lk-view").first
    frame = ui.read_frame(page.locator(ui.PLAYER).first)
    check_frame(frame)
    first.scroll_into_view_if_needed()
    shots(first, "reopened-light")
    ui.set_theme(page, DARK)
    check_layout(page, "s06 reopened", "dark")
    first.scroll_into_view_if_needed()
    shots(first, "reopened-dark")
    ui.set_theme(page, LIGHT)
    assert not page.js_errors, page.js_errors
