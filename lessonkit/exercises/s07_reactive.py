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
`tool_result` blocks: toolu_02 ...", and where to step back to. A crash is reported as
check() does ("raised IndexError: list index out of range"), followed by what it means
when that is sure ("messages[7] does not exist: a cut at len(messages) ...").

The starter is the seed's slicing: `messages[-keep_tail:]` starts wherever the count
lands, so the cut is k itself.

Reference: s07_reactive.safe_cut.

2. `too_long`: prompt_too_long(error), which errors reactive compaction answers (below).
   Reference: s07_reactive.prompt_too_long.
"""

from __future__ import annotations

import contextlib
import re

import anthropic

from lessonkit.offline import OfflineModel, offline_client
from lessonkit.offline.validate import ApiError, validate_request
from s07_reactive import ReactiveCompactError, join, prompt_too_long, safe_cut
from s07_reactive.pairs import is_safe_cut

from ..i18n import tr
from . import Case, Exercise, Mistake

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


def attempt(fn, env=None):
    """The student's fn as the cases call it: (messages, k) -> what it returned, or Raised."""
    def run(messages, k):
        try:
            return fn(messages, k)
        except Exception as exc:  # noqa: BLE001 -- a crash is a result, explained by the verdict when it can
            return Raised(exc)
    return run


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


def cut(name: str, messages: list, k: int, want: int) -> Case:
    """The case "safe_cut(messages, k) == want"."""
    return Case(name, (messages, k), expect(messages, k, want))


def cases(env=None) -> list[Case]:
    """No case carries a fixed `why`: the verdict explains each cut by the message it lands on."""
    h, par, note, more = reads(3), parallel(), noted(), follow_up()  # h: u0 a1 u1 a2 u2 a3 u3
    return [
        cut("a cut on an assistant turn", h, 3, 3),
        cut("a cut on a tool_result", h, 4, 3),
        cut("a cut on the first result", h, 2, 1),
        cut("a cut on two parallel results", par, 4, 3),
        cut("a cut on a result with a note beside it", note, 4, 3),
        cut("a cut on an error result (a list of blocks)", note, 6, 5),
        cut("a cut on a new prompt", more, 4, 4),
        cut("a cut on the last result", more, 6, 5),
        cut("k = 0", h, 0, 0),
        cut("k = len(messages)", h, len(h), len(h)),
        cut("k past the end", h, len(h) + 5, len(h)),
        cut("k below 0", h, -3, 0),
    ]


# ---- plausible wrong answers ---------------------------------------------------------------

def seeds_slice(messages, k):
    """The seed: the cut is wherever the count lands."""
    return k


def by_role(messages, k):
    """Steps back off every user message, a new prompt included."""
    k = max(0, min(k, len(messages)))
    while 0 < k < len(messages) and messages[k]["role"] == "user":
        k -= 1
    return k


def last_block_only(messages, k):
    """Looks at the last block only: a note after the result hides it."""
    k = max(0, min(k, len(messages)))
    while 0 < k < len(messages) and isinstance(messages[k]["content"], list) \
            and messages[k]["content"][-1].get("type") == "tool_result":
        k -= 1
    return k


def forward(messages, k):
    """Moves forward to the next safe cut: drops what it was asked to keep."""
    k = max(0, min(k, len(messages)))
    while not is_safe_cut(messages, k):
        k += 1
    return k


def lists_only(messages, k):
    """Treats every content as a list of blocks: a plain-string prompt crashes it, k = len too."""
    k = max(0, min(k, len(messages)))
    while k > 0 and any(b["type"] == "tool_result" for b in messages[k]["content"]):
        k -= 1
    return k


def no_clamp(messages, k):
    """Right steps, but k is used as it comes: below 0 stays below 0."""
    while 0 < k < len(messages) and not is_safe_cut(messages, k):
        k -= 1
    return k


MISTAKES = (
    Mistake("the seed: the cut is k itself", seeds_slice,
            "the API answers 400: messages.0.content.0: unexpected `tool_use_id`"),
    Mistake("steps back off every user message", by_role,
            "returned 3, expected 4: messages[4] (a new user prompt, a plain string) is already safe"),
    Mistake("looks at the last block only", last_block_only,
            "a cut on a result with a note beside it: returned 4, expected 3"),
    Mistake("steps forward instead of back", forward, "a cut after k=4 drops messages the caller asked to keep"),
    Mistake("every content taken for a list", lists_only, "raised TypeError: string indices must be integers"),
    Mistake("k not clamped", no_clamp, "returned -3, expected 0: a cut is an index from 0 to len(messages)"),
)

HINTS = (
    "Only one place is unsafe: a user message that carries a tool_result block, because its tool_use is "
    "in the message before, which the cut drops. Everything else (an assistant turn, a new prompt, 0, "
    "the end) is a safe place to start.",
    "Clamp first: k = max(0, min(k, len(messages))). Then step back (never forward) while messages[k] is "
    "a user message whose content is a list with ANY block of type tool_result (a plain-string content "
    "holds none).",
    "k = max(0, min(k, len(messages))); while 0 < k < len(messages) and messages[k]['role'] == 'user' and "
    "isinstance(messages[k]['content'], list) and any(b.get('type') == 'tool_result' for b in "
    "messages[k]['content']): k -= 1; return k.",
)

exercise = Exercise(name="safe_cut", task=TASK, starter=STARTER, reference=safe_cut, cases=cases,
                    adapt=attempt, hints=HINTS, mistakes=MISTAKES)


# ---- 2. which error is "prompt is too long" --------------------------------------------------
#
#     prompt_too_long(error) -> (tokens sent, maximum)   the API refused the request as too long
#                            -> None                     any other error: reactive compaction
#                                                        must not answer it with a summary
#
# The errors are real: each comes from a request to the offline model through the real SDK
# (a too-long prompt, a tool_result that answers no tool_use, an overload, a rate limit), plus
# s07's own ReactiveCompactError, whose text quotes the API's. The starter tests the words.
# Reference: s07_reactive.prompt_too_long.

TOO_LONG_STARTER = '''\
def prompt_too_long(error):
    """(tokens sent, maximum) if `error` is the API's "prompt is too long" refusal, else None."""
    return "too long" in str(error)
'''

TOO_LONG_TASK = """Write prompt_too_long(error): (tokens sent, maximum) as two ints when `error` is the
API refusing a request as too long (an anthropic.BadRequestError whose message says
"prompt is too long: N tokens > M maximum"), and None for any other error."""


@contextlib.contextmanager
def real_errors():
    """The errors, made by real requests to the offline model: name -> exception."""
    model = OfflineModel(context_window=1_000)
    client = offline_client(model, max_retries=0)
    found: dict = {}

    def send(name, messages):
        try:
            client.messages.create(model="offline", max_tokens=50, messages=messages)
        except anthropic.APIError as exc:
            found[name] = exc

    send("too long", [{"role": "user", "content": "word " * 2_000}])
    send("orphan", [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_gone",
                                                   "content": "a result whose call was cut away"}]}])
    model.inject_fault(529)
    send("overloaded", [{"role": "user", "content": "hi"}])
    model.inject_fault(429)
    send("rate limit", [{"role": "user", "content": "hi"}])
    sent, maximum = prompt_too_long(found["too long"])
    found["ours"] = ReactiveCompactError(f"the summary request is still too long after 3 attempts "
                                         f"(prompt is too long: {sent} tokens > {maximum} maximum)")
    found["timeout"] = TimeoutError("the request timed out")
    yield found


def with_error(fn, errors):
    """The student's fn as the cases call it: the name of a real error -> what fn returned."""
    def run(name):
        return fn(errors[name])
    return run


def parsed(name: str, want):
    """A verdict: fn(errors[name]) is `want` (a pair of ints, or None)."""
    def verdict(got) -> str | None:
        if got == want and type(got) is type(want) and (want is None or all(type(x) is int for x in got)):
            return None
        if want is None:
            return tr("returned {got}, expected None: this is not the API's prompt-too-long refusal "
                      "({name}): a summary will not help, and reactive compaction must let it through",
                      got=repr(got), name=name)
        if isinstance(got, bool):
            return tr("returned {got}, expected the pair {want}: the caller needs the numbers, not a yes",
                      got=repr(got), want=repr(want))
        if isinstance(got, tuple) and len(got) == 2 and tuple(map(str, got)) == tuple(map(str, want)) \
                and got != want:
            return tr("returned {got}, expected {want}: convert the numbers with int()", got=repr(got), want=repr(want))
        if isinstance(got, tuple) and tuple(got) == tuple(reversed(want)):
            return tr("returned {got}, expected {want}: first the tokens sent, then the maximum",
                      got=repr(got), want=repr(want))
        return tr("returned {got}, expected {want}", got=repr(got), want=repr(want))
    return verdict


def too_long_cases(errors) -> list[Case]:
    want = prompt_too_long(errors["too long"])
    return [
        Case("the API refuses a prompt as too long", ("too long",), parsed(tr("too long"), want)),
        Case("a 400 for a tool_result whose tool_use is gone", ("orphan",), parsed(tr("a 400 of another kind"), None)),
        Case("a 529: the API is overloaded", ("overloaded",), parsed(tr("a 529"), None)),
        Case("a 429: rate limited", ("rate limit",), parsed(tr("a 429"), None)),
        Case("s07's own error, quoting the API", ("ours",), parsed(tr("s07's own ReactiveCompactError"), None)),
        Case("a timeout", ("timeout",), parsed(tr("not an API error at all"), None)),
    ]


def says_too_long(error):
    """The starter: a yes/no from the words."""
    return "too long" in str(error)


def any_400(error):
    """Any BadRequestError counts: the numbers are read whether they are there or not."""
    if isinstance(error, anthropic.BadRequestError):
        m = re.search(r"(\d+) tokens > (\d+)", str(error))
        return int(m.group(1)), int(m.group(2))
    return None


def any_text(error):
    """Reads the numbers from any error's text."""
    m = re.search(r"prompt is too long: (\d+) tokens > (\d+) maximum", str(error))
    return (int(m.group(1)), int(m.group(2))) if m else None


def strings(error):
    """The numbers as the regex found them: strings."""
    if not isinstance(error, anthropic.BadRequestError):
        return None
    m = re.search(r"prompt is too long: (\d+) tokens > (\d+) maximum", str(error))
    return m.groups() if m else None


def swapped(error):
    """(maximum, sent): the order the caller does not expect."""
    got = prompt_too_long(error)
    return (got[1], got[0]) if got else None


def status_only(error):
    """Any 4xx/5xx status error is 'too long'."""
    if isinstance(error, anthropic.APIStatusError):
        m = re.search(r"(\d+) tokens > (\d+)", str(error))
        return (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    return None


TOO_LONG_MISTAKES = (
    Mistake("the starter: a yes/no from the words", says_too_long, "returned True, expected the pair"),
    Mistake("any 400 counts", any_400, "raised AttributeError"),
    Mistake("any error whose text says so", any_text, "(s07's own ReactiveCompactError)"),
    Mistake("the numbers as strings", strings, "convert the numbers with int()"),
    Mistake("sent and maximum swapped", swapped, "first the tokens sent, then the maximum"),
    Mistake("any status error counts", status_only, "returned (0, 0), expected None"),
)

TOO_LONG_HINTS = (
    "Two questions: is this the API refusing the request (and not a timeout, an overload, or the "
    "agent's own error quoting the API)? And if so, what are the two numbers in its message?",
    "isinstance(error, anthropic.BadRequestError) answers the first; a regex answers the second: "
    "re.search(r'prompt is too long: (\\d+) tokens > (\\d+) maximum', str(error)). A 400 can be about "
    "something else: no match means None.",
    "if not isinstance(error, anthropic.BadRequestError): return None; m = re.search(...); return "
    "(int(m.group(1)), int(m.group(2))) if m else None.",
)

too_long = Exercise(name="prompt_too_long", task=TOO_LONG_TASK, starter=TOO_LONG_STARTER,
                    reference=prompt_too_long, cases=too_long_cases, setup=real_errors, adapt=with_error,
                    hints=TOO_LONG_HINTS, mistakes=TOO_LONG_MISTAKES)
