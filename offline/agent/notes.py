"""The offline model with a memory tool: view it first, note each decision, read it back after a compaction.

    a `memory` tool is offered (s10), each request:
      1. no view of /memories since the task, or a "[Memory]" reminder (a compaction) since the last
         view                                         -> view /memories
      2. files the last view listed whose text is not in sight (never viewed, or a micro-compaction
         replaced the view's result)                   -> view them, all in one turn
      3. the task asks what was decided                -> answer from the decisions in sight (notes too)
      4. a decision in sight that notes.md lacks        -> write it (create notes.md, or insert at its end),
         beside the turn the rest of the policy makes   ("Decision: ..." lines in results; "Remember: ...")
         a plan stated ("Plan: a, b.") and no tasks.md  -> create tasks.md, "- [ ]" per file, read ones ticked
         a file of tasks.md read since                  -> str_replace its "- [ ]" with "- [x]"
         the last write said "memory is full"          -> consolidate: notes.md again, each decision cut
                                                           to its first clause; full again: stop noting
      5. otherwise: the ordinary policy (policy.py) on the request without the memory calls, results
         and reminders, so its plans and step counters are what they would be without a memory
    no `memory` tool: plan() answers "Remember: ..." and "what did we decide ...?" from the
    conversation alone, and says when the decision is not in sight.

Everything is read from the request (the model keeps no state): what memory holds is replayed
from the memory calls and results in the history. What to remember is not judged: a line that
starts "Decision:" (after a comment sign) in a tool result, or a "Remember: ..." request.

Example: [user "Remember: the cache keeps 64 entries"], memory offered
  -> view /memories -> create /memories/notes.md "# Decisions\\n- the cache keeps 64 entries\\n"
  -> "Noted in /memories/notes.md: the cache keeps 64 entries."

Not modeled: deciding what matters, forgetting on purpose, notes that disagree.
"""

from __future__ import annotations

import re

from lessonkit.i18n import tr

from ..conversation.calls import call_path, call_verb
from ..conversation.reading import Event, from_messages
from ..conversation.roles import BY_NAME
from .discover import norm, stated_plan

TOOL = BY_NAME["memory"]
ROOT = "/memories"
NOTES = ROOT + "/notes.md"
TASKS = ROOT + "/tasks.md"
REMINDER = "[Memory]"
DECISION = re.compile(r"^[\s#/*;>-]*(?:decision|决定)\s*[:：]\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
REMEMBER = re.compile(r"^\s*(?:please\s+)?(?:(?:remember|note)\b|请?记住|请?记下(?:来)?)(?:\s+that)?\s*[:：,，]?\s*"
                      r"(?P<fact>.+?)\s*[.!。！]?\s*$", re.IGNORECASE | re.DOTALL)
QUESTION = re.compile(r"\b(?:what|which)\b.{0,40}\bdecid|\bdecisions?\b.{0,60}\?|\bdecided\b.{0,60}\?"
                      # what it remembers: "what do you remember?", "what's in your memory?", "what have you noted"
                      r"|\bwhat\b.{0,30}\b(?:you|we)\b.{0,20}\b(?:remember|recall|noted|memori[sz]ed)\b"
                      r"|\bwhat(?:'s|\s+is)?\b.{0,20}\bin\s+(?:your|the)\s+memory\b"
                      r"|(?:什么|哪些|怎么|怎样|如何)[^？?\n]{0,20}决定|决定[^？?\n]{0,20}(?:什么|哪些|吗)|定了什么"
                      r"|记得(?:些)?什么|记(?:住|下)?了(?:些)?什么|记忆(?:里|中)有(?:些)?什么",
                      re.IGNORECASE | re.DOTALL)
LISTED = re.compile(r"^- (/memories/\S+) \(", re.MULTILINE)
NUMBERED = re.compile(r"^\s*\d+\t(.*)$")
FULL = "memory is full"
PLACEHOLDER = re.compile(r"^\s*\[(previous|snipped|compacted)", re.IGNORECASE)  # a result a layer replaced
CLAUSE = 60  # characters a consolidated decision keeps


def offered(tools: list) -> bool:
    return any(t.get("name") == TOOL for t in tools or [])


def remembered(task: str) -> str | None:
    """The fact a "Remember: ..." request states. Example: 'Remember: x is 1.' -> 'x is 1'"""
    m = REMEMBER.match(task or "")
    return m.group("fact").strip() if m and not QUESTION.search(task) else None


def in_sight(events: list[Event]) -> list[str]:
    """Decisions the conversation shows, oldest first, once each: results (not memory's) and requests."""
    found = []
    for e in events:
        if e.kind == "result" and e.tool != TOOL and not e.is_error:
            found += DECISION.findall(e.text)
        elif e.kind == "request" and remembered(e.text):
            found.append(remembered(e.text))
    return list(dict.fromkeys(d.rstrip(".") for d in found))


# ---- what memory holds, replayed from the calls and results in sight --------------------------
def replay(events: list[Event]) -> dict:
    """{"files": {path: text or None}, "views": [event index of each dir view], "full": bool, "gave_up": bool}"""
    calls = {e.call_id: (i, e) for i, e in enumerate(events) if e.kind == "call" and e.tool == TOOL}
    state = {"files": {}, "views": [], "full": False, "gave_up": False}
    for i, e in enumerate(events):
        if e.kind != "result" or e.call_id not in calls:
            continue
        args = calls[e.call_id][1].input
        command, path = args.get("command"), args.get("path")
        if e.is_error:
            if FULL in e.text:
                state["gave_up"] = state["full"] and command == "create"
                state["full"] = True
            continue
        files = state["files"]
        if command == "view" and path in (ROOT, ROOT + "/"):
            state["views"].append(i)
            state["files"] = {p: files.get(p) for p in LISTED.findall(e.text)}
        elif command == "view" and PLACEHOLDER.match(e.text):  # micro-compacted: what it showed is gone
            files[path] = None
        elif command == "view" and not args.get("view_range"):
            lines = [m.group(1) for m in map(NUMBERED.match, e.text.splitlines()) if m]
            files[path] = "" if e.text == "(empty file)" else "\n".join(lines) + "\n"
        elif command == "create":
            files[path], state["full"] = args.get("file_text", ""), False
        elif command == "insert" and files.get(path) is not None:
            lines = files[path].splitlines(keepends=True)
            at = args.get("insert_line", 0)
            text = args.get("insert_text", "")
            files[path] = "".join(lines[:at]) + text + ("" if text.endswith("\n") else "\n") + "".join(lines[at:])
            state["full"] = False
        elif command == "str_replace" and files.get(path) is not None:
            files[path] = files[path].replace(args.get("old_str", ""), args.get("new_str", ""), 1)
        elif command == "delete":
            files.pop(path, None)
        elif command == "rename":
            files[args.get("new_path")] = files.pop(args.get("old_path"), None)
    return state


def short(decision: str) -> str:
    """A decision cut to its first clause. Example: 'x is 8, after the test' -> 'x is 8'"""
    return re.split(r"[;,(]| - ", decision)[0].strip()[:CLAUSE]


def _write(state: dict, new: list[str], everything: list[str]) -> dict | None:
    """The memory call that puts `new` decisions in notes.md (or consolidates it), or None."""
    if state["gave_up"]:
        return None
    if state["full"]:  # consolidate: one short line per decision, the whole file written again
        return {"command": "create", "path": NOTES,
                "file_text": "# Decisions\n" + "".join(f"- {d}\n" for d in dict.fromkeys(map(short, everything)))}
    text = state["files"].get(NOTES)
    lines = "".join(f"- {d}\n" for d in new)
    if text is None:
        return {"command": "create", "path": NOTES, "file_text": "# Decisions\n" + lines}
    return {"command": "insert", "path": NOTES, "insert_line": len(text.splitlines()), "insert_text": lines}


def task_calls(state: dict, events: list[Event], start: int) -> list[dict]:
    """The memory calls that keep tasks.md: create it once a plan is stated, tick each file read since.

    Example: plan "a.py, b.py" stated, a.py read, no tasks.md -> create "- [x] a.py\n- [ ] b.py\n"
    """
    if state["gave_up"] or state["full"]:
        return []
    calls = {e.call_id: e for e in events if e.kind == "call" and e.tool != TOOL}
    done = {norm(call_path(calls[e.call_id])) for e in events[max(start, 0):] if e.kind == "result"
            and e.call_id in calls and not e.is_error and call_verb(calls[e.call_id]) == "read"}
    text = state["files"].get(TASKS)
    if text is None and TASKS not in state["files"]:
        plan = stated_plan(events, start)
        if not plan:
            return []
        return [{"command": "create", "path": TASKS,
                 "file_text": "".join(f"- [{'x' if norm(f) in done else ' '}] {f}\n" for f in plan)}]
    open_tasks = re.findall(r"^- \[ \] (.+)$", text or "", re.MULTILINE)
    return [{"command": "str_replace", "path": TASKS, "old_str": f"- [ ] {t}\n", "new_str": f"- [x] {t}\n"}
            for t in open_tasks if norm(t) in done]


def answer(task: str, decisions: list[str], language: str = "en", *, memory: bool) -> str:
    """The answer to "what did we decide ...?" from the decisions in sight (and in memory)."""
    words = {w for w in re.findall(r"[a-z0-9_]{4,}", task.lower())} - {
        "what", "which", "decide", "decided", "about", "decision", "decisions", "with", "remember", "recall",
        "noted", "memory", "memorised", "memorized", "tell", "have", "your", "know", "does"}   # the question's
    hits = [d for d in decisions if words & set(re.findall(r"[a-z0-9_]{4,}", d.lower()))] or decisions
    where = tr("the conversation and my memory", language=language) if memory else \
        tr("the conversation", language=language)
    if not hits:
        return tr("I see no decision about that in {where}: if one was made, it is not in what I can see now "
                  "(a compaction may have dropped it; the session transcript on disk still has it).",
                  language=language, where=where)
    return tr("From {where}:", language=language, where=where) + "".join(f"\n- {d}" for d in hits)


def plan(task: str, events: list[Event], tools: list, language: str = "en"):
    """Without a memory tool: "Remember: ..." and "what did we decide?" answered from the conversation.

    A plan's fields as a dict (plan.py makes the Plan), or None."""
    if offered(tools):
        return None  # the memory path (turn) answers these
    if QUESTION.search(task or ""):
        return {"kind": "say", "steps": [], "final": answer(task, in_sight(events), language, memory=False)}
    fact = remembered(task)
    if fact:
        return {"kind": "say", "steps": [], "final": tr(
            "Noted: {fact}. I have no memory tool here, so this lives only in the conversation: a "
            "compaction may drop it.", language=language, fact=fact)}
    return None


# ---- the turn with a memory tool ------------------------------------------------------------
def without_memory(request: dict) -> dict:
    """The request as it would be with no memory: its calls, results, reminders and tool gone."""
    out = []
    for message in request.get("messages") or []:
        content = message.get("content")
        if not isinstance(content, list):
            out.append(message)
            continue
        ids = {b.get("id") for b in content if isinstance(b, dict) and b.get("type") == "tool_use"
               and b.get("name") == TOOL}
        kept = [b for b in content if not (isinstance(b, dict) and (
            b.get("id") in ids or (b.get("type") == "tool_result" and b.get("tool_use_id") in _memory_ids(request))
            or (b.get("type") == "text" and str(b.get("text", "")).startswith(REMINDER))))]
        others = [b for b in kept if isinstance(b, dict) and b.get("type") == "tool_use"]
        if ids and not others:  # a turn only about memory: its words go too
            continue
        if kept:
            out.append(dict(message, content=kept))
    tools = [t for t in request.get("tools") or [] if t.get("name") != TOOL]
    return dict(request, messages=out, tools=tools)


def _memory_ids(request: dict) -> set:
    return {b.get("id") for m in request.get("messages") or [] if isinstance(m.get("content"), list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == TOOL}


def turn(request: dict, tools: list, decide, reply_type, language_of, find_task):
    """The next turn when a memory tool is offered (see the module docstring), or None without one.

    policy.py passes its own pieces in (decide, Reply, request_language, plan.find_task), so this
    module imports nothing of the policy's: no circle."""
    if not offered(tools):
        return None
    events = from_messages(request.get("messages") or [])
    task, start = find_task(events)
    if not task:
        return None
    language = language_of(task)
    state = replay(events)
    views = [i for i in state["views"] if i >= start]
    reminded = [i for i, e in enumerate(events) if e.kind == "note" and e.text.startswith(REMINDER)]
    if not views or (reminded and reminded[-1] > views[-1]):
        return reply_type("Checking my memory first.", [(TOOL, {"command": "view", "path": ROOT})])
    unread = [p for p, text in state["files"].items() if text is None]  # listed, never read (or read and lost)
    if unread:
        return reply_type(f"Reading my notes: {', '.join(unread)}.",
                          [(TOOL, {"command": "view", "path": p}) for p in unread])
    everything = in_sight(events)
    noted = state["files"].get(NOTES) or ""
    new = [d for d in everything if f"- {short(d)}" not in noted]  # a consolidated note counts
    known = list(dict.fromkeys([*(ln[2:] for ln in noted.splitlines() if ln.startswith("- ")), *everything]))
    if QUESTION.search(task):  # what memory holds and what is in sight
        return reply_type(answer(task, known, language, memory=True))
    write = _write(state, new, known) if new else None  # a consolidation keeps what was noted too
    ticks = task_calls(state, events, start)  # the task list, beside the same turn
    if write is not None or ticks:
        said = ("My memory is full: consolidating notes.md." if write and write["command"] == "create"
                and state["full"] else f"Noting in memory: {'; '.join(new)}." if write else
                "Updating my task list in memory.")
        writes = [(TOOL, w) for w in [write, *ticks] if w is not None]
        reply = decide(without_memory(request))
        if reply.calls and not remembered(task):
            return reply_type(f"{said} {reply.text}", [*writes, *reply.calls])
        return reply_type(said, writes)
    fact = remembered(task)
    if fact:
        return reply_type(tr("Noted in {path}: {fact}.", language=language, path=NOTES, fact=fact)
                          if not state["gave_up"] else
                          tr("I could not note it: my memory is full even after consolidating.", language=language))
    return decide(without_memory(request))
