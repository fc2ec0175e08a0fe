"""What a run means: the first thing that went wrong in it, with its numbers, or None.

    verdict(run, max_summaries, min_kept), tried in order:
      a request refused (refused)       how far over the window, what the trigger saw, what else was sent
      the run stopped                   the error it stopped on
      the answer cut off                by max_tokens, with too little room left to compact into
      emergency truncation              old turns dropped unsummarised
      too many compactions              more than one per two requests, or than the window needs
      lost work (results_in)            too few file reads left word for word after a compaction

Example: verdict(run_with(ratios(0.8, 0.3), env)(12, 40, 3_000), max_summaries=5, min_kept=3)
  -> "after the compaction before request 7 only 2 of the file reads were left word for word, where 3 fit:
     the model no longer sees the work it just did (lost work): keep more of the recent history
     (trigger 0.8, keep 0.3)"
"""

from __future__ import annotations

import re
from dataclasses import replace

from lessonkit.i18n import tr, trn
from lessonkit.show.record import Recorder
from s08_compact4 import CompactionConfig, TokenEstimator

from .runs import Run


def refused(rec: Recorder, config: CompactionConfig) -> str | None:
    """The first refused request, explained with what the trigger saw and what the request carried."""
    for frame in rec:
        if frame.error:
            limits = prompt_too_long_text(frame.error)
            if limits is None:
                return tr("request {n} was refused: {error}", n=frame.request, error=frame.error)
            sent, maximum = limits
            estimate = TokenEstimator.estimate(frame.messages)
            why = tr("request {n} was refused: prompt is too long: {sent} tokens > {maximum} maximum; the "
                     "trigger saw {estimate} estimated tokens of messages (it fires at {threshold}), and the "
                     "request also carried {extra} tokens of system prompt and tools", n=frame.request,
                     sent=f"{sent:,}", maximum=f"{maximum:,}", estimate=f"{estimate:,}",
                     threshold=f"{config.compact_threshold:,}", extra=f"{sent - frame.tokens:,}")
            # how far from the band: the trigger would have had to fire this many tokens sooner
            lower = (sent - maximum) / config.context_window
            return tr("{problem}: {over} tokens over, so the trigger fires at least {delta} of the window too late",
                      problem=why, over=f"{sent - maximum:,}", delta=f"{lower:.1%}")
    return None


def prompt_too_long_text(error: str) -> tuple[int, int] | None:
    """(sent, maximum) from a recorded error text. Example: '... 3127 tokens > 3000 maximum' -> (3127, 3000)"""
    m = re.search(r"prompt is too long: (\d+) tokens > (\d+) maximum", error)
    return (int(m.group(1)), int(m.group(2))) if m else None


STEP = 0.025     # how far apart the settings tried to find the band's edge are
MAX_STEPS = 16   # ... and at most how many of them (never beyond the other ratio)


def verdict(got: Run, *, max_summaries: int = 10**9, min_kept: int = 0) -> str | None:
    """None if the run passed every test; else the first failure, with its numbers, and how far the
    setting is from the band: the nearest one that passes this case, measured by running it."""
    found = first_problem(got, max_summaries=max_summaries, min_kept=min_kept)
    if found is None:
        return None
    kind, problem = found
    if kind in EDGES:
        edge = nearest(got, kind, max_summaries=max_summaries, min_kept=min_kept)
        problem = tr("{problem}; {edge}", problem=problem, edge=edge) if edge else problem
    if got.config is None:
        return problem
    return tr("{problem} (trigger {trigger}, keep {keep})", problem=problem, trigger=got.config.compact_trigger_ratio,
              keep=got.config.keep_recent_ratio)


# which ratio moves, which way, to leave each kind of failure: (field, direction, its name in the report)
EDGES = {"refused": ("compact_trigger_ratio", -1), "cut": ("keep_recent_ratio", -1),
         "lost": ("keep_recent_ratio", +1)}


def nearest(got: Run, kind: str, **limits) -> str:
    """How far the setting is from the band, measured: the same case run again with one ratio moved a
    STEP at a time (the other kept) until it passes. Empty when no run can be made, or none passes."""
    if got.rerun is None or got.config is None:
        return ""
    field, way = EDGES[kind]
    start = getattr(got.config, field)
    for k in range(1, MAX_STEPS + 1):
        value = round(start + way * k * STEP, 3)
        try:
            other = replace(got.config, **{field: value})
        except ValueError:  # past the other ratio, or out of 0..1: no setting that way
            break
        if first_problem(got.rerun(other), **limits) is None:
            delta = f"{abs(value - start):.1%}"
            if field == "compact_trigger_ratio":
                return tr("this case passes with the trigger at {value} ({delta} of the window sooner), the keep "
                          "ratio as it is", value=value, delta=delta)
            return (tr("this case passes with keep at {value} ({delta} of the window less), the trigger as it is",
                       value=value, delta=delta) if way < 0 else
                    tr("this case passes with keep at {value} ({delta} of the window more), the trigger as it is",
                       value=value, delta=delta))
    return (tr("no trigger passes this case with keep at {keep}: move the keep ratio too",
               keep=got.config.keep_recent_ratio) if field == "compact_trigger_ratio" else
            tr("no keep ratio passes this case with the trigger at {trigger}: move the trigger too",
               trigger=got.config.compact_trigger_ratio))


def first_problem(got: Run, *, max_summaries: int = 10**9, min_kept: int = 0) -> tuple[str, str] | None:
    """(kind, the first failure with its numbers) of one run, or None if it passed every test."""
    if got.problem and got.rec is None:
        return "stopped", got.problem
    rec, config = got.rec, got.config
    why = refused(rec, config)
    if why:
        if any(e["layer"] == "reactive" for e in rec.compactions) and not got.problem:
            why = tr("{problem}; s07's reactive compaction caught it, for the price of a refused request and a "
                     "summary", problem=why)
        return "refused", why
    if got.problem:
        return "stopped", got.problem
    last = rec[-1]
    if last.stop_reason != "end_turn" or not got.answer.startswith(f"Read {got.files} .py files"):
        return "cut", tr("the run ended on an answer cut off by {stop_reason} at request {n} ({room} tokens of "
                         "room): the compactor found nothing more to fold into the summary, so the task ended "
                         "unfinished", stop_reason=last.stop_reason, n=last.request,
                         room=(last.usage or {}).get("output_tokens", 0))
    truncations = [e for e in rec.compactions if e["layer"] == "truncate"]
    if truncations:
        first = truncations[0]
        dropped = first["messages_before"] - first["messages_after"]
        return "truncated", trn(
            "emergency truncation before request {n} dropped {dropped} message unsummarised: after the summary "
            "the estimate was still over {share} of the window",
            "emergency truncation before request {n} dropped {dropped} messages unsummarised: after the summary "
            "the estimate was still over {share} of the window",
            dropped, n=first["request"], dropped=dropped, share=f"{config.emergency_trigger_ratio:.0%}")
    compactions, requests = len(rec.compactions), len(rec)
    if compactions > min(requests - 1, max_summaries):  # a summary before every request: no room ever made
        enough = min(requests - 1, max_summaries)
        return "thrash", tr("{compactions} compactions in {requests} requests, where {enough} do: each is a summary "
                            "request, and a rewritten history the prompt cache writes again: compact later, or keep "
                            "less ({extra} too many)", compactions=compactions, requests=requests, enough=enough,
                            extra=compactions - enough)
    for frame in rec:
        if frame.compactions and frame.messages is not None:
            kept = results_in(frame.messages)
            if kept < min_kept:
                return "lost", tr("after the compaction before request {n} only {kept} of the file reads were left "
                                  "word for word, where {fit} fit: the model no longer sees the work it just did "
                                  "(lost work): keep more of the recent history", n=frame.request, kept=kept,
                                  fit=min_kept)
    return None


def results_in(messages: list) -> int:
    """How many tool_result blocks a request carries word for word. Example: [u0, a1, u1(result)] -> 1"""
    return sum(1 for m in messages if isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result")
