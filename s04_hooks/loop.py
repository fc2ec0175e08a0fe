"""s04 · Hooks: named moments in the loop where your functions can watch, block or rewrite.

Motto: the loop stays the same; what happens around it becomes pluggable.

    ask(prompt) ─[UserPromptSubmit]─> messages ──> client.messages.create ──> assistant turn
     (block or rewrite the prompt)       ^                                        │
                                         │                    end_turn? ─[Stop]─> return text
                                         │                                        │ tool_use
                                         │          [PreToolUse]  s03's permission check is
                                         │           │            now the first hook here
                                         │           ├─ a reason -> error result, never run
                                         │           v
                                         │          run the tool (s02's dispatch)
                                         │           v
                                         │          [PostToolUse] may replace the result
                                         └──── one user message with every tool_result

New in s04: a per-agent `HookRegistry` (registry.py) with the events UserPromptSubmit,
PreToolUse, PostToolUse, Stop (and PreCompact, which s06 fires); s03's hard-coded check
becomes one PreToolUse hook, `permission_hook`. A hook that raises, or returns what it
may not, never crashes the loop: around a tool call it fails closed.
Builds on s03: `permission` and `run_allowed` are overridden, and `ask` and `loop` at the two ends.
Seed: the loop-and-hooks seed (s01 says what the seeds are).
Not modeled: hooks as shell commands, a Stop hook that makes the agent go on, hook timeouts.
"""

from __future__ import annotations

import copy

from s01_loop import check_history, tool_result
from s03_permissions import Agent as PermissionsAgent

from .registry import HookError, HookRegistry, hook_name

RESULT_FIELDS = {"type", "tool_use_id", "content", "is_error", "cache_control"}
BLOCK_FIELDS = {  # what a block inside a tool_result's list content may be, and its fields
    "text": {"type", "text", "cache_control", "citations"},
    "image": {"type", "source", "cache_control"},
    "document": {"type", "source", "cache_control", "title", "context", "citations"},
}


class Agent(PermissionsAgent):
    """The s03 agent with hooks. Example: agent.register_hook("PreToolUse", lambda call: None)"""

    def __init__(self, client, **options):
        super().__init__(client, **options)
        self.hooks = HookRegistry()  # this agent's own: a hook registered here reaches no other agent
        self.hooks.register("PreToolUse", self.permission_hook)  # s03's check, now the first PreToolUse hook

    # ---- the registry, by the seed's names ---------------------------------------
    def register_hook(self, event: str, fn):
        """Add `fn` to this agent's hooks for `event`; returns fn."""
        return self.hooks.register(event, fn)

    def trigger_hooks(self, event: str, *args):
        """Call the event's hooks; the first non-None return, or None. Raises HookError."""
        return self.hooks.trigger(event, *args)

    def notify_hooks(self, event: str, *args) -> None:
        """Call every hook of an event for its side effects; a failing one becomes an "error" event."""
        for fn in self.hooks[event]:
            try:
                self.hooks.call(event, fn, *args)
            except HookError as exc:
                self.emit("error", error=exc)

    def _failed(self, event: str, fn, problem: str) -> HookError:
        """A hook that returned something it may not, as a HookError (reported like a crash)."""
        error = HookError(event, hook_name(fn), TypeError(problem))
        self.emit("error", error=error)
        return error

    # ---- the tool call: PreToolUse, the tool, PostToolUse ------------------------
    def permission_hook(self, call: dict) -> str | None:
        """s03's deny list and approval, as a PreToolUse hook (unregister it to switch it off)."""
        return super().permission(call)

    def permission(self, call: dict) -> str | None:
        """s03 asked one hard-coded check; s04 asks every PreToolUse hook, in order."""
        for fn in self.hooks["PreToolUse"]:
            given = copy.deepcopy(call)  # each hook judges the call that will run: none may rewrite it
            try:
                reason = self.hooks.call("PreToolUse", fn, given)
            except HookError as exc:  # fail closed: a broken guard does not let the call through
                self.emit("error", error=exc)
                return f"{exc} (the call was not run)"
            if given != call:  # a rewrite would run unchecked, and the history would not say what ran: fail closed
                error = self._failed("PreToolUse", fn, "changed the call it was given: a PreToolUse hook "
                                     "may block a call (return a reason), not rewrite it")
                return f"{error} (the call was not run)"
            if reason is None:  # this hook allows the call: ask the next one
                continue
            if not isinstance(reason, str):
                error = self._failed("PreToolUse", fn, f"returned {type(reason).__name__}: return None "
                                     "to allow or a reason string to block")
                return f"{error} (the call was not run)"
            self.emit("hook", event="PreToolUse", hook=hook_name(fn), outcome="blocked", detail=reason)
            return reason  # the first reason blocks: the call becomes an error result, never run
        return None  # every hook allowed it

    def run_allowed(self, block: dict) -> dict:
        """Run the call (s03 -> s02), then let each PostToolUse hook replace the result."""
        result = super().run_allowed(block)
        for fn in self.hooks["PostToolUse"]:  # each may replace the result (redact, shorten, annotate)
            try:
                new = self.hooks.call("PostToolUse", fn, copy.deepcopy(block), copy.deepcopy(result))
            except HookError as exc:  # fail closed: a broken filter must not leak what it filters
                self.emit("error", error=exc)
                return tool_result(block, f"{exc} (the tool ran; its output is withheld)", is_error=True)
            if new is None:
                continue
            problem = _not_a_result(new, block)  # checked block by block, as the API would
            if problem:  # fail closed: a bad replacement would make the next request a 400
                error = self._failed("PostToolUse", fn, problem)
                return tool_result(block, f"{error} (the tool ran; its output is withheld)", is_error=True)
            result = {"type": "tool_result", "tool_use_id": block["id"], **new}  # the next hook sees this one
            self.emit("hook", event="PostToolUse", hook=hook_name(fn), outcome="rewrote", detail=result)
        return result

    # ---- the two ends: UserPromptSubmit and Stop ----------------------------------
    def ask(self, prompt: str, messages: list | None = None) -> str:
        """Let each UserPromptSubmit hook pass, block or rewrite the prompt, then run s01's ask."""
        for fn in self.hooks["UserPromptSubmit"]:
            try:
                out = self.hooks.call("UserPromptSubmit", fn, prompt)
            except HookError as exc:  # reported, and the prompt goes on as it was
                self.emit("error", error=exc)
                continue
            if out is None:  # passed: the prompt goes on as it is
                continue
            if isinstance(out, str):  # blocked: the prompt never reaches the history or the model
                self.emit("hook", event="UserPromptSubmit", hook=hook_name(fn), outcome="blocked", detail=out)
                return f"(prompt blocked by {hook_name(fn)}: {out})"
            if isinstance(out, dict) and isinstance(out.get("prompt"), str) and out["prompt"].strip():
                prompt = out["prompt"]  # rewritten: the next hook, and the model, see the new prompt
                self.emit("hook", event="UserPromptSubmit", hook=hook_name(fn), outcome="rewrote",
                          detail=prompt)
                continue
            self._failed("UserPromptSubmit", fn, f"returned {out!r:.60}: return None, a reason string "
                         "to block, or {'prompt': new_text}")
        return super().ask(prompt, messages)

    def loop(self, messages: list) -> str:
        """s01's loop, then the Stop hooks with the final text (their returns are ignored)."""
        text = super().loop(messages)
        self.notify_hooks("Stop", text, messages)  # they watch; a Stop hook cannot make the agent go on
        return text


def _not_a_result(new, call: dict) -> str | None:
    """What is wrong with a PostToolUse replacement, or None. It needs a str or list `content`."""
    if not isinstance(new, dict):
        return f"returned {type(new).__name__}: return None to keep the result or a tool_result dict"
    if new.get("tool_use_id", call["id"]) != call["id"] or new.get("type", "tool_result") != "tool_result":
        return "returned a dict that is not a tool_result for this call"
    extra = sorted(set(new) - RESULT_FIELDS)
    if extra:
        return f"returned a tool_result with unknown fields {', '.join(extra)} (the API would refuse it)"
    content = new.get("content")
    if not isinstance(content, (str, list)):
        return "returned a tool_result without a str or list `content`"
    for k, block in enumerate(content if isinstance(content, list) else ()):  # each block, as the API would
        fields = BLOCK_FIELDS.get(block.get("type")) if isinstance(block, dict) else None
        if fields is None:
            return (f"returned content block {k} that is not a text, image or document block: {block!r:.60}")
        if set(block) - fields:
            return f"returned content block {k} with unknown fields {', '.join(sorted(set(block) - fields))}"
        if block["type"] == "text" and not (isinstance(block.get("text"), str) and block["text"].strip()):
            return f"returned content block {k} whose text is empty or not a string (the API would refuse it)"
        if block["type"] != "text" and not isinstance(block.get("source"), dict):
            return f"returned content block {k} ({block['type']}) without a `source` dict"
    return None


def agent_loop(messages: list, *, client, **options) -> str:
    """The s04 loop as one function: run `messages` (ending with a user turn) to the end."""
    check_history(messages)  # a malformed history: one ValueError naming the message
    return Agent(client, **options).loop(messages)
