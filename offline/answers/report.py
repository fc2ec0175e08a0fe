"""The final answer for a grammar request: what really happened, read back from the tool results.

    each action ──> its call in the history ──> its result ──> one line (or a few)
       write    "hello.py: written, 1 line: print("Hello, World!")"
       run/git  the command's exit status and its real output (the first OUTPUT_LINES lines, output.py)
       count    the number the tool printed (`wc`), or counted in the text it read
       explain  what the file it read holds: its docstring, what it defines, what it prints
       files, loc, lines, size, biggest, touch, read: report_files.py (counts of files, lines of
                code, a file's lines, sizes, an empty file), from the same real output
       pwd, a version, the date: the command's first output line

A step is failed only when its result says so by an error flag or an exit status,
never because of words inside a file (a file that says "raise ValueError" was read fine).

Example: final([Action("count", ..., "a.py", {"unit": "lines"})], events with result "12\\n", ...)
  -> "Done.\\n- a.py has 12 lines."

Not modeled: output past OUTPUT_LINES lines (the answer says how many it left out).
"""

from __future__ import annotations

import re

from lessonkit.i18n import tr, trn

from ..conversation.calls import DEFINES, call_verb, describe, error_line, listing
from ..conversation.output import EXIT, output, plain
from ..conversation.reading import Event
from . import files as report_files

# What the operating system says when it refuses a write (s03's sandbox, say), at the end of a line:
# a command that exits 0 after one of these (`unset 'a[$(touch x)]'`) did not do what it was asked.
REFUSED = re.compile(r"^\S.*: (Read-only file system|Permission denied|Operation not permitted)$", re.MULTILINE)


def failed(result: Event, call: Event | None = None) -> bool:
    """A result that reports a failure: flagged is_error, a non-zero exit status in its text, or a command's
    output with a write the system refused.

    A tool that flags nothing (a course's own tools) still fails when a call other than a
    read answers with an error line first ("Error: text not found"); a read's text is
    the file's, so words in it never count. Example: 'x\n[exit code 2]' -> True
    """
    if result.is_error or any(code != "0" for code in EXIT.findall(result.text[-300:])):
        return True
    if call is not None and call_verb(call) == "ran" and REFUSED.search(result.text):
        return True
    return (call is not None and call_verb(call) != "read"
            and bool(re.match(r"\s*(error\b|traceback \(most recent call last\))", result.text, re.IGNORECASE)))


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
    unit = tr("line", language=language) if lines == 1 else tr("lines", language=language)
    return tr("{path} ({lines} {unit}): {parts}.", language=language, path=path, lines=lines, unit=unit,
              parts=tr("; ", language=language).join(parts))


def line(action, call: Event | None, result: Event | None, language: str = "en") -> str:
    """One answer line for an action, from its call's result, in `language` ('en' or 'zh')."""
    label = f"`{action.calls[0][1]['command']}`" if action.calls[0][0] == "bash" and action.kind != "test" \
        else action.target
    if result is None:
        return tr("- {label}: not run", language=language, label=label) if call is None else \
            tr("- {label}: no result in the history", language=language, label=label)
    if result.text.startswith("[Previous"):
        return tr("- {label}: done earlier (its result was compacted away)", language=language, label=label)
    text = result.text
    if failed(result, call) and not (action.kind == "find" and not plain(text)):
        code = EXIT.findall(text)
        status = tr(" (exit code {code})", language=language, code=code[-1]) if code else ""
        return tr("- {label}: error: {message}{status}", language=language, label=label, status=status,
                   message=error_line(EXIT.sub('', text))[:200] or tr("(no message)", language=language))
    kind = action.kind
    if kind in report_files.KINDS:
        return report_files.line(action, text, language)
    if kind == "run" and action.extra.get("about") and plain(text):  # pwd, a version, the date: its answer
        first = plain(text).splitlines()[0]
        return tr("- the current folder is {path}", language=language, path=first) \
            if action.extra["about"] == "pwd" else tr("- {label}: {about}", language=language, label=label, about=first)
    if kind == "write":
        content = action.calls[0][1]["content"]
        return tr("- {path}: written, {about}", language=language, path=action.target,
                  about=describe(content, language))
    if kind == "mkdir":
        return tr("- {path}/: folder made", language=language, path=action.target)
    if kind in ("move", "copy"):
        if kind == "copy":
            return tr("- {path}: copied to {dest}", language=language, path=action.target, dest=action.extra["dest"])
        return tr("- {path}: moved to {dest}", language=language, path=action.target, dest=action.extra["dest"])
    if kind == "delete":
        return tr("- {path}: deleted", language=language, path=action.target)
    if kind == "purge":  # `find ... -print -delete`: a deleted file a line
        files = [f.removeprefix("./") for f in plain(text).splitlines() if f.strip()]
        return trn("- deleted {n} {ext} file: {names}", "- deleted {n} {ext} files: {names}", len(files),
                   language=language, ext=action.extra["ext"],
                  names=", ".join(files[:30]) or tr("(none)", language=language))
    if kind == "append":
        return tr("- {path}: appended the line {line}", language=language, path=action.target,
                  line=repr(action.extra["line"]))
    if kind == "replace":
        args = action.calls[0][1]
        said = text.strip().splitlines()[0][:120] if text.strip() else tr("done", language=language)
        return tr("- {path}: replaced `{old}` with `{new}` ({said})", language=language, path=action.target,
                  old=args["old"], new=args["new"], said=said)
    if kind == "count":
        unit = action.extra["unit"]
        if action.calls[0][0] == "bash":
            number = re.search(r"\d+", plain(text))
            n = int(number.group()) if number else 0 if unit == "lines" and not plain(text) else None  # sed: none
        else:
            body = re.sub(r"\n?\[\.\.\. lines \d+-\d+ of (\d+) not shown.*\]$", "", text) \
                if text.strip() not in ("(empty)", "(empty file)") else ""
            n = {"lines": line_count(body), "words": len(body.split()), "characters": len(body)}[unit]
        unit = unit.rstrip("s") if n == 1 else unit
        return tr("- {path} has {n} {unit}.", language=language, path=action.target, n=n, unit=UNITS[unit](language)) \
            if n is not None \
            else tr("- {label}: {about}", language=language, label=label, about=describe(text, language))
    if kind == "find" and action.extra.get("unit"):   # how often a text appears in one file: wc's number
        found, path, what = plain(text).splitlines(), action.extra["path"], repr(action.target)
        if not found or not found[-1].strip().isdigit() or len(found) > 1:   # grep's error, then wc's 0
            return tr("- {label}: error: {message}", language=language, label=label,
                      message=error_line(text)[:200] or tr("(no message)", language=language))
        n = int(found[-1])
        return (trn("- {text} appears {n} time in {path}", "- {text} appears {n} times in {path}", n,
                    language=language, text=what, path=path) if action.extra["unit"] == "times" else
                trn("- {n} line of {path} contains {text}", "- {n} lines of {path} contain {text}", n,
                    language=language, text=what, path=path))
    if kind == "find" and action.extra.get("path"):   # the lines of one file that have a text (grep -n)
        path, what, found = action.extra["path"], repr(action.target), plain(text)
        if not found:
            return tr("- {path} does not mention {text}", language=language, path=path, text=what)
        n = len(found.splitlines())
        return trn("- {path}: {n} line mentions {text}:", "- {path}: {n} lines mention {text}:", n,
                   language=language, path=path, text=what) \
            + "\n" + output(text, 40, language)
    if kind == "find":
        files = [f.removeprefix("./") for f in plain(text).splitlines() if f.strip()]
        if not files:
            return tr("- no file mentions {text}", language=language, text=repr(action.target))
        fields = {"n": len(files), "text": repr(action.target), "files": ", ".join(files[:20])}
        return tr("- {n} files mention {text}: {files}", language=language, **fields) if len(files) != 1 \
            else tr("- {n} file mentions {text}: {files}", language=language, **fields)
    if kind == "list":
        where = tr("this folder", language=language) if action.target == "." else action.target
        ext = action.extra.get("ext")
        if ext:  # a listing of everything, or `find` of this kind: report the files of the kind asked for
            names = [n.removeprefix("./") for n in listing(text, 10**6).partition(": ")[2].split(", ")
                     if n.rstrip("/").endswith(ext)]
            fields = {"where": where, "n": len(names), "ext": ext,
                      "names": ", ".join(names[:30]) or tr("(none)", language=language)}
            return tr("- {where}: {n} {ext} files: {names}", language=language, **fields) if len(names) != 1 \
                else tr("- {where}: {n} {ext} file: {names}", language=language, **fields)
        return tr("- {label}: {about}", language=language, label=where, about=listing(text, 30, language))
    if kind == "show":
        return tr("- {label}: {about}", language=language, label=action.target, about=describe(text, language)) \
            + "\n" + output(text, 40, language)
    if kind == "explain":
        return "- " + explain(action.target, text, language)
    if kind == "git" and action.extra.get("what") == "branch":
        name = plain(text)
        return (tr("- the current branch is {name}", language=language, name=name) if name
                else tr("- no branch: HEAD is detached", language=language))
    out = plain(text)
    if not out:
        return tr("- {label}: done (exit 0, no output)", language=language, label=label)
    if out.startswith("<persisted-output>"):  # s05 saved a large output to disk: say where
        where = re.search(r"Full output: (\S+)", out)
        return tr("- {label}: large output saved to {where}", language=language, label=label,
                   where=where.group(1) if where else tr("disk", language=language))
    if re.match(r"\s*(ls|find|tree)\b[^|]*(\|\s*sort\b[^|]*)?$", action.calls[0][1].get("command", "")) \
            and "-exec" not in action.calls[0][1]["command"]:  # a listing, not `ls | wc -l`
        return tr("- {label}: {about}", language=language, label=label, about=listing(out, 30, language))
    if kind == "test":  # the runner's summary line ("3 passed in 0.1s", "OK", "FAILED (failures=1)")
        last = [ln.strip() for ln in out.splitlines() if ln.strip()][-1]
        return (tr("- {label}: {about}", language=language, label=label, about=last) + "\n"
                + output(out, language=language))
    said = tr("- {label}: {about}", language=language, label=label, about=describe(out, language))
    return said if len(out.splitlines()) == 1 else said + "\n" + output(out, language=language)


def line_count(text: str) -> int:
    """Lines as people count them: a last line without a newline counts. Example: 'a' -> 1; 'a\\n' -> 1; '' -> 0"""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


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
        head = (tr("Ran {n} commands.", language=language, n=n) if n > 1
                else tr("Ran {n} command.", language=language, n=n))
    elif n == 1:
        where = tr("this folder", language=language) if actions[0].target == "." else actions[0].target
        head = heads(actions[0], where, language).get(actions[0].kind) or tr("Done.", language=language)
    else:
        head = tr("Done: {n} steps.", language=language, n=n)
    means = next((a.extra["means"] for a in actions if a.extra.get("means")), None)
    if means:  # "it" was taken to mean a file from earlier: say which
        from ..grammar.refs import said

        head += "\n" + said(*means, language=language)
    return head + "\n" + "\n".join(lines)


def heads(a, where: str, language: str = "en") -> dict[str, str]:
    """The head line of a one-action answer, by the action's kind. Example: write a.py -> "Wrote a.py." """
    return {**report_files.heads(a, language),"write": tr("Wrote {a.target}.", language=language, a=a),
            "mkdir": tr("Made the folder {a.target}.", language=language, a=a),
            "run": tr("Ran 1 command.", language=language),
            "list": tr("Listed {where}.", language=language, where=where),
            "show": tr("Here is {a.target}.", language=language, a=a),
            "replace": tr("Edited {a.target}.", language=language, a=a),
            "explain": tr("I read {a.target}.", language=language, a=a),
            "count": tr("Counted.", language=language), "find": tr("Searched.", language=language),
            "git": tr("Asked git.", language=language), "test": tr("Ran the tests.", language=language),
            "delete": tr("Deleted {a.target}.", language=language, a=a),
            "move": tr("Moved {a.target}.", language=language, a=a),
            "copy": tr("Copied {a.target}.", language=language, a=a),
            "append": tr("Appended to {a.target}.", language=language, a=a)}


UNITS = {"line": lambda language: tr("line", language=language),
         "lines": lambda language: tr("lines", language=language),
         "word": lambda language: tr("word", language=language),
         "words": lambda language: tr("words", language=language),
         "character": lambda language: tr("character", language=language),
         "characters": lambda language: tr("characters", language=language)}
