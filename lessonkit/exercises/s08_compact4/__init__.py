"""s08 exercise: pick the compactor's thresholds so that real runs stay under the window.

    compaction_config(context_window) -> CompactionConfig(context_window=...,
                                                          compact_trigger_ratio=?, keep_recent_ratio=?)

Each case is a real run of the s08 agent on the offline model: "read every Python file
in this folder, one at a time" in a demo workspace, with the model's context window
set to the case's, and the compactor configured by the student's function. A run passes
when:

  1. no request is refused (prompt too long): the trigger compares TokenEstimator's
     guess for the messages (chars / 3) with the window, but the request also carries
     the system prompt and the tool schemas (~730 tokens here);
  2. it ends with the whole final answer (a turn cut off by max_tokens that compaction
     cannot make room for is kept cut, and the task ends unfinished);
  3. no emergency truncation: old turns dropped unsummarised;
  4. no extra summaries: at most one compaction per two requests, and at most as many as
     the case's window needs (each is a summary request, and a rewritten history the
     prompt cache has to write again);
  5. no lost work: after each compaction, the request still carries word for word at
     least as many tool results as half the window holds (the model still sees the
     files it just read).

The cases are chosen so that bad settings visibly cost: a trigger a few points too
late is refused on the 2,200-token window, one too early summarizes more often than
the window needs, a keep ratio too low leaves too little of the recent work, one too
high leaves no room for the next turn's answer. Of 23 plausible settings (triggers
0.6-0.95, keeps 0.3-0.75) none but the seed's 0.8/0.5 passes all five cases.

The report names the first thing that went wrong in each run, with its numbers:
"request 15 was refused: prompt is too long: 3,023 tokens > 3,000 maximum; the trigger saw
2,774 estimated tokens of messages (it fires at 2,850), and the request also carried 735
tokens of system prompt and tools; s07's reactive compaction caught it, ...".

The starter compacts as late as it can (95% of the window) and keeps most of it verbatim.

Reference: s08_compact4.CompactionConfig itself: its defaults are the seed's, 0.8 and 0.5.

2. `estimate`: estimate_one(message), the characters / 3 estimate the trigger reads (below).
   Reference: s08_compact4.TokenEstimator.estimate_one.
"""

from __future__ import annotations

import contextlib
import json
import re
import tempfile
from pathlib import Path

import anthropic

from lessonkit.offline import OfflineModel, offline_client
from lessonkit.show.demo import make_workspace
from lessonkit.show.record import Recorder
from s03_permissions import always_approve
from s07_reactive import ReactiveCompactError
from s08_compact4 import Agent, CompactionConfig, TokenEstimator

from ..i18n import tr
from . import Case, Exercise, Mistake
from .checks import translated

STARTER = '''\
from s08_compact4 import CompactionConfig


def compaction_config(context_window):
    """The compactor's settings for a model with this context window (in tokens)."""
    return CompactionConfig(context_window=context_window,
                            compact_trigger_ratio=0.95,   # use the whole window before compacting
                            keep_recent_ratio=0.75)       # and keep most of it word for word
'''

TASK = """Write compaction_config(context_window): a CompactionConfig for that window whose
compact_trigger_ratio and keep_recent_ratio keep each run under the window, finished,
without emergency truncation, without extra summaries, and without losing the recent work."""

TASK_TEXT = "Read every Python file in this folder, one at a time"


@contextlib.contextmanager
def sandbox():
    """A temporary folder for the runs' workspaces (their paths are never reported)."""
    with tempfile.TemporaryDirectory(prefix="lk-s08-") as tmp:
        yield Path(tmp)


class Run:
    """One run of the s08 agent: its recorder, answer, and the config it used (or why it could not run)."""

    def __init__(self, files: int, config=None, recorder: Recorder | None = None, answer: str = "",
                 problem: str | None = None):
        self.files, self.config, self.rec, self.answer, self.problem = files, config, recorder, answer, problem


def run_with(fn, env):
    """The student's fn as the cases call it: (files, lines, window) -> Run of the agent with fn's config."""
    def run(files, lines, window):
        config = fn(context_window=window)
        if not isinstance(config, CompactionConfig):
            return Run(files, problem=tr("returned {kind}, not a CompactionConfig", kind=type(config).__name__))
        if config.context_window != window:
            return Run(files, config, problem=tr("its context_window is {got}, the model's is {window}: the "
                                                 "ratios would be of the wrong window",
                                                 got=f"{config.context_window:,}", window=f"{window:,}"))
        ws = make_workspace(env / f"ws-{files}x{lines}", files=files, lines=lines)
        rec = Recorder(keep_messages=True)
        agent = Agent(offline_client(OfflineModel(context_window=window), max_retries=0), workspace=ws,
                      keep_recent=50, approve=always_approve, compaction=config, on_event=rec)
        try:
            answer = agent.ask(TASK_TEXT)
        except (ReactiveCompactError, anthropic.APIError) as exc:  # the run stopped
            return Run(files, config, rec, problem=tr("the run stopped: {error}: {message}",
                                                      error=type(exc).__name__, message=exc))
        return Run(files, config, rec, answer)
    return run


def refused(rec: Recorder, config: CompactionConfig) -> str | None:
    """The first refused request, explained with what the trigger saw and what the request carried."""
    for frame in rec:
        if frame.error:
            limits = prompt_too_long_text(frame.error)
            if limits is None:
                return tr("request {n} was refused: {error}", n=frame.request, error=frame.error)
            sent, maximum = limits
            estimate = TokenEstimator.estimate(frame.messages)
            return tr("request {n} was refused: prompt is too long: {sent} tokens > {maximum} maximum; the "
                      "trigger saw {estimate} estimated tokens of messages (it fires at {threshold}), and the "
                      "request also carried {extra} tokens of system prompt and tools", n=frame.request,
                      sent=f"{sent:,}", maximum=f"{maximum:,}", estimate=f"{estimate:,}",
                      threshold=f"{config.compact_threshold:,}", extra=f"{sent - frame.tokens:,}")
    return None


def prompt_too_long_text(error: str) -> tuple[int, int] | None:
    """(sent, maximum) from a recorded error text. Example: '... 3127 tokens > 3000 maximum' -> (3127, 3000)"""
    m = re.search(r"prompt is too long: (\d+) tokens > (\d+) maximum", error)
    return (int(m.group(1)), int(m.group(2))) if m else None


def verdict(got: Run, *, max_summaries: int = 10**9, min_kept: int = 0) -> str | None:
    """None if the run passed every test; else the first failure, with its numbers."""
    if got.problem and got.rec is None:
        return got.problem
    rec, config = got.rec, got.config
    ratios = {"trigger": config.compact_trigger_ratio, "keep": config.keep_recent_ratio}
    why = refused(rec, config)
    if why:
        if any(e["layer"] == "reactive" for e in rec.compactions) and not got.problem:
            why = tr("{problem}; s07's reactive compaction caught it, for the price of a refused request and a "
                     "summary", problem=why)
        return tr("{problem} (trigger {trigger}, keep {keep})", problem=why, **ratios)
    if got.problem:
        return tr("{problem} (trigger {trigger}, keep {keep})", problem=got.problem, **ratios)
    last = rec[-1]
    if last.stop_reason != "end_turn" or not got.answer.startswith(f"Read {got.files} .py files"):
        return tr("the run ended on an answer cut off by {stop_reason} at request {n} ({room} tokens of room): "
                  "the compactor found nothing more to fold into the summary, so the task ended unfinished "
                  "(trigger {trigger}, keep {keep})", stop_reason=last.stop_reason, n=last.request,
                  room=(last.usage or {}).get("output_tokens", 0), **ratios)
    truncations = [e for e in rec.compactions if e["layer"] == "truncate"]
    if truncations:
        first = truncations[0]
        return tr("emergency truncation before request {n} dropped {dropped} messages unsummarised: after the "
                  "summary the estimate was still over {share} of the window (trigger {trigger}, keep {keep})",
                  n=first["request"], dropped=first["messages_before"] - first["messages_after"],
                  share=f"{config.emergency_trigger_ratio:.0%}", **ratios)
    compactions, requests = len(rec.compactions), len(rec)
    if compactions > min(requests // 2, max_summaries):
        return tr("{compactions} compactions in {requests} requests, where {enough} do: each is a summary "
                  "request, and a rewritten history the prompt cache writes again: compact later, or keep less "
                  "(trigger {trigger}, keep {keep})", compactions=compactions, requests=requests,
                  enough=max_summaries, **ratios)
    for frame in rec:
        if frame.compactions and frame.messages is not None:
            kept = results_in(frame.messages)
            if kept < min_kept:
                return tr("after the compaction before request {n} only {kept} of the file reads were left word "
                          "for word, where {fit} fit: the model no longer sees the work it just did (lost work): "
                          "keep more of the recent history (trigger {trigger}, keep {keep})", n=frame.request,
                          kept=kept, fit=min_kept, **ratios)
    return None


def results_in(messages: list) -> int:
    """How many tool_result blocks a request carries word for word. Example: [u0, a1, u1(result)] -> 1"""
    return sum(1 for m in messages if isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result")


def graded(max_summaries: int, min_kept: int):
    """A verdict for one run: the four tests above, then at most `max_summaries` compactions, and
    at least `min_kept` tool results left word for word after each (what the window has room for)."""
    def check_run(got: Run) -> str | None:
        return verdict(got, max_summaries=max_summaries, min_kept=min_kept)
    return check_run


def cases(env=None) -> list[Case]:
    """No case carries a fixed `why`: each run's report says what went wrong in it, with its numbers.

    12 x 40 lines in 3,000 tokens is the lesson's run; 10 x 60 lines in 2,400 and 2,200 tokens
    leave the system prompt and tools (~730 tokens) a large share of the window, so a trigger a
    few points too late is refused; 20 files in 6,000 tokens is a longer session, where how often
    it compacts is what it costs; 8 x 120 lines in 8,000 tokens is few, big results (~1,000
    tokens a turn), of which half the window holds 3.
    """
    return [
        Case("12 files, a 3,000-token window", (12, 40, 3_000), graded(5, 3)),
        Case("10 long files, a 2,400-token window", (10, 60, 2_400), graded(5, 1)),
        Case("10 long files, a 2,200-token window", (10, 60, 2_200), graded(6, 1)),
        Case("20 files, a 6,000-token window", (20, 40, 6_000), graded(4, 6)),
        Case("8 files of 120 lines, an 8,000-token window", (8, 120, 8_000), graded(2, 3)),
    ]


# ---- plausible wrong settings -------------------------------------------------------------

def ratios(trigger: float, keep: float):
    """A compaction_config with these ratios. Example: ratios(0.85, 0.5)(3_000).compact_threshold -> 2550"""
    def compaction_config(context_window):
        return CompactionConfig(context_window=context_window, compact_trigger_ratio=trigger,
                                keep_recent_ratio=keep)
    compaction_config.__qualname__ = f"ratios({trigger}, {keep})"
    return compaction_config


def no_window(context_window):
    """Forgets to pass the window: the ratios are of the default 200,000 tokens."""
    return CompactionConfig()


def plain_dict(context_window):
    """The settings as a dict."""
    return {"context_window": context_window, "compact_trigger_ratio": 0.8, "keep_recent_ratio": 0.5}


MISTAKES = (
    Mistake("the starter: 0.95 / 0.75", ratios(0.95, 0.75),
            "request 13 was refused: prompt is too long: 3,028 tokens > 3,000 maximum"),
    Mistake("a first guess: 0.85 / 0.5", ratios(0.85, 0.5), "tokens > 2,200 maximum"),
    Mistake("0.9 / 0.5", ratios(0.9, 0.5), "tokens > 2,400 maximum"),
    Mistake("compact early: 0.75 / 0.5", ratios(0.75, 0.5), "7 compactions in 14 requests, where 5 do"),
    Mistake("compact very early: 0.6 / 0.5", ratios(0.6, 0.5), "9 compactions in 14 requests, where 5 do"),
    Mistake("keep little: 0.8 / 0.3", ratios(0.8, 0.3), "(lost work)"),
    Mistake("keep most: 0.8 / 0.7", ratios(0.8, 0.7), "the run ended on an answer cut off by max_tokens"),
    Mistake("the default window", no_window, "its context_window is 200,000, the model's is 3,000"),
    Mistake("a dict, not a CompactionConfig", plain_dict, "returned dict, not a CompactionConfig"),
)

HINTS = (
    "Two numbers, two opposite costs. The trigger: too late and a request is refused (the estimate "
    "does not see the system prompt and tools); too early and it summarizes more often than needed. "
    "The keep ratio: too low and the model loses the files it just read; too high and no room is left "
    "for the next answer.",
    "Read each failing run's numbers: a refusal says how far over the window the request went; "
    "'compactions ... where N do' says the trigger is too early; '(lost work)' says keep more; a cut-off "
    "answer says keep less. Move one ratio at a time, in steps of 0.05.",
    "The seed's defaults pass every run: CompactionConfig(context_window=context_window, "
    "compact_trigger_ratio=0.8, keep_recent_ratio=0.5).",
)

SOLUTION = '''\
from s08_compact4 import CompactionConfig


def compaction_config(context_window):
    """The compactor's settings for a model with this context window (in tokens)."""
    return CompactionConfig(context_window=context_window,
                            compact_trigger_ratio=0.8,    # room above the trigger for the system prompt
                            keep_recent_ratio=0.5)        # half the window verbatim, room for the answer
'''

exercise = Exercise(name="compaction_config", task=TASK, starter=STARTER, reference=CompactionConfig,
                    cases=cases, setup=sandbox, adapt=run_with, hints=HINTS, mistakes=MISTAKES,
                    solution=SOLUTION)


# ---- 2. the estimate the trigger reads ------------------------------------------------------
#
#     estimate_one(message) -> characters / 3 (rounded down once, for the whole message)
#       a plain-string content         its characters
#       text block                     its text
#       tool_use                       its name + its input as compact JSON (non-ASCII kept as is)
#       tool_result                    its tool_use_id + its content's text (a str or text blocks)
#       any other block                nothing
#
# The starter measures str(message), the repr of the dict. Reference:
# s08_compact4.TokenEstimator.estimate_one (the seed's TokenEstimator, chars / 3).

ESTIMATE_STARTER = '''\
def estimate_one(message):
    """Estimated tokens of one message: characters / 3."""
    return len(str(message)) // 3
'''

ESTIMATE_TASK = """Write estimate_one(message): the estimated tokens of one message, characters // 3 for the
whole message, counting a plain-string content; text blocks' text; a tool_use's name and its
input as compact JSON (json.dumps(input, ensure_ascii=False, separators=(",", ":"))); a
tool_result's tool_use_id and its content's text (a string, or the text of its text blocks)."""

CALL = {"type": "tool_use", "id": "toolu_01", "name": "write_file",
        "input": {"path": "notes/上下文.md", "content": "压缩 compaction, 保持 keep"}}


def _user(*blocks) -> dict:
    return {"role": "user", "content": list(blocks)}


def _result(content, **extra) -> dict:
    return {"type": "tool_result", "tool_use_id": "toolu_01", "content": content, **extra}


def count_chars(message: dict, *, ascii_json=False, spaces=False, inputs=True, ids=True, str_lists=False) -> list:
    """The characters of each part of a message, counted the right way (all flags off) or with
    one of the slips the flags name. Example: count_chars({'role': 'user', 'content': 'hello'}) -> [5]"""
    content = message["content"]
    if isinstance(content, str):
        return [len(content)]
    parts = []
    for b in content:
        kind = b.get("type")
        if kind == "text":
            parts.append(len(b.get("text", "")))
        elif kind == "tool_use":
            dumped = json.dumps(b.get("input", {}), ensure_ascii=ascii_json,
                                separators=None if spaces else (",", ":"))
            parts.append(len(b.get("name", "")) + (len(dumped) if inputs else 0))
        elif kind == "tool_result":
            c = b.get("content", "")
            text = c if isinstance(c, str) else str(c) if str_lists else "".join(
                x.get("text", "") for x in c if isinstance(x, dict))
            parts.append((len(b.get("tool_use_id", "")) if ids else 0) + len(text))
    return parts


SLIPS = (  # (what the student's number matches, what that says), tried in order
    (lambda m: len(str(m)) // 3,
     "that is str(message) // 3, the dict's repr with its keys and quotes: count the text only"),
    (lambda m: sum(n // 3 for n in count_chars(m)),
     "each block was rounded down on its own: add the characters up, divide once"),
    (lambda m: sum(count_chars(m, ascii_json=True)) // 3,
     "non-ASCII input was counted as \\uXXXX escapes: json.dumps(..., ensure_ascii=False)"),
    (lambda m: sum(count_chars(m, ascii_json=True, spaces=True)) // 3,
     "the input was counted with json.dumps's defaults: \\uXXXX escapes and spaces; use "
     "ensure_ascii=False, separators=(',', ':')"),
    (lambda m: sum(count_chars(m, spaces=True)) // 3,
     "the input was counted with json.dumps's spaces: separators=(',', ':')"),
    (lambda m: sum(count_chars(m, inputs=False)) // 3,
     "the tool_use's input was not counted: it is sent as JSON and takes tokens"),
    (lambda m: sum(count_chars(m, str_lists=True)) // 3,
     "a tool_result's content can be a list of blocks: count the text of its text blocks"),
    (lambda m: sum(count_chars(m, ids=False)) // 3, "the tool_use_id is sent too: count its characters"),
)


RULES = {  # what each part of a message counts, said when no known slip gives the student's number
    "str": "a plain-string content counts its own characters",
    "text": "a text block counts its text",
    "tool_use": "a tool_use counts its name and its input as compact JSON",
    "tool_result": "a tool_result counts its tool_use_id and its content's text",
    "empty": "an empty content counts nothing",
}


def estimated(message: dict):
    """A verdict: the student's number is the reference's; if not, which slip gives that number."""
    want = TokenEstimator.estimate_one(message)

    def verdict(got) -> str | None:
        if got == want and type(got) is int:
            return None
        if not isinstance(got, int) or isinstance(got, bool):
            return tr("returned {got} ({kind}), expected the int {want}: use // 3, not / 3", got=repr(got),
                      kind=type(got).__name__, want=want)
        kinds = [b.get("type") for b in message["content"]] if isinstance(message["content"], list) else ["str"]
        why = next((translated(text) for slip, text in SLIPS if slip(message) == got != want), None)
        if why is None:
            rules = [translated(RULES[kind]) for kind in dict.fromkeys(kinds) if kind in RULES] or [
                translated(RULES["empty"])]
            why = tr("{off}: {rules}, then // 3 once", rules="; ".join(rules),
                     off=tr("{n} too many", n=got - want) if got > want else tr("{n} too few", n=want - got))
        return tr("returned {got}, expected {want} for a message of {kinds}: {why}", got=got, want=want,
                  kinds=kinds, why=why)
    return verdict


def estimate_cases(env=None) -> list[Case]:
    listed = _user(_result([{"type": "text", "text": "line one\n" * 20}, {"type": "text", "text": "end\n"}]))
    return [
        Case("a plain-string prompt", ({"role": "user", "content": "Read every Python file, one at a time"},),
             estimated({"role": "user", "content": "Read every Python file, one at a time"})),
        Case("text blocks", ({"role": "assistant", "content": [{"type": "text", "text": "Reading (1/3)."},
                                                               {"type": "text", "text": "And more!!"}]},),
             estimated({"role": "assistant", "content": [{"type": "text", "text": "Reading (1/3)."},
                                                         {"type": "text", "text": "And more!!"}]})),
        Case("a tool call with non-ASCII input", ({"role": "assistant", "content": [CALL]},),
             estimated({"role": "assistant", "content": [CALL]})),
        Case("a tool result (a string)", (_user(_result("def f():\n    return 1\n" * 10)),),
             estimated(_user(_result("def f():\n    return 1\n" * 10)))),
        Case("a tool result given as a list of blocks", (listed,), estimated(listed)),
        Case("an empty content", ({"role": "assistant", "content": []},), estimated({"role": "assistant",
                                                                                      "content": []})),
    ]


def reprs(message):
    """The starter: str() of the dict."""
    return len(str(message)) // 3


def per_block(message):
    """Rounds each block down on its own."""
    content = message["content"]
    if isinstance(content, str):
        return len(content) // 3
    return sum(TokenEstimator.estimate_one({"role": message["role"], "content": [b]}) for b in content)


def escaped_json(message):
    """json.dumps with its defaults: non-ASCII as \\uXXXX escapes, and spaces."""
    content = message["content"]
    if isinstance(content, str):
        return len(content) // 3
    chars = 0
    for b in content:
        if b["type"] == "text":
            chars += len(b["text"])
        elif b["type"] == "tool_use":
            chars += len(b["name"]) + len(json.dumps(b["input"]))
        elif b["type"] == "tool_result":
            c = b["content"]
            chars += len(b["tool_use_id"]) + len(c if isinstance(c, str) else "".join(x.get("text", "") for x in c))
    return chars // 3


def no_inputs(message):
    """Counts a tool call's name, but not its input."""
    content = message["content"]
    if isinstance(content, str):
        return len(content) // 3
    chars = 0
    for b in content:
        if b["type"] == "text":
            chars += len(b["text"])
        elif b["type"] == "tool_use":
            chars += len(b["name"])
        elif b["type"] == "tool_result":
            c = b["content"]
            chars += len(b["tool_use_id"]) + len(c if isinstance(c, str) else "".join(x.get("text", "") for x in c))
    return chars // 3


def str_contents(message):
    """A tool_result's content measured with str(): a list of blocks counts its repr."""
    content = message["content"]
    if isinstance(content, str):
        return len(content) // 3
    chars = 0
    for b in content:
        if b["type"] == "text":
            chars += len(b["text"])
        elif b["type"] == "tool_use":
            chars += len(b["name"]) + len(json.dumps(b["input"], ensure_ascii=False, separators=(",", ":")))
        elif b["type"] == "tool_result":
            chars += len(b["tool_use_id"]) + len(str(b["content"]))
    return chars // 3


def true_division(message):
    """/ 3 instead of // 3: a float."""
    return TokenEstimator.estimate_one(message) * 3 / 3 + 0.0


ESTIMATE_MISTAKES = (
    Mistake("the starter: str(message)", reprs, "that is str(message) // 3"),
    Mistake("each block rounded on its own", per_block, "each block was rounded down on its own"),
    Mistake("json.dumps with its defaults", escaped_json, "counted with json.dumps's defaults"),
    Mistake("tool inputs not counted", no_inputs, "the tool_use's input was not counted"),
    Mistake("str() of a list of blocks", str_contents, "a tool_result's content can be a list of blocks"),
    Mistake("/ 3, a float", true_division, "use // 3, not / 3"),
)

ESTIMATE_HINTS = (
    "Count what is sent as text, not the dict's repr: the characters of each part of the message, "
    "added up, then divided by 3 once.",
    "A str content counts as it is. Per block: text -> text; tool_use -> name + "
    "json.dumps(input, ensure_ascii=False, separators=(',', ':')); tool_result -> tool_use_id + its "
    "content (a str, or the joined text of its text blocks); anything else -> 0.",
    "chars = 0; for block in content: chars += <the block's characters as above>; return chars // 3 "
    "(and len(content) // 3 for a str content).",
)

estimate = Exercise(name="estimate_one", task=ESTIMATE_TASK, starter=ESTIMATE_STARTER,
                    reference=TokenEstimator.estimate_one, cases=estimate_cases,
                    hints=ESTIMATE_HINTS, mistakes=ESTIMATE_MISTAKES)
