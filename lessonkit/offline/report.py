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


def output(text: str, limit: int = OUTPUT_LINES) -> str:
    """A command's output, indented, without the exit marker. Example: 'a\\nb' -> '    a\\n    b'"""
    lines = [ln for ln in EXIT.sub("", text).rstrip().splitlines()]
    more = f"\n    (+{len(lines) - limit} more lines)" if len(lines) > limit else ""
    return "\n".join("    " + ln for ln in lines[:limit]) + more


def explain(path: str, text: str) -> str:
    """What a file does, from its text alone. Example: 'def f():\\n    print("hi")' -> 'defines f; prints "hi"'"""
    parts = []
    doc = re.match(r'\s*(?:#!.*\n)?\s*(?:"""|\'\'\'|//|#|/\*)\s*(.+)', text)
    said = doc.group(1).strip(" \"'*/") if doc else ""
    if said:
        parts.append(f"it says of itself: {said}")
    names = list(dict.fromkeys(DEFINES.findall(text)))
    if names:
        parts.append("it defines " + ", ".join(names[:8]) + (f" (+{len(names) - 8} more)" if len(names) > 8 else ""))
    imports = sorted(set(re.findall(r"^\s*(?:import|from)\s+([\w.]+)", text, re.MULTILINE)))
    if imports:
        parts.append("it imports " + ", ".join(imports[:8]))
    printed = re.findall(r"(?:print|console\.log|puts|echo|fmt\.Println|println!)\s*\(?\s*([\"'][^\"'\n]*[\"'])", text)
    if printed:
        parts.append("it prints " + ", ".join(dict.fromkeys(printed[:4])))
    if re.search(r"__name__\s*==\s*['\"]__main__['\"]", text):
        parts.append("it runs as a script (it has a __main__ block)")
    lines = len(text.splitlines())
    if not parts:
        first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        parts.append(f"it starts with: {first[:100]}" if first else "it is empty")
    return f"{path} ({lines} line{'s' * (lines != 1)}): " + "; ".join(parts) + "."


def line(action, call: Event | None, result: Event | None) -> str:
    """One answer line for an action, from its call's result."""
    label = f"`{action.calls[0][1]['command']}`" if action.calls[0][0] == "bash" and action.kind != "test" \
        else action.target
    if result is None:
        return f"- {label}: " + ("not run" if call is None else "no result in the history")
    if result.text.startswith("[Previous"):
        return f"- {label}: done earlier (its result was compacted away)"
    text = result.text
    if failed(result, call) and not (action.kind == "find" and not plain(text)):
        code = EXIT.findall(text)
        status = f" (exit code {code[-1]})" if code else ""
        return f"- {label}: error: {error_line(EXIT.sub('', text))[:200] or '(no message)'}{status}"
    kind = action.kind
    if kind == "write":
        content = action.calls[0][1]["content"]
        return f"- {action.target}: written, {describe(content)}"
    if kind == "mkdir":
        return f"- {action.target}/: folder made"
    if kind in ("move", "copy"):
        return f"- {action.target}: {'copied' if kind == 'copy' else 'moved'} to {action.extra['dest']}"
    if kind == "delete":
        return f"- {action.target}: deleted"
    if kind == "append":
        return f"- {action.target}: appended the line {action.extra['line']!r}"
    if kind == "replace":
        args = action.calls[0][1]
        said = text.strip().splitlines()[0][:120] if text.strip() else "done"
        return f"- {action.target}: replaced `{args['old']}` with `{args['new']}` ({said})"
    if kind == "count":
        unit = action.extra["unit"]
        if action.calls[0][0] == "bash":
            number = re.search(r"\d+", text)
            n = int(number.group()) if number else None
        else:
            body = re.sub(r"\n?\[\.\.\. lines \d+-\d+ of (\d+) not shown.*\]$", "", text)
            n = {"lines": len(body.splitlines()), "words": len(body.split()), "characters": len(body)}[unit]
        unit = unit.rstrip("s") if n == 1 else unit
        return f"- {action.target} has {n} {unit}." if n is not None else f"- {label}: {describe(text)}"
    if kind == "find":
        files = [f.removeprefix("./") for f in plain(text).splitlines() if f.strip()]
        if not files:
            return f"- no file mentions {action.target!r}"
        verb = "files mention" if len(files) != 1 else "file mentions"
        return f"- {len(files)} {verb} {action.target!r}: {', '.join(files[:20])}"
    if kind == "list":
        where = "this folder" if action.target == "." else action.target
        ext = action.extra.get("ext")
        if ext:  # the listing had everything: report the files of the kind asked for
            names = [n for n in listing(text, 10**6).partition(": ")[2].split(", ") if n.rstrip("/").endswith(ext)]
            return f"- {where}: {len(names)} {ext} file{'s' * (len(names) != 1)}: {', '.join(names[:30]) or '(none)'}"
        return f"- {where}: {listing(text, 30)}"
    if kind == "show":
        return f"- {action.target}: {describe(text)}\n" + output(text, 40)
    if kind == "explain":
        return "- " + explain(action.target, text)
    if kind == "git" and action.extra.get("what") == "branch":
        name = plain(text)
        return f"- the current branch is {name}" if name else "- no branch: HEAD is detached"
    out = plain(text)
    if not out:
        return f"- {label}: done (exit 0, no output)"
    if out.startswith("<persisted-output>"):  # s05 saved a large output to disk: say where
        where = re.search(r"Full output: (\S+)", out)
        return f"- {label}: large output saved to {where.group(1) if where else 'disk'}"
    if re.match(r"\s*(ls|find|tree)\b", action.calls[0][1].get("command", "")):
        return f"- {label}: {listing(out, 30)}"
    if kind == "test":  # the runner's summary line ("3 passed in 0.1s", "OK", "FAILED (failures=1)")
        last = [ln.strip() for ln in out.splitlines() if ln.strip()][-1]
        return f"- {label}: {last}\n{output(out)}"
    if len(out.splitlines()) == 1:
        return f"- {label}: {describe(out)}"
    return f"- {label}: {describe(out)}\n{output(out)}"


def final(actions: list, matched: list, *, stopped: Event | None = None) -> str:
    """The end_turn answer: a head line, then one line per action.

    `matched` holds (call, result) per action (None where the history shows none).
    """
    compacted = Event("user", "result", "[Previous: compacted]")  # a call a summary replaced
    lines = [line(a, c, r if c is not None or stopped is not None else compacted)
             for a, (c, r) in zip(actions, matched)]
    bad = sum(r is not None and failed(r, c) and not (a.kind == "find" and not plain(r.text))
              for a, (c, r) in zip(actions, matched))
    if stopped is not None:
        head = (f"Stopped: {stopped.tool} was not allowed: {stopped.text.strip().splitlines()[0][:200]}. "
                "I did not go on with the rest of the plan.")
    elif bad and bad == len(actions):
        head = "That did not work." if len(actions) == 1 else f"None of the {len(actions)} steps worked."
    elif bad:
        head = f"Done, but {bad} of {len(actions)} steps failed."
    elif all(a.kind == "run" for a in actions):
        head = f"Ran {len(actions)} command{'s' * (len(actions) > 1)}."
    elif len(actions) == 1:
        where = "this folder" if actions[0].target == "." else actions[0].target
        head = HEADS.get(actions[0].kind, "Done.").format(a=actions[0], where=where)
    else:
        head = f"Done: {len(actions)} steps."
    return head + "\n" + "\n".join(lines)


HEADS = {"write": "Wrote {a.target}.", "mkdir": "Made the folder {a.target}.", "run": "Ran 1 command.",
         "list": "Listed {where}.", "show": "Here is {a.target}.", "replace": "Edited {a.target}.",
         "explain": "I read {a.target}.", "count": "Counted.", "find": "Searched.", "git": "Asked git.",
         "test": "Ran the tests.", "delete": "Deleted {a.target}.", "move": "Moved {a.target}.",
         "copy": "Copied {a.target}.", "append": "Appended to {a.target}."}
