"""The kit's own layers as arena strategies: thin adapters over the stage agents and the s08 compactor.

Motto: measure the code the lessons teach, not a copy of it.

    s06   s06_compact.Agent.prepare   transcript, budget (s05), micro (keep 3), auto (summary at 50K)
    s07   s07_reactive.Agent.prepare  + snip; on a request over the window: Agent.reactive, then retry
    s08   s08_compact4.ContextCompactor(CompactionConfig(context_window=window)), the s08 defaults:
          before each request, should_compact (80%) -> compact (safe cut, rolling summary, truncate)

Each adapter keeps the strategy's own live history: the recorded messages are
deep-copied in as they arrive (the stages edit their history in place, as the
agents do), and before each request the stage's own code runs on it, exactly
as the agent runs it before calling the model. The stage writes its transcript
and persisted outputs into the replay's scratch folder; its summary calls go
through the context's recording client; its "compact" events mark the chart.

A stage package that is not there (a partial checkout) simply leaves its
strategy out of the registry.

Example: strategies()["s07"]().name -> "s07"

Not modeled: the stages' tools (the trajectory is the recorded one), the `compact`
tool (no trace calls it), s08's max_tokens retry (the recorded answers are whole).
"""

from __future__ import annotations

import copy
import importlib

from ..context import MODEL
from .baselines import _View


def available(module: str) -> bool:
    """Can the stage package be imported? (A missing stage is skipped, never stubbed.)"""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


class StageAgent(_View):
    """A stage Agent's `prepare` (and `reactive`, if it has one) on the strategy's own history."""

    def __init__(self, name: str, module: str, **options):
        self.name, self.module, self.options = name, module, options

    def start(self, session, ctx):
        super().start(session, ctx)
        agent_class = importlib.import_module(self.module).Agent
        self.agent = agent_class(ctx.client, workspace=ctx.workdir, model=MODEL, **self.options)
        self.agent.on_event = self._event

    def _event(self, kind: str, data: dict) -> None:
        if kind == "compact":
            self.ctx.note(data.get("layer", "compact"))

    def sync(self, history):
        self.view.extend(copy.deepcopy(m) for m in history[self.seen:])  # the stages edit in place
        self.seen = len(history)

    def request(self, history):
        self.sync(history)
        self.agent.prepare(self.view)
        return list(self.view)

    def recover(self, history, messages):
        """The API's 400 prompt-too-long, handed to the stage's reactive layer (s07 and later)."""
        reactive = getattr(self.agent, "reactive", None)
        if reactive is None:
            return None
        try:
            reactive(self.view, self.ctx.too_long_error(messages))
        except RuntimeError:  # e.g. ReactiveCompactError: nothing left to compact; the request stays over
            return None
        return list(self.view)


class Compactor(_View):
    """s08's ContextCompactor on its defaults for the window: check before each request, compact."""

    def __init__(self, name: str = "s08", **config):
        self.name, self.config = name, config

    def start(self, session, ctx):
        super().start(session, ctx)
        from s08_compact4 import CompactionConfig, ContextCompactor

        config = CompactionConfig(**{"context_window": ctx.window, **self.config})
        self.compactor = ContextCompactor(ctx.client, config, model=MODEL,
                                          transcript="the session transcript")
        self.compactor.after_layer = lambda event, history: ctx.note(event.layer.value)

    def sync(self, history):
        self.view.extend(copy.deepcopy(m) for m in history[self.seen:])
        self.seen = len(history)

    def request(self, history):
        self.sync(history)
        if self.compactor.should_compact(self.view):
            self.compactor.compact(self.view)
        return list(self.view)


def kit_strategies(threshold: int | None = None) -> dict:
    """Name -> factory for each kit layer whose stage package is importable.

    `threshold` is the s06/s07 auto-compaction threshold in tokens (None: the stage's
    own THRESHOLD, 50,000, meant for a 200K window; registry.py scales it).
    """
    found = {}
    options = {} if threshold is None else {"threshold": threshold}
    if available("s06_compact"):
        found["s06"] = lambda: StageAgent("s06", "s06_compact", **options)
    if available("s07_reactive"):
        found["s07"] = lambda: StageAgent("s07", "s07_reactive", **options)
    if available("s08_compact4"):
        found["s08"] = lambda: Compactor("s08")
    if all(available(m) for m in ("s05_budget", "s06_compact", "s07_reactive", "s08_compact4")):
        from .oracle import Oracle
        from .recommended import Recommended

        found["recommended"] = Recommended
        found["oracle"] = Oracle
    return found
