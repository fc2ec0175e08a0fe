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
calling allow, block, log; expected ... after calling allow, block", then why, from what it
did: "log was called after block had decided ...". An exception other than HookError is
caught too, and reported as "raised ZeroDivisionError: division by zero after calling boom".

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


RETURNS = {"allow": None, "log": None, "block": BLOCKED, "blank": "", "redact": {"content": "..."}}  # boom raises


def demo_hooks(calls: list, raised: list) -> dict:
    """The named hooks the cases register; each records its name in `calls` when called (boom also
    records the exception it raises in `raised`). What each returns is RETURNS."""
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
        try:
            return 1 / 0
        except ZeroDivisionError as exc:
            raised.append(exc)
            raise
    return {f.__name__: f for f in (allow, log, block, blank, redact, boom)}


class Outcome:
    """What trigger_hooks returned (or the HookError it raised, or another exception that escaped),
    which hooks it called, and where each hook was registered."""

    def __init__(self, value, calls: list, error: HookError | None = None, *, escaped: Exception | None = None,
                 from_hook: bool = False, on: dict | None = None):
        self.value, self.calls, self.error, self.escaped = value, calls, error, escaped
        self.from_hook, self.on = from_hook, on or {}

    def __str__(self) -> str:
        if self.error:
            error = f"HookError({self.error.event!r}, {self.error.hook!r}, {type(self.error.error).__name__})"
            return happened(self.calls, error=error)
        if self.escaped is not None:
            message = str(self.escaped).splitlines()[0] if str(self.escaped) else ""
            name = type(self.escaped).__name__
            return happened(self.calls, error=f"{name}: {message}" if message else name)
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
    An exception other than HookError is caught too (`escaped`), noting whether it is boom's own.
    """
    def run(hooks, event, args):
        calls, raised = [], []
        catalog, registry, on = demo_hooks(calls, raised), HookRegistry(), {}
        for spec in hooks:
            where, name = spec if isinstance(spec, tuple) else (event, spec)
            registry.register(where, catalog[name])
            on[name] = where
        try:
            return Outcome(fn(registry, event, *args), calls, on=on)
        except HookError as exc:
            return Outcome(None, calls, exc, on=on)
        except Exception as exc:  # noqa: BLE001 -- reported like check() does, with the hooks it called
            return Outcome(None, calls, escaped=exc, from_hook=any(exc is r for r in raised), on=on)
    return run


def explain(event: str, want_calls: list, want_error, got: Outcome) -> str:
    """Why `got` is wrong, from what it did: which hooks it called (and what each returns), what came
    out, and what was expected. Empty when nothing sure can be said."""
    stray = [h for h in got.calls if got.on.get(h, event) != event]
    if stray:
        return tr("{hook} is registered for {other}, not {event}: only the event's own hooks run",
                  hook=stray[0], other=got.on[stray[0]], event=event)
    decided = next((i for i, h in enumerate(got.calls) if h != "boom" and RETURNS.get(h) is not None), None)
    if decided is not None and decided + 1 < len(got.calls):
        decider, later = got.calls[decided], got.calls[decided + 1]
        if not RETURNS[decider] and got.value != RETURNS[decider]:
            return tr("{hook} returned {value}, and that is a decision: only None passes: test `is not None`, "
                      "not truthiness", hook=decider, value=repr(RETURNS[decider]))
        return tr("{later} was called after {hook} had decided: return the first non-None value at once; a "
                  "later hook must not see (or fail on) a call that will never run", later=later, hook=decider)
    if got.escaped is not None:
        if got.from_hook:
            return tr("an exception in a hook must come out as HookError(event, hook_name(hook), exc): the agent "
                      "turns a HookError into an error result; any other exception crashes the loop")
        return ""
    if want_error and got.error is not None:
        if got.error.hook != want_error[1]:
            return tr("the HookError names {got}, not the hook that failed: pass hook_name(hook) ({hook})",
                      got=repr(got.error.hook), hook=repr(want_error[1]))
        if got.error.event != want_error[0]:
            return tr("the HookError names the event {got}, expected {event}", got=repr(got.error.event),
                      event=repr(want_error[0]))
        return ""
    if want_error and "boom" in got.calls and got.value is not None:
        return tr("{hook} raised, and its failure came back as a decision: raise HookError(event, "
                  "hook_name(hook), exc), which the agent turns into an error result the model sees", hook="boom")
    if got.error is not None and isinstance(got.error.error, TypeError) and got.error.hook not in got.calls:
        return tr("{hook} raised TypeError before its body ran: it was not given the event's arguments: pass "
                  "*args on unchanged", hook=got.error.hook)
    if got.calls and got.calls == want_calls[:len(got.calls)] and len(got.calls) < len(want_calls) \
            and RETURNS.get(got.calls[-1], 0) is None:
        return tr("{hook} returned None, which means 'no objection': ask the next hook", hook=got.calls[-1])
    if not got.calls and not want_calls and got.value is not None:
        return tr("no hook ran, so nothing decided: return None")
    return ""


def expect(event: str, value=None, calls=(), error: tuple | None = None):
    """A verdict: this value (or a HookError for (event, hook)) after calling exactly these hooks;
    a wrong outcome is explained by `explain`."""
    def verdict(got: Outcome) -> str | None:
        if error:
            ok = got.error is not None and (got.error.event, got.error.hook) == error \
                and isinstance(got.error.error, ZeroDivisionError)
            want = happened(calls, error=f"HookError({error[0]!r}, {error[1]!r}, ZeroDivisionError)")
        else:
            ok = got.error is None and got.escaped is None and got.value == value and type(got.value) is type(value)
            want = happened(calls, value=value)
        if ok and got.calls == list(calls):
            return None
        problem = tr("{got}; expected: {want}", got=got, want=want)
        why = explain(event, list(calls), error, got)
        return tr("{problem}: {hint}", problem=problem, hint=why) if why else problem
    return verdict


def cases(env=None) -> list[Case]:
    """No case carries a fixed `why`: `explain` says why the outcome found is wrong."""
    pre, post = "PreToolUse", "PostToolUse"
    return [
        Case("no hooks for the event", ((), pre, (CALL,)), expect(pre, None)),
        Case("every hook passes", (("allow", "log"), pre, (CALL,)), expect(pre, None, ["allow", "log"])),
        Case("the first hook that decides wins", (("allow", "block", "log"), pre, (CALL,)),
             expect(pre, BLOCKED, ["allow", "block"])),
        Case("an empty reason still decides", (("blank", "log"), pre, (CALL,)), expect(pre, "", ["blank"])),
        Case("a hook of another event", (((post, "block"),), pre, (CALL,)), expect(pre, None)),
        Case("the arguments reach the hook", (("redact",), post, (CALL, RESULT)),
             expect(post, {"content": "API_KEY=[redacted]"}, ["redact"])),
        Case("a hook that raises", (("boom", "block"), pre, (CALL,)),
             expect(pre, calls=["boom"], error=(pre, "boom"))),
        Case("a hook that raises after one passed", (("allow", "boom"), pre, (CALL,)),
             expect(pre, calls=["allow", "boom"], error=(pre, "boom"))),
        Case("a decision before a hook that raises", (("block", "boom"), pre, (CALL,)),
             expect(pre, BLOCKED, ["block"])),
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

SOLUTION = '''\
from s04_hooks import HookError, hook_name


def trigger_hooks(registry, event, *args):
    """Call the event's hooks in order; the first non-None return wins (None: all passed)."""
    for fn in registry[event]:
        try:
            out = fn(*args)
        except Exception as exc:   # a hook that fails: name the event and the hook
            raise HookError(event, hook_name(fn), exc) from exc
        if out is not None:        # "" and False decide too: only None passes
            return out
    return None
'''

exercise = Exercise(name="trigger_hooks", task=TASK, starter=STARTER, reference=trigger_hooks,
                    cases=cases, adapt=run_with, hints=HINTS, mistakes=MISTAKES, solution=SOLUTION)
