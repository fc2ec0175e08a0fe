"""One run of the s08 agent with the student's compactor settings, in a throwaway workspace.

    run_with(fn, env)(files, lines, window) -> Run
      fn(context_window=window) is not a CompactionConfig, or is for another window -> Run(problem=...)
      else: make_workspace(files x lines), s08 Agent on OfflineModel(context_window=window),
            ask "Read every Python file in this folder, one at a time", recorded frame by frame
      the run stopped (ReactiveCompactError, an API error)  -> Run(recorder, problem=...)

Example: run_with(ratios(0.8, 0.5), env)(12, 40, 3_000) -> Run with files 12, answer "Read 12 .py files. ...",
  five compactions in rec.compactions (layer "summarize"), problem None
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import anthropic

from lessonkit.i18n import tr
from lessonkit.show.demo import make_workspace
from lessonkit.show.record import Recorder
from offline import OfflineModel, offline_client
from s03_permissions import always_approve
from s07_reactive import ReactiveCompactError
from s08_compact4 import Agent, CompactionConfig

from ..checks import remembered

TASK_TEXT = "Read every Python file in this folder, one at a time"
RUNS_KEPT = 64  # runs remembered per process: the offline model is deterministic, so a check run
_RUNS: dict = {}  # again (another language, the same answer) reuses them


@contextlib.contextmanager
def sandbox():
    """A temporary folder for the runs' workspaces (their paths are never reported)."""
    with tempfile.TemporaryDirectory(prefix="lk-s08-") as tmp:
        yield Path(tmp)


class Run:
    """One run of the s08 agent: its recorder, answer, and the config it used (or why it could not run)."""

    def __init__(self, files: int, config=None, recorder: Recorder | None = None, answer: str = "",
                 problem: str | None = None):
        self.files, self.config, self.rec, self.answer, self.problem = files, config, recorder, answer, problem
        self.rerun = None  # config -> the same case's Run with other settings (a verdict measures against it)


def run_with(fn, env):
    """The student's fn as the cases call it: (files, lines, window) -> Run of the agent with fn's config."""
    def run(files, lines, window):
        config = fn(context_window=window)
        if not isinstance(config, CompactionConfig):
            return Run(files, problem=tr("returned {kind}, not a CompactionConfig", kind=type(config).__name__))
        if config.context_window != window:
            return Run(files, config, problem=tr("its context_window is {got}, the model's is {window}: the "
                                                 "ratios would be of the wrong window",
                                                 got=f"{config.context_window:,}", window=f"{window:,}"))
        def rerun(other):
            outcome = remembered(_RUNS, _memo_key(files, lines, window, other),
                                 lambda: _run(env, files, lines, window, other), RUNS_KEPT)
            return _as_run(files, other, outcome)
        got = rerun(config)
        got.rerun = rerun
        return got
    return run


def _memo_key(files, lines, window, config):
    """A run depends on the workspace's size, the window and the settings: remembered only for a
    plain CompactionConfig (a subclass may behave differently). Example: (12, 40, 3000, cfg) -> same"""
    if type(config) is not CompactionConfig:
        return None
    try:
        hash(config)
    except TypeError:  # a field the student set to a list or a dict
        return None
    return files, lines, window, config


def _run(env, files, lines, window, config):
    """The agent on a fresh workspace -> (recorder, answer, None) or (recorder, "", (error, message))."""
    ws = make_workspace(Path(tempfile.mkdtemp(dir=env)) / f"ws-{files}x{lines}", files=files, lines=lines)
    rec = Recorder(keep_messages=True)
    model = OfflineModel(context_window=window)  # the lessons' counts (docs/offline-api.md)
    agent = Agent(offline_client(model, max_retries=0), workspace=ws,
                  keep_recent=50, approve=always_approve, compaction=config, on_event=rec)
    try:
        return rec, agent.ask(TASK_TEXT), None
    except (ReactiveCompactError, anthropic.APIError) as exc:  # the run stopped
        return rec, "", (type(exc).__name__, str(exc))


def _as_run(files, config, outcome) -> Run:
    """A Run from an outcome of _run, its problem told in the student's language."""
    rec, answer, error = outcome
    if error is None:
        return Run(files, config, rec, answer)
    return Run(files, config, rec, problem=tr("the run stopped: {error}: {message}", error=error[0], message=error[1]))
