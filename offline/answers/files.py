"""Answer lines for the grammar's entries about files as a whole, read back from the real tool output.

    files    `find ... | sort`        a path a line  ->  "- this folder: 3 .py files, sub-folders included ...: a.py"
    loc      `find ... grep -Hc ''` "./a.py:7"      ->  "- this folder: 42 lines in 3 .py files ...: a.py (30), ..."
    lines    `head` / `tail` / `sed`  the lines      ->  "- a.py, the first 5 lines:" and the lines, indented
             (or a read: the file, cut here as asked)
    size     `wc -c < a.py`           "1234"         ->  "- a.py is 1234 bytes (1.2 KB)."
    biggest  `find ... | xargs wc -c` "  120 ./a.py" ->  "- the biggest file in this folder is a.py (120 bytes) ..."
    touch    `touch a && wc -c < a`   "0"            ->  "- a.txt: there now, empty (0 bytes)"
    read     a read                   the file       ->  "- a.py: 12 lines, defines f" (as the policy answers a read)

Every number is counted from the output the tool printed (a path a line, `wc`'s own numbers;
its "total" line is left out and the files summed), never assumed.

Example: line(Action("size", ..., "a.py"), "1234\\n") -> "- a.py is 1234 bytes (1.2 KB)."

Not modeled: file names with a newline in them.
"""

from __future__ import annotations

import re

from lessonkit.i18n import tr

from ..conversation.calls import describe
from ..conversation.output import EXIT, output, plain

KINDS = ("files", "loc", "lines", "size", "biggest", "touch", "read")
NAMES_SHOWN = 30  # files named in a count's answer
SHOWN_LINES = 200  # lines of a file shown at most


def _where(root: str, language: str) -> str:
    return tr("this folder", language=language) if root == "." else root


def _count(n: int, ext: str, language: str) -> str:
    """Example: (3, '.py') -> '3 .py files'; (1, '') -> '1 file' ('3 个 .py 文件' in zh)"""
    if ext:
        return tr("{n} {ext} file", language=language, n=n, ext=ext) if n == 1 else \
            tr("{n} {ext} files", language=language, n=n, ext=ext)
    return tr("{n} file", language=language, n=n) if n == 1 else tr("{n} files", language=language, n=n)


def _names(names: list[str], language: str) -> str:
    more = tr(" (+{n} more)", language=language, n=len(names) - NAMES_SHOWN) if len(names) > NAMES_SHOWN else ""
    return (", ".join(names[:NAMES_SHOWN]) or tr("(none)", language=language)) + more


def size_text(n: int, language: str = "en") -> str:
    """Example: 120 -> '120 bytes'; 1536 -> '1536 bytes (1.5 KB)' ('1536 字节（1.5 KB）' in zh)"""
    exact = tr("1 byte", language=language) if n == 1 else tr("{n} bytes", language=language, n=n)
    if n < 1024:
        return exact
    human = f"{n / 1024:.1f} KB" if n < 1024 ** 2 else f"{n / 1024 ** 2:.1f} MB"
    return tr("{bytes} ({human})", language=language, bytes=exact, human=human)


def wc_rows(text: str) -> list[tuple[int, str]]:
    """(number, path) per file from `wc` output, its "total" lines left out.

    Example: '  3 ./a.py\\n  4 ./b.py\\n  7 total' -> [(3, 'a.py'), (4, 'b.py')]
    """
    rows = []
    for m in re.finditer(r"^\s*(\d+)\s+(.+?)\s*$", EXIT.sub("", text), re.MULTILINE):
        if m.group(2) != "total":
            rows.append((int(m.group(1)), m.group(2).removeprefix("./")))
    return rows


def count_rows(text: str) -> list[tuple[int, str]]:
    """(lines, path) per file from `grep -Hc ''` output. Example: './a.py:3\\n./b.py:4' -> [(3, 'a.py'), (4, 'b.py')]"""
    return [(int(m.group(2)), m.group(1).removeprefix("./"))
            for m in re.finditer(r"^(.+):(\d+)\s*$", EXIT.sub("", text), re.MULTILINE)]


def _lines_line(action, text: str, language: str) -> str:
    """The lines asked for and a header saying which they are."""
    path, end, n, to = action.target, action.extra["end"], action.extra["n"], action.extra["to"]
    body = EXIT.sub("", text)
    if action.calls[0][0] == "read":  # the whole file was read: cut it here
        body = re.sub(r"\n?\[\.\.\. [^\n]*\]\s*$", "", body)
        whole = body.splitlines()
        lines = whole[:n] if end == "first" else whole[-n:] if end == "last" else whole[n - 1:to]
        sure = True
    else:  # a tool that strips the output's end may drop blank last lines: then the count is not sure
        lines = [] if not plain(body) else body.removesuffix("\n").split("\n")
        sure = body.endswith("\n")
    if not lines:
        return tr("- {path} has no lines {a}-{b} (it is shorter)", language=language, path=path, a=n, b=to) \
            if end == "range" else tr("- {path} is empty", language=language, path=path)
    fields = {"path": path, "n": len(lines) if sure else n}
    if end == "range":
        last = n + len(lines) - 1
        head = tr("- {path}, line {a}:", language=language, path=path, a=n) if last == n else \
            tr("- {path}, lines {a}-{b}:", language=language, path=path, a=n, b=last)
    elif len(lines) < n and sure:
        head = tr("- {path} has only one line:", language=language, path=path) if len(lines) == 1 else \
            tr("- {path} has only {n} lines:", language=language, path=path, n=len(lines))
    elif len(lines) == 1 and n == 1:
        head = tr("- {path}, the first line:", language=language, path=path) if end == "first" else \
            tr("- {path}, the last line:", language=language, path=path)
    else:
        head = tr("- {path}, the first {n} lines:", language=language, **fields) if end == "first" else \
            tr("- {path}, the last {n} lines:", language=language, **fields)
    return head + "\n" + output("\n".join(lines), SHOWN_LINES, language)


def line(action, text: str, language: str = "en") -> str:
    """The answer line for a files-as-a-whole action from its tool's real output (see the table above)."""
    kind, target = action.kind, action.target
    where = _where(target, language)
    if kind == "read":
        return tr("- {label}: {about}", language=language, label=target,
                  about=describe(text, language) if plain(text) else tr("empty", language=language))
    if kind == "lines":
        return _lines_line(action, text, language)
    if kind == "files":
        files = [f.removeprefix("./") for f in plain(text).splitlines() if f.strip()]
        return tr("- {where}: {count}, sub-folders included (hidden ones skipped): {names}", language=language,
                  where=where, count=_count(len(files), action.extra.get("ext", ""), language),
                  names=_names(files, language))
    if kind == "loc":
        rows = sorted(count_rows(text) or wc_rows(text), key=lambda row: -row[0])
        exts = action.extra.get("exts", [])
        fields = {"where": where, "total": sum(n for n, _ in rows),
                  "count": _count(len(rows), exts[0] if len(exts) == 1 else "", language),
                  "names": _names([f"{name} ({n})" for n, name in rows], language)}
        return tr("- {where}: {total} lines of code in {count}, sub-folders included (hidden ones skipped): {names}",
                  language=language, **fields) if len(exts) > 1 else \
            tr("- {where}: {total} lines in {count}, sub-folders included (hidden ones skipped): {names}",
               language=language, **fields)
    numbers = re.findall(r"\d+", plain(text))
    if kind == "size" and numbers:
        return tr("- {path} is {size}.", language=language, path=target, size=size_text(int(numbers[-1]), language))
    if kind == "touch" and numbers:
        n = int(numbers[-1])
        return tr("- {path}: there now, empty (0 bytes)", language=language, path=target) if n == 0 else \
            tr("- {path}: it already existed ({size}); its content was left as it was", language=language,
               path=target, size=size_text(n, language))
    if kind == "biggest":
        rows = sorted(wc_rows(text), key=lambda row: row[0], reverse=action.extra["which"] == "biggest")
        if not rows:
            return tr("- {where} has no files (hidden ones skipped)", language=language, where=where)
        fields = {"where": where, "path": rows[0][1], "size": size_text(rows[0][0], language)}
        said = tr("- the biggest file in {where} is {path} ({size})", language=language, **fields) \
            if action.extra["which"] == "biggest" else \
            tr("- the smallest file in {where} is {path} ({size})", language=language, **fields)
        others = ", ".join(f"{name} ({size_text(n, language)})" for n, name in rows[1:4])
        return said + (tr("; next: {others}", language=language, others=others) if others else "")
    return tr("- {label}: {about}", language=language, label=f"`{action.calls[0][1].get('command', target)}`",
              about=describe(text, language))


def heads(a, language: str = "en") -> dict[str, str]:
    """The head line of a one-action answer for these kinds."""
    return {"files": tr("Counted.", language=language), "loc": tr("Counted.", language=language),
            "lines": tr("Here is {a.target}.", language=language, a=a),
            "size": tr("Measured {path}.", language=language, path=a.target),
            "biggest": tr("Compared the file sizes.", language=language),
            "touch": tr("Made sure {path} exists.", language=language, path=a.target),
            "read": tr("Read {path}.", language=language, path=a.target)}
