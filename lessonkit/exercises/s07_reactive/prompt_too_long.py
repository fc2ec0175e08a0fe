"""s07 exercise 2: which error is "prompt is too long".

    prompt_too_long(error) -> (tokens sent, maximum)   the API refused the request as too long
                           -> None                     any other error: reactive compaction
                                                       must not answer it with a summary

The errors are real: each comes from a request to the offline model through the real SDK
(a too-long prompt, a tool_result that answers no tool_use, an overload, a rate limit), plus
s07's own ReactiveCompactError, whose text quotes the API's. The starter tests the words.

Example: too_long.check(says_too_long) -> ✗ prompt_too_long: 0/6 cases pass
  ✗ the API refuses a prompt as too long: returned True, expected the pair (2006, 1000): the caller needs
    the numbers, not a yes

Reference: s07_reactive.prompt_too_long.
"""

from __future__ import annotations

import contextlib
import re

import anthropic

from lessonkit.i18n import tr
from offline import OfflineModel, offline_client
from s07_reactive import ReactiveCompactError, prompt_too_long

from .. import Case, Exercise, Mistake

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
    model = OfflineModel(context_window=1_000)  # the lessons' counts (docs/offline-api.md)
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
