"""The offline model as a parent that delegates: "use a subagent to <job>" -> one `task` call.

    task "Use a subagent to count the lines of app_07.py", a `task` tool offered
      no task call since the request -> "Delegating to a subagent: count the lines of app_07.py (1/1)."
                                        + tool_use task {"description": ..., "prompt": <the job, verbatim>}
      its result is in               -> end_turn: "The subagent reports:\\n<its report>"
    asked to delegate, no `task` tool -> end_turn: says it cannot, and does not do the job itself
    not asked to delegate            -> None: the other plans (plan.py), whether `task` is offered or not

The job is passed on as the user wrote it, word for word: the offline model adds no facts
from the conversation (a real model may, or may not). So "use a subagent to count the lines
of it" sends "count the lines of it" to a child that has never seen "it": the lesson's
failure, from the request alone. The child is played by the ordinary policy (policy.py).

Example: plan("Delegate: read app_01.py", events, 0, [task tool], "en")
  -> {"kind": "delegate", "steps": [Step("Delegating to a subagent: read app_01.py (1/1).",
                            [("=task", {"description": "read app_01.py", "prompt": "read app_01.py"})])], ...}

Not modeled: splitting a job into several tasks, writing a better prompt than the user's.
"""

from __future__ import annotations

import re

from lessonkit.i18n import tr

from ..conversation.reading import Event
from ..conversation.roles import BY_NAME
from .scenarios import Step

TOOL = BY_NAME["delegate"]
ASKED = re.compile(r"^\s*(?:please\s+)?(?:(?:use|ask|start|spawn|launch|run)\s+(?:a|one|the)\s+sub-?agent"
                   r"(?:\s+to)?|delegate(?:\s+(?:this|it))?(?:\s+to\s+(?:a|one)\s+sub-?agent)?"
                   r"|(?:in|through|with)\s+a\s+sub-?agent)\s*[:,]?\s*(?P<job>.+?)\s*$"
                   r"|^\s*(?P<job2>.+?)[,;]?\s+(?:in|through|with)\s+a\s+sub-?agent\s*[.!]?\s*$"
                   # Chinese: "用(一个)子代理…", "让/交给/通过子代理…", or the job first: "…，交给子代理(去做)"
                   r"|^\s*(?:请\s*)?(?:用|使用|让|交给|通过|派)\s*(?:一个|个)?\s*子代理\s*(?:来|去)?\s*[:：,，]?"
                   r"\s*(?P<job3>.+?)\s*[。！!.]?\s*$"
                   r"|^\s*(?P<job4>.+?)\s*[，,；;]?\s*(?:交给|用|让|通过)\s*(?:一个)?\s*子代理\s*"
                   r"(?:去做|来做|做|完成)?\s*[。！!.]?\s*$", re.IGNORECASE | re.DOTALL)
DESCRIPTION_WORDS = 5


def asked(task: str) -> str | None:
    """The job a request delegates, or None. Example: 'Use a subagent to read a.py' -> 'read a.py'"""
    m = ASKED.match(task or "")
    if not m:
        return None
    job = (m.group("job") or m.group("job2") or m.group("job3") or m.group("job4") or "").strip()
    return job or None


def plan(task: str, events: list[Event], start: int, tools: list, language: str = "en"):
    """The delegation plan's fields as a dict (plan.py makes the Plan), or None when not asked to delegate."""
    job = asked(task)
    if job is None:
        return None
    if not any(t.get("name") == TOOL for t in tools or []):
        return dict(kind="say", steps=[], final=tr(
            "You asked for a subagent, and no `{tool}` tool is offered here, so I did not delegate; "
            "I did not do the job myself either. Ask without the subagent to have me do it here.",
            language=language, tool=TOOL))
    calls = {e.call_id for e in events[max(start, 0):] if e.kind == "call" and e.tool == TOOL}
    result = next((e for e in events[max(start, 0):] if e.kind == "result" and e.call_id in calls), None)
    if result is not None:  # the one block the child sent back: report it as it is
        head = (tr("The subagent failed:", language=language) if result.is_error
                else tr("The subagent reports:", language=language))
        return dict(kind="say", steps=[], final=f"{head}\n{result.text}")
    job = job.rstrip(".!。！")
    words = job.split()
    description = " ".join(words[:DESCRIPTION_WORDS]) + (" …" if len(words) > DESCRIPTION_WORDS else "")
    said = tr("Delegating to a subagent: {job} (1/1).", language=language, job=job)
    return dict(kind="delegate", steps=[Step(said,
                                             [("=" + TOOL, {"description": description, "prompt": job})])],
                head=tr("Delegated.", language=language))
