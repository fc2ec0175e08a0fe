"""The offline model's agent policy: what it does with the tools it is offered.

Each request is answered from the request alone (the model keeps no state), so a
compacted history steers it exactly as it would steer Claude. Step by step:

 1. Find the task: the latest genuine user request, or, if a summary replaced
    it, the last "User requests" bullet of that summary. User text beside tool
    results (a hook's note) and compaction markers are not requests.
 2. Read the request as people type it (polite.py: greetings, please, question forms, typos),
    "it" as the file acted on last or a question back (refs.py), and refuse a path outside the
    workspace or a typed command s03 does not call read-only (guard.py); a clause outside the
    grammar is done without and said "Not done" (grammar.parse_parts). Then choose a plan (first match wins):
      scenario  a scripted scenario whose `match` regex fits (scenarios.py)
      compact   "compact ..." and a `compact` tool is offered: call it once
      grammar   a plain request of the task grammar (grammar.py: write, mkdir,
                run, test, list, show, read, count, find, move, copy, delete, replace,
                append, git, explain; grammar_files.py: count files, lines of code,
                first/last lines, size, biggest file, empty file; grammar_shell.py:
                commands typed without backticks, pwd, versions, the date; chained
                with "then"), reported by report.py (and report_files.py)
      edit      "replace/change `a` with/to `b` ... <path>": edit the file
      run       commands in `backticks` with a shell: run them, one per turn
      list      "list ..." / "what files" (and no "read"): list the folder
      every     "read every/all/each <kind> file(s) [in <folder>]": discover
                them (a list tool, Glob, or `find` with only a shell), then read
                them one per turn ("in parallel"/"at once": all in one turn)
      paths     file paths named in the task: read them, all in one turn
                ("one at a time": one per turn)
      none      no tool intent, or a change it cannot make: answer in words
                (answers.in_words), and outside the grammar say so (answers.outside)
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

from ..i18n import tr
from . import answers, grammar, guard, polite, refs, report
from .discover import MAX_DISCOVERY, NAMED, discover, every_kind, norm, stated_plan, task_root
from .language import request_language, section_name
from .progress import matched, progress, read_so_far, steps_done
from .reading import (
    Event,
    block_text,
    call_command,
    call_path,
    call_verb,
    from_messages,
)
from .roles import to_calls, tool_roles
from .scenarios import Step, find_scenario, load_scenarios, scenario_steps

__all__ = ["Reply", "Step", "decide", "find_task", "load_scenarios", "progress", "tool_roles"]

MAX_CALLS = 400
MAX_STALL = 3  # calls a plan may make beyond its own steps before it stops as stuck
BACKTICKS = re.compile(r"`([^`\n]+)`")
LIST_WORDS = re.compile(r"\b(list|ls)\b|what files|which files|files (are )?(here|in)|列出|elenca", re.IGNORECASE)
RUN_WORDS = re.compile(r"\b(run|execute|exec|launch|try|call|type)\b|运行|执行|esegui", re.IGNORECASE)
COMMANDS = re.compile(r"^(ls|cat|echo|python3?|pytest|git|grep|find|wc|head|tail|pwd|make|npm|node|pip|"
                      r"sed|awk|sort|uniq|du|df|date|whoami|env|mkdir|touch|rm|cp|mv|sleep|true|false|"
                      r"exit|bash|sh|uv|cargo|go)\b")
# Words that ask for a change: a request with them that the grammar did not serve is not guessed at.
MAKES = re.compile(r"\b(write|create|make|generate|add|implement|build|save|put|rename|move|copy|delete|remove|"
                   r"append|insert|convert|translate|format|sort|rewrite)\b|创建|新建|写|生成|添加|删除|重命名|移动|复制",
                   re.IGNORECASE)
READS = re.compile(r"\b(read|open|look|show|cat|view|what|which|how|where|does|is|are|summari[sz]e|explain|check|"
                   r"compare|review|tell)\b|读|看|查看|显示|打开|什么|哪|怎么|是否|吗", re.IGNORECASE)
DENIED = re.compile(r"^\s*(permission denied|denied|blocked|rejected)\b|denied by|blocked by|not allowed|"
                    r"user (declined|rejected|denied)|deny list|needs approval|not approved", re.IGNORECASE)


@dataclass
class Reply:
    """What the policy answers: a text and tool calls as (tool name, input) pairs."""
    text: str
    calls: list = field(default_factory=list)
    refused: bool = False  # an honest "can't" for a structured output: stop_reason "refusal"

    @property
    def stop_reason(self) -> str:
        return "refusal" if self.refused else "tool_use" if self.calls else "end_turn"


@dataclass
class Plan:
    """The steps for a task; `discover` comes first when the steps depend on what it finds."""
    kind: str
    steps: list
    discover: Step | None = None
    final: str | None = None
    head: str = ""
    intro: str = ""  # "Found N files. Plan: ...", said again if a compaction lost it
    actions: list | None = None  # a grammar request's actions (grammar.py), reported by report.py
    skipped: list = field(default_factory=list)  # its clauses outside the grammar: said not done


# ---------------------------------------------------------------- the task and the progress

def find_task(events: list[Event]) -> tuple[str, int]:
    """(task text, index of the event it came from): a request, or a summary's last request."""
    for i in range(len(events) - 1, -1, -1):
        e = events[i]
        if e.kind == "request":
            return e.text.strip(), i
        if e.kind == "summary":
            m = re.search(section_name("User requests") + r"[:：]?\s*\n((?:- .*\n?)+)", e.text)
            if m:
                bullets = [b[2:].strip() for b in m.group(1).strip().splitlines()]
                if bullets and bullets[-1] not in ("(none)", "（无）"):
                    return bullets[-1], i
    return "", -1


def _call_budget(plan: Plan) -> int:
    """The most calls a plan may make before it counts as stuck: its own, discovery, a follow-up, slack."""
    own = sum(len(step.calls) for step in plan.steps)
    return min(MAX_CALLS, own + (MAX_DISCOVERY * 8 + 1 if plan.kind == "every" else 0) + 1 + MAX_STALL)


def _read_steps(files: list[str], parallel: bool) -> list[Step]:
    if not files:
        return []
    if parallel:
        return [Step(f"Reading {', '.join(files)} (1/1).", [("read", {"path": f}) for f in files])]
    return [Step(f"Reading {f} ({k}/{len(files)}).", [("read", {"path": f})]) for k, f in enumerate(files, 1)]


def make_plan(task: str, events: list[Event], start: int, roles: dict, scenarios: list,
              tools: list = (), language: str = "en") -> Plan | None:
    """The plan for a task (see the module docstring), or None when no tool fits it.

    Its final answer's head is in `language`, the language the task was asked in.
    """

    scenario = find_scenario(task, scenarios)
    if scenario:
        return Plan("scenario", scenario_steps(scenario), final=scenario.get("final"), head="Done.")
    low = task.lower()
    ticks = BACKTICKS.findall(task)
    paths = [p.lstrip("@") for p in dict.fromkeys(NAMED.findall(task)) if "://" not in p]  # @file mentions
    can = {role: role in roles or ("bash" in roles and role in ("read", "list", "write", "edit"))
           for role in ("read", "list", "write", "edit", "bash", "compact")}
    if can["compact"] and re.search(r"(?<![\w-])/?compact\b|压缩|compatta", low):
        m = re.search(r"\b(?:focus(?:ing)?\s+on|keep(?:ing)?)\s+(.+?)[.!?]?$", task, re.IGNORECASE)
        return Plan("compact", [Step("Compacting the conversation (1/1).",
                                     [("compact", {"focus": m.group(1) if m else None})])],
                    head=tr("Compacted.", language=language))
    said = _understood(task, events, start, roles, language)
    if isinstance(said, Plan):
        return said
    actions, skipped = said
    if actions:
        n = len(actions)
        steps = [Step(f"{a.say} ({k}/{n}).", a.calls) for k, a in enumerate(actions, 1)]
        if n == 1 and actions[0].kind == "replace":  # a failed edit gets its follow-up read
            _, args = actions[0].calls[0]
            return Plan("edit", steps, head=tr("Edited {path}.", language=language, path=args["path"]))
        return Plan("grammar", steps, actions=actions, skipped=skipped)
    plan = _fallback(task, events, start, roles, tools, language, paths, ticks, can, low)
    outside = guard.outside_steps(plan.steps if plan else []) + \
        [r for r in [task_root(task)] if plan and plan.kind in ("every", "list") and guard.is_outside(r)]
    if outside:
        return Plan("say", [], final=guard.outside_refusal(task, outside, language))
    return plan


def _understood(task: str, events: list[Event], start: int, roles: dict, language: str):
    """(actions, clauses left out) the grammar reads in a request, or a Plan that answers in words.

    Greetings, please and a question form around it are taken off (polite.py), typos in the
    grammar's words fixed; "it" is the file the last request acted on (refs.py), or a question
    back; a path outside the workspace, or a typed command not known to only read, is refused (guard.py).
    """
    text, _ = polite.core(task)
    outside = guard.outside_words(text)
    if outside:  # "../x", "/etc/x", "~/x" anywhere outside backticks: never acted on
        return Plan("say", [], final=guard.outside_refusal(task, outside, language))
    found = refs.candidates(events, start)
    recent = found[0] if len(found) == 1 else ""
    actions, skipped = grammar.parse_parts(text, roles, recent)
    if skipped:
        whole, _ = polite.retry(text, lambda t: _whole(grammar.parse_parts(t, roles, recent)), _typed)
        if whole:
            actions, skipped = whole, []
    pointing = [c for c in skipped if refs.has_ref(c) and grammar.parse(refs.REF.sub(" x.py ", c, count=1), roles)]
    if pointing and len(found) != 1:  # "delete it" with no one file it can mean: a question, never a guess
        return Plan("say", [], final=refs.ask(pointing[0], found, language))
    if not actions:
        return [], skipped
    outside = guard.outside_paths(actions)
    if outside:
        return Plan("say", [], final=guard.outside_refusal(task, outside, language))
    typed = guard.not_read_only(actions)
    if typed:
        return Plan("say", [], final=guard.typed_refusal(typed, language))
    return actions, skipped


def _whole(parsed: tuple) -> list | None:
    actions, skipped = parsed
    return actions if actions and not skipped else None


def _typed(actions: list) -> str:
    """What the user typed as content in a plan: texts to write, print, append, find or replace."""
    out = []
    for a in actions:
        out += [str(a.extra.get(k, "")) for k in ("line", "prints")] + ([a.target] if a.kind == "find" else [])
        out += [str(args.get(k, "")) for _, args in a.calls for k in ("content", "old", "new")]
    return "\n".join(out)


def _fallback(task, events, start, roles, tools, language, paths, ticks, can, low) -> Plan | None:
    """The plans outside the grammar: an edit in backticks, commands in backticks, a listing, reads."""
    ext = every_kind(task)
    m = re.search(r"\b(?:replace|change|rename|substitute)\s+`([^`]+)`\s+(?:with|to|by|into)\s+`([^`]*)`",
                  task, re.IGNORECASE)
    edit_paths = [p for p in paths if m and p not in (m.group(1), m.group(2))]
    if m and edit_paths and can["edit"]:
        path = edit_paths[0]
        return Plan("edit", [Step(f"Editing {path}: `{m.group(1)}` -> `{m.group(2)}` (1/1).",
                                  [("edit", {"path": path, "old": m.group(1), "new": m.group(2)})])],
                    head=tr("Edited {path}.", language=language, path=path))
    commands = [c for c in ticks if COMMANDS.match(c) or RUN_WORDS.search(low)]
    if commands and can["bash"] and not MAKES.search(task) and (
            RUN_WORDS.search(low) or len(commands) == len(ticks) and not paths):
        n = len(commands)
        return Plan("run", [Step(f"Running `{c}` ({k}/{n}).", [("bash", {"command": c})])
                            for k, c in enumerate(commands, 1)],
                    head=tr("Ran {n} commands.", language=language, n=n) if n > 1
                    else tr("Ran {n} command.", language=language, n=n))
    if LIST_WORDS.search(task) and not re.search(r"\bread\b|读|leggi", low) and can["list"] and not MAKES.search(task):
        root = task_root(task)
        pattern = f"**/*{ext}" if ext else "*"
        where = "this folder" if root == "." else root
        return Plan("list", [Step(f"Listing {where} (1/1).", [("list", {"path": root, "pattern": pattern})])],
                    head=tr("Listed {where}.", language=language,
                            where=tr("this folder", language=language) if root == "." else root))
    if ext is not None and can["read"]:
        return _every_plan(task, ext, events, start, roles, language)
    if paths and can["read"] and not MAKES.search(task):
        one_by_one = re.search(r"one (at a time|by one)|in turn|sequential|separately", low)
        head = (tr("Read {path}.", language=language, path=paths[0]) if len(paths) == 1
                else tr("Read {n} files.", language=language, n=len(paths)))
        if re.search(r"\b(fix|bug|refactor|improve|change|update)\b", low):
            head += tr(" I cannot tell from here which change you want: ask me to replace `old text` "
                       "with `new text` in {path}, or use a real model (LESSONS_BACKEND=anthropic).",
                       language=language, path=paths[0])
        elif not READS.search(task):  # named files, but asked for more than reading them
            head = answers.outside(task, tools, language) + "\n" + head
        return Plan("paths", _read_steps(paths, not one_by_one), head=head)
    return None


def _every_plan(task: str, ext: str, events: list[Event], start: int, roles: dict, language: str = "en") -> Plan:
    parallel = re.search(r"parallel|at once|together|same time|simultan|in one go|in one turn", task, re.IGNORECASE)
    files = stated_plan(events, start)
    intro = ""
    if not files:
        found = discover(task, ext, events, start, roles)
        if isinstance(found, Step):
            return Plan("every", [], discover=found)
        files = found
        intro = f"Found {_files(len(files), ext)}. Plan: {', '.join(files)}. "
    if files:
        head = (f"Read {_files(len(files), ext)}." if language == "en" else
                tr("Read {n} {ext} files.", language=language, n=len(files), ext=ext or "").replace("  ", " "))
    else:
        head = tr("I found no {ext} files in {root}.", language=language, ext=ext or "",
                  root=task_root(task)).replace("  ", " ")
    return Plan("every", _read_steps(files, bool(parallel)), head=head, intro=intro)


def _files(n: int, ext: str) -> str:
    """Example: (1, '.py') -> '1 .py file'; (3, '') -> '3 files'"""
    return f"{n} {ext + ' ' if ext else ''}file{'s' * (n != 1)}"


# ---------------------------------------------------------------- the next turn

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
    tools = [] if (request.get("tool_choice") or {}).get("type") == "none" else request.get("tools") or []
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
    return Reply(answers.final(_planned(plan, roles, tools, language), events, start, head=head, stopped=denied,
                               language=language))


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
