"""The s04 check's demo hooks, and how it calls a student's trigger_hooks and says what happened.

    demo_hooks(calls, raised)   allow, log (pass), block, blank (decide), redact (a new result), and
                                hooks that raise, one of each kind of callable: boom (a def), Guard (an
                                object with __call__), partial (a functools.partial), check (a bound
                                method), index (a built-in method), Refuse (a class); each records its
                                name when called; RETURNS says what each returns
    run_with(fn)                (hooks, event, args) -> Outcome: what fn returned or raised, which hooks it called
    happened(calls, ...)        that outcome in one sentence

Example: happened(["allow", "block"], value="no") -> "returned 'no' after calling allow, block"
"""

from __future__ import annotations

import functools

from lessonkit.i18n import tr
from s04_hooks import HookError, HookRegistry

BLOCKED = "blocked: writes go under notes/"


RETURNS = {"allow": None, "log": None, "block": BLOCKED, "blank": "", "redact": {"content": "..."}}  # boom raises


def demo_hooks(calls: list, raised: list) -> dict:
    """The named hooks the cases register; each records its name in `calls` when called (the ones that
    raise also record their exception in `raised`). What each returns is RETURNS. Each is keyed by
    hook_name(hook): a callable need not be a def, nor have __name__ or __code__."""
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

    def fails(name, *args):  # a failing hook's body: records its name, raises ZeroDivisionError
        calls.append(name)
        try:
            return 1 / 0
        except ZeroDivisionError as exc:
            raised.append(exc)
            raise

    def boom(*args):
        return fails("boom", *args)

    class Guard:  # a hook can be any callable: an object with __call__ has no __name__ ...
        def __call__(self, *args):
            return fails("Guard", *args)

    class Audit:  # a bound method: __name__ 'check', but type(...).__name__ is 'method'
        def check(self, *args):
            return fails("check", *args)

    class Refuse:  # a class as a hook: calling it makes an instance (its __init__ raises)
        def __init__(self, *args):
            fails("Refuse", *args)

    class Tripwire:  # compared by list.index: a built-in method (no __code__) whose call raises
        def __eq__(self, other):
            return fails("index")

        __hash__ = None

    hooks = {f.__name__: f for f in (allow, log, block, blank, redact, boom)}
    # ... nor has a functools.partial: hook_name() names them 'Guard' and 'partial'
    hooks.update(Guard=Guard(), partial=functools.partial(fails, "partial"), check=Audit().check,
                 Refuse=Refuse, index=[Tripwire()].index)
    return hooks


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
