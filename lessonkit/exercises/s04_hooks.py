"""s04 exercise: trigger an event's hooks: in order, the first non-None return decides.

    trigger_hooks(registry, "PreToolUse", call)
      for each hook of the event, in registration order:
          None          -> it passes: ask the next hook
          anything else -> it decided (a reason, a new result, a new prompt): return it,
                           later hooks are not called
          it raises     -> HookError(event, hook_name(hook), exc): the agent turns that
                           into an error result or an "error" event, never a crash
      all passed -> None

Each case builds a fresh HookRegistry from named demo hooks that record their calls,
so the report says what came back and which hooks ran: "returned 'blocked: ...' after
calling allow, block, log; expected ... after calling allow, block".

The starter lets every hook have its say and keeps the last word (`result = hook(*args) or
result`): it asks hooks after one has decided, takes an empty reason for a pass, and lets
an exception in a hook escape as itself. The seed's own trigger_hooks (mistake
`seeds_trigger` below) is right about order and None, and lets exceptions escape too.

Reference: s04_hooks.trigger_hooks.
"""

from __future__ import annotations

from s04_hooks import HookError, HookRegistry, trigger_hooks

from ..i18n import tr
from . import Case, Exercise, Mistake

STARTER = '''\
from s04_hooks import HookError, hook_name   # raise HookError(event, hook_name(fn), exc)


def trigger_hooks(registry, event, *args):
    """Call the event's hooks in order; the first non-None return wins (None: all passed)."""
    result = None
    for callback in registry[event]:
        result = callback(*args) or result   # every hook has its say
    return result
'''

TASK = """Write trigger_hooks(registry, event, *args): call registry[event]'s hooks in order
with *args; return the first non-None value (later hooks are not called), or None.
A hook that raises becomes HookError(event, hook_name(hook), the exception)."""

BLOCKED = "blocked: writes go under notes/"
CALL = {"type": "tool_use", "id": "toolu_01", "name": "write_file",
        "input": {"path": "todo.txt", "content": "buy milk"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "API_KEY=sk-123"}


def demo_hooks(calls: list) -> dict:
    """The named hooks the cases register; each records its name in `calls` when called."""
    def allow(*args):
        calls.append("allow")

    def log(*args):
        calls.append("log")

    def block(*args):
        calls.append("block")
        return BLOCKED

    def blank(*args):
        calls.append("blank")
        return ""

    def redact(call, result):
        calls.append("redact")
        return {"content": result["content"].replace("sk-123", "[redacted]")}

    def boom(*args):
        calls.append("boom")
        return 1 / 0
    return {f.__name__: f for f in (allow, log, block, blank, redact, boom)}


class Outcome:
    """What trigger_hooks returned (or the HookError it raised) and which hooks it called."""

    def __init__(self, value, calls: list, error: HookError | None = None):
        self.value, self.calls, self.error = value, calls, error

    def __str__(self) -> str:
        if self.error:
            error = f"HookError({self.error.event!r}, {self.error.hook!r}, {type(self.error.error).__name__})"
            return happened(self.calls, error=error)
        return happened(self.calls, value=self.value)


def happened(calls, *, value=None, error: str | None = None) -> str:
    """One sentence: what came out, after calling which hooks.
    Example: happened(["allow", "block"], value="no") -> returned 'no' after calling allow, block"""
    hooks = ", ".join(calls)
    if error is not None:
        return (tr("raised {error} after calling {hooks}", error=error, hooks=hooks) if calls
                else tr("raised {error} after calling no hook", error=error))
    return (tr("returned {value} after calling {hooks}", value=repr(value), hooks=hooks) if calls
            else tr("returned {value} after calling no hook", value=repr(value)))


def run_with(fn, env=None):
    """The student's fn as the cases call it: (hooks, event, args) -> Outcome.

    hooks: names of demo hooks, registered in order on `event`; ("Event", name) puts one on another event.
    """
    def run(hooks, event, args):
        calls: list = []
        catalog, registry = demo_hooks(calls), HookRegistry()
        for spec in hooks:
            on, name = spec if isinstance(spec, tuple) else (event, spec)
            registry.register(on, catalog[name])
        try:
            return Outcome(fn(registry, event, *args), calls)
        except HookError as exc:
            return Outcome(None, calls, exc)
    return run


def expect(value=None, calls=(), error: tuple | None = None):
    """A verdict: this value (or a HookError for (event, hook)) after calling exactly these hooks."""
    def verdict(got: Outcome) -> str | None:
        if error:
            ok = got.error is not None and (got.error.event, got.error.hook) == error \
                and isinstance(got.error.error, ZeroDivisionError)
            want = happened(calls, error=f"HookError({error[0]!r}, {error[1]!r}, ZeroDivisionError)")
        else:
            ok = got.error is None and got.value == value and type(got.value) is type(value)
            want = happened(calls, value=value)
        if ok and got.calls == list(calls):
            return None
        return tr("{got}; expected: {want}", got=got, want=want)
    return verdict


def cases(env=None) -> list[Case]:
    pre = "PreToolUse"
    return [
        Case("no hooks for the event", ((), pre, (CALL,)), expect(None),
             why="nothing to ask: the call may run"),
        Case("every hook passes", (("allow", "log"), pre, (CALL,)), expect(None, ["allow", "log"]),
             why="None means 'no objection': ask them all"),
        Case("the first hook that decides wins", (("allow", "block", "log"), pre, (CALL,)),
             expect(BLOCKED, ["allow", "block"]),
             why="log must not see a call that will never run"),
        Case("an empty reason still decides", (("blank", "log"), pre, (CALL,)), expect("", ["blank"]),
             why="only None passes: test `is not None`, not truthiness"),
        Case("a hook of another event", ((("PostToolUse", "block"),), pre, (CALL,)), expect(None),
             why="only the hooks registered for this event run"),
        Case("the arguments reach the hook", (("redact",), "PostToolUse", (CALL, RESULT)),
             expect({"content": "API_KEY=[redacted]"}, ["redact"]),
             why="a PostToolUse hook gets (call, result) and returns the new result"),
        Case("a hook that raises", (("boom", "block"), pre, (CALL,)),
             expect(calls=["boom"], error=(pre, "boom")),
             why="the agent turns a HookError into an error result; any other exception crashes the loop"),
        Case("a hook that raises after one passed", (("allow", "boom"), pre, (CALL,)),
             expect(calls=["allow", "boom"], error=(pre, "boom")),
             why="the HookError names the hook that failed, wherever it is in the list"),
        Case("a decision before a hook that raises", (("block", "boom"), pre, (CALL,)),
             expect(BLOCKED, ["block"]),
             why="a hook after the decision is never called, so it cannot fail"),
    ]


# ---- plausible wrong answers ---------------------------------------------------------------

def seeds_trigger(registry, event, *args):
    """The seed's trigger_hooks: right about None and order; an exception escapes as itself."""
    for callback in registry[event]:
        result = callback(*args)
        if result is not None:
            return result
    return None


def truthy(registry, event, *args):
    """Treats a falsy decision ('') as a pass."""
    for fn in registry[event]:
        out = registry.call(event, fn, *args)
        if out:
            return out
    return None


def asks_everyone(registry, event, *args):
    """Calls every hook, then returns the first decision."""
    outs = [registry.call(event, fn, *args) for fn in registry[event]]
    return next((o for o in outs if o is not None), None)


def names_the_event(registry, event, *args):
    """Wraps exceptions, but names the event instead of the hook."""
    for fn in registry[event]:
        try:
            out = fn(*args)
        except Exception as exc:
            raise HookError(event, event, exc) from exc
        if out is not None:
            return out
    return None


def first_arg_only(registry, event, *args):
    """Passes only the first argument."""
    return trigger_hooks(registry, event, *args[:1])


def error_as_decision(registry, event, *args):
    """Turns a failing hook into a decision string: the failure looks like a block."""
    for fn in registry[event]:
        try:
            out = fn(*args)
        except Exception as exc:  # noqa: BLE001
            return f"hook {fn.__name__} failed: {exc}"
        if out is not None:
            return out
    return None


MISTAKES = (
    Mistake("the seed's trigger_hooks: exceptions escape", seeds_trigger, "raised ZeroDivisionError: division by zero"),
    Mistake("an empty reason taken for a pass", truthy, "returned None after calling blank, log"),
    Mistake("every hook asked before deciding", asks_everyone,
            "returned 'blocked: writes go under notes/' after calling allow, block, log; expected"),
    Mistake("the HookError names the event, not the hook", names_the_event,
            "raised HookError('PreToolUse', 'PreToolUse', ZeroDivisionError)"),
    Mistake("only the first argument passed on", first_arg_only,
            "raised HookError('PostToolUse', 'redact', TypeError)"),
    Mistake("a failing hook returns a reason instead of raising", error_as_decision,
            "returned 'hook boom failed: division by zero' after calling boom"),
)

HINTS = (
    "Three rules: ask the hooks in order; stop at the first one that returns anything but None "
    "(an empty string is a decision too); a hook that raises must come out as HookError.",
    "Test `if result is not None`, not `if result`, and return at once. Wrap each call in try/except "
    "Exception and raise HookError(event, hook_name(hook), exc) from exc. Pass *args on unchanged.",
    "for hook in registry[event]: try: result = hook(*args) except Exception as exc: raise "
    "HookError(event, hook_name(hook), exc) from exc; if result is not None: return result. "
    "After the loop: return None.",
)

exercise = Exercise(name="trigger_hooks", task=TASK, starter=STARTER, reference=trigger_hooks,
                    cases=cases, adapt=run_with, hints=HINTS, mistakes=MISTAKES)
