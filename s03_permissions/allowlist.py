"""The allow-list: programs known only to read, each with the flags that make it write or run code.

    READ_ONLY[program] is None            any arguments are fine (ls, cat, grep, wc, echo)
    READ_ONLY[program] is check(name, args) -> None if read-only, else one line naming the flag
                                          (`sed -i`, `find -exec`, `git log --output`, `sort -o`)

A program missing here is not read-only: rm, unlink, tee, dd, cp, awk (its program can call system()),
curl. `args` are the command's words as they will reach the program, or None for a word known only
when it runs (`$x`, `$(…)`): a program with writing flags is not read-only when one of its words is None.

Example: READ_ONLY["sed"]("sed", ["-n", "1,5p", "a.txt"]) -> None
         READ_ONLY["sed"]("sed", ["-i", "s/a/b/", "a.txt"]) -> '`sed -i` edits files in place'
"""

from __future__ import annotations

import re

__all__ = ["ANY_ARGS", "READ_ONLY", "SAFE_ENV"]  # the rest are the checker's own steps

# Programs with no option that writes a file or runs another command: any arguments are fine.
ANY_ARGS = tuple("""
    ls cat head tail wc pwd echo printf grep egrep fgrep cd pushd popd true false : test [ exit
    basename dirname realpath readlink stat du df which whoami id uname printenv cut tr nl od cmp comm
    diff tac seq sleep expand unexpand fold fmt column paste join rev strings md5sum sha1sum sha256sum
    sha512sum cksum b2sum jq nproc locale type
""".split())  # noqa: SIM905
SAFE_ENV = ("LANG", "LANGUAGE", "TZ", "COLUMNS", "LINES", "NO_COLOR", "TERM")  # and LC_*


def flags_in(args, short="", long=()):
    """The first option among `args` that is one of the short letters (also inside -abc) or long names."""
    for arg in args:
        if arg == "--":
            return None
        if arg.startswith("--") and arg.split("=", 1)[0] in long:
            return arg.split("=", 1)[0]
        if re.fullmatch(r"-[A-Za-z]+\S*", arg) and (hit := next((c for c in arg[1:] if c in short), None)):
            return "-" + hit
    return None


def without(*flags, what):
    """A checker: read-only unless one of `flags` is given (and every argument is known)."""
    short = "".join(f[1] for f in flags if len(f) == 2)
    long = [f for f in flags if f.startswith("--")]

    def check(name, args):
        if None in args:
            return f"`{name}` gets an argument computed at run time, which could be a flag that writes"
        flag = flags_in(args, short, long)
        return f"`{name} {flag}` {what}" if flag else None
    return check


def operands(*, most, takes_value=""):
    """A checker: read-only with at most `most` file operands (`uniq in out` writes out)."""
    def check(name, args):
        if None in args:
            return f"`{name}` gets an argument computed at run time, which could be a flag that writes"
        files, k = [], 0
        while k < len(args):
            arg = args[k]
            k += 1 + (arg[:2] in {"-" + c for c in takes_value} and len(arg) == 2)
            if not arg.startswith("-") or arg == "-":
                files.append(arg)
        return f"`{name} {' '.join(files)}` writes its last file" if len(files) > most else None
    return check


FIND_WRITES = {"-exec": "runs a command on each file", "-execdir": "runs a command on each file",
               "-ok": "runs a command on each file", "-okdir": "runs a command on each file",
               "-delete": "deletes files", "-fprint": "writes a file", "-fprint0": "writes a file",
               "-fprintf": "writes a file", "-fls": "writes a file"}


def find(name, args):
    if None in args:
        return "`find` gets an argument computed at run time, which could be -delete or -exec"
    hit = next((a for a in args if a in FIND_WRITES), None)
    return f"`find {hit}` {FIND_WRITES[hit]}" if hit else None


def sed(name, args):
    if None in args:
        return "`sed` gets an argument computed at run time, which could be -i"
    if flag := flags_in([a for a in args if not a.startswith("-e")], "i", ("--in-place",)):
        return f"`sed {flag}` edits files in place"
    if flags_in(args, "f", ("--file",)):
        return "`sed -f` runs a script from a file"
    scripts = [a[2:] or b for a, b in zip(args, args[1:] + [""]) if a.startswith("-e")]
    scripts += [a.split("=", 1)[1] for a in args if a.startswith("--expression=")]
    if not scripts:
        scripts = [next((a for a in args if not a.startswith("-")), "")]
    for script in scripts:
        if what := sed_writes(script):
            return f"`sed '{script}'` {what}"
    return None


def sed_writes(script: str) -> str | None:
    """Why a sed script is not read-only (`w` writes, `e` runs a command), or None: sed's own grammar."""
    k, n = 0, len(script)
    while k < n:
        while k < n and script[k] in " \t\n;{}!,0123456789$+~":
            k += 1
        if k >= n:
            return None
        if script[k] in "/\\":  # an address /re/ or \cREc
            delim = script[k] if script[k] == "/" else script[k + 1:k + 2]
            k = skip(script, k + (1 if script[k] == "/" else 2), delim)
            while k < n and script[k] in "IM":
                k += 1
            continue
        cmd, k = script[k], k + 1
        if cmd in "wWe":
            return "writes a file (w)" if cmd in "wW" else "runs a command (e)"
        if cmd in "sy":
            if k >= n:
                return "could not be read as a sed script"
            delim = script[k]
            k = skip(script, skip(script, k + 1, delim), delim)
            flags = re.match(r"[gpiImMe0-9w]*", script[k:]).group() if cmd == "s" else ""
            if "w" in flags or "e" in flags:
                return "writes a file (s///w)" if "w" in flags else "runs a command (s///e)"
            k += len(flags)
        elif cmd in "aicrRbtT:":  # text, a file to read or a label: up to the end of the line
            k = script.find("\n", k) % (n + 1) if "\n" in script[k:] else n
        elif cmd not in "pPdDnNgGhHxlzF=qQ#":
            return "could not be read as a sed script"
    return None


def skip(script, k, delim):
    """The index just past the next unescaped `delim` (sed's s/a/b/, /re/)."""
    while k < len(script) and script[k] != delim:
        k += 2 if script[k] == "\\" else 1
    return k + 1


GIT_READS = tuple("""status log diff show blame annotate shortlog describe rev-parse rev-list ls-files
    ls-tree cat-file grep merge-base name-rev for-each-ref show-ref count-objects var version check-ignore
    whatchanged cherry range-diff diff-tree diff-files diff-index show-branch""".split())  # noqa: SIM905
GIT_SHOWS = ("stash list", "stash show", "worktree list", "reflog", "reflog show", "remote",
                       "remote -v", "remote show", "remote get-url", "config get", "config list")
GIT_LISTS = {  # subcommand: (flags that only list, flags after which a name only filters)
    "branch": (("-a", "-r", "-v", "-vv", "-l", "--list", "--all", "--remotes", "--verbose", "--show-current",
                "--no-color", "--color", "--sort", "--format", "--merged", "--no-merged", "--contains",
                "--no-contains", "--points-at", "--column", "--no-column"),
               ("-l", "--list", "--merged", "--no-merged", "--contains", "--no-contains", "--points-at")),
    "tag": (("-l", "--list", "-n", "--sort", "--format", "--contains", "--no-contains", "--merged",
             "--no-merged", "--points-at", "--column", "--no-column"),
            ("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at")),
}


def git(name, args):
    if None in args:
        return "`git` gets an argument computed at run time, which could be a subcommand that writes"
    k = 0
    while k < len(args) and args[k].startswith("-"):
        if args[k] == "-c" or args[k].startswith("--config-env"):
            return "`git -c` sets configuration, which can run commands"
        k += 2 if args[k] in ("-C", "--git-dir", "--work-tree", "--namespace") else 1
    sub, rest = (args[k], args[k + 1:]) if k < len(args) else ("", [])
    if sub in GIT_READS:
        if flag := flags_in(rest, "O" if sub == "grep" else "", ("--output", "--open-files-in-pager")):
            return f"`git {sub} {flag}` " + ("writes a file" if flag == "--output" else "runs a program")
        return None
    if sub in GIT_LISTS:
        lists, filters = GIT_LISTS[sub]
        flags = [a.split("=")[0] for a in rest if a.startswith("-")]
        if all(f in lists or re.fullmatch(r"-n\d*", f) for f in flags) and (
                len(flags) == len(rest) or set(filters) & set(flags)):
            return None
        return f"`git {' '.join([sub] + rest)}` changes {'branches' if sub == 'branch' else 'tags'}"
    if " ".join([sub] + rest[:1]) in GIT_SHOWS:
        return None
    if sub == "config" and {"--get", "--get-all", "--get-regexp", "--list", "-l"} & set(rest) and not (
            {"--add", "--unset", "--unset-all", "--replace-all", "--edit", "-e"} & set(rest)):
        return None
    return f"`git {sub}` is not a read-only git command" if sub else None


def pytest(name, args):
    """A test runner runs the project's code: allowed, as a choice (see the module's Not modeled)."""
    return without("--junitxml", "--junit-xml", "--resultlog", "--report-log", "--basetemp", "--pastebin",
                   what="writes a file")(name, args)


def interpreter(name, args):
    if args[:2] == ["-m", "pytest"]:
        return pytest("pytest", args[2:])
    if args and all(a in ("--version", "-V", "-v", "--help", "-h") for a in args):
        return None
    flag = next((a for a in args if a in ("-c", "-e", "-E", "-p", "-pe", "-pi", "-i", "-r")), None)
    if flag:
        return f"`{name} {flag}` runs code"
    return f"`{name}` runs a program" if args else f"`{name}` runs code from its input"


READ_ONLY = {name: None for name in ANY_ARGS} | {
    "sed": sed, "find": find, "git": git, "pytest": pytest, "py.test": pytest,
    "sort": without("-o", "--output", "--compress-program", what="writes a file"),
    "uniq": operands(most=1, takes_value="fsw"),
    "rg": without("--pre", "--pre-glob", what="runs a program on each file"),
    "tree": without("-o", what="writes a file"),
    "file": without("-C", "--compile", what="writes a file"),
    "date": without("-s", "--set", what="sets the clock"),
    **{p: interpreter for p in ("python", "python3", "node", "perl", "ruby", "php")},
}
