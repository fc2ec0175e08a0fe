"""What went wrong in a run of the s06 agent, and which way to move the threshold.

    finishes(max_summaries)(run) -> None or one line   the task finished, each file read once, with
                                                       at most `max_summaries` summaries
      symptom(run, max_summaries)   the first thing that went wrong: a refused request (refusal),
                                    a failed summary call, a file read twice, an unfinished task,
                                    too many summaries
      direction(run, way)           "raise"/"lower the threshold", from the threshold's share of
                                    the window against PASSING, the band that passes every case

Example: finishes(3)(run with threshold 50,000 on 4,000) -> "request 26 was refused (prompt is too long:
  4017 tokens > 4000 maximum) with threshold 50,000 on a 4,000-token window: the history outgrew the
  window before the estimate reached the threshold (...): lower the threshold"
"""

from __future__ import annotations

import re

from lessonkit.i18n import tr, trn

from .threshold_runs import FILES, Run, _api_message

# The shares of the window that pass all four cases, measured (tests/test_exercises.py holds both
# ends): below, the tight windows summarize too often; above, summaries are cut short or refused.
PASSING = (0.62, 0.69)


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
                  "after {n} requests and {summaries}", answer=repr(first[:60]), n=run.requests,
                  summaries=trn("{n} summary", "{n} summaries", run.summaries), **at), "lower"
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
