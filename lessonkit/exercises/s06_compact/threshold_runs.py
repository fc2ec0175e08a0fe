"""One run of the s06 agent with the student's threshold: 30 files of 40 lines, on one window.

    run_agent(fn, root)(window) -> Run   a fresh workspace under `root`, the s06 agent on a client
                                         with a `window`-token context, and what the run did:
      the answer, or the request refused (the API's message), requests, summaries, failed summary
      calls, read_file calls per path, summaries cut short (from the transcript), and the last
      request's history as estimated and as counted

Example: with scratch() as root: run_agent(lambda w: 50_000, root)(4_000)
  -> Run: refused 'prompt is too long: 4017 tokens > 4000 maximum', 26 requests, 0 summaries
"""

from __future__ import annotations

import contextlib
import tempfile
from collections import Counter
from pathlib import Path

import anthropic

from lessonkit.backends.client import backend_name, make_client
from lessonkit.backends.settings import settings
from lessonkit.show.demo import make_workspace
from lessonkit.tokens import count_messages
from s06_compact import Agent, estimate_tokens, read_transcript

from ..checks import remembered

FILES, LINES = 30, 40
TASK = "Read every Python file in this folder, one at a time"
RUNS_KEPT = 64  # runs remembered per process: a check run again (another language, the same answer) is instant
_RUNS: dict = {}


class Run:
    """What the s06 agent did with the student's threshold on one window."""

    def __init__(self, window: int, threshold):
        self.window, self.threshold = window, threshold
        self.answer, self.refused, self.requests, self.summaries = "", None, 0, 0
        self.summary_errors: list = []
        self.reads: Counter = Counter()  # read_file calls per path
        self.cut = 0                     # summaries without their last section
        self.estimate = self.counted = 0  # the last request's history: estimated, and counted as the API does


@contextlib.contextmanager
def scratch():
    """A temporary folder for the runs' workspaces."""
    with tempfile.TemporaryDirectory(prefix="lk-s06-") as tmp:
        yield Path(tmp)


def _api_message(exc) -> str:
    """The API's own message of an error. Example: 'prompt is too long: 4017 tokens > 4000 maximum'"""
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message"))
    return str(exc).splitlines()[0]


def _memo_key(window, threshold):
    """What a run depends on: the window, the threshold (a plain number) and the backend settings.
    None (not remembered) for anything else. Example: (4000, 2600) -> (4000, 'int', 2600, (...))"""
    conf = settings()
    if type(threshold) not in (int, float) or type(window) is not int or \
            backend_name(conf) not in ("offline", "replay"):
        return None  # a real model answers differently each time
    backend = tuple(sorted((k, v) for k, v in conf.items() if k.startswith(("LESSONS_", "ANTHROPIC_"))))
    return window, type(threshold).__name__, threshold, backend


def _client(window: int):
    """The student's backend for a case's run; under replay the offline model itself: a cassette holds the
    lesson's requests, never a check's (each would be a miss, and a line above the verdict)."""
    replaying = backend_name(settings()) == "replay"
    return make_client(context_window=window, max_retries=0, backend="offline" if replaying else None)


def run_agent(fn, root: Path):
    """The student's fn as the cases call it: window -> Run of the s06 agent on a fresh workspace.
    The offline model is deterministic, so a run with the same window and threshold is remembered."""
    def run(window):
        threshold = fn(window)
        return remembered(_RUNS, _memo_key(window, threshold), lambda: _run(window, threshold), RUNS_KEPT)

    def _run(window, threshold):
        out = Run(window, threshold)
        ws = make_workspace(Path(tempfile.mkdtemp(dir=root)) / "ws", files=FILES, lines=LINES)

        def on_event(kind, data):
            if kind == "request":
                out.requests += 1
                out.estimate, out.counted = estimate_tokens(data["messages"]), count_messages(data["messages"])
            elif kind == "compact" and data["layer"] == "auto":
                out.summaries += 1
            elif kind == "error":  # a failed summary call (the loop goes on uncompacted)
                out.summary_errors.append(data["error"])
            elif kind == "tool" and data["call"]["name"] == "read_file":
                out.reads[(data["call"].get("input") or {}).get("path")] += 1

        agent = Agent(_client(window), workspace=ws,
                      threshold=out.threshold, on_event=on_event)
        try:
            out.answer = agent.ask(TASK)
        except anthropic.BadRequestError as exc:
            out.refused = _api_message(exc)
        out.cut = sum(1 for m in read_transcript(agent.transcript.path)
                      if isinstance(m.get("content"), str) and m["content"].startswith("[Compacted]")
                      and "Current work" not in m["content"])
        return out
    return run
