"""Hook events, and the registry that holds the functions listening to them.

Example: hooks = HookRegistry(); hooks.register("PreToolUse", lambda call: "no")
         hooks.trigger("PreToolUse", {"name": "bash"}) -> "no"   (the first non-None return decides)
"""

from __future__ import annotations

from s01_loop import short_repr

# EVENTS            when                                  a hook gets        it may return
# UserPromptSubmit  before a prompt joins the history      (prompt)           None | reason | {"prompt": new}
# PreToolUse        before each tool call                  (call, a copy)     None | reason (blocks)
# PostToolUse       after each tool call that ran          (call, result)     None | a new result dict
# Stop              when the loop ends with its answer     (text, messages)   (ignored)
# PreCompact        before a compaction (s06 and later)    (layer, messages)  (ignored)
EVENTS = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "PreCompact")


def hook_name(fn) -> str:
    """A readable name for a hook. Example: def redact(...) -> 'redact'"""
    return getattr(fn, "__name__", None) or type(fn).__name__


class HookError(Exception):
    """A hook raised: which event, which hook, and the exception (the agent reports it, never crashes)."""

    def __init__(self, event: str, hook: str, error: BaseException):
        super().__init__(f"{event} hook {hook} failed: {type(error).__name__}: {error}")
        self.event, self.hook, self.error = event, hook, error


class HookRegistry:
    """event name -> list of hook functions, in registration order."""

    def __init__(self):  # one per agent: a hook registered in one notebook cell changes no other agent
        self._hooks: dict[str, list] = {event: [] for event in EVENTS}

    def _check(self, event) -> None:
        if not isinstance(event, str) or event not in self._hooks:
            raise ValueError(f"unknown hook event {short_repr(event)}: use one of {', '.join(EVENTS)}")

    def register(self, event: str, fn=None):
        """Add a hook; returns it. Also a decorator: @hooks.register("PreToolUse")."""
        self._check(event)
        if fn is None:
            return lambda f: self.register(event, f)
        if not callable(fn):
            raise TypeError(f"a {event} hook must be callable, got {type(fn).__name__}")
        self._hooks[event].append(fn)
        return fn

    def unregister(self, event: str, fn) -> None:
        """Remove a hook registered for `event`."""
        self._check(event)
        if fn not in self._hooks[event]:
            raise ValueError(f"{hook_name(fn)} is not a {event} hook")
        self._hooks[event].remove(fn)

    def __getitem__(self, event: str) -> tuple:
        """The hooks of an event, in order (a copy: change them with register/unregister)."""
        self._check(event)
        return tuple(self._hooks[event])

    def call(self, event: str, fn, *args):
        """Call one hook; an exception in it comes out as HookError."""
        try:  # not modeled: timeouts, async hooks, matchers by tool name (a hook checks call["name"] itself)
            return fn(*args)
        except Exception as exc:
            raise HookError(event, hook_name(fn), exc) from exc

    def trigger(self, event: str, *args):
        """Call the event's hooks in order; the first non-None return wins (None: all passed)."""
        for fn in self[event]:
            out = self.call(event, fn, *args)
            if out is not None:
                return out
        return None


def register_hook(registry: HookRegistry, event: str, fn):
    """The seed's register_hook, on an explicit registry (no global state)."""
    if not isinstance(registry, HookRegistry):
        raise ValueError(f"registry must be a HookRegistry, got {type(registry).__name__}")
    return registry.register(event, fn)


def trigger_hooks(registry: HookRegistry, event: str, *args):
    """The seed's trigger_hooks, on an explicit registry: first non-None return, or None."""
    if not isinstance(registry, HookRegistry):
        raise ValueError(f"registry must be a HookRegistry, got {type(registry).__name__}")
    return registry.trigger(event, *args)
