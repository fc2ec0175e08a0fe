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
    ls cat head tail wc pwd echo grep egrep fgrep cd pushd popd true false : exit
    basename dirname realpath readlink stat du df which whoami id uname printenv cut tr nl od cmp comm
    diff tac seq sleep expand unexpand fold fmt column paste join rev strings md5sum sha1sum sha256sum
    sha512sum cksum b2sum jq nproc locale type
""".split())  # noqa: SIM905
SAFE_ENV = ("LANG", "LANGUAGE", "TZ", "COLUMNS", "LINES", "NO_COLOR", "TERM")  # and LC_*


def long_match(arg: str, names) -> str | None:
    """The long option of `names` that `arg` spells, as getopt_long reads it: the whole name or any
    prefix of it (`--in` is `--in-place`, `--out=f` is `--output=f`); an ambiguous prefix is taken
    as each name it could be, so a writer is never missed. Example: ('--comp', ['--compile']) -> '--compile'"""
    given = arg.split("=", 1)[0]
    if not given.startswith("--") or len(given) < 3:
        return None
    return next((n for n in names if n == given), None) or next((n for n in names if n.startswith(given)), None)


def flags_in(args, short="", long=()):
    """The first option among `args` that is one of the short letters (also inside a cluster -abc, and
    after operands, as GNU programs read them) or long names (or an abbreviation of one), up to `--`.

    Example: flags_in(["f", "-no", "x"], "o") -> '-o';  flags_in(["--out=f"], "", ["--output"]) -> '--output'
    """
    for arg in args:
        if arg == "--":
            return None
        if arg.startswith("--") and (hit := long_match(arg, long)):
            return hit
        if re.fullmatch(r"-[A-Za-z0-9]+\S*", arg) and (hit := next((c for c in arg[1:] if c in short), None)):
            return "-" + hit
    return None


class Unknown(ValueError):
    """An option the allow-list does not know: the command asks (unknown means ask)."""


def getopt(args, *, short="", short_value="", long=(), long_value=()):
    """(options, operands) as a GNU program reads `args`: clustered short options (-ne 'w f' is -n and
    -e 'w f'), a value attached or in the next word, options after operands, `--` ending them, long
    options by any unambiguous prefix. An option it does not know raises Unknown.

    Example: getopt(["-ne", "p", "f"], short="n", short_value="e") -> ([('-n', None), ('-e', 'p')], ['f'])
    """
    opts, operands, k = [], [], 0
    while k < len(args):
        arg, k = args[k], k + 1
        if arg == "--":
            operands += args[k:]
            break
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            hits = [n for n in (*long, *long_value) if n == name] or [
                n for n in (*long, *long_value) if n.startswith(name)]
            if len(hits) != 1:
                raise Unknown(f"`{name}` is not an option it knows" if not hits else
                              f"`{name}` could be {' or '.join(hits)}")
            if hits[0] in long_value and not eq:
                if k >= len(args):
                    raise Unknown(f"`{name}` has no value")
                value, k = args[k], k + 1
            opts.append((hits[0], value if (eq or hits[0] in long_value) else None))
        elif arg.startswith("-") and arg != "-":
            for j, ch in enumerate(arg[1:], 1):
                if ch in short_value:
                    value = arg[j + 1:]
                    if not value:
                        if k >= len(args):
                            raise Unknown(f"`-{ch}` has no value")
                        value, k = args[k], k + 1
                    opts.append(("-" + ch, value))
                    break
                if ch not in short:
                    raise Unknown(f"`-{ch}` is not an option it knows")
                opts.append(("-" + ch, None))
        else:
            operands.append(arg)
    return opts, operands


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


def options(*, short="", short_value="", long=(), long_value=(), writes=(), most=None, what="writes a file"):
    """A checker that reads the options as the program does (`getopt`): read-only unless one of `writes`
    is given, an option it does not know is given (unknown means ask), or more than `most` operands
    (`uniq in out` writes out, also as `uniq in -- out`)."""
    def check(name, args):
        if None in args:
            return f"`{name}` gets an argument computed at run time, which could be a flag that writes"
        try:
            opts, files = getopt(args, short=short, short_value=short_value, long=long, long_value=long_value)
        except Unknown as exc:
            return f"`{name}`: {exc}, so it may write"
        if hit := next((o for o, _ in opts if o in writes), None):
            return f"`{name} {hit}` {what}"
        if most is not None and len(files) > most:
            return f"`{name} {' '.join(files)}` writes its last file"
        return None
    return check


FIND_WRITES = {"-exec": "runs a command on each file", "-execdir": "runs a command on each file",
               "-ok": "runs a command on each file", "-okdir": "runs a command on each file",
               "-delete": "deletes files", "-fprint": "writes a file", "-fprint0": "writes a file",
               "-fprintf": "writes a file", "-fls": "writes a file"}


FIND_READS = set("""-H -L -P -name -iname -path -ipath -wholename -iwholename -regex -iregex -regextype -type
    -xtype -maxdepth -mindepth -size -empty -mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -perm
    -user -group -uid -gid -nouser -nogroup -links -inum -samefile -lname -ilname -readable -writable
    -executable -print -print0 -printf -ls -prune -quit -not -a -and -o -or -true -false -depth -xdev -mount
    -follow -noleaf -daystart -fstype -used -help -version --help --version""".split())  # noqa: SIM905


def find(name, args):
    """find's expression: read-only unless a primary writes or runs (FIND_WRITES), or is one it does not
    know (unknown means ask; a value that starts with `-` is taken as a primary, and asks too)."""
    if None in args:
        return "`find` gets an argument computed at run time, which could be -delete or -exec"
    if hit := next((a for a in args if a in FIND_WRITES), None):
        return f"`find {hit}` {FIND_WRITES[hit]}"
    if hit := next((a for a in args if a.startswith("-") and a not in FIND_READS and not a.startswith("-newer")), None):
        return f"`find {hit}` is not a primary it knows, so it may write"
    return None


SED_LONG = ("--quiet", "--silent", "--debug", "--posix", "--regexp-extended", "--separate", "--sandbox",
            "--unbuffered", "--null-data", "--zero-terminated", "--follow-symlinks", "--binary", "--help",
            "--version", "--in-place")
SED_LONG_VALUE = ("--expression", "--file", "--line-length")


def sed(name, args):
    if None in args:
        return "`sed` gets an argument computed at run time, which could be -i"
    try:  # -i takes its suffix attached only: read as a flag, it is found in any cluster (-ni, -in)
        opts, operands_ = getopt(args, short="nErsuzbi", short_value="efl", long=SED_LONG, long_value=SED_LONG_VALUE)
    except Unknown as exc:
        return f"`sed`: {exc}, so it may write"
    flags = [o for o, _ in opts]
    if hit := next((o for o in flags if o in ("-i", "--in-place")), None):
        return f"`sed {hit}` edits files in place"
    if "-f" in flags or "--file" in flags:
        return "`sed -f` runs a script from a file"
    scripts = [v for o, v in opts if o in ("-e", "--expression")] or operands_[:1]
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
GIT_SHOWS = ("stash list", "stash show", "worktree list", "config get", "config list")
GIT_LISTS = {  # subcommand: (flags that only list, flags after which a name only filters)
    "branch": (("-a", "-r", "-v", "-vv", "-l", "--list", "--all", "--remotes", "--verbose", "--show-current",
                "--no-color", "--color", "--sort", "--format", "--merged", "--no-merged", "--contains",
                "--no-contains", "--points-at", "--column", "--no-column"),
               ("-l", "--list", "--merged", "--no-merged", "--contains", "--no-contains", "--points-at")),
    "tag": (("-l", "--list", "-n", "--sort", "--format", "--contains", "--no-contains", "--merged",
             "--no-merged", "--points-at", "--column", "--no-column"),
            ("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at")),
}


GIT_GLOBAL = ("--no-pager", "--paginate", "--bare", "--no-replace-objects", "--literal-pathspecs",
              "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--version",
              "--help")
GIT_GLOBAL_VALUE = ("--git-dir", "--work-tree", "--namespace")
GIT_WRITES = ("--output", "--open-files-in-pager", "--ext-diff")  # in any read subcommand, any abbreviation
GIT_REMOTE_SHOWS = ("show", "get-url")


def git(name, args):
    if None in args:
        return "`git` gets an argument computed at run time, which could be a subcommand that writes"
    k = 0
    while k < len(args) and args[k].startswith("-"):  # git's own options, before the subcommand
        if args[k] in ("-C",):
            k += 2
            continue
        if args[k] in ("-p", "-P"):
            k += 1
            continue
        hit = long_match(args[k], GIT_GLOBAL + GIT_GLOBAL_VALUE)
        if hit is None:  # -c, --config-env, --exec-path, and any option it does not know
            return f"`git {args[k]}` is not an option it knows to be safe (-c, --exec-path can run commands)"
        k += 2 if hit in GIT_GLOBAL_VALUE and "=" not in args[k] else 1
    sub, rest = (args[k], args[k + 1:]) if k < len(args) else ("", [])
    if (sub in GIT_READS or sub in ("reflog", "stash", "remote", "worktree", "config")) and (
            flag := flags_in(rest, "O" if sub == "grep" else "", GIT_WRITES)):
        return f"`git {sub} {flag}` " + ("writes a file" if flag == "--output" else "runs a program")
    if sub in GIT_READS:
        return None
    words = [a for a in rest if not a.startswith("-")]
    if sub == "remote":  # `git remote -v add x y` adds: only a listing, show or get-url reads
        if all(a in ("-v", "--verbose") for a in rest if a.startswith("-")) and (
                not words or words[0] in GIT_REMOTE_SHOWS):
            return None
        return f"`git remote {' '.join(words[:1])}` changes the remotes"
    if sub == "reflog" and (not words or words[0] == "show"):
        return None
    if sub in GIT_LISTS:
        lists, filters = GIT_LISTS[sub]
        flags = [a.split("=")[0] for a in rest if a.startswith("-")]
        if all(f in lists or re.fullmatch(r"-n\d*", f) for f in flags) and (
                len(flags) == len(rest) or set(filters) & set(flags)):
            return None
        return f"`git {' '.join([sub] + rest)}` changes {'branches' if sub == 'branch' else 'tags'}"
    if " ".join([sub] + words[:1]) in GIT_SHOWS:
        return None
    if sub == "config" and {"--get", "--get-all", "--get-regexp", "--list", "-l"} & set(rest) and not (
            {"--add", "--unset", "--unset-all", "--replace-all", "--edit", "-e"} & set(rest)):
        return None
    return f"`git {sub}` is not a read-only git command" if sub else None


PYTEST_LONG = ("--quiet", "--verbose", "--exitfirst", "--showlocals", "--collect-only", "--co", "--last-failed",
               "--failed-first", "--new-first", "--no-header", "--no-summary", "--strict-markers", "--version",
               "--help", "--disable-warnings", "--full-trace", "--runxfail", "--doctest-modules", "--markers",
               "--fixtures", "--setup-show", "--lf", "--ff", "--nf")
PYTEST_LONG_VALUE = ("--tb", "--capture", "--maxfail", "--durations", "--color", "--import-mode", "--deselect",
                     "--ignore", "--ignore-glob", "--verbosity", "--code-highlight")


def pytest(name, args):
    """A test runner runs the project's code: allowed, as a choice (see the module's Not modeled), with
    the options known not to write (`--junitxml`, `--log-file`, `--debug=FILE` and any other ask);
    `-p` only to switch a plugin off (`-p no:cacheprovider`), since a plugin is code."""
    if None in args:
        return f"`{name}` gets an argument computed at run time, which could be an option that writes"
    try:
        opts, _ = getopt(args, short="qvxslVh", short_value="kmrWnp", long=PYTEST_LONG, long_value=PYTEST_LONG_VALUE)
    except Unknown as exc:
        return f"`{name}`: {exc}, so it may write"
    if plugin := next((v for o, v in opts if o == "-p" and not v.startswith("no:")), None):
        return f"`{name} -p {plugin}` loads a plugin, which is code"
    return None


EVALUATED = ("-v", "-R", "-eq", "-ne", "-lt", "-le", "-gt", "-ge")  # test's operands bash evaluates


def test(name, args):
    """`test`/`[`: read-only unless an operand is evaluated (`-v a[$(…)]`, `x -eq 0` with x='a[$(…)]')."""
    if hit := next((a for a in args if a in EVALUATED), None):
        return f"`{name} {hit}` evaluates its operand, which can run a command"
    return None


def printf(name, args):
    """`printf -v var` assigns, and `var` can be `a[$(…)]`: not read-only."""
    if None in args[:1] or (args and args[0] is not None and args[0].startswith("-v")):
        return f"`{name} -v` assigns a variable, which can run a command"
    return None


def interpreter(name, args):
    if args[:2] == ["-m", "pytest"]:
        return pytest("pytest", args[2:])
    if args and all(a in ("--version", "-V", "-v", "--help", "-h") for a in args):
        return None
    flag = next((a for a in args if a in ("-c", "-e", "-E", "-p", "-pe", "-pi", "-i", "-r")), None)
    if flag:
        return f"`{name} {flag}` runs code"
    return f"`{name}` runs a program" if args else f"`{name}` runs code from its input"


SORT_LONG = ("--ignore-leading-blanks", "--dictionary-order", "--ignore-case", "--general-numeric-sort",
             "--ignore-nonprinting", "--month-sort", "--human-numeric-sort", "--numeric-sort", "--random-sort",
             "--reverse", "--version-sort", "--check", "--debug", "--merge", "--stable", "--unique",
             "--zero-terminated", "--help", "--version")
SORT_LONG_VALUE = ("--sort", "--key", "--field-separator", "--buffer-size", "--parallel", "--random-source",
                   "--files0-from", "--batch-size", "--output", "--temporary-directory", "--compress-program")
UNIQ_LONG = ("--count", "--repeated", "--all-repeated", "--ignore-case", "--unique", "--zero-terminated",
             "--group", "--help", "--version")
UNIQ_LONG_VALUE = ("--skip-fields", "--skip-chars", "--check-chars")

READ_ONLY = {name: None for name in ANY_ARGS} | {
    "sed": sed, "find": find, "git": git, "pytest": pytest, "py.test": pytest, "test": test, "[": test,
    "printf": printf,
    "sort": options(short="bdfgiMhnRrVcCmsuz", short_value="ktoTS", long=SORT_LONG, long_value=SORT_LONG_VALUE,
                    writes=("-o", "--output", "-T", "--temporary-directory", "--compress-program")),
    "uniq": options(short="cdDiuz", short_value="fsw", long=UNIQ_LONG, long_value=UNIQ_LONG_VALUE, most=1),
    "rg": without("--pre", "--pre-glob", what="runs a program on each file"),
    "tree": without("-o", what="writes a file"),
    "file": without("-C", "--compile", what="writes a file"),
    "date": without("-s", "--set", what="sets the clock"),
    **{p: interpreter for p in ("python", "python3", "node", "perl", "ruby", "php")},
}
