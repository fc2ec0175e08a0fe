"""The six sections of a summary, extracted from the conversation's events (summarize.py writes them).

    1. User requests        every genuine user request, in order
    2. Technical concepts   tools used (with counts), languages of the files, commands run
    3. Files and code       each path a tool touched: read / written / edited / listed,
                            with the names a read file defines (def/class/function)
                            and the entries a listed folder holds
    4. Errors and fixes     the first error line of each failed call, and the fix:
                            a later edit of a file it names, or a later clean run
    5. Pending tasks        the plan in progress after the last request ("(k/N) steps
                            done" and its "Plan: ..." list), or the last request if no
                            final answer followed it
    6. Current work         the last assistant text and call after the last request

A previous summary in the conversation (a compacted history, or a rolling
`## Previous Summary`) is merged in first, so a summary of a summary keeps what
the first one kept: requests, files (merged by path), errors, tool counts.

Example: extract([request "read a.py", call read_file(a.py), result "def f():\\n    return 1"])
  -> {"User requests": ["read a.py"], "Files and code": ["a.py: read, 2 lines, defines f"], ...}

Not modeled: judgement. Nothing is inferred that the text does not say.
"""

from __future__ import annotations

import re
from collections import Counter

from lessonkit.i18n import tr

from ..conversation.calls import (
    ERROR_LINE,
    call_command,
    call_path,
    call_target,
    call_verb,
    describe,
    error_line,
    listing,
)
from ..conversation.language import SECTION_ZH, find_section
from ..conversation.reading import SEEN, STEP, Event

SECTIONS = ("User requests", "Technical concepts", "Files and code", "Errors and fixes",
            "Pending tasks", "Current work")
PLAN = re.compile(r"(?:Plan: (.+?)\.(?=\s|$)|计划：(.+?)。)")  # group(1) in English, group(2) in Chinese
MAX_ITEM_CHARS = 240
NONE = ("- (none)", "- （无）")  # an empty section's bullet, in English and Chinese
_BY_LOWER = {s.lower(): s for s in SECTIONS} | {zh: s for s, zh in SECTION_ZH.items()}
_HEADING = re.compile(r"^\s*(?:#+\s*)?(?:\d\.\s*)?([A-Za-z ]+|[\u4e00-\u9fff]+)[:：]?\s*$")


def one_line(text: str, limit: int = MAX_ITEM_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def previous_sections(events: list[Event]) -> dict[str, list[str]]:
    """Bullets of earlier summaries in the conversation, by section."""
    found = {s: [] for s in SECTIONS}
    for e in events:
        if e.kind != "summary":
            continue
        current = None
        for line in e.text.splitlines():
            head = _HEADING.match(line)
            name = head.group(1).strip().lower() if head else ""
            if name in _BY_LOWER:
                current = _BY_LOWER[name]
            elif current and line.strip().startswith("- ") and line.strip() not in NONE:
                found[current].append(line.strip()[2:])
    return found


def _error_line(text: str) -> str:
    return one_line(error_line(text), 160)


def failed(result: Event) -> bool:
    """A tool result that reports a failure (flagged, or an error line in its first 4,000 chars)."""
    return result.is_error or (not result.text.startswith("[Previous")
                               and bool(ERROR_LINE.search(result.text[:4000])))


def _files(previous: list[str], events: list[Event], calls: dict, language: str = "en") -> list[str]:
    """'path: verbs, description' per path, previous summary's entries first (merged by path)."""
    verbs: dict[str, list[str]] = {}
    about: dict[str, str] = {}
    for item in previous:
        path, _, rest = item.partition(": ")
        parts = rest.split(", ")
        k = next((i for i, p in enumerate(parts) if p not in VERB_WORDS and not p.startswith("used by ")),
                 len(parts))
        verbs.setdefault(path, []).extend(parts[:k])
        if k < len(parts):
            about[path] = ", ".join(parts[k:])
    results = {e.call_id: e for e in events if e.kind == "result"}
    for e in events:
        call = e if e.kind == "call" else calls.get(e.call_id) if e.kind == "result" else None
        if call is not None and call.call_id in results and failed(results[call.call_id]):
            continue   # refused or failed: it did nothing to a file (Errors and fixes says what happened)
        path = call_path(call) if call else ""
        if call and not path and call_verb(call) == "listed":
            path = call_target(call)  # a Glob pattern or a `find` command
        if not path or call_verb(call) == "ran":
            continue
        verbs.setdefault(path, [])
        if e.kind == "call":
            verbs[path].append(call_verb(call))
        elif failed(e) or e.text.startswith("[Previous"):
            continue
        elif e.text.rstrip().endswith(("...", "…")):  # a cut preview (the s08 prompt's): no counts
            about[path] = tr("seen as a preview: {about}", language=language,
                             about=describe(e.text).split(": ", 1)[-1].split(", ", 1)[-1])
        elif call_verb(call) == "read":
            about[path] = describe(e.text)
        elif call_verb(call) == "listed":  # kept, so a plan built on it survives the summary
            about[path] = listing(e.text)
    for e in events:  # a read whose call a snip removed still shows in the model's own "Seen a.py: ..." note
        for path, said in SEEN.findall(e.text) if e.kind == "text" else ():
            if path not in verbs and not path.startswith("`"):  # a `command` it ran is no file
                verbs[path], about[path] = ["read"], said.strip()
    return [f"{path}: {', '.join(list(dict.fromkeys(v)) + ([about[path]] if path in about else []))}"
            for path, v in verbs.items()]



VERB_WORDS = ("read", "written", "edited", "listed", "searched")


def _prefixed(item: str, english: str, chinese: str) -> str | None:
    """The rest of `item` after a fixed phrase in English or Chinese, else None."""
    for prefix in (english, chinese):
        if item.startswith(prefix):
            return item[len(prefix):]
    return None


def _concepts(previous: list[str], events: list[Event], files: list[str], language: str = "en") -> list[str]:
    counts, langs, commands, other = Counter(), set(), [], []
    for item in previous:  # merge the previous summary's figures (in either language) with the new ones
        if _prefixed(item, "tools used: ", tr("tools used: ", language="zh")) is not None:
            for name, n in re.findall(r"(\S+) x(\d+)", item):
                counts[name] += int(n)
        elif (named := _prefixed(item, "languages: ", tr("languages: ", language="zh"))) is not None:
            langs.update(named.split(", "))
        elif _prefixed(item, "commands run: ", tr("commands run: ", language="zh")) is not None:
            commands += re.findall(r"`([^`]+)`", item)
        else:
            other.append(item)
    counts.update(e.tool for e in events if e.kind == "call")
    langs.update(LANGS[ext] for f in files for ext in LANGS if f.split(": ")[0].endswith(ext))
    commands += [call_command(e) for e in events if e.kind == "call" and call_command(e)]
    out = other
    if counts:
        out.append(tr("tools used: ", language=language)
                   + ", ".join(f"{name} x{n}" for name, n in counts.most_common()))
    if langs:
        out.append(tr("languages: ", language=language) + ", ".join(sorted(langs)))
    if commands:
        out.append(tr("commands run: ", language=language)
                   + "; ".join(f"`{one_line(c, 80)}`" for c in list(dict.fromkeys(commands))[-8:]))
    return out


LANGS = {".py": "Python", ".ts": "TypeScript", ".js": "JavaScript", ".md": "Markdown",
         ".json": "JSON", ".rs": "Rust", ".go": "Go", ".kt": "Kotlin", ".java": "Java",
         ".sh": "shell", ".toml": "TOML", ".yaml": "YAML", ".yml": "YAML", ".txt": "text"}


def extract(events: list[Event], language: str = "en") -> dict[str, list[str]]:
    """The six sections' bullets for a list of events (previous summaries merged first), in `language`."""
    previous = previous_sections(events)
    calls = {e.call_id: e for e in events if e.kind == "call"}
    sections = {name: [] for name in SECTIONS}
    sections["User requests"] = previous["User requests"] + [
        one_line(e.text) for e in events if e.kind == "request"]
    sections["Files and code"] = _files(previous["Files and code"], events, calls, language)
    sections["Technical concepts"] = _concepts(previous["Technical concepts"], events, sections["Files and code"],
                                               language)
    sections["Errors and fixes"] = list(previous["Errors and fixes"])
    for index, e in enumerate(events):
        if e.kind == "result" and failed(e):
            call = calls.get(e.call_id)
            what = (call_command(call) or call_path(call) or call.tool) if call else e.tool
            sections["Errors and fixes"].append(
                f"`{one_line(what, 80)}`: {_error_line(e.text)} -> {_fix(events, index, what, language)}")
    new_request = any(e.kind == "request" for e in events)
    tail = events[_last_request(events) + 1:]
    sections["Pending tasks"] = _pending(events, tail, language) or ([] if new_request else previous["Pending tasks"])
    sections["Current work"] = _current(events, tail, language) or ([] if new_request else previous["Current work"])
    return {name: list(dict.fromkeys(items)) for name, items in sections.items()}


def _last_request(events: list[Event]) -> int:
    return max((i for i, e in enumerate(events) if e.kind == "request"), default=-1)


# A call the agent's permission check refused (s03's wording): it was never run.
REFUSED = re.compile(r"Permission denied: `[^`]*`.*(did not approve|never run|asking for approval failed)", re.DOTALL)


def _fix(events: list[Event], index: int, what: str, language: str = "en") -> str:
    """How a failed call was fixed later in the conversation, if it was.

    Fixed by an edit: a later edit or write of a file the failed command or its
    error names (by its name, so "src/a.py" matches "/abs/src/a.py").
    Fixed by a run: the same command or call, later, without an error.
    """
    if REFUSED.match(events[index].text):  # the permission check said no: it never ran, so nothing to fix
        return tr("refused: it did not run", language=language)
    said = what + " " + events[index].text[:4000]
    for i, later in enumerate(events[index + 1:], index + 1):
        if later.kind != "call":
            continue
        path = call_path(later)
        if path and call_verb(later) in ("edited", "written") and re.search(
                r"(?<![\w.-])" + re.escape(path.rsplit("/", 1)[-1]) + r"(?![\w-])", said):
            return tr("fixed by editing {path}", language=language, path=path)
        if (call_command(later) or call_path(later)) == what:
            result = next((r for r in events[i + 1:] if r.kind == "result" and r.call_id == later.call_id), None)
            if result and not failed(result):
                return tr("a later run succeeded", language=language)
    return tr("not fixed yet", language=language)


def _pending(events: list[Event], tail: list[Event], language: str = "en") -> list[str]:
    """The plan in progress after the last request, or the request itself if unanswered."""
    out = []
    # What was said after the request: assistant texts, and an earlier summary's pending tasks.
    said = [SEEN.sub("", e.text) if e.kind == "text" else e.text[max(find_section(e.text, "Pending tasks"), 0):]
            for e in tail if e.kind in ("text", "summary")]
    counters = [c for text in said for c in STEP.findall(text)]
    if counters and int(counters[-1][0]) < int(counters[-1][1]):
        k, n = counters[-1]
        plan = next((m.group(1) or m.group(2) for text in reversed(said) for m in [PLAN.search(text)] if m), None)
        out.append(tr("plan in progress: ({k}/{n}) steps done", language=language, k=k, n=n)
                   + (tr(". Plan: {plan}.", language=language, plan=plan) if plan else ""))
    last = _last_request(events)
    if last >= 0 and not (tail and tail[-1].kind == "text"):
        out.append(tr("finish: ", language=language) + one_line(events[last].text, 160))
    return out


def _current(events: list[Event], tail: list[Event], language: str = "en") -> list[str]:
    """The last thing said and done after the last request."""
    out = []
    text = next((e for e in reversed(tail) if e.kind == "text" and SEEN.sub("", e.text).strip()), None)
    if text:
        out.append(tr("last said: ", language=language) + one_line(SEEN.sub("", text.text), 200))
    call = next((e for e in reversed(tail) if e.kind == "call"), None)
    if call:
        target = call_command(call) or call_path(call)
        out.append(tr("last tool call: ", language=language) + call.tool
                   + (f" `{one_line(target, 120)}`" if target else ""))
    if not out and _last_request(events) >= 0:
        out.append(tr("starting on: ", language=language) + one_line(events[_last_request(events)].text, 160))
    return out
