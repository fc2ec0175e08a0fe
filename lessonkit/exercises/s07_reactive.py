"""s07 exercise: the pair-safe cut: where a history may be cut without orphaning a tool_result.

    safe_cut(messages, k)            the kept part is messages[k:]
      messages[k] is a user message carrying tool_result blocks?
          its tool_use is in messages[k-1], which the cut drops: step back to k-1
      anything else (an assistant turn, a new prompt, 0, the end) is safe: k
      k outside 0..len(messages) is clamped first

    u0 "read every file"   a1 tool_use(t1)   u1 tool_result(t1)   a2 tool_use(t2)   u2 ...
                                             ^ cut here: t1's result has no tool_use -> 400
                           ^ safe_cut(h, 2) == 1

When a student's cut is unsafe, the report quotes what the offline model's API
answers for the kept part (after a "[snipped N messages]" marker merged in front,
as s07's join does): "messages.0.content.0: unexpected `tool_use_id` found in
`tool_result` blocks: toolu_02 ...".

The starter is the seed's slicing: `messages[-keep_tail:]` starts wherever the count
lands, so the cut is k itself.

Reference: s07_reactive.safe_cut.
"""

from __future__ import annotations

from lessonkit.offline.validate import ApiError, validate_request
from s07_reactive import join, safe_cut

from . import Case, Exercise

STARTER = '''\
def safe_cut(messages, k):
    """The nearest cut at or before k where messages[k:] starts on no orphaned tool_result (0 if none)."""
    return k   # the seed: messages[-keep_tail:] starts wherever the count lands
'''

TASK = """Write safe_cut(messages, k): the largest cut c <= k such that messages[c:] does not
start with a user message carrying tool_result blocks (their tool_use would be cut
away). 0 and len(messages) are always safe; clamp k into 0..len(messages) first."""

TASK_TEXT = "Read every Python file in this folder, one at a time"


# ---- histories ---------------------------------------------------------------------------

def use(n: int, path: str) -> dict:
    return {"type": "tool_use", "id": f"toolu_{n:02d}", "name": "read_file", "input": {"path": path}}


def result(n: int, content="def f():\n    return 1\n", **extra) -> dict:
    return {"type": "tool_result", "tool_use_id": f"toolu_{n:02d}", "content": content, **extra}


def reads(n: int, *, final: bool = False) -> list:
    """u0, then n turns: (assistant text + read_file call, user tool_result); optionally a final answer."""
    messages = [{"role": "user", "content": TASK_TEXT}]
    for t in range(1, n + 1):
        messages += [{"role": "assistant", "content": [{"type": "text", "text": f"Reading ({t}/{n})."},
                                                       use(t, f"app_{t:02d}.py")]},
                     {"role": "user", "content": [result(t)]}]
    if final:
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"Read {n} files."}]})
    return messages


def parallel() -> list:
    """u0, a1 (one call), u1, then a2 with two calls answered together in u2, a3, u3."""
    h = reads(1)
    h += [{"role": "assistant", "content": [{"type": "text", "text": "Two at once."},
                                            use(2, "app_02.py"), use(3, "app_03.py")]},
          {"role": "user", "content": [result(2), result(3)]}]
    h += [{"role": "assistant", "content": [{"type": "text", "text": "One more."}, use(4, "app_04.py")]},
          {"role": "user", "content": [result(4)]}]
    return h


def noted() -> list:
    """reads(3) where u2 carries a hook's note beside its tool_result, and u3 is an error as a list of blocks."""
    h = reads(3)
    h[4]["content"].append({"type": "text", "text": "(a PostToolUse hook: 1 secret redacted)"})
    h[6]["content"] = [result(3, [{"type": "text", "text": "No such file: app_03.py"}], is_error=True)]
    return h


def follow_up() -> list:
    """A whole task (u0 .. a3), then a new prompt u4 as a plain string, and its first turn."""
    h = reads(1, final=True)
    h.append({"role": "user", "content": "Now list the folder"})
    h += [{"role": "assistant", "content": [{"type": "text", "text": "Listing."},
                                            {"type": "tool_use", "id": "toolu_09", "name": "list_dir",
                                             "input": {"path": "."}}]},
          {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_09",
                                        "content": "app_01.py"}]}]
    return h


# ---- what a cut means --------------------------------------------------------------------

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
        return "the end (keep nothing)"
    m = messages[i]
    content = m["content"]
    if isinstance(content, str):
        return f"messages[{i}] (a new user prompt, a plain string)"
    ids = [b["tool_use_id"] for b in content if b.get("type") == "tool_result"]
    if ids:
        return f"messages[{i}] (the user message with {', '.join(ids)}'s result{'s' if len(ids) > 1 else ''})"
    calls = [b["id"] for b in content if b.get("type") == "tool_use"]
    if m["role"] == "assistant":
        return f"messages[{i}] (an assistant turn{' calling ' + ', '.join(calls) if calls else ''})"
    return f"messages[{i}] (a user message)"


def expect(messages: list, k: int, want: int):
    """A verdict: safe_cut(messages, k) is `want`; a wrong cut is explained (with the API's answer if unsafe)."""
    def verdict(got) -> str | None:
        if got == want:
            return None
        if isinstance(got, bool) or not isinstance(got, int):
            return f"returned {got!r}, expected the index {want}"
        if not 0 <= got <= len(messages):
            return (f"returned {got}, expected {want}: a cut is an index from 0 to len(messages) = "
                    f"{len(messages)}; clamp k first")
        error = api_answer(messages[got:]) if got < len(messages) else None
        if error:
            return (f"returned {got}, expected {want}: the kept part would start at "
                    f"{describe(messages, got)}, and the API answers 400: {error}")
        if got > max(k, 0):
            return (f"returned {got}, expected {want}: a cut after k={k} drops messages the caller "
                    "asked to keep; step back, never forward")
        return (f"returned {got}, expected {want}: {describe(messages, want)} is already safe; "
                f"stepping back to {got} keeps a turn the layer was asked to drop")
    return verdict


def cut(name: str, messages: list, k: int, want: int, why: str) -> Case:
    """The case "safe_cut(messages, k) == want"."""
    return Case(name, (messages, k), expect(messages, k, want), why=why)


def cases(env=None) -> list[Case]:
    h, par, note, more = reads(3), parallel(), noted(), follow_up()  # h: u0 a1 u1 a2 u2 a3 u3
    return [
        cut("a cut on an assistant turn", h, 3, 3,
            "a turn starts there: the kept part begins with the call and keeps its result"),
        cut("a cut on a tool_result", h, 4, 3, "step back onto the assistant message that made the call"),
        cut("a cut on the first result", h, 2, 1, "the same rule at the front of the history"),
        cut("a cut on two parallel results", par, 4, 3,
            "one user message answers both calls: one step back keeps the pair"),
        cut("a cut on a result with a note beside it", note, 4, 3,
            "a user message is unsafe if ANY of its blocks is a tool_result"),
        cut("a cut on an error result (a list of blocks)", note, 6, 5,
            "is_error results and list contents are tool_results too"),
        cut("a cut on a new prompt", more, 4, 4, "a plain user prompt answers no call: the best place to cut"),
        cut("a cut on the last result", more, 6, 5, "the newest turn stays whole"),
        cut("k = 0", h, 0, 0, "keep everything: nothing is cut"),
        cut("k = len(messages)", h, len(h), len(h), "keep nothing: nothing to orphan"),
        cut("k past the end", h, len(h) + 5, len(h),
            "callers compute k from counts (len - keep_tail may go out of range): clamp it"),
        cut("k below 0", h, -3, 0, "clamp it: there is nothing before index 0"),
    ]


exercise = Exercise(name="safe_cut", task=TASK, starter=STARTER, reference=safe_cut, cases=cases)
