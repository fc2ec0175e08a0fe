"""What a micro_compact case saw: the student's function run on a counted history, and the verdict.

    run_with(fn)(messages, keep_recent) -> Outcome   the history before and after, what fn returned,
                                                     how many times it walked the history (Walked)
    expect(spec, keep)(outcome) -> None or one line  result k must be spec[k] (a placeholder, or SAME);
      a wrong result is explained by where it stands (old, or among the newest `keep`) and what it
      holds (short, a list of blocks, cheap in tokens: _kept_why)

Example: expect([SAME], 3)(run_with(lambda m, k: None)(reads(LONG), 3))
  -> "returned None, not the history it was given: change `messages` in place and return it
     (the agent keeps using its own list)"
"""

from __future__ import annotations

import copy
import os
import sys

from lessonkit.i18n import tr, trn
from lessonkit.tokens import count_content

SAME = object()  # expected: the result's content is kept as it was


VALIDATOR = os.path.join("lessonkit", "base", "history_shape.py")  # the kit's history check: not the answer's walk


def placeholder(name: str) -> str:
    return f"[Previous: used {name}]"


LOOKBACK = 2  # a step back this short (messages[i - 1]: the call before its result) stays in the same pass


def _by_the_kit(depth: int) -> bool:
    """Whether the frame `depth` levels up is the kit's own history check (not one of the answer's passes)."""
    return sys._getframe(depth).f_code.co_filename.endswith(VALIDATOR)


class Seen(dict):
    """A message that writes its position into a shared log whenever it is read: by key, by get, by
    iteration, by a comparison (list.index, `in`, list.count), by repr (str(history)), by items() (json,
    copy.deepcopy). The log shows every pass, whatever walks the list: a helper, a comprehension,
    sorted(), any(), a copy of the list, or the C code of a list method."""

    def __init__(self, message: dict, pos: int, log: list):
        super().__init__(message)
        self.pos, self.log = pos, log

    def _read(self) -> None:
        if not _by_the_kit(3):
            self.log.append(self.pos)

    def __getitem__(self, key):
        self._read()
        return super().__getitem__(key)

    def get(self, key, default=None):
        self._read()
        return super().get(key, default)

    def __contains__(self, key):
        self._read()
        return super().__contains__(key)

    def __iter__(self):
        self._read()
        return super().__iter__()

    def keys(self):
        self._read()
        return super().keys()

    def values(self):
        self._read()
        return super().values()

    def items(self):
        self._read()
        return super().items()

    def __eq__(self, other):
        self._read()
        return dict.__eq__(self, other)

    def __ne__(self, other):
        self._read()
        return dict.__ne__(self, other)

    __hash__ = None

    def __repr__(self):
        self._read()
        return dict.__repr__(self)


def sweeps(log: list) -> int:
    """How many passes a log of message positions shows: a pass moves one way (forward, or back as
    reversed() does); a jump the other way by more than LOOKBACK starts another.
    Example: sweeps([0, 1, 2, 1, 3]) -> 1; sweeps([0, 1, 2, 3, 0, 1, 2, 3]) -> 2; sweeps([3, 2, 1, 0]) -> 1"""
    count, way, top, bottom, start = 0, 0, 0, 0, 0
    for pos in log:
        if count == 0 or (way > 0 and pos < top - LOOKBACK) or (way < 0 and pos > bottom + LOOKBACK):
            count, way, top, bottom, start = count + 1, 0, pos, pos, pos  # the first read, or a jump back
            continue
        if not way and abs(pos - start) > LOOKBACK:  # the pass's direction, once it has moved far enough
            way = 1 if pos > start else -1
        top, bottom = max(top, pos), min(bottom, pos)
    return count


class Walked(list):
    """A history that counts the passes made over it, two ways: each iteration of the list (for, list(),
    a comprehension, reversed(), a slice), and each sweep over its messages, read from the log its Seen
    messages write (sweeps). A read by the kit's own history check (lessonkit/base/history_shape.py,
    which the reference calls to reject a malformed history) is not one of the answer's passes."""

    def __init__(self, items):
        self.log: list = []
        super().__init__(Seen(m, i, self.log) if isinstance(m, dict) else m for i, m in enumerate(items))
        self.log.clear()  # building the list is not a pass
        self.iterations = 0

    def __iter__(self):
        if not _by_the_kit(2):
            self.iterations += 1
        return super().__iter__()

    def __reversed__(self):
        if not _by_the_kit(2):
            self.iterations += 1
        return super().__reversed__()

    def __getitem__(self, index):
        if isinstance(index, slice) and not _by_the_kit(2):  # a slice copies: a walk of what it spans
            self.iterations += 1
        return super().__getitem__(index)

    @property
    def walks(self) -> int:
        """Passes: the list's iterations or its messages' sweeps, whichever is more."""
        return max(self.iterations, sweeps(self.log))


class Outcome:
    """The history after the student's function, what it returned, how often it walked the history."""

    def __init__(self, before: list, after: Walked, returned):
        self.walks = after.walks  # read once the function returned: the verdict's own looks do not count
        after.log = None
        self.before, self.after = before, [dict(m) if isinstance(m, Seen) else m for m in after]
        self.returned = self.after if returned is after else returned


def run_with(fn, env=None):
    """The student's fn as the cases call it: (messages, keep_recent) -> Outcome."""
    def run(messages, keep_recent):
        before = copy.deepcopy(messages)
        history = Walked(messages)
        return Outcome(before, history, fn(history, keep_recent))
    return run


# ---- what a result became --------------------------------------------------------------

def _results(messages) -> list[dict]:
    return [b for m in messages if isinstance(m.get("content"), list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


def _names(messages) -> dict:
    return {b.get("id"): b.get("name") for m in messages if isinstance(m.get("content"), list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"}


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _fields(block: dict) -> dict:
    """A tool_result's fields other than its content."""
    return {k: v for k, v in block.items() if k != "content"}


def _without_results(message: dict):
    """A message's content with every tool_result's content blanked out."""
    content = message.get("content")
    if not isinstance(content, list):
        return content
    return [{**b, "content": None} if isinstance(b, dict) and b.get("type") == "tool_result" else b
            for b in content]


def _kept_why(o: dict, k: int, total: int, keep: int, name: str) -> str:
    """Why result k of `total` (1-based) should have been kept: it is new, short, or cheap. Empty if none holds."""
    text = _text(o["content"])
    if k > total - keep:
        return tr("it is one of the newest {keep} results, which the model is still working on", keep=keep)
    if len(text) <= 100:
        if isinstance(o["content"], list) and len(str(o["content"])) > 100:
            return tr("measure the text of its blocks: str() of a list adds its brackets and keys")
        return tr("100 characters or fewer: a placeholder would save next to nothing")
    cost, instead = count_content(o["content"]), count_content(placeholder(name))
    if cost <= instead:
        return tr("by count_content it costs {n} tokens and its placeholder {m}: the placeholder would cost "
                  "more than it saves", n=cost, m=instead)
    return ""


def expect(spec, keep: int, *, max_passes=None):
    """A verdict: result k's content is spec[k] (a new content, or SAME), nothing else changed,
    the history was changed in place and returned; with max_passes, walked at most that often.
    `keep` is the case's keep_recent: a wrong result is explained by where it stands and what it holds."""
    def verdict(got: Outcome) -> str | None:
        if got.returned is not got.after:
            what = "None" if got.returned is None else tr("a {kind}", kind=type(got.returned).__name__)
            if list.__eq__(got.after, got.before):
                return tr("returned {what}, not the history it was given: change `messages` "
                          "in place and return it (the agent keeps using its own list)", what=what)
            return tr("returned {what}, not the history it was given (it did change the history): change "
                      "`messages` in place and return it (the agent keeps using its own list)", what=what)
        if max_passes is not None and got.walks > max_passes:
            n = len(_results(got.before))
            if got.walks <= max(3, n // 4):  # a few passes, not one per result
                return tr("walked the history {walks} times: the task asks for one pass: record each tool_use's "
                          "id -> name and collect the tool_result blocks in the same loop (a result's tool_use "
                          "always comes before it), then change the old ones", walks=got.walks)
            return tr("walked the history {walks} times for {n} results: it runs before every request, so look "
                      "each name up in a dict of tool_use id -> name built in the same pass (O(n), not O(n²))",
                      walks=got.walks, n=n)
        if len(got.after) != len(got.before):
            return trn("the history has {n} message, it had {before}: only contents change",
                       "the history has {n} messages, it had {before}: only contents change",
                       len(got.after), before=len(got.before))
        names = _names(got.before)
        old, new = _results(got.before), _results(got.after)
        for k, (o, b, want) in enumerate(zip(old, new, spec), 1):
            name = names.get(o["tool_use_id"], "?")
            label = tr("result {k} of {total} ({tool})", k=k, total=len(old), tool=name)
            if want is SAME:
                if b["content"] != o["content"]:
                    size = len(_text(o["content"]))
                    if isinstance(o["content"], list):
                        problem = tr("{label} became {got}, expected it kept as it was ({size} characters of "
                                     "text, in a list of blocks)", label=label, got=_short(b["content"]),
                                     size=f"{size:,}")
                    else:
                        problem = tr("{label} became {got}, expected it kept as it was ({size} characters)",
                                     label=label, got=_short(b["content"]), size=f"{size:,}")
                    why = _kept_why(o, k, len(old), keep, name)
                    return tr("{problem}: {hint}", problem=problem, hint=why) if why else problem
            elif b["content"] != want:
                if b["content"] == o["content"]:
                    size = len(_text(o["content"]))
                    problem = tr("{label} was kept ({size} characters), expected {want}", label=label,
                                 size=f"{size:,}", want=repr(want))
                    if keep == 0:
                        return tr("{problem}: with keep_recent=0 every result is old (note that results[:-0] "
                                  "is an empty list)", problem=problem)
                    return tr("{problem}: it is older than the newest {keep} and long: it gives way",
                              problem=problem, keep=keep)
                if isinstance(b["content"], str) and b["content"].startswith("[Previous: used "):
                    return tr("{label} became {got}, expected {want}: the name comes from the tool_use block "
                              "whose id is the result's tool_use_id", label=label, got=_short(b["content"]),
                              want=repr(want))
                return tr("{label} became {got}, expected {want}", label=label, got=_short(b["content"]),
                          want=repr(want))
            if _fields(b) != _fields(o):
                problem = tr("{label}: its other fields became {fields}: change only the content", label=label,
                             fields=_short(_fields(b)))
                if o.get("is_error") and not b.get("is_error"):
                    return tr("{problem}: without is_error the model no longer sees that the call failed",
                              problem=problem)
                return problem
        for i, (m, o) in enumerate(zip(got.after, got.before)):
            if m.get("role") != o.get("role") or _without_results(m) != _without_results(o):
                return tr("message {i} changed: only tool_result contents may change", i=i)
        return None
    return verdict
