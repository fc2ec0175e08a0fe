"""s08 exercise: pick the compactor's thresholds so that real runs stay under the window.

    compaction_config(context_window) -> CompactionConfig(context_window=...,
                                                          compact_trigger_ratio=?, keep_recent_ratio=?)

Each case is a real run of the s08 agent on the offline model: "read every Python file
in this folder, one at a time" in a demo workspace, with the model's context window
set to the case's, and the compactor configured by the student's function. A run passes
when:

  1. no request is refused (prompt too long): the trigger compares TokenEstimator's
     guess for the messages (chars / 3) with the window, but the request also carries
     the system prompt and the tool schemas (~730 tokens here);
  2. it ends with the whole final answer (a turn cut off by max_tokens that compaction
     cannot make room for is kept cut, and the task ends unfinished);
  3. no emergency truncation: old turns dropped unsummarised;
  4. at most one compaction per two requests: each is a summary request, and a rewritten
     history the prompt cache has to write again.

The report names the first thing that went wrong in each run, with its numbers:
"request 15 was refused: prompt is too long: 3,023 tokens > 3,000 maximum; the trigger saw
2,774 estimated tokens of messages (it fires at 2,850), and the request also carried 735
tokens of system prompt and tools; s07's reactive compaction caught it, ...".

The starter compacts as late as it can (95% of the window) and keeps most of it verbatim.

Reference: s08_compact4.CompactionConfig itself: its defaults are the seed's, 0.8 and 0.5.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from pathlib import Path

import anthropic

from lessonkit.demo import make_workspace
from lessonkit.offline import OfflineModel, offline_client
from lessonkit.record import Recorder
from s03_permissions import always_approve
from s07_reactive import ReactiveCompactError
from s08_compact4 import Agent, CompactionConfig, TokenEstimator

from . import Case, Exercise

STARTER = '''\
from s08_compact4 import CompactionConfig


def compaction_config(context_window):
    """The compactor's settings for a model with this context window (in tokens)."""
    return CompactionConfig(context_window=context_window,
                            compact_trigger_ratio=0.95,   # use the whole window before compacting
                            keep_recent_ratio=0.75)       # and keep most of it word for word
'''

TASK = """Write compaction_config(context_window): a CompactionConfig for that window whose
compact_trigger_ratio and keep_recent_ratio keep each run under the window, finished,
without emergency truncation, and with at most one compaction per two requests."""

TASK_TEXT = "Read every Python file in this folder, one at a time"


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


def run_with(fn, env):
    """The student's fn as the cases call it: (files, lines, window) -> Run of the agent with fn's config."""
    def run(files, lines, window):
        config = fn(context_window=window)
        if not isinstance(config, CompactionConfig):
            return Run(files, problem=f"returned {type(config).__name__}, not a CompactionConfig")
        if config.context_window != window:
            return Run(files, config, problem=(f"its context_window is {config.context_window:,}, the model's "
                                               f"is {window:,}: the ratios would be of the wrong window"))
        ws = make_workspace(env / f"ws-{files}x{lines}", files=files, lines=lines)
        rec = Recorder(keep_messages=True)
        agent = Agent(offline_client(OfflineModel(context_window=window), max_retries=0), workspace=ws,
                      keep_recent=50, approve=always_approve, compaction=config, on_event=rec)
        try:
            answer = agent.ask(TASK_TEXT)
        except (ReactiveCompactError, anthropic.APIError) as exc:  # the run stopped
            return Run(files, config, rec, problem=f"the run stopped: {type(exc).__name__}: {exc}")
        return Run(files, config, rec, answer)
    return run


def refused(rec: Recorder, config: CompactionConfig) -> str | None:
    """The first refused request, explained with what the trigger saw and what the request carried."""
    for frame in rec:
        if frame.error:
            limits = prompt_too_long_text(frame.error)
            if limits is None:
                return f"request {frame.request} was refused: {frame.error}"
            sent, maximum = limits
            estimate = TokenEstimator.estimate(frame.messages)
            return (f"request {frame.request} was refused: prompt is too long: {sent:,} tokens > {maximum:,} "
                    f"maximum; the trigger saw {estimate:,} estimated tokens of messages (it fires at "
                    f"{config.compact_threshold:,}), and the request "
                    f"also carried {sent - frame.tokens:,} tokens of system prompt and tools")
    return None


def prompt_too_long_text(error: str) -> tuple[int, int] | None:
    """(sent, maximum) from a recorded error text. Example: '... 3127 tokens > 3000 maximum' -> (3127, 3000)"""
    m = re.search(r"prompt is too long: (\d+) tokens > (\d+) maximum", error)
    return (int(m.group(1)), int(m.group(2))) if m else None


def verdict(got: Run) -> str | None:
    """None if the run passed all four tests; else the first failure, with its numbers."""
    if got.problem and got.rec is None:
        return got.problem
    rec, config = got.rec, got.config
    ratios = f"(trigger {config.compact_trigger_ratio}, keep {config.keep_recent_ratio})"
    why = refused(rec, config)
    if why:
        if any(e["layer"] == "reactive" for e in rec.compactions) and not got.problem:
            why += "; s07's reactive compaction caught it, for the price of a refused request and a summary"
        return f"{why} {ratios}"
    if got.problem:
        return f"{got.problem} {ratios}"
    last = rec[-1]
    if last.stop_reason != "end_turn" or not got.answer.startswith(f"Read {got.files} .py files"):
        return (f"the run ended on an answer cut off by {last.stop_reason} at request {last.request} "
                f"({(last.usage or {}).get('output_tokens', 0)} tokens of room): the compactor found nothing "
                f"more to fold into the summary, so the task ended unfinished {ratios}")
    truncations = [e for e in rec.compactions if e["layer"] == "truncate"]
    if truncations:
        first = truncations[0]
        return (f"emergency truncation before request {first['request']} dropped "
                f"{first['messages_before'] - first['messages_after']} messages unsummarised: after the "
                f"summary the estimate was still over {config.emergency_trigger_ratio:.0%} of the window {ratios}")
    compactions, requests = len(rec.compactions), len(rec)
    if compactions > requests // 2:
        return (f"{compactions} compactions in {requests} requests (at most {requests // 2}): each is a summary "
                f"request, and a rewritten history the prompt cache writes again {ratios}")
    return None


def cases(env=None) -> list[Case]:
    return [
        Case("12 files, a 3,000-token window", (12, 40, 3_000), verdict,
             why="the lesson's run: the trigger must leave room for what the estimate does not see"),
        Case("10 long files, a 2,400-token window", (10, 60, 2_400), verdict,
             why="the smaller the window, the larger the share of system prompt and tools"),
        Case("20 files, a 6,000-token window", (20, 40, 6_000), verdict,
             why="a longer session: how often it compacts is what it costs"),
        Case("8 files of 120 lines, an 8,000-token window", (8, 120, 8_000), verdict,
             why="few, big results: each turn adds ~1,000 tokens"),
    ]


exercise = Exercise(name="compaction_config", task=TASK, starter=STARTER, reference=CompactionConfig,
                    cases=cases, setup=sandbox, adapt=run_with)
