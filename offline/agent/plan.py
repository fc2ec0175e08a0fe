"""The offline model's plan for a task: which steps serve the request, chosen from the request alone.

The task is the latest genuine user request, or, if a summary replaced it, the last
"User requests" bullet of that summary (find_task). The request is read as people type it
(polite.py, refs.py, guard.py: see policy.py), then the first plan that fits wins:

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

Example: make_plan("Look at a.py and b.py", [], 0, tool_roles([bash, read_file]), scenarios)
  -> Plan("paths", [Step("Reading a.py, b.py (1/1).", [("read", {"path": "a.py"}), ("read", {"path": "b.py"})])],
          head="Read 2 files.")

Not modeled: reasoning. A plan is matched to the request's words, never worked out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lessonkit.i18n import tr

from ..answers import reply as answers
from ..conversation.language import section_name
from ..conversation.reading import Event
from ..grammar import polite, refs
from ..grammar import table as grammar
from ..grammar.parts import NAMED
from . import delegate, guard, notes
from .discover import discover, every_kind, stated_plan, task_root
from .scenarios import Step, find_scenario, scenario_steps

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
# Words asking for more than a guessed plan does: a change, or a number to work out from what is read.
MORE = re.compile(MAKES.pattern + r"|\b(count|counts|counting|how\s+many|how\s+much|number\s+of|sum|total|average|mean|"
                  r"longest|shortest|biggest|largest|smallest|most|least|compute|calculate|tally|compare|rank|"
                  r"top\s+\d+)\b|统计|多少|总数|总共|总和|平均|最长|最短|最大|最小|最多|最少|计算|比较|排序",
                  re.IGNORECASE)
READS = re.compile(r"\b(read|open|look|show|cat|view|what|which|how|where|does|is|are|summari[sz]e|explain|check|"
                   r"compare|review|tell)\b|读|看|查看|显示|打开|什么|哪|怎么|是否|吗", re.IGNORECASE)


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
    delegated = delegate.plan(task, events, start, tools, language)  # s09: "use a subagent to ..."
    if delegated is not None:
        return Plan(**delegated)
    noted = notes.plan(task, events, tools, language)  # s10: "remember ...", "what did we decide?"
    if noted is not None:
        return Plan(**noted)
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
    if plan is not None and plan.kind != "edit":  # a guess outside the grammar: it must not swallow the rest
        parts = grammar.clauses(polite.core(task)[0]) or [task]
        plan.skipped = [c for c in parts if MORE.search(BACKTICKS.sub(" ", c))]
        if len(plan.skipped) == len(parts):  # it would serve none of what was asked: run nothing, say so
            return Plan("say", [], final=answers.outside(task, tools, language))
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
