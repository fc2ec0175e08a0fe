"""The offline model's agent policy: what it does with the tools it is offered.

Each request is answered from the request alone (the model keeps no state), so a
compacted history steers it exactly as it would steer Claude. Step by step:

 1. Find the task: the latest genuine user request, or, if a summary replaced
    it, the last "User requests" bullet of that summary. User text beside tool
    results (a hook's note) and compaction markers are not requests.
 2. Read the request as people type it (polite.py: greetings, please, question forms, typos),
    "it" as the file acted on last or a question back (refs.py), and refuse a path outside the
    workspace or a typed command s03 does not call read-only (guard.py); a clause outside the
    grammar is done without and said "Not done" (grammar.parse_parts). Then choose a plan
    (plan.py: a scenario, compact, the grammar, an edit, commands, a listing, every <kind> file,
    named paths, or none: an answer in words).
 3. Find the progress from the request alone: the tool calls since the task are
    matched in order to the plan's steps (steps_done), so a client that drops
    the text blocks still moves on; a summary that replaced the calls keeps the
    step counter "(k/N)" it was told, and read steps whose files the
    conversation shows as read count as done too. The step counters in the
    assistant's own text are for the reader, never believed.
    A plan's file list is said once ("Plan: a.py, b.py.") and kept by summaries.
 4. Emit the next step as `tool_use` blocks for the offered tools (roles.py maps
    bash/shell/Bash, read_file/Read, write_file/Write, edit_file/Edit,
    list_dir/LS/Glob and compact, with each schema's parameter names; with only
    a shell, reads/lists/writes/edits become commands). The step's text starts
    with "Seen <file>: ..." notes on the newest results, like a model thinking
    aloud, so facts outlive micro-compaction.
 5. When the plan is done: a failed edit gets one follow-up (read the file), then
    an `end_turn` answer built from what is still visible (answers.final). A
    permission denial stops the plan at once and is reported.

Bounds, so no history makes it loop: at most MAX_DISCOVERY listing rounds (discover.py), one
follow-up per failed edit, `compact` is never called again once a summary
stands after the request, and a plan whose calls exceed its own steps by MAX_STALL
(the history does not show it moving on) stops with an answer saying so.
The final answer is in the language the task was asked in (language.request_language);
the turns in between ("Reading a.py (2/3).", "Seen ...") stay English, as the progress
counters and notes are read back from them.

Example: tools=[bash], "Run `echo hi`" -> text "Running `echo hi` (1/1)." + tool_use bash {"command": "echo hi"}
         ... then, with the result "hi" -> end_turn "Ran 1 command.\\n- `echo hi`: 1 line: hi"

Not modeled: reasoning. The policy cannot write code it has not been shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lessonkit.i18n import tr

from ..answers import reply as answers
from ..answers import report
from ..conversation.calls import call_command, call_path, call_verb
from ..conversation.language import request_language
from ..conversation.reading import Event, block_text, from_messages
from ..conversation.roles import to_calls, tool_roles
from ..grammar import polite
from . import notes
from .discover import MAX_DISCOVERY, norm
from .plan import Plan, find_task, make_plan
from .progress import matched, progress, read_so_far, step_results, steps_done
from .scenarios import Step, scenario_answer

__all__ = ["Reply", "decide"]

MAX_CALLS = 400
MAX_STALL = 3  # calls a plan may make beyond its own steps before it stops as stuck
DENIED = re.compile(r"^\s*(permission denied|denied|blocked|rejected)\b|denied by|blocked by|not allowed|"
                    r"user (declined|rejected|denied)|deny list|needs approval|not approved", re.IGNORECASE)


@dataclass
class Reply:
    """What the policy answers: a text and tool calls as (tool name, input) pairs."""
    text: str
    calls: list = field(default_factory=list)
    refused: bool = False  # an honest "can't" for a structured output: stop_reason "refusal"
    blocks: list | None = None  # the text as content blocks, when it is more than one (cite.py: a cited passage)

    @property
    def stop_reason(self) -> str:
        return "refusal" if self.refused else "tool_use" if self.calls else "end_turn"


def _call_budget(plan: Plan) -> int:
    """The most calls a plan may make before it counts as stuck: its own, discovery, a follow-up, slack."""
    own = sum(len(step.calls) for step in plan.steps)
    return min(MAX_CALLS, own + (MAX_DISCOVERY * 8 + 1 if plan.kind == "every" else 0) + 1 + MAX_STALL)


def _denial(events: list[Event], start: int) -> Event | None:
    return next((e for e in events[max(start, 0):] if e.kind == "result" and e.is_error
                 and DENIED.search(e.text[:300])), None)


def _follow_up(plan: Plan, events: list[Event], start: int) -> Step | None:
    """After a failed edit, read the file once to see why (bounded: once per file)."""
    calls = {e.call_id: e for e in events if e.kind == "call"}
    for i, e in enumerate(events[max(start, 0):], max(start, 0)):
        call = calls.get(e.call_id) if e.kind == "result" else None
        if call is None or call_verb(call) != "edited" or not report.failed(e, call):
            continue
        path = call_path(call) or next(iter(re.findall(r"'([^']+)'", call_command(call))[-3:-2]), "")
        read_later = any(c.kind == "call" and call_verb(c) == "read" and norm(call_path(c)) == norm(path)
                         for c in events[i:])
        if path and not read_later:
            why = answers.outcome(e).removeprefix("error: ")
            return Step(f"The edit of {path} failed ({why}). Let me read {path} to see what it holds.",
                        [("read", {"path": path})])
    return None


def _planned(plan: Plan, roles: dict, tools: list, language: str = "en") -> list[tuple[str, str, dict, str]]:
    """(label, tool name, input, fact key) for each call the plan makes, for the final answer."""
    out = []
    for step in plan.steps:
        for role, args in step.calls:
            sent, missing = to_calls([(role, args)], roles, tools)
            if missing or role == "compact":
                continue
            key = args.get("command") or args.get("path") or role
            label = f"`{key}`" if role == "bash" else tr("this folder", language=language) if key == "." else key
            out.append((label, sent[0][0], sent[0][1], key))
    return out


def _compacted_since(events: list[Event], start: int) -> bool:
    return start >= 0 and any(e.kind == "summary" for e in events[start:])


def decide(request: dict, scenarios: list) -> Reply:
    """The next assistant turn for a Messages API request (see the module docstring)."""
    messages = request.get("messages") or []
    if len(messages) > 1 and messages[-1].get("role") == "assistant":  # a prefill: carry on from it
        reply = decide(dict(request, messages=messages[:-1]), scenarios)
        said = block_text(messages[-1].get("content"), results=False)
        return Reply(reply.text.removeprefix(said.strip()).lstrip(), reply.calls)
    # tool_choice "none" keeps the tools for reading the history (a finished round is reported); forced.py
    # asks again without them if this turn would call one
    tools = request.get("tools") or []
    noted = notes.turn(request, tools, lambda r: decide(r, scenarios), Reply, request_language,
                       find_task)  # s10's memory
    if noted is not None:
        return noted
    roles = tool_roles(tools)
    events = from_messages(messages)
    task, start = find_task(events)
    if not task:
        return Reply(answers.greeting(tools))
    language = request_language(task)  # answer in the language the request was written in
    if polite.thanked(task):
        return Reply(tr("You're welcome. Ask me for the next step whenever you are ready.", language=language))
    plan = make_plan(task, events, start, roles, scenarios, tools, language) if roles else None
    if plan is None:
        return Reply(answers.in_words(task, events, tools, language))
    return _next_turn(plan, events, start, roles, tools, language)


def _next_turn(plan: Plan, events: list[Event], start: int, roles: dict, tools: list,
               language: str = "en") -> Reply:
    if plan.kind == "say":  # a refusal or a question: nothing to run
        return Reply(plan.final)
    denied = _denial(events, start)
    calls_made = sum(e.kind == "call" for e in events[max(start, 0):])
    if denied is None and calls_made >= _call_budget(plan):
        return Reply(tr("Stopped: I have made {calls} tool calls for this request, more than its "
                        "{n}-step plan needs, and the history does not show the plan moving on "
                        "(were my calls changed or dropped?). I did not go on.",
                        language=language, calls=calls_made, n=len(plan.steps)))
    if plan.kind == "scenario" and denied is None:  # ---- a script says only what its tools showed (scenarios.py)
        results = step_results(plan.steps, events, start, roles, tools)
        stop, plan.final = scenario_answer(plan.steps, plan.final, results)
        if stop is not None:
            return Reply(stop)  # ---- end of the scenario check
    if denied is None:
        if plan.discover is not None:
            return _reply(Step(answers.note(events) + plan.discover.say, plan.discover.calls), roles, tools)
        n = len(plan.steps)
        done = max(steps_done(plan.steps, events, start, roles, tools), progress(events, start, n, summaries=True)[0])
        have = read_so_far(events, start)
        while done < n and plan.steps[done].calls and all(
                role == "read" and norm(args["path"]) in have for role, args in plan.steps[done].calls):
            done += 1
        if plan.kind == "compact" and _compacted_since(events, start):
            done = n
        if done < n:
            step = plan.steps[done]
            note = answers.note(events) if plan.kind != "scenario" else ""  # scenarios say exactly their text
            return _reply(Step(note + plan.intro + step.say, step.calls), roles, tools)
        follow = _follow_up(plan, events, start) if plan.kind == "edit" else None
        if follow is not None:
            return _reply(follow, roles, tools)
    if plan.final and denied is None:
        return Reply(plan.final)
    if plan.actions is not None:
        text = report.final(plan.actions, matched(plan.steps, events, start, roles, tools), stopped=denied,
                            language=language)
        return Reply(text + ("\n" + answers.not_done(plan.skipped, language) if plan.skipped else ""))
    head = plan.head or tr("Done.", language=language)
    if plan.kind == "compact" and _compacted_since(events, start):
        head = tr("Compacted: the conversation is now a summary, and I am ready for the next task.", language=language)
    if plan.kind == "edit" and denied is None and _follow_up_done(events, start):
        _, args = plan.steps[0].calls[0]
        return Reply(answers.edit_failed(args["path"], args["old"], events, start, language))
    text = answers.final(_planned(plan, roles, tools, language), events, start, head=head, stopped=denied,
                         language=language)
    return Reply(text + ("\n" + answers.not_done(plan.skipped, language) if plan.skipped else ""))


def _follow_up_done(events: list[Event], start: int) -> bool:
    """True if an edit failed since the task (the follow-up read has then been made)."""
    calls = {e.call_id: e for e in events if e.kind == "call"}
    return any(e.kind == "result" and e.call_id in calls and call_verb(calls[e.call_id]) == "edited"
               and report.failed(e, calls[e.call_id]) for e in events[max(start, 0):])


def _reply(step: Step, roles: dict, tools: list) -> Reply:
    calls, missing = to_calls(step.calls, roles, tools)
    if missing:
        return Reply(f"{step.say} I would need a `{missing}` tool for this, and none is offered.")
    return Reply(step.say, calls)
