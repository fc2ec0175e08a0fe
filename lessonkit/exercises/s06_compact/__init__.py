"""s06 exercises: write micro-compact; pick the auto-compact threshold for a window.

1. `exercise`: micro-compact, old, long tool results become "[Previous: used <tool>]", in place.

    micro_compact(messages, keep_recent=3)
      tool_results, oldest first:   r1  r2  r3  r4  r5
                                    └older┘└ newest 3 ┘  (kept whole)
      an older result whose text is longer than 100 characters, and costs more tokens than its
      placeholder -> its content becomes "[Previous: used read_file]" (the tool its tool_use named)

Each case runs the student's function on a history wrapped in a list that counts how
often it is walked, so the report can say both what each result became and how many
passes it took: "result 1 of 5 (read_file) became '[Previous: used tool]', expected
'[Previous: used read_file]'", "walked the history 201 times for 200 results".

The starter is the seed's micro_compact (seed 000) with its helper: `hasattr(block, "id")`
is always False on a dict (every placeholder says "used tool"), `str(content)` measures
the repr of a list, `results[:-0]` is empty, and one history scan per result is O(n²).

Reference: s06_compact.micro_compact.

2. `thresholds`: pick_threshold(window) -> the `threshold` the s06 agent is given. Each case
runs the agent on 30 files of 40 lines (a fresh workspace) on one window, and reads
the run: a refused request, a failed summary call, a file read twice (a summary cut
short lost track of the work), an unfinished task, or more summaries than needed.
The starter is the seed's THRESHOLD (50,000, made for a 200,000-token window).
Reference: pick_threshold below (65% of the window): s06 has no window to derive it
from; s08's CompactionConfig does that.
"""

from __future__ import annotations

import contextlib
import copy
import re
import tempfile
from collections import Counter
from pathlib import Path

import anthropic

from lessonkit.backends.client import make_client
from lessonkit.show.demo import make_workspace
from lessonkit.tokens import count_content, count_messages
from s06_compact import Agent, estimate_tokens, micro_compact, micro_plan, read_transcript

from ..i18n import tr, trn
from . import Case, Exercise, Mistake

STARTER = '''\
from lessonkit.tokens import count_content   # tokens of a result's content (a str or a list of blocks)

KEEP_RECENT = 3


def micro_compact(messages, keep_recent=KEEP_RECENT):
    """Replace old, long tool results with "[Previous: used {tool_name}]"; change messages in place."""
    tool_results = []
    for i, msg in enumerate(messages):
        if msg["role"] == "user" and isinstance(msg.get("content"), list):
            for j, part in enumerate(msg["content"]):
                if isinstance(part, dict) and part.get("type") == "tool_result":
                    tool_results.append((i, j, part))
    if len(tool_results) <= keep_recent:
        return messages
    for i, j, part in tool_results[:-keep_recent]:
        if len(str(part.get("content", ""))) > 100:
            tool_name = _find_tool_name(messages, part.get("tool_use_id", ""))
            part["content"] = f"[Previous: used {tool_name}]"
    return messages


def _find_tool_name(messages, tool_use_id):
    for msg in messages:
        if msg["role"] == "assistant":
            for block in (msg.get("content") or []):
                if hasattr(block, "id") and block.id == tool_use_id:
                    return block.name
    return "tool"
'''

TASK = """Write micro_compact(messages, keep_recent=3): every tool_result but the newest
`keep_recent` whose text is longer than 100 characters (and costs more tokens than
its placeholder) gets the content "[Previous: used <tool name>]", the name taken from
its tool_use. Change the history in place, in one pass, and return it."""

SAME = object()  # expected: the result's content is kept as it was
LONG = "".join(f"    value_{k} = compute({k})  # line {k}\n" for k in range(60))  # 2,400+ characters
MAX_PASSES = 3   # walks of the history allowed, however long it is


def placeholder(name: str) -> str:
    return f"[Previous: used {name}]"


class Walked(list):
    """A history that counts how many times it is iterated (each `for m in messages` is one)."""

    def __init__(self, items):
        super().__init__(items)
        self.walks = 0

    def __iter__(self):
        self.walks += 1
        return super().__iter__()


class Outcome:
    """The history after the student's function, what it returned, how often it walked the history."""

    def __init__(self, before: list, after: Walked, returned):
        self.before, self.after, self.returned, self.walks = before, after, returned, after.walks


def run_with(fn, env=None):
    """The student's fn as the cases call it: (messages, keep_recent) -> Outcome."""
    def run(messages, keep_recent):
        before = copy.deepcopy(messages)
        history = Walked(messages)
        return Outcome(before, history, fn(history, keep_recent))
    return run


# ---- histories -------------------------------------------------------------------------

def use(i: int, name: str = "read_file") -> dict:
    arg = {"command": f"cat f{i}.log"} if name == "bash" else {"path": f"f{i}.py"}
    return {"type": "tool_use", "id": f"toolu_{i:03d}", "name": name, "input": arg}


def result(i: int, content, **extra) -> dict:
    return {"type": "tool_result", "tool_use_id": f"toolu_{i:03d}", "content": content, **extra}


def reads(*contents, names=None) -> list:
    """A request, then one call per content (read_file unless `names` says), each answered."""
    names = names or ["read_file"] * len(contents)
    messages = [{"role": "user", "content": "Read the files, one at a time"}]
    for i, (content, name) in enumerate(zip(contents, names)):
        messages += [{"role": "assistant", "content": [{"type": "text", "text": f"Reading ({i + 1})."},
                                                       use(i, name)]},
                     {"role": "user", "content": [result(i, content)]}]
    return messages


def parallel() -> list:
    """Two calls in one turn (bash, list_dir; one an error, with a note beside), then three reads."""
    messages = [{"role": "user", "content": "Look around, then read the files"},
                {"role": "assistant", "content": [{"type": "text", "text": "Two at once."},
                                                  use(0, "bash"), use(1, "list_dir")]},
                {"role": "user", "content": [result(0, "cat: f0.log: No such file\n" * 8, is_error=True),
                                             result(1, [{"type": "text", "text": LONG}]),
                                             {"type": "text", "text": "(a note from a hook)"}]}]
    tail = reads(LONG, LONG, LONG)[1:]
    for m in tail:  # renumber the reads after the two parallel calls
        for b in m["content"]:
            if b.get("type") in ("tool_use", "tool_result"):
                key = "id" if b["type"] == "tool_use" else "tool_use_id"
                b[key] = f"toolu_{int(b[key][-3:]) + 2:03d}"
    return messages + tail


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
            return tr("walked the history {walks} times for {n} results: it runs before every request, so look "
                      "each name up in a dict of tool_use id -> name built in the same pass (O(n), not O(n²))",
                      walks=got.walks, n=n)
        if len(got.after) != len(got.before):
            return tr("the history has {n} messages, it had {before}: only contents change",
                      n=len(got.after), before=len(got.before))
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


def cases(env=None) -> list[Case]:
    """No case carries a fixed `why`: the verdict explains each wrong result by where it stands
    (old or among the newest keep_recent) and what it holds (short, a list of blocks, cheap in tokens)."""
    P = placeholder
    many = reads(*[LONG] * 200)
    return [
        Case("five long reads, keep_recent=3", (reads(*[LONG] * 5), 3),
             expect([P("read_file"), P("read_file"), SAME, SAME, SAME], 3)),
        Case("each placeholder names its own tool", (parallel(), 3),
             expect([P("bash"), P("list_dir"), SAME, SAME, SAME], 3)),
        Case("short results stay", (reads("x" * 100, "y" * 40, LONG, LONG, LONG), 3),
             expect([SAME, SAME, SAME, SAME, SAME], 3)),
        Case("a result given as a list of blocks", (reads([{"type": "text", "text": "b" * 80}],
                                                          [{"type": "text", "text": LONG}], LONG, LONG, LONG), 3),
             expect([SAME, P("read_file"), SAME, SAME, SAME], 3)),
        Case("long in characters, cheap in tokens", (reads("\t" * 150 + "ok", LONG, LONG, LONG), 3),
             expect([SAME, SAME, SAME, SAME], 3)),
        Case("keep_recent=0", (reads(LONG, LONG, LONG), 0), expect([P("read_file")] * 3, 0)),
        Case("fewer results than keep_recent", (reads(LONG, LONG), 3), expect([SAME, SAME], 3)),
        Case("is_error and the note beside the results stay", (parallel(), 4),
             expect([P("bash"), SAME, SAME, SAME, SAME], 4)),
        Case("200 reads, in one pass", (many, 3), expect([P("read_file")] * 197 + [SAME] * 3, 3,
                                                             max_passes=MAX_PASSES)),
    ]


# ---- plausible wrong answers ---------------------------------------------------------------

def _uses(messages) -> dict:
    return {b["id"]: b["name"] for m in messages if m["role"] == "assistant" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_use"}


def _result_blocks(messages) -> list:
    return [b for m in messages if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_result"]


def _worth_it(block) -> bool:
    text = _text(block["content"])
    return len(text) > 100 and count_content(block["content"]) > count_content(placeholder("read_file"))


def seeds_micro(messages, keep_recent=3):
    """The seed (seed 000): hasattr(block, "id") on a dict, str(content), results[:-0], O(n²)."""
    results = _result_blocks(messages)
    if len(results) <= keep_recent:
        return messages
    for block in results[:-keep_recent]:
        if len(str(block.get("content", ""))) > 100:
            name = next((b.name for m in messages if m["role"] == "assistant" for b in m["content"]
                         if hasattr(b, "id") and b.id == block["tool_use_id"]), "tool")
            block["content"] = placeholder(name)
    return messages


def names_by_scan(messages, keep_recent=3):
    """The names fixed by a scan per result: right placeholders, O(n²) walks."""
    results = _result_blocks(messages)
    for block in (results[:-keep_recent] if keep_recent else results):
        if _worth_it(block):
            name = next((b["name"] for m in messages if m["role"] == "assistant" for b in m["content"]
                         if b.get("type") == "tool_use" and b["id"] == block["tool_use_id"]), "tool")
            block["content"] = placeholder(name)
    return messages


def minus_zero(messages, keep_recent=3):
    """results[:-keep_recent]: with keep_recent=0 that is results[:0], nothing."""
    names = _uses(messages)
    for block in _result_blocks(messages)[:-keep_recent]:
        if _worth_it(block):
            block["content"] = placeholder(names.get(block["tool_use_id"], "tool"))
    return messages


def measures_str(messages, keep_recent=3):
    """len(str(content)): a list of blocks is measured with its brackets and keys."""
    names, results = _uses(messages), _result_blocks(messages)
    for block in (results[:-keep_recent] if keep_recent else results):
        if len(str(block["content"])) > 100:
            block["content"] = placeholder(names.get(block["tool_use_id"], "tool"))
    return messages


def characters_only(messages, keep_recent=3):
    """Counts characters only: a result that is long but cheap in tokens is replaced anyway."""
    names, results = _uses(messages), _result_blocks(messages)
    for block in (results[:-keep_recent] if keep_recent else results):
        if len(_text(block["content"])) > 100:
            block["content"] = placeholder(names.get(block["tool_use_id"], "tool"))
    return messages


def rebuilds_blocks(messages, keep_recent=3):
    """Right placeholders, but each block is rebuilt without its other fields (is_error)."""
    micro_compact(messages, keep_recent)
    for m in messages:
        if isinstance(m["content"], list):
            m["content"] = [{"type": "tool_result", "tool_use_id": b["tool_use_id"], "content": b["content"]}
                            if b.get("type") == "tool_result" else b for b in m["content"]]
    return messages


def returns_a_copy(messages, keep_recent=3):
    """Right placeholders, on a copy."""
    return micro_compact(copy.deepcopy(list(messages)), keep_recent)


MISTAKES = (
    Mistake("the seed: every placeholder says 'used tool'", seeds_micro,
            "became '[Previous: used tool]', expected '[Previous: used bash]': the name comes from"),
    Mistake("a scan of the history per result", names_by_scan, "walked the history 198 times for 200 results"),
    Mistake("results[:-keep_recent] with keep_recent=0", minus_zero, "result 1 of 3 (read_file) was kept"),
    Mistake("str() of a list of blocks", measures_str, "(80 characters of text, in a list of blocks)"),
    Mistake("characters counted, tokens not", characters_only,
            "result 1 of 4 (read_file) became '[Previous: used read_file]', expected it kept as it was "
            "(152 characters)"),
    Mistake("blocks rebuilt without is_error", rebuilds_blocks, "its other fields became"),
    Mistake("works on a copy", returns_a_copy, "returned a list, not the history it was given"),
)

HINTS = (
    "Find every tool_result (user messages hold them in lists), keep the newest keep_recent whole, and "
    "replace the content of each older one that is long (its text, not its repr) and dearer than its "
    "placeholder. The name is in the assistant's tool_use block with the same id.",
    "Walk the history once: record each tool_use's id -> name in a dict, and collect the tool_result "
    "blocks. old = results[:len(results) - keep_recent] (not results[:-keep_recent]: -0 is 0). Measure "
    "a list content by joining its text blocks; compare count_content(content) with the placeholder's.",
    "names, results = {}, []; for m in messages: for b in m's list content: tool_use -> names[b['id']] = "
    "b['name']; tool_result -> results.append(b). For b in results[:max(0, len(results) - keep_recent)]: "
    "if len(text) > 100 and count_content(b['content']) > count_content(p): b['content'] = p. Return messages.",
)

exercise = Exercise(name="micro_compact", task=TASK, starter=STARTER, reference=micro_compact,
                    cases=cases, adapt=run_with, hints=HINTS, mistakes=MISTAKES,
                    solution=(micro_compact, micro_plan))  # micro_plan holds the algorithm: show it


# ---- 2. pick the auto-compact threshold for a window --------------------------------------

THRESHOLD_STARTER = '''\
def pick_threshold(window):
    """The estimated tokens at which the s06 agent summarizes, for a `window`-token context."""
    return 50_000   # the seed's THRESHOLD, made for a 200,000-token window
'''

THRESHOLD_TASK = """Write pick_threshold(window): the auto-compact threshold (in estimated tokens) for a
model with a `window`-token context. The check runs the s06 agent with it on 30 files of
40 lines, on four windows: the task must finish (no request refused, no summary call
failed, no file read twice), with at most 3 summaries (4 on the tightest window), and none
when the window holds it all."""

FILES, LINES = 30, 40
TASK = "Read every Python file in this folder, one at a time"
MAX_SUMMARIES = 3
RATIO = 0.65
# The shares of the window that pass all four cases, measured (tests/test_exercises.py holds both
# ends): below, the tight windows summarize too often; above, summaries are cut short or refused.
PASSING = (0.62, 0.69)


def pick_threshold(window: int) -> int:
    """The reference: 65% of the window. Above the threshold there must be room for what the
    estimate does not count (the system prompt and tool schemas), for the next turn's
    results, and for the summary call itself: its prompt sends the history, and its answer
    must fit in what is left. Example: pick_threshold(4_000) -> 2600"""
    return int(window * RATIO)


class Run:
    """What the s06 agent did with the student's threshold on one window."""

    def __init__(self, window: int, threshold):
        self.window, self.threshold = window, threshold
        self.answer, self.refused, self.requests, self.summaries = "", None, 0, 0
        self.summary_errors: list = []
        self.reads: Counter = Counter()  # read_file calls per path
        self.cut = 0                     # summaries without their last section
        self.estimate = self.counted = 0  # the last request's history: estimated, and counted as the API does


@contextlib.contextmanager
def scratch():
    """A temporary folder for the runs' workspaces."""
    with tempfile.TemporaryDirectory(prefix="lk-s06-") as tmp:
        yield Path(tmp)


def _api_message(exc) -> str:
    """The API's own message of an error. Example: 'prompt is too long: 4017 tokens > 4000 maximum'"""
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message"))
    return str(exc).splitlines()[0]


def run_agent(fn, root: Path):
    """The student's fn as the cases call it: window -> Run of the s06 agent on a fresh workspace."""
    def run(window):
        out = Run(window, fn(window))
        ws = make_workspace(Path(tempfile.mkdtemp(dir=root)) / "ws", files=FILES, lines=LINES)

        def on_event(kind, data):
            if kind == "request":
                out.requests += 1
                out.estimate, out.counted = estimate_tokens(data["messages"]), count_messages(data["messages"])
            elif kind == "compact" and data["layer"] == "auto":
                out.summaries += 1
            elif kind == "error":  # a failed summary call (the loop goes on uncompacted)
                out.summary_errors.append(data["error"])
            elif kind == "tool" and data["call"]["name"] == "read_file":
                out.reads[(data["call"].get("input") or {}).get("path")] += 1

        agent = Agent(make_client(context_window=window, max_retries=0), workspace=ws,
                      threshold=out.threshold, on_event=on_event)
        try:
            out.answer = agent.ask(TASK)
        except anthropic.BadRequestError as exc:
            out.refused = _api_message(exc)
        out.cut = sum(1 for m in read_transcript(agent.transcript.path)
                      if isinstance(m.get("content"), str) and m["content"].startswith("[Compacted]")
                      and "Current work" not in m["content"])
        return out
    return run


def direction(run: Run, symptom: str) -> str:
    """Which way to move the threshold, from where its share of the window lies against the band
    that passes every case (PASSING), so that every report on one answer points the same way, the
    way that leads to a pass; a share inside the band takes the symptom's own direction.
    Example: a threshold of 0.55 of the window -> "raise the threshold", whatever went wrong
    """
    share = run.threshold / run.window if isinstance(run.threshold, (int, float)) and run.window else None
    low, high = PASSING
    way = symptom if share is None or low <= share <= high else "raise" if share < low else "lower"
    return tr("raise the threshold") if way == "raise" else tr("lower the threshold")


def refusal(run: Run, at: dict) -> str:
    """Why a request of the run was refused: the summary calls had failed (so nothing was compacted), or
    the history outgrew the window while the estimate was still under the threshold."""
    n, error = run.requests, run.refused
    if run.summary_errors:
        times = len(run.summary_errors)
        return trn("request {n} was refused ({error}) with threshold {threshold} on a {window}-token window, "
                   "after the summary call had failed {times} time: it sends the whole history plus a prompt and "
                   "needs room for its answer",
                   "request {n} was refused ({error}) with threshold {threshold} on a {window}-token window, "
                   "after the summary call had failed {times} times: it sends the whole history plus a prompt and "
                   "needs room for its answer", times, n=n, error=error, times=times, **at)
    if run.estimate >= run.threshold:
        return tr("request {n} was refused ({error}) with threshold {threshold} on a {window}-token window",
                  n=n, error=error, **at)
    problem = tr("request {n} was refused ({error}) with threshold {threshold} on a {window}-token window: "
                 "the history outgrew the window before the estimate reached the threshold",
                 n=n, error=error, **at)
    limits = re.search(r"(\d+) tokens > \d+", error)
    extra = int(limits.group(1)) - run.counted if limits else 0
    if extra <= 0:
        return problem
    return tr("{problem} (the request held {history} tokens of history, and {extra} of system prompt and tool "
              "schemas, which the estimate does not count)", problem=problem, history=f"{run.counted:,}",
              extra=f"{extra:,}")


def finishes(max_summaries: int):
    """A verdict: the task finished, each file read once, with at most `max_summaries` summaries.
    Each failure ends with the way to move the threshold (`direction`)."""
    def verdict(run: Run) -> str | None:
        problem, way = symptom(run, max_summaries)
        return None if problem is None else tr("{problem}: {direction}", problem=problem,
                                               direction=direction(run, way))
    return verdict


def symptom(run: Run, max_summaries: int) -> tuple[str | None, str]:
    """The first thing that went wrong in the run, and the way it alone would suggest ('raise'/'lower')."""
    at = {"threshold": f"{run.threshold:,}", "window": f"{run.window:,}"}
    if run.refused:
        return refusal(run, at), "lower"
    if run.summary_errors:
        first, times = _api_message(run.summary_errors[0]), len(run.summary_errors)
        return trn("the summary call failed {n} time ({error}) with threshold {threshold} on a {window}-token "
                   "window: it sends the whole history plus a prompt and needs room for its answer",
                   "the summary call failed {n} times ({error}) with threshold {threshold} on a {window}-token "
                   "window: it sends the whole history plus a prompt and needs room for its answer",
                   times, error=first, **at), "lower"
    twice = sorted(path for path, n in run.reads.items() if n > 1)
    if twice:
        names = ", ".join(twice[:3]) + (", …" if len(twice) > 3 else "")
        problem = trn("{n} file was read twice ({names}) with threshold {threshold} on a {window}-token window: "
                      "a summary lost track of the work",
                      "{n} files were read twice ({names}) with threshold {threshold} on a {window}-token window: "
                      "a summary lost track of the work", len(twice), names=names, **at)
        if run.cut:
            problem = trn("{problem}; {n} summary was cut short (no 'Current work' section: too little room left "
                          "in the window for the summary's answer)",
                          "{problem}; {n} summaries were cut short (no 'Current work' section: too little room "
                          "left in the window for the summary's answer)", run.cut, problem=problem)
        return problem, "lower"
    if not run.answer.startswith(f"Read {FILES} .py files"):
        first = run.answer.splitlines()[0] if run.answer else tr("(no answer)")
        return tr("the task did not finish ({answer}) with threshold {threshold} on a {window}-token window, "
                  "after {n} requests and {summaries} summaries", answer=repr(first[:60]), n=run.requests,
                  summaries=run.summaries, **at), "lower"
    if run.summaries > max_summaries:
        if max_summaries == 0:
            return trn("summarized {n} time with threshold {threshold} on a {window}-token window, where the "
                       "whole task fits: a summary drops detail and costs a call",
                       "summarized {n} times with threshold {threshold} on a {window}-token window, where the "
                       "whole task fits: a summary drops detail and costs a call", run.summaries, **at), "raise"
        return tr("summarized {n} times for {files} files with threshold {threshold} on a {window}-token "
                  "window: each summary is an extra call that drops detail",
                  n=run.summaries, files=FILES, **at), "raise"
    return None, ""


def threshold_cases(env=None) -> list[Case]:
    """No case carries a fixed `why`: each run's report says what went wrong in it, with its numbers.

    On 200,000 tokens the micro-compacted task peaks near 4,600: no summary is needed. On 6,000
    micro-compact alone nearly copes, and a summary must not make things worse. On 4,000 the system
    prompt and tool schemas take about 730 before the history starts. 3,500 is tight: too late and
    requests are refused, too early and it summarizes every other file.
    """
    return [
        Case("a 200,000-token window", (200_000,), finishes(0)),
        Case("a 6,000-token window", (6_000,), finishes(MAX_SUMMARIES)),
        Case("a 4,000-token window", (4_000,), finishes(MAX_SUMMARIES)),
        Case("a 3,500-token window", (3_500,), finishes(MAX_SUMMARIES + 1)),
    ]


# ---- plausible wrong thresholds -----------------------------------------------------------

def seeds_threshold(window):
    """The seed's THRESHOLD, whatever the window."""
    return 50_000


def half(window):
    return window // 2


def fixed_2000(window):
    """A number that worked on a small window, kept for every window."""
    return 2_000


def most_of_it(window):
    """80%: the seed s08's compact_trigger_ratio, where s06 has no room for the summary call."""
    return int(window * 0.8)


def nearly_all(window):
    return int(window * 0.85)


def room_for_output(window):
    """The window minus a fixed 1,000 tokens for the answer."""
    return window - 1_000


def seventy(window):
    return int(window * 0.7)


THRESHOLD_MISTAKES = (
    Mistake("the seed's 50,000 for every window", seeds_threshold,
            "with threshold 50,000 on a 4,000-token window: the history outgrew the window"),
    Mistake("half the window", half, "with threshold 2,000 on a 4,000-token window: each summary is an extra call"),
    Mistake("a fixed 2,000", fixed_2000, "with threshold 2,000 on a 200,000-token window, where the whole task fits"),
    Mistake("80% of the window", most_of_it, "with threshold 4,800 on a 6,000-token window: a summary lost track"),
    Mistake("85% of the window", nearly_all,
            "with threshold 5,100 on a 6,000-token window: it sends the whole history"),
    Mistake("the window minus 1,000", room_for_output,
            "with threshold 3,000 on a 4,000-token window: a summary lost track"),
    Mistake("70% of the window", seventy, "with threshold 2,450 on a 3,500-token window, after"),
)

THRESHOLD_HINTS = (
    "The threshold is compared with an estimate of the history alone. Above it there must be room for "
    "what the estimate does not count: the system prompt and the tool schemas, the next turn's results, "
    "and the summary call itself (it sends the history and needs room for its answer).",
    "A fixed number cannot fit every window: use a share of it. Too high a share and requests (or the "
    "summary call) are refused or the summary is cut short; too low and it summarizes far too often. "
    f"On these four windows only shares from {PASSING[0]} to {PASSING[1]} pass; read what each run "
    "reports: each failure says which way to move.",
    "Somewhere near two thirds of the window works here: return int(window * 0.65).",
)


thresholds = Exercise(name="pick_threshold", task=THRESHOLD_TASK, starter=THRESHOLD_STARTER,
                      reference=pick_threshold, cases=threshold_cases, setup=scratch, adapt=run_agent,
                      hints=THRESHOLD_HINTS, mistakes=THRESHOLD_MISTAKES)
