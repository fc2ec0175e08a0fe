"""Why a with_cache_breakpoint answer is wrong: the history changed, the mark misplaced, the messages copied.

    run_cache(fn)        history -> Sent: what fn returned (or raised), the history before and after
    sent_as(expected)    the request is `expected`, a new list; the history is unchanged; every
                         message but the last is shared, not copied

Example: sent_as(expected)(Sent(history, before, history)) -> 'returned the history itself: return a
  new list (the request), so the history stays as it was'
"""

from __future__ import annotations

import copy

from lessonkit.i18n import tr, trn

from ..checks import returned


class Sent:
    """What with_cache_breakpoint returned, and the history it was given, before and after."""

    def __init__(self, given: list, before: list, returned, error: str | None = None):
        self.given, self.before, self.returned, self.error = given, before, returned, error


def run_cache(fn, env=None):
    """The student's fn as the cases call it: history -> Sent."""
    def run(history):
        before = copy.deepcopy(history)
        try:
            return Sent(history, before, fn(history))
        except Exception as exc:  # noqa: BLE001 -- a crash is a result, reported with the history's shape
            message = str(exc).splitlines()[0] if str(exc) else ""
            name = type(exc).__name__
            return Sent(history, before, None, tr("raised {error}: {message}", error=name, message=message)
                        if message else tr("raised {error}", error=name))
    return run


def _marks(messages) -> list[tuple[int, int]]:
    """(message, block) positions that carry cache_control."""
    return [(i, k) for i, m in enumerate(messages) if isinstance(m, dict) and isinstance(m.get("content"), list)
            for k, b in enumerate(m["content"]) if isinstance(b, dict) and "cache_control" in b]


def _changed(before: list, after: list) -> str | None:
    """What the function changed in the history it was given, in words, or None."""
    if len(after) != len(before):
        return trn("the history now has {n} message, it had {before}", "the history now has {n} messages, it had "
                   "{before}", len(after), before=len(before))
    for i, (a, b) in enumerate(zip(after, before)):
        if a != b:
            marks = [k for mi, k in _marks([a]) if mi == 0]
            if marks and not _marks([b]):
                return tr("changed messages[{i}] of the history it was given (block {k} gained cache_control)",
                          i=i, k=marks[0])
            return tr("changed messages[{i}] of the history it was given", i=i)
    return None


def sent_as(expected: list, *, shares: bool = True):
    """A verdict: the returned list equals `expected`, is a new list, the history is unchanged,
    and (with `shares`) every message but the last is the very object of the history."""
    def verdict(got: Sent) -> str | None:
        if got.error:
            content = got.before[-1]["content"] if got.before else None
            if not got.before:
                return tr("{error} on an empty history", error=got.error)
            if isinstance(content, str):
                return tr("{error} on a plain-string content", error=got.error)
            return tr("{error} on a list content", error=got.error)
        if not isinstance(got.returned, list):
            return tr("returned {kind}, expected a list of messages", kind=type(got.returned).__name__)
        changed = _changed(got.before, got.given)
        if changed:
            return tr("{changed}: the history is the agent's record; a breakpoint written into it stays, and "
                      "the API refuses a request with more than four", changed=changed)
        if got.returned is got.given:
            return tr("returned the history itself: return a new list (the request), so the history stays as it was")
        if got.returned != expected:
            want, have = _marks(expected), _marks(got.returned)
            if len(have) > 1:
                return tr("{n} blocks carry cache_control ({have}): one breakpoint, on the last "
                          "markable block of the last message", n=len(have), have=have)
            if have and want and have != want:
                return tr("cache_control is on block {k} of messages[{i}], expected block {want_k} of "
                          "messages[{want_i}]: the prefix ends at the LAST markable block",
                          k=have[0][1], i=have[0][0], want_k=want[0][1], want_i=want[0][0])
            if want and not have:
                if isinstance(got.given[-1]["content"], str):
                    return tr("no block carries cache_control: a plain-string content becomes one text block, "
                              "{shape}", shape="[{'type': 'text', 'text': ..., 'cache_control': ...}]")
                (i, k), = want
                kind = expected[i]["content"][k].get("type")
                return tr("no block carries cache_control: expected it on block {k} of messages[{i}] (a {kind}), "
                          "the last markable block of the last message", k=k, i=i, kind=kind)
            if have and not want:
                return tr("marked {have}, expected the request left as it is: an empty text block or a "
                          "block the API cannot mark is refused", have=have)
            return returned(got.returned, expected)
        if shares:
            copied = [i for i, (a, b) in enumerate(zip(got.returned[:-1], got.given[:-1])) if a is not b]
            if copied:
                return tr("copied {n} of the {total} messages before the last: share them "
                          "(only the last one changes; copying all of them costs O(n) per request)",
                          n=len(copied), total=len(got.given) - 1)
        return None
    return verdict
