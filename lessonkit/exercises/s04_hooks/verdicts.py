"""Why a trigger_hooks answer is wrong, from what it did: which hooks it called, and what came out.

    expect(event, value, calls, error)   the verdict of one case: None if right, else what happened,
                                         what was expected, and why (explain)
    explain(event, want_calls, ...)      a later hook asked after one decided, '' taken for a pass,
                                         an exception let out, a HookError naming the wrong hook, ...

Example: expect("PreToolUse", "blocked: ...", ["allow", "block"]) on a run that also called log ->
  "returned 'blocked: ...' after calling allow, block, log; expected: returned 'blocked: ...' after
  calling allow, block: log was called after block had decided: return the first non-None value at
  once; a later hook must not see (or fail on) a call that will never run"
"""

from __future__ import annotations

from lessonkit.i18n import tr

from .demo import RETURNS, Outcome, happened

FAILING = ("boom", "Guard", "partial", "check", "index", "Refuse")  # the demo hooks that raise
# type(hook).__name__ of each failing demo hook: a name taken from the type names every hook of that kind
KINDS = {"boom": "function", "check": "method", "index": "builtin_function_or_method", "Refuse": "type"}


def misnamed(got: str, hook: str) -> str:
    """What a wrong hook name in a HookError is, when that is sure (empty otherwise).
    Example: misnamed("method", "check") -> "that is the type of the hook (type(hook).__name__), ..." """
    if KINDS.get(hook) == got:
        return tr("that is the type of the hook (type(hook).__name__), the same for every hook of its kind")
    if got.startswith(("<", "functools.partial(")):
        return tr("that is its repr, with an address that changes on every run")
    if got.endswith("." + hook) or "<locals>" in got:
        return tr("that is its __qualname__ (where it was defined), and not every callable has one")
    return ""


def explain(event: str, want_calls: list, want_error, got: Outcome) -> str:
    """Why `got` is wrong, from what it did: which hooks it called (and what each returns), what came
    out, and what was expected. Empty when nothing sure can be said."""
    stray = [h for h in got.calls if got.on.get(h, event) != event]
    if stray:
        return tr("{hook} is registered for {other}, not {event}: only the event's own hooks run",
                  hook=stray[0], other=got.on[stray[0]], event=event)
    decided = next((i for i, h in enumerate(got.calls) if h in RETURNS and RETURNS[h] is not None), None)
    if decided is not None and decided + 1 < len(got.calls):
        decider, later = got.calls[decided], got.calls[decided + 1]
        if not RETURNS[decider] and got.value != RETURNS[decider]:
            return tr("{hook} returned {value}, and that is a decision: only None passes: test `is not None`, "
                      "not truthiness", hook=decider, value=repr(RETURNS[decider]))
        return tr("{later} was called after {hook} had decided: return the first non-None value at once; a "
                  "later hook must not see (or fail on) a call that will never run", later=later, hook=decider)
    if got.escaped is not None:
        if not got.from_hook and got.calls and got.calls[-1] in FAILING:
            # the hook raised, then the answer's own code failed while reporting it (fn.__name__ on a partial)
            return tr("{error} came from the code that reports {hook}'s failure, not from the hook: a hook can be "
                      "any callable (a functools.partial, an object with __call__) and need not have __name__: "
                      "name it with hook_name(hook)", error=type(got.escaped).__name__, hook=got.calls[-1])
        if got.from_hook:
            return tr("an exception in a hook must come out as HookError(event, hook_name(hook), exc): the agent "
                      "turns a HookError into an error result; any other exception crashes the loop")
        return ""
    if want_error and got.error is not None:
        if got.error.hook != want_error[1]:
            problem = tr("the HookError names {got}, not the hook that failed: pass hook_name(hook) ({hook})",
                         got=repr(got.error.hook), hook=repr(want_error[1]))
            what = misnamed(str(got.error.hook), want_error[1])
            return tr("{problem}; {what}", problem=problem, what=what) if what else problem
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
