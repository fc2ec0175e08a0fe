"""Progress from the request alone: how far a plan is, read from the history's tool calls.

    plan steps:   [echo a] [echo b] [echo c]
    history:      task ... tool_use(echo a) ... tool_use(echo b)      -> 2 steps done
    after a snip: task ... [snipped] ... tool_use(echo b)             -> 2 steps done
    text only:    "Running `echo c` (3/3)." with no call              -> 0: text is never believed
    a summary:    "Pending tasks: plan in progress: (2/3) steps done" -> 2 (its calls are gone)

A call matches a step when it has the same tool name and input as one of the step's
calls (after roles.py turned roles into the offered tools). Matching goes in order,
skipping steps a snip removed, so two equal steps need two calls.

Example: steps_done([Step("", [("bash", {"command": "echo b"})])], events with bash {"command": "echo b"}, 0,
                    {"bash": <bash>}, [<bash>]) -> 1

Not modeled: a client that rewrites a call's input (the plan then makes no progress,
and policy.py stops it after a few calls).
"""

from __future__ import annotations

import re

from ..conversation.calls import call_path, call_verb
from ..conversation.language import find_section
from ..conversation.reading import SEEN, STEP, Event
from ..conversation.roles import to_calls
from .discover import norm
from .scenarios import Step


def progress(events: list[Event], start: int, n: int | None = None, *, summaries: bool = False) -> tuple[int, int]:
    """The largest step counter (k, N) said at or after `start` (with that N, if given).

    With summaries=True only what a summary kept counts (the calls it replaced are gone);
    elsewhere progress is read from the calls themselves (steps_done).
    Example: texts '(2/6)', '(3/6)' -> (3, 6)
    """
    best = (0, 0)
    for e in events[max(start, 0):]:
        if summaries and e.kind != "summary":
            continue
        for k, total in STEP.findall(_said(e)):
            if n is None or int(total) == n:
                best = max(best, (int(k), int(total)))
    return best


def _said(e: Event) -> str:
    """Where step counters count: assistant text without its notes on results; a summary's
    pending and current work (other sections quote files, which may contain anything)."""
    if e.kind == "text":
        return SEEN.sub("", e.text)
    if e.kind == "summary":
        at = find_section(e.text, "Pending tasks")
        return SEEN.sub("", e.text[at:] if at >= 0 else e.text)
    return ""


def steps_done(steps: list[Step], events: list[Event], start: int, roles: dict, tools: list) -> int:
    """How many of the plan's steps the history's own tool calls show as made (text is not read).

    Calls since the task are matched in order to the first later step that makes the same
    call (tool name and input), so steps a snip removed are skipped, and two equal
    steps need two calls; a step of several calls (a parallel read) needs all of them, also when a
    client asked for one call per turn. Example: steps [echo a, echo b, echo c], calls [echo b] -> 2
    """
    sent = [{(name, _key(inp)) for name, inp in to_calls(step.calls, roles, tools)[0]} for step in steps]
    done, partial = 0, set()  # steps done; the calls seen so far of step `done` (a parallel step)
    for e in events[max(start, 0):]:
        if e.kind != "call":
            continue
        key = (e.tool, _key(e.input))
        hit = next((j for j in range(done, len(steps)) if key in sent[j]), None)
        if hit is None:
            continue
        if hit > done:  # the steps between were snipped away
            done, partial = hit, set()
        partial.add(key)
        if partial >= sent[hit]:  # a step of several calls is done when all of them were made
            done, partial = hit + 1, set()
    return done


def _key(tool_input: dict) -> str:
    return repr(sorted((k, repr(v)) for k, v in (tool_input or {}).items()))


def matched(steps: list[Step], events: list[Event], start: int, roles: dict, tools: list) -> list:
    """(call, result) per step (a grammar action each): the latest matching call since the task and its result."""
    calls = [e for e in events[max(start, 0):] if e.kind == "call"]
    results = {e.call_id: e for e in events if e.kind == "result"}
    out = []
    for step in steps:
        sent = {(name, _key(inp)) for name, inp in to_calls(step.calls, roles, tools)[0]}
        call = next((c for c in reversed(calls) if (c.tool, _key(c.input)) in sent), None)
        out.append((call, results.get(call.call_id) if call else None))
    return out


def read_so_far(events: list[Event], start: int) -> set[str]:
    """Paths the conversation shows as read since the task (calls, and summaries' file lists)."""
    done = {norm(call_path(e)) for e in events[max(start, 0):] if e.kind == "call" and call_verb(e) == "read"}
    for e in events[max(start, 0):]:
        if e.kind == "summary":
            done |= {norm(p) for p in re.findall(r"^- (\S+): read\b", e.text, re.MULTILINE)}
    return done


# ---- the result each step's calls got, in order (a scenario reads its checks from them) ----------
def step_results(steps: list[Step], events: list[Event], start: int, roles: dict, tools: list) -> list:
    """Per step, the result text of its last call, or None while it is not made: calls matched in
    order, as steps_done does, so two equal steps (run the tests, fix, run them again) get the
    results of two different calls. Example: steps [run tests, read, run tests], calls [run tests]
    -> ["FAILED ...", None, None]"""
    sent = [{(name, _key(inp)) for name, inp in to_calls(step.calls, roles, tools)[0]} for step in steps]
    results = {e.call_id: e.text for e in events if e.kind == "result"}
    out, done = [None] * len(steps), 0
    for e in events[max(start, 0):]:
        if e.kind != "call" or e.call_id not in results:
            continue
        hit = next((j for j in range(done, len(steps)) if (e.tool, _key(e.input)) in sent[j]), None)
        if hit is not None:
            out[hit], done = results[e.call_id], hit + (len(sent[hit]) == 1)
    return out
