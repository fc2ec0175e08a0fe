"""The offline model's agent policy: what it does with the tools it is offered.

Each request is answered from the request alone (the model keeps no state), so a
compacted history steers it exactly as it would steer Claude. Step by step:

 1. Find the task: the latest genuine user request, or, if a summary replaced
    it, the last "User requests" bullet of that summary.
 2. Choose a plan for the task (first match wins):
      scenario   a scripted scenario whose `match` regex fits the task (data files
                 in scenarios/, or passed to the model): its steps, in order
      compact    "compact ..." and a `compact` tool is offered: call it once
      run        commands in `backticks` with a shell tool: run them, one per turn
      every      "read every/all <kind> files": discover them (list or `find`),
                 then read them one per turn ("in parallel"/"at once": one turn)
      paths      file paths named in the task: read them, all in one turn
      write      "write/create <path> ... `content`": write the file
      edit       "replace `a` with `b` in <path>": edit the file
      list       "list ..." or "what files": list the directory
      answer     nothing to do with tools: answer in text
 3. Find the progress: each action turn's text ends with a step counter
    "(k/N)"; the largest k said after the task (summaries included) is where
    the plan resumes. A plan whose items were lost with a compacted listing is
    rediscovered; since listings are sorted, step k+1 is the same file again.
 4. Emit the next step as `tool_use` blocks for the offered tools (aliases such
    as Read/read_file, Bash/shell are recognised, parameter names come from the
    tool's schema), or, when the plan is done, an `end_turn` answer built from
    the results still visible.

Example: tools=[bash], "Run `echo hi`" -> tool_use bash {"command": "echo hi"}
         ... then, with the result "hi" -> text "Ran 1 command: `echo hi` -> hi"

Not modeled: reasoning. The policy cannot write code it has not been shown.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .reading import Event, block_text, call_command, call_path, from_messages
from .summarize import DEFINES, ERROR_LINE, STEP

SCENARIO_DIR = Path(__file__).parent / "scenarios"
MAX_STEPS = 400
ROLES = {  # role -> substrings of tool names that play it (lower case)
    "compact": ("compact",),
    "read": ("read_file", "read", "view", "open_file", "cat"),
    "write": ("write_file", "write", "create_file"),
    "edit": ("edit_file", "edit", "str_replace", "replace"),
    "list": ("list_dir", "list_files", "list", "ls", "glob"),
    "bash": ("bash", "shell", "run_command", "terminal", "exec", "command"),
}
KINDS = {"python": ".py", "py": ".py", "markdown": ".md", "md": ".md", "json": ".json",
         "text": ".txt", "txt": ".txt", "typescript": ".ts", "javascript": ".js", "toml": ".toml",
         "yaml": ".yaml", "shell": ".sh", "rust": ".rs", "go": ".go"}
PATH = re.compile(r"(?<![\w/.-])((?:\.{1,2}/)?[\w.-]+(?:/[\w.-]+)*\.[A-Za-z]{1,5}|(?:\.{0,2}/)?[\w.-]+/(?:[\w.-]+/?)+)"
                  r"(?![\w/])")
BACKTICKS = re.compile(r"`([^`\n]+)`")


@dataclass
class Step:
    """One turn of a plan: a text and the calls to make, as (role, args) pairs."""
    say: str
    calls: list = field(default_factory=list)


@dataclass
class Reply:
    """What the policy answers: content blocks (without ids) and the stop reason."""
    text: str
    calls: list = field(default_factory=list)  # (tool name, input dict)

    @property
    def stop_reason(self) -> str:
        return "tool_use" if self.calls else "end_turn"


# ---------------------------------------------------------------- tools offered

def tool_roles(tools: list) -> dict[str, dict]:
    """Map each role to the first offered tool that plays it. Example: [Read] -> {'read': Read}"""
    found = {}
    for role, keys in ROLES.items():
        for tool in tools or []:
            name = tool.get("name", "").lower()
            if any(k in name for k in keys) and tool not in found.values():
                found.setdefault(role, tool)
                break
    return found


def _param(tool: dict, *candidates: str) -> str:
    """The schema property that best matches the candidates (first one if none does)."""
    props = list((tool.get("input_schema") or {}).get("properties") or {})
    for cand in candidates:
        for prop in props:
            if prop.lower() == cand:
                return prop
    for cand in candidates:
        for prop in props:
            if cand in prop.lower():
                return prop
    return candidates[0]


def make_input(tool: dict, role: str, args: dict) -> dict:
    """Translate role arguments into the tool's own parameter names."""
    if role in ("read", "write", "edit", "list"):
        out = {_param(tool, "path", "file_path", "filename", "file", "dir"): args.get("path", ".")}
        if role == "write":
            out[_param(tool, "content", "text", "data")] = args.get("content", "")
        if role == "edit":
            out[_param(tool, "old_string", "old_str", "old_text", "old", "search")] = args["old"]
            out[_param(tool, "new_string", "new_str", "new_text", "new", "replace")] = args["new"]
        if role == "list" and "glob" in tool.get("name", "").lower():
            out = {_param(tool, "pattern", "glob"): args.get("pattern", "**/*")}
        return out
    if role == "bash":
        return {_param(tool, "command", "cmd", "script"): args["command"]}
    if role == "compact":
        props = (tool.get("input_schema") or {}).get("properties") or {}
        return {"focus": args["focus"]} if "focus" in props and args.get("focus") else {}
    return dict(args)


# ---------------------------------------------------------------- the task

def find_task(events: list[Event]) -> tuple[str, int]:
    """(task text, index of the event it came from) — from a request or a summary."""
    for i in range(len(events) - 1, -1, -1):
        e = events[i]
        if e.kind == "request":
            return e.text.strip(), i
        if e.kind == "summary":
            m = re.search(r"User requests:?\s*\n((?:- .*\n?)+)", e.text)
            if m:
                bullets = [b[2:].strip() for b in m.group(1).strip().splitlines()]
                return bullets[-1], i
    return "", -1


def progress(events: list[Event], start: int) -> tuple[int, int]:
    """The largest step counter (k, N) said at or after `start`. Example: '(3/12)' -> (3, 12)"""
    best = (0, 0)
    for e in events[max(start, 0):]:
        if e.kind in ("text", "summary"):
            for k, n in STEP.findall(e.text):
                best = max(best, (int(k), int(n)))
    return best


# ---------------------------------------------------------------- scenarios

def load_scenarios(extra=None) -> list[dict]:
    """Scenario data files (scenarios/*.json) plus any given, as dicts."""
    out = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(SCENARIO_DIR.glob("*.json"))]
    return list(extra or []) + out


def scenario_steps(scenario: dict) -> list[Step]:
    """A scenario's steps, each text ending with its step counter."""
    n = len(scenario["steps"])
    return [Step(f"{s.get('say', '').rstrip()} ({k}/{n}).".lstrip(),
                 [(c["tool"], c.get("input", {})) for c in s.get("calls", [])])
            for k, s in enumerate(scenario["steps"], 1)]


# ---------------------------------------------------------------- plans

def _every_kind(task: str) -> str | None:
    m = re.search(r"\b(?:every|all|each)\s+(?:the\s+)?(?:of\s+the\s+)?(\w+)\s+files?\b", task, re.I)
    if m and m.group(1).lower() in KINDS:
        return KINDS[m.group(1).lower()]
    m = re.search(r"\b(?:every|all|each)\s+\*?(\.\w+)\s+files?\b", task, re.I)
    return m.group(1) if m else None


def _listing_paths(events: list[Event], start: int, ext: str) -> tuple[list[str], list[str], set]:
    """Files with `ext` and directories seen in list/find results after `start`, and dirs listed."""
    files, dirs, listed = [], [], set()
    calls = {e.call_id: e for e in events if e.kind == "call"}
    for e in events[start:]:
        call = calls.get(e.call_id)
        if e.kind != "result" or call is None or e.is_error or e.text.startswith("[Previous"):
            continue
        base = call_path(call) if "find" not in call_command(call) else ""
        if not (_is_list(call) or "find " in call_command(call)):
            continue
        listed.add(_norm(base or "."))
        for line in e.text.splitlines():
            entry = line.strip().split()[-1] if line.strip() else ""
            if not entry or entry.startswith(("[", ".git", "__pycache__")) or entry.endswith(":"):
                continue
            full = _norm(f"{base}/{entry}" if base and base != "." and not entry.startswith(base) else entry)
            if entry.endswith("/"):
                dirs.append(full)
            elif full.endswith(ext):
                files.append(full)
    return sorted(dict.fromkeys(files)), sorted(dict.fromkeys(dirs)), listed


def _is_list(call: Event) -> bool:
    return any(k in call.tool.lower() for k in ROLES["list"]) and "bash" not in call.tool.lower()


def _norm(path: str) -> str:
    path = path.rstrip("/") or "."
    while path.startswith("./"):
        path = path[2:]
    return path or "."


def _stated_plan(events: list[Event], start: int) -> list[str]:
    """Items of the latest 'Plan: a, b, c.' said after the task."""
    for e in reversed(events[max(start, 0):]):
        if e.kind in ("text", "summary"):
            m = re.search(r"Plan: (.+?)\.(?:\s|$)", e.text)
            if m:
                return [item.strip() for item in m.group(1).split(", ")]
    return []


def plan_every(task: str, ext: str, events: list[Event], start: int, roles: dict) -> list[Step] | Step:
    """Steps to read every file with `ext`, or the next discovery step if the list is unknown."""
    files = _stated_plan(events, start)
    if not files:
        files, dirs, listed = _listing_paths(events, start, ext)
        pending = [d for d in dirs if d not in listed]
        if "bash" in roles and "list" not in roles and not listed:
            return Step(f"Let me find the {ext} files first.",
                        [("bash", {"command": f"find . -name '*{ext}' -type f | sort"})])
        if "list" in roles and (not listed or pending):
            targets = pending or ["."]
            return Step("Let me look at what is in the folder first.",
                        [("list", {"path": d, "pattern": f"**/*{ext}"}) for d in targets])
        if not files:
            return []
    parallel = re.search(r"parallel|at once|together|same time|simultan", task, re.I)
    verb = ("read", "Reading") if "read" in roles else ("bash", "Reading")
    def read(path):
        return (verb[0], {"path": path} if verb[0] == "read" else {"command": f"cat {path}"})
    n = len(files)
    if parallel:
        return [Step(f"Found {n} files. Reading them all at once ({n}/{n}).", [read(f) for f in files])]
    steps = [Step(f"{verb[1]} {f} ({k}/{n}).", [read(f)]) for k, f in enumerate(files, 1)]
    steps[0].say = f"Found {n} {ext} files. Plan: {', '.join(files)}. " + steps[0].say
    return steps


def plan_for(task: str, events: list[Event], start: int, roles: dict, scenarios: list) -> list[Step] | Step:
    """The whole plan for a task (list of steps), or one discovery step to take first."""
    for sc in scenarios:
        if re.search(sc["match"], task, re.I | re.S):
            return scenario_steps(sc)
    low = task.lower()
    if "compact" in roles and re.search(r"\bcompact\b", low):
        focus = re.sub(r"(?i).*?\bcompact\b\W*", "", task, count=1).strip() or None
        return [Step("Compacting the conversation (1/1).", [("compact", {"focus": focus})])]
    commands = BACKTICKS.findall(task)
    if "bash" in roles and commands and re.search(r"\b(run|execute|exec|launch|try)\b|运行|esegui", low):
        n = len(commands)
        return [Step(f"Running `{c}` ({k}/{n}).", [("bash", {"command": c})]) for k, c in enumerate(commands, 1)]
    ext = _every_kind(task)
    if ext and ("read" in roles or "bash" in roles):
        return plan_every(task, ext, events, start, roles)
    paths = [p for p in dict.fromkeys(PATH.findall(task)) if not p.startswith("http")]
    m = re.search(r"\b(?:write|create|save)\b.*?(?:file\s+)?(" + PATH.pattern + r")", task, re.I)
    if m and ("write" in roles or "bash" in roles) and commands:
        path, content = m.group(1), commands[-1].replace("\\n", "\n")
        if "write" in roles:
            return [Step(f"Writing {path} (1/1).", [("write", {"path": path, "content": content})])]
        return [Step(f"Writing {path} (1/1).", [("bash", {"command": f"printf '%s\\n' {json.dumps(content)} > {path}"})])]
    m = re.search(r"replace\s+`([^`]+)`\s+(?:with|by)\s+`([^`]*)`\s+in\s+(" + PATH.pattern + ")", task, re.I)
    if m and "edit" in roles:
        return [Step(f"Editing {m.group(3)} (1/1).", [("edit", {"path": m.group(3), "old": m.group(1), "new": m.group(2)})])]
    if re.search(r"\b(list|ls)\b|what files|which files", low) and ("list" in roles or "bash" in roles):
        where = next((p for p in paths if "." not in p.rsplit("/", 1)[-1]), ".")
        if "list" in roles:
            return [Step(f"Listing {where} (1/1).", [("list", {"path": where})])]
        return [Step(f"Listing {where} (1/1).", [("bash", {"command": f"ls -la {where}"})])]
    if paths and ("read" in roles or "bash" in roles) and re.search(r"\b(read|open|show|look|cat|check|what)", low):
        n = len(paths)
        calls = [("read", {"path": p}) if "read" in roles else ("bash", {"command": f"cat {p}"}) for p in paths]
        return [Step(f"Reading {', '.join(paths)} ({n}/{n}).", calls)]
    return []


# ---------------------------------------------------------------- the answer

def final_answer(task: str, events: list[Event], start: int) -> str:
    """An end_turn answer built from what the conversation still shows after the task."""
    calls = [e for e in events[max(start, 0):] if e.kind == "call"]
    results = {e.call_id: e for e in events if e.kind == "result"}
    if not calls:
        if not task:
            return "Hello! Give me a task about the files in this workspace and I will use my tools."
        return (f"You asked: \"{' '.join(task.split())[:200]}\". I have no tool call to make for that, "
                "so here is my answer in words: I can read, list, write and edit files and run "
                "commands in this workspace when you ask me to.")
    lines, failures = [], 0
    for call in calls:
        what = call_command(call) or call_path(call) or call.tool
        result = results.get(call.call_id)
        if result is None:
            status = "no result seen"
        elif result.text.startswith("[Previous"):
            status = "result compacted"
        elif result.is_error or ERROR_LINE.search(result.text[:2000]):
            failures += 1
            status = "error: " + next((ln.strip() for ln in result.text.splitlines() if ERROR_LINE.search(ln)),
                                      result.text.strip()[:120])[:160]
        else:
            defs = list(dict.fromkeys(DEFINES.findall(result.text)))[:4]
            first = next((ln.strip() for ln in result.text.splitlines() if ln.strip()), "(empty)")
            status = (f"{len(result.text.splitlines())} lines" + (f", defines {', '.join(defs)}" if defs
                      else f": {first[:80]}"))
        lines.append(f"- {call.tool} `{what}`: {status}")
    head = f"Done. {len(calls)} tool call(s) for this task"
    head += f", {failures} with errors:" if failures else ":"
    return head + "\n" + "\n".join(lines)


# ---------------------------------------------------------------- the policy

def decide(request: dict, scenarios: list) -> Reply:
    """The next assistant turn for a Messages API request (see the module docstring)."""
    messages = request.get("messages") or []
    events = from_messages(messages)
    tools = [] if (request.get("tool_choice") or {}).get("type") == "none" else request.get("tools") or []
    roles = tool_roles(tools)
    task, start = find_task(events)
    if messages and messages[-1].get("role") == "assistant":  # prefill: continue the text
        return Reply(block_text(messages[-1].get("content")) and "Continuing from there: done.")
    plan = plan_for(task, events, start, roles, scenarios) if task and roles else []
    if isinstance(plan, Step):  # discovery comes first
        return _reply(plan, roles)
    done = min(progress(events, start)[0], len(plan))
    if plan and done < len(plan) and _calls_since(events, start) < MAX_STEPS:
        return _reply(plan[done], roles)
    scenario = next((s for s in scenarios if task and re.search(s["match"], task, re.I | re.S)), None)
    if scenario and scenario.get("final"):
        return Reply(scenario["final"])
    return Reply(final_answer(task, events, start))


def _calls_since(events: list[Event], start: int) -> int:
    return sum(1 for e in events[max(start, 0):] if e.kind == "call")


def _reply(step: Step, roles: dict) -> Reply:
    calls = []
    for role, args in step.calls:
        tool = roles.get(role)
        if tool is None:
            return Reply(f"{step.say} I would need a `{role}` tool for this, and none is offered.")
        calls.append((tool["name"], make_input(tool, role, args)))
    return Reply(step.say, calls)
