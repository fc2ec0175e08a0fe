"""The final answer for a grammar request: what really happened, read back from the tool results.

    each action ──> its call in the history ──> its result ──> one line (or a few)
       write    "hello.py: written, 1 line: print("Hello, World!")"
       run/git  the command's exit status and its real output (the first OUTPUT_LINES lines)
       count    the number the tool printed (`wc`), or counted in the text it read
       explain  what the file it read holds: its docstring, what it defines, what it prints

A step is failed only when its result says so by an error flag or an exit status,
never because of words inside a file (a file that says "raise ValueError" was read fine).

Example: final([Action("count", ..., "a.py", {"unit": "lines"})], events with result "12\\n", ...)
  -> "Done.\\n- a.py has 12 lines."

Not modeled: output past OUTPUT_LINES lines (the answer says how many it left out).
"""

from __future__ import annotations

import re

from ..i18n import tr
from .reading import DEFINES, Event, call_verb, describe, error_line, listing

OUTPUT_LINES = 12
EXIT = re.compile(r"\[exit[ _]code:? (-?\d+)\]")


def plain(text: str) -> str:
    """A result's text without the exit marker or an empty-output placeholder."""
    text = EXIT.sub("", text).strip()
    return "" if text in ("(no output)", "(empty)", "(empty file)") else text


def failed(result: Event, call: Event | None = None) -> bool:
    """A result that reports a failure: flagged is_error, or a non-zero exit status in its text.

    A tool that flags nothing (a course's own tools) still fails when a call other than a
    read answers with an error line first ("Error: text not found"); a read's text is
    the file's, so words in it never count. Example: 'x\n[exit code 2]' -> True
    """
    if result.is_error or any(code != "0" for code in EXIT.findall(result.text[-300:])):
        return True
    return (call is not None and call_verb(call) != "read"
            and bool(re.match(r"\s*(error\b|traceback \(most recent call last\))", result.text, re.IGNORECASE)))


def output(text: str, limit: int = OUTPUT_LINES, language: str = "en") -> str:
    """A command's output, indented, without the exit marker. Example: 'a\\nb' -> '    a\\n    b'"""
    lines = [ln for ln in EXIT.sub("", text).rstrip().splitlines()]
    more = "\n    " + tr("(+{n} more lines)", language=language, n=len(lines) - limit) if len(lines) > limit else ""
    return "\n".join("    " + ln for ln in lines[:limit]) + more


def explain(path: str, text: str, language: str = "en") -> str:
    """What a file does, from its text alone. Example: 'def f():\\n    print("hi")' -> 'defines f; prints "hi"'"""
    parts = []
    doc = re.match(r'\s*(?:#!.*\n)?\s*(?:"""|\'\'\'|//|#|/\*)\s*(.+)', text)
    said = doc.group(1).strip(" \"'*/") if doc else ""
    if said:
        parts.append(tr("it says of itself: {said}", language=language, said=said))
    names = list(dict.fromkeys(DEFINES.findall(text)))
    if names:
        more = tr(" (+{n} more)", language=language, n=len(names) - 8) if len(names) > 8 else ""
        parts.append(tr("it defines {names}{more}", language=language, names=", ".join(names[:8]), more=more))
    imports = sorted(set(re.findall(r"^\s*(?:import|from)\s+([\w.]+)", text, re.MULTILINE)))
    if imports:
        parts.append(tr("it imports {names}", language=language, names=", ".join(imports[:8])))
    printed = re.findall(r"(?:print|console\.log|puts|echo|fmt\.Println|println!)\s*\(?\s*([\"'][^\"'\n]*[\"'])", text)
    if printed:
        parts.append(tr("it prints {texts}", language=language, texts=", ".join(dict.fromkeys(printed[:4]))))
    if re.search(r"__name__\s*==\s*['\"]__main__['\"]", text):
        parts.append(tr("it runs as a script (it has a __main__ block)", language=language))
    lines = len(text.splitlines())
    if not parts:
        first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        parts.append(tr("it starts with: {first}", language=language, first=first[:100]) if first
                     else tr("it is empty", language=language))
    unit = tr("line" if lines == 1 else "lines", language=language)
    return tr("{path} ({lines} {unit}): {parts}.", language=language, path=path, lines=lines, unit=unit,
              parts=tr("; ", language=language).join(parts))


def line(action, call: Event | None, result: Event | None, language: str = "en") -> str:
    """One answer line for an action, from its call's result, in `language` ('en' or 'zh')."""
    def say(msgid: str, **fields) -> str:
        return tr(msgid, language=language, **fields)

    label = f"`{action.calls[0][1]['command']}`" if action.calls[0][0] == "bash" and action.kind != "test" \
        else action.target
    if result is None:
        return say("- {label}: not run", label=label) if call is None else \
            say("- {label}: no result in the history", label=label)
    if result.text.startswith("[Previous"):
        return say("- {label}: done earlier (its result was compacted away)", label=label)
    text = result.text
    if failed(result, call) and not (action.kind == "find" and not plain(text)):
        code = EXIT.findall(text)
        status = say(" (exit code {code})", code=code[-1]) if code else ""
        return say("- {label}: error: {message}{status}", label=label, status=status,
                   message=error_line(EXIT.sub('', text))[:200] or say("(no message)"))
    kind = action.kind
    if kind == "write":
        content = action.calls[0][1]["content"]
        return say("- {path}: written, {about}", path=action.target, about=describe(content, language))
    if kind == "mkdir":
        return say("- {path}/: folder made", path=action.target)
    if kind in ("move", "copy"):
        return say("- {path}: copied to {dest}" if kind == "copy" else "- {path}: moved to {dest}",
                   path=action.target, dest=action.extra["dest"])
    if kind == "delete":
        return say("- {path}: deleted", path=action.target)
    if kind == "append":
        return say("- {path}: appended the line {line}", path=action.target, line=repr(action.extra["line"]))
    if kind == "replace":
        args = action.calls[0][1]
        said = text.strip().splitlines()[0][:120] if text.strip() else "done"
        return say("- {path}: replaced `{old}` with `{new}` ({said})", path=action.target, old=args["old"],
                   new=args["new"], said=said)
    if kind == "count":
        unit = action.extra["unit"]
        if action.calls[0][0] == "bash":
            number = re.search(r"\d+", text)
            n = int(number.group()) if number else None
        else:
            body = re.sub(r"\n?\[\.\.\. lines \d+-\d+ of (\d+) not shown.*\]$", "", text)
            n = {"lines": len(body.splitlines()), "words": len(body.split()), "characters": len(body)}[unit]
        unit = unit.rstrip("s") if n == 1 else unit
        return say("- {path} has {n} {unit}.", path=action.target, n=n, unit=say(unit)) if n is not None \
            else f"- {label}: {describe(text, language)}"
    if kind == "find":
        files = [f.removeprefix("./") for f in plain(text).splitlines() if f.strip()]
        if not files:
            return say("- no file mentions {text}", text=repr(action.target))
        return say("- {n} files mention {text}: {files}" if len(files) != 1 else "- {n} file mentions {text}: {files}",
                   n=len(files), text=repr(action.target), files=", ".join(files[:20]))
    if kind == "list":
        where = say("this folder") if action.target == "." else action.target
        ext = action.extra.get("ext")
        if ext:  # the listing had everything: report the files of the kind asked for
            names = [n for n in listing(text, 10**6).partition(": ")[2].split(", ") if n.rstrip("/").endswith(ext)]
            return say("- {where}: {n} {ext} files: {names}" if len(names) != 1 else "- {where}: {n} {ext} file: {names}",
                       where=where, n=len(names), ext=ext, names=", ".join(names[:30]) or say("(none)"))
        return f"- {where}: {listing(text, 30, language)}"
    if kind == "show":
        return f"- {action.target}: {describe(text, language)}\n" + output(text, 40, language)
    if kind == "explain":
        return "- " + explain(action.target, text, language)
    if kind == "git" and action.extra.get("what") == "branch":
        name = plain(text)
        return say("- the current branch is {name}", name=name) if name else say("- no branch: HEAD is detached")
    out = plain(text)
    if not out:
        return say("- {label}: done (exit 0, no output)", label=label)
    if out.startswith("<persisted-output>"):  # s05 saved a large output to disk: say where
        where = re.search(r"Full output: (\S+)", out)
        return say("- {label}: large output saved to {where}", label=label,
                   where=where.group(1) if where else say("disk"))
    if re.match(r"\s*(ls|find|tree)\b", action.calls[0][1].get("command", "")):
        return f"- {label}: {listing(out, 30, language)}"
    if kind == "test":  # the runner's summary line ("3 passed in 0.1s", "OK", "FAILED (failures=1)")
        last = [ln.strip() for ln in out.splitlines() if ln.strip()][-1]
        return f"- {label}: {last}\n{output(out, language=language)}"
    if len(out.splitlines()) == 1:
        return f"- {label}: {describe(out, language)}"
    return f"- {label}: {describe(out, language)}\n{output(out, language=language)}"


def stopped_head(stopped: Event, language: str = "en") -> str:
    """The head of an answer whose plan a denied call stopped."""
    return tr("Stopped: {tool} was not allowed: {why}. I did not go on with the rest of the plan.",
              language=language, tool=stopped.tool, why=stopped.text.strip().splitlines()[0][:200])


def final(actions: list, matched: list, *, stopped: Event | None = None, language: str = "en") -> str:
    """The end_turn answer: a head line, then one line per action, in `language` ('en' or 'zh').

    `matched` holds (call, result) per action (None where the history shows none).
    """
    compacted = Event("user", "result", "[Previous: compacted]")  # a call a summary replaced
    lines = [line(a, c, r if c is not None or stopped is not None else compacted, language)
             for a, (c, r) in zip(actions, matched)]
    bad = sum(r is not None and failed(r, c) and not (a.kind == "find" and not plain(r.text))
              for a, (c, r) in zip(actions, matched))
    n = len(actions)
    if stopped is not None:
        head = stopped_head(stopped, language)
    elif bad and bad == n:
        head = tr("That did not work.", language=language) if n == 1 else \
            tr("None of the {n} steps worked.", language=language, n=n)
    elif bad:
        head = tr("Done, but {bad} of {n} steps failed.", language=language, bad=bad, n=n)
    elif all(a.kind == "run" for a in actions):
        head = tr("Ran {n} commands." if n > 1 else "Ran {n} command.", language=language, n=n)
    elif n == 1:
        where = tr("this folder", language=language) if actions[0].target == "." else actions[0].target
        head = tr(HEADS.get(actions[0].kind, "Done."), language=language, a=actions[0], where=where)
    else:
        head = tr("Done: {n} steps.", language=language, n=n)
    return head + "\n" + "\n".join(lines)


HEADS = {"write": "Wrote {a.target}.", "mkdir": "Made the folder {a.target}.", "run": "Ran 1 command.",
         "list": "Listed {where}.", "show": "Here is {a.target}.", "replace": "Edited {a.target}.",
         "explain": "I read {a.target}.", "count": "Counted.", "find": "Searched.", "git": "Asked git.",
         "test": "Ran the tests.", "delete": "Deleted {a.target}.", "move": "Moved {a.target}.",
         "copy": "Copied {a.target}.", "append": "Appended to {a.target}."}
