"""What a cut means: where it lands, what the API answers the kept part, and why a wrong cut is wrong.

    expect(messages, k, want)   the verdict of one case: None if safe_cut returned `want`, else one line
      a crash                   what check() reports, then what it means when that is sure (crash_hint)
      an unsafe cut             what the API answers (api_answer), and where to step back (unsafe_why)
      a safe but wrong cut      where it lands and why `want` was already safe (safe_why)

Example: expect(reads(3), 4, 3)(4) -> "returned 4, expected 3: the kept part would start at messages[4]
  (the user message with toolu_02's result), and the API answers 400: messages.0.content.0: unexpected
  `tool_use_id` found in `tool_result` blocks: toolu_02; step back to messages[3], the assistant turn
  that made the call"
"""

from __future__ import annotations

from lessonkit.i18n import tr
from offline.api.validate import ApiError, validate_request
from s07_reactive import join


def api_answer(kept: list) -> str | None:
    """The first sentence of what the API says to `kept` with a snip marker merged in front (as join
    does), or None if it accepts it. Example: 'messages.0.content.0: unexpected `tool_use_id` ...: toolu_02'"""
    body = {"model": "m", "max_tokens": 1, "messages": join([], "[snipped N messages]", kept)}
    try:
        validate_request(body)
    except ApiError as exc:
        return exc.message.split(". ")[0]
    return None


def describe(messages: list, i: int) -> str:
    """messages[i] in a few words. Example: 'messages[4] (the user message with toolu_02's result)'"""
    if i >= len(messages):
        return tr("the end (keep nothing)")
    m = messages[i]
    content = m["content"]
    if isinstance(content, str):
        return tr("messages[{i}] (a new user prompt, a plain string)", i=i)
    ids = [b["tool_use_id"] for b in content if b.get("type") == "tool_result"]
    if len(ids) > 1:
        return tr("messages[{i}] (the user message with {ids}'s results)", i=i, ids=", ".join(ids))
    if ids:
        return tr("messages[{i}] (the user message with {ids}'s result)", i=i, ids=ids[0])
    calls = [b["id"] for b in content if b.get("type") == "tool_use"]
    if m["role"] == "user" and content and all(b.get("type") == "text" for b in content):
        return tr("messages[{i}] (a new user prompt, as a list of text blocks)", i=i)
    if m["role"] == "assistant":
        return (tr("messages[{i}] (an assistant turn calling {calls})", i=i, calls=", ".join(calls)) if calls
                else tr("messages[{i}] (an assistant turn)", i=i))
    return tr("messages[{i}] (a user message)", i=i)


class Raised:
    """safe_cut raised: the report check() would give, kept so that the verdict can add what it knows."""

    def __init__(self, exc: Exception):
        message = (str(exc).splitlines()[0] if str(exc) else "").rstrip(": ")
        self.exc = exc
        self.text = (tr("raised {error}: {message}", error=type(exc).__name__, message=message) if message
                     else tr("raised {error}", error=type(exc).__name__))



def crash_hint(messages: list, k: int, exc: Exception) -> str:
    """What an exception says about the cut, when it is sure: an index past the end, or a plain-string
    content read as a list of blocks. Empty otherwise."""
    at = max(0, min(k, len(messages)))
    if isinstance(exc, IndexError) and at == len(messages):
        return tr("messages[{n}] does not exist: a cut at len(messages) keeps nothing and is always safe; test "
                  "k < len(messages) before reading messages[k]", n=at)
    plain = next((i for i in range(min(at, len(messages) - 1), -1, -1)
                  if isinstance(messages[i]["content"], str)), None)
    about_a_string = (isinstance(exc, TypeError) and "string indices" in str(exc)) or (
        isinstance(exc, AttributeError) and "'str' object" in str(exc))
    if about_a_string and plain is not None and plain > 0:
        return tr("messages[{i}]'s content is a plain string (a new prompt), not a list of blocks: it holds no "
                  "tool_result", i=plain)
    return ""


def unsafe_why(messages: list, i: int) -> str:
    """Why messages[i] cannot start the kept part, and what to do: step back onto the call's turn."""
    blocks = messages[i]["content"]
    results = [b for b in blocks if b.get("type") == "tool_result"]
    step = tr("step back to messages[{j}], the assistant turn that made the call", j=i - 1)
    if len(results) < len(blocks):
        return tr("{step}: a user message is unsafe if ANY of its blocks is a tool_result, whatever is beside it",
                  step=step)
    if len(results) > 1:
        return tr("{step}: one user message answers its {n} calls, and one step back keeps every pair", step=step,
                  n=len(results))
    if any(r.get("is_error") or isinstance(r.get("content"), list) for r in results):
        return tr("{step}: is_error results and list contents are tool_results too", step=step)
    return step


def safe_why(messages: list, i: int) -> str:
    """Why a cut at i is safe: what messages[i] is."""
    if i == 0:
        return tr("a cut at 0 keeps everything: nothing is cut")
    if i >= len(messages):
        return tr("a cut at len(messages) keeps nothing: nothing is orphaned")
    if messages[i]["role"] == "assistant":
        return tr("a turn starts there: the kept part begins with the call and keeps its result")
    if isinstance(messages[i]["content"], list):
        return tr("a user message without a tool_result answers no call, a list of text blocks too: only a "
                  "tool_result block makes a cut unsafe")
    return tr("a plain user prompt answers no call: the best place to cut")


def expect(messages: list, k: int, want: int):
    """A verdict: safe_cut(messages, k) is `want`; a wrong cut is explained by where it lands (with the
    API's answer if unsafe), a crash by what it says when that is sure."""
    def verdict(got) -> str | None:
        if got == want and not isinstance(got, bool):
            return None
        if isinstance(got, Raised):
            hint = crash_hint(messages, k, got.exc)
            return tr("{problem}: {hint}", problem=got.text, hint=hint) if hint else got.text
        if isinstance(got, bool) or not isinstance(got, int):
            return tr("returned {got}, expected the index {want}", got=repr(got), want=want)
        if not 0 <= got <= len(messages):
            if 0 <= k <= len(messages):
                return tr("returned {got}, expected {want}: a cut is an index from 0 to len(messages) = {n}",
                          got=got, want=want, n=len(messages))
            return tr("returned {got}, expected {want}: a cut is an index from 0 to len(messages) = "
                      "{n}; clamp k first", got=got, want=want, n=len(messages))
        error = api_answer(messages[got:]) if got < len(messages) else None
        if error:
            return tr("returned {got}, expected {want}: the kept part would start at {start}, and the API answers "
                      "400: {error}; {why}", got=got, want=want, start=describe(messages, got), error=error,
                      why=unsafe_why(messages, got))
        if got > max(k, 0):
            return tr("returned {got}, expected {want}: a cut after k={k} drops messages the caller "
                      "asked to keep; step back, never forward", got=got, want=want, k=k)
        return tr("returned {got}, expected {want}: {safe} is already safe ({why}); "
                  "stepping back to {got} keeps a turn the layer was asked to drop", got=got, want=want,
                  safe=describe(messages, want), why=safe_why(messages, want))
    return verdict
