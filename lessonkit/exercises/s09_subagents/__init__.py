"""s09 exercise: the child's tools, read-only, in a registry of its own.

    read_only(registry) -> a NEW ToolRegistry with only bash, read_file and list_dir of `registry`,
                           in its order; `registry` (the parent's) keeps every tool it had

Each case hands the function a fresh registry of real tools (s02's, s06's `compact`, s09's `task`,
s10's `memory`), or the registry of a running s10 agent, whose tools are bound to it (its bash runs
in s03's sandbox), and looks at what came back AND at the registry it was given: removing tools in
place would take them from the parent too; a rebuilt or copied tool is not the parent's (a bash
rebuilt from s02's runs outside the sandbox). `task` must never reach a child.

Example: exercise.check(in_place) -> ✗ read_only: 0/4 cases pass
  ✗ the parent's tools: removed write_file, edit_file, compact, task from the parent's registry: ...

Reference: s09_subagents.read_only.
"""

from __future__ import annotations

import contextlib
import tempfile

from lessonkit.i18n import tr
from s02_tools import BASH, FILE_TOOLS, Tool, ToolRegistry
from s06_compact import COMPACT_TOOL
from s09_subagents import TASK_TOOL, read_only
from s10_memory import MEMORY_TOOL

from .. import Case, Exercise, Mistake

STARTER = '''\
def read_only(registry):
    """The tools a child may use: only bash, read_file and list_dir."""
    for name in ("write_file", "edit_file"):
        if name in registry:
            registry.remove(name)
    return registry
'''

TASK = """Write read_only(registry): a new ToolRegistry with only the bash, read_file and list_dir
tools of `registry`, in its order, leaving `registry` itself as it was."""

ALLOWED = ("bash", "read_file", "list_dir")
ALL = {t.name: t for t in (BASH, *FILE_TOOLS, Tool(*COMPACT_TOOL, lambda ws, **k: ""),
                           Tool(*TASK_TOOL, lambda ws, **k: ""), Tool(*MEMORY_TOOL, lambda ws, **k: ""))}
AGENT = "a running s10 agent"  # the case that is given the registry of a real agent


def build(names) -> ToolRegistry:
    return ToolRegistry(ALL[n] for n in names)


def tools_of(registry: ToolRegistry) -> dict:
    """name -> Tool of a registry, in order, through its public API (each taken out and put back)."""
    out = {}
    for name in registry.names():
        out[name] = registry.remove(name)
        registry.add(out[name])
    return out


@contextlib.contextmanager
def running_agent():
    """An s10 agent on the offline model in a throwaway workspace: the parent of the agent case."""
    from offline import OfflineModel, offline_client
    from s10_memory import Agent

    with tempfile.TemporaryDirectory(prefix="lk-s09-") as tmp:
        yield Agent(offline_client(OfflineModel(), max_retries=0), workspace=tmp)


class Raised:
    def __init__(self, exc: Exception):
        self.exc = exc
        first = (str(exc).splitlines() or [""])[0]
        self.text = tr("raised {error}: {message}", error=type(exc).__name__, message=first) if first else \
            tr("raised {error}", error=type(exc).__name__)


def attempt(fn, agent):
    """The student's fn as the cases call it: tool names (or AGENT) -> (what it returned, the given
    registry after, the given registry's tools before), or Raised."""
    def run(names):
        given = agent.registry if names == AGENT else build(names)
        before = tools_of(given)
        try:
            return fn(given), given, before
        except Exception as exc:  # noqa: BLE001 -- reported with what it means, when that is sure
            return Raised(exc)
    return run


def expects(names):
    def verdict(got) -> str | None:
        if isinstance(got, Raised):
            if "pickle" in str(got.exc):
                return tr("{problem}: copy.deepcopy copies each tool's handler, and a handler bound to the agent "
                          "copies the agent with its client and locks: put the parent's own Tool objects in a new "
                          "ToolRegistry", problem=got.text)
            return got.text
        out, given, before = got
        every = list(before) if names == AGENT else names
        want = [n for n in every if n in ALLOWED]
        lost = [n for n in every if n not in given.names()]
        if lost:
            return tr("removed {lost} from the parent's registry: the parent loses them too; build a new "
                      "ToolRegistry for the child", lost=lost)
        if not isinstance(out, ToolRegistry):
            return tr("returned a {kind}, not a ToolRegistry: the child's agent dispatches through one",
                      kind=type(out).__name__)
        if out is given:
            return tr("returned the parent's own registry: a tool added to one is added to the other")
        got_names = out.names()
        if "task" in got_names:
            return tr("kept `task`: a child could start children of its own, each with a fresh budget")
        extra = [n for n in got_names if n not in want]
        if extra:
            return tr("kept {extra}: a child gets only tools that read", extra=", ".join(f"`{n}`" for n in extra))
        missing = [n for n in want if n not in got_names]
        if missing:
            return tr("dropped {missing}: the child needs it to read", missing=", ".join(f"`{n}`" for n in missing))
        if got_names != want:
            return tr("the tools are in the order {got}, expected {want}: keep the parent's order (the "
                      "request's tools are a cached prefix)", got=got_names, want=want)
        mine = tools_of(out)
        other = next((n for n in want if mine[n].handler != before[n].handler), None)
        if other:
            return tr("`{name}` is not the parent's tool: its handler is another one (a tool rebuilt from s02's, "
                      "or copied): the parent's bash is its agent's, which runs commands in s03's sandbox; take "
                      "the parent's Tool objects as they are", name=other)
        return None
    return verdict


def cases(env) -> list[Case]:
    every = ["bash", "read_file", "write_file", "edit_file", "list_dir", "compact", "task"]
    return [
        Case("the parent's tools", (every,), expects(every)),
        Case("no list_dir", (["bash", "read_file", "write_file", "task"],),
             expects(["bash", "read_file", "write_file", "task"])),
        Case("only writers", (["write_file", "edit_file"],), expects(["write_file", "edit_file"])),
        Case("readers first, then the rest", (["list_dir", "read_file", "bash", "compact"],),
             expects(["list_dir", "read_file", "bash", "compact"])),
        Case("the s10 tools (memory too)", (every + ["memory"],), expects(every + ["memory"])),
        Case("the tools of a running s10 agent", (AGENT,), expects(AGENT)),
    ]


# ---- plausible wrong answers ---------------------------------------------------------------

def in_place(registry):
    """Removes what a child may not have from the parent's registry."""
    for name in registry.names():
        if name not in ALLOWED:
            registry.remove(name)
    return registry


def keeps_task(registry):
    """Drops the writers only: `task` and `compact` stay."""
    return ToolRegistry(Tool(**{k: v for k, v in t.items()}, handler=ALL[t["name"]].handler)
                        for t in registry.specs() if t["name"] not in ("write_file", "edit_file", "compact"))


def keeps_compact(registry):
    """Drops the writers and `task`; `compact` stays."""
    return ToolRegistry(ALL[t["name"]] for t in registry.specs()
                        if t["name"] not in ("write_file", "edit_file", "task"))


def names_only(registry):
    """Returns the names of the tools to keep, not a registry."""
    return [n for n in registry.names() if n in ALLOWED]


def by_prefix(registry):
    """Keeps the tools whose name says read or list: bash is dropped."""
    return ToolRegistry(ALL[n] for n in registry.names() if n.startswith(("read", "list")))


def sorted_names(registry):
    """The right tools, in alphabetical order."""
    return ToolRegistry(ALL[n] for n in sorted(registry.names()) if n in ALLOWED)


MISTAKES = (
    Mistake("the starter: removes in place", in_place, "from the parent's registry"),
    Mistake("keeps task", keeps_task, "kept `task`"),
    Mistake("keeps compact", keeps_compact, "kept `compact`"),
    Mistake("returns names", names_only, "returned a list, not a ToolRegistry"),
    Mistake("keeps by name prefix", by_prefix, "dropped `bash`"),
    Mistake("sorts the tools", sorted_names, "expected ['bash', 'read_file', 'list_dir']"),
)

HINTS = (
    "The registry you are given is the parent's: anything you remove from it, the parent loses. "
    "Make a new ToolRegistry.",
    "registry.names() lists the tools in order; registry.remove(name) returns the Tool (add it back); "
    "ToolRegistry(tools) builds a new one from Tool objects.",
    "Take each tool out and put it back (tool = registry.remove(name); registry.add(tool)), keep those "
    "named bash, read_file or list_dir, never task, and return ToolRegistry(kept).",
)

exercise = Exercise(name="read_only", task=TASK, starter=STARTER, reference=read_only, cases=cases,
                    setup=running_agent, adapt=attempt, hints=HINTS, mistakes=MISTAKES)
