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

The demo hooks and how a call is run are in demo.py; why an outcome is wrong in verdicts.py.

Example: exercise.check(truthy) -> ✗ trigger_hooks: 8/9 cases pass
  ✗ an empty reason still decides: returned None after calling blank, log; expected: returned '' after
    calling blank: blank returned '', and that is a decision: only None passes: test `is not None`,
    not truthiness

Reference: s04_hooks.trigger_hooks.
"""

from __future__ import annotations

from s04_hooks import HookError, trigger_hooks

from .. import Case, Exercise, Mistake
from .demo import BLOCKED, run_with
from .verdicts import expect

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

CALL = {"type": "tool_use", "id": "toolu_01", "name": "write_file",
        "input": {"path": "todo.txt", "content": "buy milk"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "API_KEY=sk-123"}


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
        # a hook is any callable: hook_name() names one with no __name__ by its type
        Case("a functools.partial hook that raises", (("allow", "partial"), pre, (CALL,)),
             expect(pre, calls=["allow", "partial"], error=(pre, "partial"))),
        Case("a callable object as a hook that raises", (("Guard",), post, (CALL, RESULT)),
             expect(post, calls=["Guard"], error=(post, "Guard"))),
        Case("a bound method as a hook that raises", (("allow", "check"), pre, (CALL,)),
             expect(pre, calls=["allow", "check"], error=(pre, "check"))),
        Case("a built-in method as a hook that raises", (("index",), pre, (CALL,)),
             expect(pre, calls=["index"], error=(pre, "index"))),
        Case("a class as a hook that raises", (("Refuse",), post, (CALL, RESULT)),
             expect(post, calls=["Refuse"], error=(post, "Refuse"))),
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


def dunder_name(registry, event, *args):
    """Names the hook by its __name__: right for a def, an AttributeError for a functools.partial."""
    for callback in registry[event]:
        try:
            out = callback(*args)
        except Exception as exc:
            raise HookError(event, callback.__name__, exc) from exc
        if out is not None:
            return out
    return None


def error_as_decision(registry, event, *args):
    """Turns a failing hook into a decision string: the failure looks like a block."""
    for fn in registry[event]:
        try:
            out = fn(*args)
        except Exception as exc:  # noqa: BLE001
            return f"hook {getattr(fn, '__name__', 'hook')} failed: {exc}"
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
    Mistake("the hook named by callback.__name__, not hook_name()", dunder_name,
            "AttributeError came from the code that reports partial's failure"),
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
