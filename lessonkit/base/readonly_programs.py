"""The allow-list: programs known only to read, each with its options, read as the program reads them.

    OPTIONS[program]   its options as getopt_long reads them, from its `--help` on this machine
    WRITES[program]    the ones that write a file or run a program: each asks
    READ_ONLY[program] None: a shell builtin that never writes (cd, echo, true)
                       check(name, args) -> None if read-only, else one line naming the part

Every program's words are read the way the program reads them (`getopt`, below): clustered short
options (`-no f` is `-n -o f`), a value attached or in the next word, options after operands,
`--` ending them, a long option by any unambiguous prefix (`--out=f` is `--output=f`). An option
the list does not know asks (unknown means ask), and so does a program missing here (rm, unlink,
tee, dd, awk, curl): the list can only be too short, and then the user is asked.

`args` are the command's words as they will reach the program, or None for a word known only when
it runs (`$x`, `$(…)`, `*.py`): a program with an option that writes asks then, since the word could
be that option; a program with none (cat, wc, grep) does not.

Example: READ_ONLY["sort"]("sort", ["-rn", "f"]) -> None
         READ_ONLY["sort"]("sort", ["f", "-no", "g"]) -> '`sort -o` writes a file'
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["OPTIONS", "READ_ONLY", "SAFE_ENV", "WRITES", "getopt"]  # the rest are the checker's own steps

SAFE_ENV = ("LANG", "LANGUAGE", "TZ", "COLUMNS", "LINES", "NO_COLOR", "TERM")  # and LC_*
BUILTINS = ("cd", "pushd", "popd", "echo", "pwd", "true", "false", ":", "exit", "type")  # bash's own: never write

# program: (short options as getopt's optstring: `x:` takes a value, `x::` an optional attached one, a
# leading `+`: options end at the first operand; long options: `name=` takes a value, `name[=]` an optional
# one (only as --name=v), `name==` two). From `--help` on Debian 12 (coreutils 9.1, grep 3.8, sed 4.9,
# diffutils 3.8, file 5.44, jq 1.6, util-linux 2.38), each short option's arity probed on the program
# itself (tests/test_s03_options.py checks them all again).
COREUTILS_SUMS = ("bctwz", "binary check tag text zero ignore-missing quiet status strict warn help version")
OPTIONS = {
    "ls": ("abcdfghiklmnopqrstuvw:xABCDFGHI:LNQRST:UXZ1", "all almost-all author escape block-size= "
           "ignore-backups color[=] directory dired classify[=] file-type format= full-time "
           "group-directories-first no-group human-readable si dereference-command-line "
           "dereference-command-line-symlink-to-dir hide= hyperlink[=] indicator-style= inode ignore= kibibytes "
           "dereference numeric-uid-gid literal hide-control-chars show-control-chars quote-name quoting-style= "
           "reverse recursive size sort= time= time-style= tabsize= width= context zero help version"),
    "cat": ("benstuvAET", "show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting help "
            "version"),
    "head": ("c:n:qvz0123456789", "bytes= lines= quiet silent verbose zero-terminated help version"),
    "tail": ("bc:fln:qs:vzF0123456789", "bytes= follow[=] lines= max-unchanged-stats= pid= quiet silent retry "
             "sleep-interval= verbose zero-terminated help version"),
    "wc": ("clmwL", "bytes chars lines files0-from= max-line-length words help version"),
    "grep": ("abcd:e:f:hilm:noqrsuvwxyzA:B:C:D:EFGHILPRTUVX:Z0123456789", "extended-regexp fixed-strings "
             "basic-regexp perl-regexp regexp= file= ignore-case no-ignore-case word-regexp line-regexp null-data "
             "no-messages invert-match version help max-count= byte-offset line-number line-buffered "
             "with-filename no-filename label= only-matching quiet silent binary-files= text directories= "
             "devices= recursive dereference-recursive include= exclude= exclude-from= exclude-dir= "
             "files-without-match files-with-matches count initial-tab null before-context= after-context= "
             "context= group-separator= no-group-separator color[=] colour[=] binary"),
    "basename": ("as:z", "multiple suffix= zero help version"),
    "dirname": ("z", "zero help version"),
    "realpath": ("emqszLP", "canonicalize-existing canonicalize-missing logical physical quiet relative-to= "
                 "relative-base= strip no-symlinks zero help version"),
    "readlink": ("efmnqsvz", "canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent "
                 "verbose zero help version"),
    "stat": ("c:ftL", "dereference file-system cached= printf= terse help version"),
    "du": ("abcd:hklmst:xB:DHLPSX:0", "null all apparent-size block-size= bytes total dereference-args "
           "max-depth= summarize files0-from= human-readable inodes dereference count-links no-dereference "
           "separate-dirs si threshold= time[=] time-style= exclude-from= exclude= one-file-system help version"),
    "df": ("ahiklmt:vx:B:F:HPT", "all block-size= human-readable si inodes local no-sync output[=] portability "
           "sync total type= print-type exclude-type= help version"),
    "whoami": ("", "help version"),
    "id": ("agnruzGZ", "context group groups name real user zero help version"),
    "uname": ("aimnoprsv", "all kernel-name nodename kernel-release kernel-version machine processor "
              "hardware-platform operating-system help version"),
    "printenv": ("iu:0", "null help version"),
    "nproc": ("", "all ignore= help version"),
    "cut": ("b:c:d:f:nsz", "bytes= characters= delimiter= fields= complement only-delimited output-delimiter= "
            "zero-terminated help version"),
    "tr": ("cdstAC", "complement delete squeeze-repeats truncate-set1 help version"),
    "nl": ("b:d:f:h:i:l:n:ps:v:w:", "body-numbering= section-delimiter= footer-numbering= header-numbering= "
           "line-increment= join-blank-lines= number-format= no-renumber number-separator= starting-line-number= "
           "number-width= help version"),
    "od": ("abcdefhij:lost:vw::xA:BDFHILN:OS:X", "address-radix= endian= skip-bytes= read-bytes= strings[=] "
           "format= output-duplicates width[=] traditional help version"),
    "cmp": ("bci:ln:sv", "print-bytes ignore-initial= verbose bytes= quiet silent help version"),
    "comm": ("z123", "check-order nocheck-order output-delimiter= total zero-terminated help version"),
    "diff": ("abcdefhilnpqrstuvwx:yBC:D:EF:HI:L:NPS:TU:W:X:Z0123456789", "normal brief report-identical-files "
             "context[=] unified[=] ed rcs side-by-side width= left-column suppress-common-lines show-c-function "
             "show-function-line= label= expand-tabs initial-tab tabsize= suppress-blank-empty paginate recursive "
             "no-dereference new-file unidirectional-new-file ignore-file-name-case no-ignore-file-name-case "
             "exclude= exclude-from= starting-file= from-file= to-file= ignore-case ignore-tab-expansion "
             "ignore-trailing-space ignore-space-change ignore-all-space ignore-blank-lines ignore-matching-lines= "
             "text strip-trailing-cr ifdef= old-group-format= new-group-format= unchanged-group-format= "
             "changed-group-format= line-format= old-line-format= new-line-format= unchanged-line-format= minimal "
             "horizon-lines= speed-large-files color[=] palette= help version"),
    "tac": ("brs:", "before regex separator= help version"),
    "seq": ("f:s:w0123456789", "format= separator= equal-width help version"),
    "sleep": ("", "help version"),
    "expand": ("it:0123456789", "initial tabs= help version"),
    "unexpand": ("at:0123456789", "all first-only tabs= help version"),
    "fold": ("bsw:0123456789", "bytes spaces width= help version"),
    "fmt": ("cg:p:stuw:0123456789", "crown-margin prefix= split-only tagged-paragraph uniform-spacing width= goal= "
            "help version"),
    "column": ("c:dehi:l:n:o:p:r:s:txE:H:JLN:O:R:T:VW:", "table table-name= table-order= table-columns= "
               "table-columns-limit= table-noextreme= table-noheadings table-header-repeat table-hide= "
               "table-right= table-truncate= table-wrap= keep-empty-lines json tree= tree-id= tree-parent= "
               "output-width= output-separator= separator= fillrows help version"),
    "paste": ("d:sz", "delimiters= serial zero-terminated help version"),
    "join": ("a:e:ij:o:t:v:z1:2:", "ignore-case check-order nocheck-order header zero-terminated help version"),
    "rev": ("hV", "help version"),
    "strings": ("ade:fhn:os:t:vwHT:U:V0123456789", "all data print-file-name bytes= radix= include-all-whitespace "
                "target= encoding= unicode= output-separator= help version"),
    **dict.fromkeys(("md5sum", "sha1sum", "sha256sum", "sha512sum"), COREUTILS_SUMS),
    "cksum": ("a:bcl:twz", "algorithm= check length= tag untagged zero ignore-missing quiet status strict warn debug "
              "help version"),
    "b2sum": ("bcl:twz", "binary check length= tag text zero ignore-missing quiet status strict warn help version"),
    "jq": ("acCefhjL:MnrRsSV", "slurp raw-output join-output ascii-output compact-output color-output "
           "monochrome-output sort-keys raw-input null-input from-file exit-status tab indent= seq stream "
           "stream-errors unbuffered arg== argjson== argfile== slurpfile== rawfile== args jsonargs "
           "debug-dump-disasm debug-trace help version"),
    "locale": ("ackmvV", "all-locales charmaps category-name keyword-name verbose help usage version"),
    "which": ("a", ""),
    "sort": ("bcdfghik:mno:rst:uy:zCMRS:T:V", "ignore-leading-blanks dictionary-order ignore-case "
             "general-numeric-sort ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort "
             "random-source= reverse sort= version-sort batch-size= check[=] compress-program= debug files0-from= "
             "key= merge output= stable buffer-size= field-separator= temporary-directory= parallel= unique "
             "zero-terminated help version"),
    "uniq": ("cdf:is:uw:zD0123456789", "count repeated all-repeated[=] skip-fields= group[=] ignore-case "
             "skip-chars= unique zero-terminated check-chars= help version"),
    "sed": ("be:f:i::l:nrsuzEV:", "quiet silent debug expression= file= follow-symlinks in-place[=] line-length= "
            "posix regexp-extended separate sandbox unbuffered null-data zero-terminated binary help version"),
    "date": ("d:f:r:s:uI::R", "date= debug file= iso-8601[=] resolution rfc-email rfc-3339= reference= set= utc "
             "universal help version"),
    "file": ("bcde:f:hiklm:nprsvzCEF:LNP:SZ0", "help version magic-file= uncompress uncompress-noreport brief "
             "checking-printout exclude= exclude-quiet= files-from= separator= mime mime-encoding apple extension "
             "mime-type keep-going list dereference no-dereference no-buffer no-pad print0 preserve-date "
             "parameter= raw special-files no-sandbox compile debug"),
    # programs that run a command: options end at the first operand, which is the command
    "env": ("+iu:vC:S:0", "ignore-environment null unset= chdir= split-string= block-signal[=] default-signal[=] "
            "ignore-signal[=] list-signal-handling debug help version"),
    "timeout": ("+k:s:v", "preserve-status foreground kill-after= signal= verbose help version"),
    "nice": ("+n:0123456789", "adjustment= help version"),  # nice -5: the old way to say -n 5
    "xargs": ("+a:d:e::i::l::n:oprs:txE:I:L:P:0", "null arg-file= delimiter= eof[=] replace[=] max-lines[=] "
              "max-args= open-tty max-procs= interactive process-slot-var= no-run-if-empty max-chars= show-limits "
              "verbose exit help version"),
    "command": ("+pvV", ""), "time": ("+p", ""), "exec": ("+cla:", ""),  # bash's own
    "pytest": ("qvxslhVk:m:r:W:n:p:", "quiet verbose exitfirst showlocals collect-only co last-failed "
               "failed-first new-first no-header no-summary strict-markers version help disable-warnings full-trace "
               "runxfail doctest-modules markers fixtures setup-show lf ff nf tb= capture= maxfail= durations= "
               "color= import-mode= deselect= ignore= ignore-glob= verbosity= code-highlight="),
}
OPTIONS["egrep"] = OPTIONS["fgrep"] = OPTIONS["grep"]  # scripts that run grep -E / grep -F
OPTIONS["py.test"] = OPTIONS["pytest"]

WRITES = {  # program: (its options that write a file or run a program, what they do)
    "sort": (("-o", "--output", "-T", "--temporary-directory", "--compress-program"), "writes a file"),
    "sed": (("-i", "--in-place"), "edits files in place"),
    "date": (("-s", "--set"), "sets the clock"),
    "file": (("-C", "--compile", "-p", "--preserve-date"), "writes a file"),  # -p: sets access times back
    "xargs": (("--process-slot-var",), "sets a variable (PATH, say) for the command it runs"),
    "env": (("-S", "--split-string"), "runs its argument as a command"),
}


class Unknown(ValueError):
    """An option the allow-list does not know, or a word known only at run time: the command asks."""


@cache
def spec(short: str, long: str) -> tuple[bool, dict, dict]:
    """An OPTIONS entry read into (options end at the first operand?, {letter: arity}, {--name: arity});
    arity 0: none, 1: a value, 2: two values, -1: an optional one. Example: spec(*OPTIONS["head"])[1]["n"] -> 1"""
    letters = {m[1]: {"": 0, ":": 1, "::": -1}[m[2]] for m in re.finditer(r"([^:+])(:{0,2})", short)}
    names = {"--" + m[1]: {"": 0, "=": 1, "==": 2, "[=]": -1}[m[2]]
             for m in re.finditer(r"([\w-]+)(\[=\]|==|=|)(?=\s|$)", long)}
    return short.startswith("+"), letters, names


def long_option(arg: str, names) -> str:
    """The long option `arg` spells, as getopt_long reads it: the whole name or an unambiguous prefix
    (`--in` is `--in-place`). Raises Unknown for one it does not know or an ambiguous one.
    Example: long_option("--comp", ["--compile", "--help"]) -> '--compile'"""
    given = arg.partition("=")[0]
    hits = [given] if given in names else [n for n in names if n.startswith(given)]
    if len(hits) != 1:
        raise Unknown(f"`{given}` is not an option it knows" if not hits else
                      f"`{given}` could be {' or '.join(hits)}")
    return hits[0]


def getopt(args, options: tuple[str, str], *, run_time_ok: bool = False, negatable: bool = False):
    """(options, operands) as a program with these `options` (an OPTIONS entry) reads `args`, the way GNU
    getopt_long does: clustered short options, a value attached or in the next word, options after
    operands (unless they end at the first), `--` ending them, long options by unambiguous prefix
    (and `--no-name` for each, if `negatable`, as git reads them). Raises Unknown for an option it does
    not know, and for a word known only at run time (None) unless `run_time_ok`.

    Example: getopt(["-ne", "p", "f"], OPTIONS["sed"]) -> ([('-n', None), ('-e', 'p')], ['f'])
    """
    if not isinstance(args, list) or not all(a is None or isinstance(a, str) for a in args):
        raise ValueError("args must be a list of words (str, or None for one known only at run time), "
                         f"got a {type(args).__name__}")
    if not (isinstance(options, tuple) and len(options) == 2 and all(isinstance(o, str) for o in options)):
        raise ValueError(f"options must be an OPTIONS entry (short, long), got a {type(options).__name__}")
    posix, letters, names = spec(*options)
    opts, operands, k = [], [], 0

    def value(n=1):
        nonlocal k
        if k + n > len(args):
            raise Unknown(f"`{arg}` has no value")
        if None in args[k:k + n]:
            raise Unknown(f"`{arg}` gets a value computed at run time")
        k += n
        return " ".join(args[k - n:k])
    while k < len(args):
        arg, k = args[k], k + 1
        if arg is None:  # `$x`, `*.py`: could be any option
            if not run_time_ok:
                raise Unknown("an argument computed at run time could be an option that writes")
            continue
        if arg == "--":
            operands += args[k:]
            break
        if arg.startswith("--"):
            name, eq, attached = arg.partition("=")
            if negatable and name.startswith("--no-") and not eq and name not in names:
                opts.append((f"--no-{long_option('--' + name[5:], names)[2:]}", None))  # switches one off
                continue
            name = long_option(name, names)
            arity = names[name]
            if arity == 0 and eq:
                raise Unknown(f"`{name}` takes no value")
            got = attached if eq else None
            if arity == 2:
                got = (attached + " " + value()) if eq else value(2)
            elif arity == 1 and not eq:
                got = value()
            opts.append((name, got))
        elif arg.startswith("-") and arg != "-":
            for j, ch in enumerate(arg[1:], 1):
                if ch not in letters:
                    raise Unknown(f"`-{ch}` is not an option it knows")
                if letters[ch]:  # the rest of the word is its value (or the next word, if it needs one)
                    rest = arg[j + 1:]
                    opts.append(("-" + ch, rest if rest or letters[ch] < 0 else value()))
                    break
                opts.append(("-" + ch, None))
        else:
            operands.append(arg)
            if posix:
                operands += args[k:]
                break
    return opts, operands


def options(name, args):
    """A program read by OPTIONS alone: read-only unless an option writes (WRITES) or is unknown. A word
    known only at run time is fine for a program with no option that writes."""
    try:
        opts, _ = getopt(args, OPTIONS[name], run_time_ok=name not in WRITES)
    except Unknown as exc:
        return f"`{name}`: {exc}, so it may write"
    writes, what = WRITES.get(name, ((), ""))
    if hit := next((o for o, _ in opts if o in writes), None):
        return f"`{name} {hit}` {what}"
    return None


def uniq(name, args):
    """uniq writes its second operand (`uniq in out`, also `uniq in -- out`)."""
    try:
        _, files = getopt(args, OPTIONS[name])
    except Unknown as exc:
        return f"`{name}`: {exc}, so it may write"
    return f"`{name} {' '.join(files)}` writes its last file" if len(files) > 1 else None


def date(name, args):
    """date sets the clock with -s, and with an operand that is not a +FORMAT (`date 0101000026`)."""
    if reason := options(name, args):
        return reason
    _, operands = getopt(args, OPTIONS[name])
    if clock := next((a for a in operands if not a.startswith("+")), None):
        return f"`{name} {clock}` sets the clock"
    return None


# find's expression: each primary with how many words follow it (None: up to `;` or `+`).
FIND_READS = {**dict.fromkeys("""-print -print0 -ls -prune -quit -true -false -empty -readable -writable -executable
    -nouser -nogroup -depth -xdev -mount -follow -noleaf -daystart -ignore_readdir_race -noignore_readdir_race
    -not -a -and -o -or ! , ( ) -help --help -version --version""".split(), 0),  # noqa: SIM905
              **dict.fromkeys("""-name -iname -path -ipath -wholename -iwholename -regex -iregex -regextype -type
    -xtype -maxdepth -mindepth -size -mtime -mmin -atime -amin -ctime -cmin -used -newer -anewer -cnewer -perm
    -user -group -uid -gid -links -inum -samefile -lname -ilname -fstype -printf -context -files0-from""".split(), 1)}  # noqa: SIM905
FIND_WRITES = {"-exec": "runs a command on each file", "-execdir": "runs a command on each file",
               "-ok": "runs a command on each file", "-okdir": "runs a command on each file",
               "-delete": "deletes files", "-fprint": "writes a file", "-fprint0": "writes a file",
               "-fprintf": "writes a file", "-fls": "writes a file"}


def find(name, args):
    """find [-H|-L|-P] [-D x] [-Ox] [paths] [expression]: read as find reads it, primary by primary, each
    with its values (`-mtime -1`, `-name -delete` are fine); one that writes, or one it does not know, asks."""
    if None in args:
        return "`find` gets an argument computed at run time, which could be -delete or -exec"
    k = 0
    while k < len(args) and args[k] in ("-H", "-L", "-P", "-D") or k < len(args) and args[k].startswith("-O"):
        k += 2 if args[k] == "-D" else 1
    while k < len(args) and not (args[k].startswith("-") or args[k] in ("(", "!")):  # the paths
        k += 1
    while k < len(args):
        primary, k = args[k], k + 1
        if primary in FIND_WRITES:
            return f"`find {primary}` {FIND_WRITES[primary]}"
        if re.fullmatch(r"-newer[amcBt][amcBt]", primary):
            k += 1
        elif primary in FIND_READS:
            k += FIND_READS[primary]
        else:
            return f"`find {primary}` is not a primary it knows, so it may write"
    return None


def sed(name, args):
    """sed: read-only unless -i, a script file (-f), or a script that writes (w, W, s///w) or runs (e, s///e)."""
    if reason := options(name, args):
        return reason
    opts, operands = getopt(args, OPTIONS[name])
    if any(o in ("-f", "--file") for o, _ in opts):
        return "`sed -f` runs a script from a file"
    scripts = [v for o, v in opts if o in ("-e", "--expression")] or operands[:1]
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


# git: its own options, then a subcommand with its options (from `git <sub> -h` and the documentation of
# git 2.39). Subcommands that only read, or only read in the forms below; everything else asks.
GIT = ("+C:c:pP", "no-pager paginate bare no-replace-objects literal-pathspecs glob-pathspecs noglob-pathspecs "
       "icase-pathspecs no-optional-locks git-dir= work-tree= namespace= version help exec-path[=] config-env= "
       "list-cmds= super-prefix= attr-source=")
GIT_DIFF = ("psuzRB::M::C::Dl:O:S:G:abwWU::X::I:", "patch no-patch unified[=] function-context raw patch-with-raw "
            "patch-with-stat numstat shortstat dirstat[=] cumulative dirstat-by-file[=] check summary name-only "
            "name-status stat[=] stat-width= stat-name-width= stat-graph-width= stat-count= compact-summary binary "
            "full-index color[=] ws-error-highlight= abbrev[=] src-prefix= dst-prefix= line-prefix= no-prefix "
            "default-prefix inter-hunk-context= output-indicator-new= output-indicator-old= "
            "output-indicator-context= break-rewrites[=] find-renames[=] irreversible-delete find-copies[=] "
            "find-copies-harder no-renames rename-empty follow minimal ignore-all-space ignore-space-change "
            "ignore-space-at-eol ignore-cr-at-eol ignore-blank-lines ignore-matching-lines= indent-heuristic "
            "patience histogram diff-algorithm= anchored= word-diff[=] word-diff-regex= color-words[=] "
            "color-moved[=] color-moved-ws= relative[=] text exit-code quiet textconv ignore-submodules[=] "
            "submodule[=] ita-invisible-in-index ita-visible-in-index pickaxe-all pickaxe-regex rotate-to= skip-to= "
            "find-object= diff-filter= cached staged merge-base no-index base ours theirs ext-diff output=")
GIT_REVS = ("n:iEFPgmct0123456789L:", "max-count= skip= since= after= until= before= max-age= min-age= author= "
            "committer= grep= grep-reflog= all-match invert-grep regexp-ignore-case extended-regexp fixed-strings "
            "perl-regexp basic-regexp remove-empty merges min-parents= max-parents= first-parent "
            "exclude-first-parent-only not all branches[=] tags[=] remotes[=] glob= exclude= reflog alternate-refs "
            "single-worktree ignore-missing bisect stdin cherry-mark cherry-pick left-only right-only cherry "
            "walk-reflogs merge boundary simplify-by-decoration full-history dense sparse simplify-merges "
            "ancestry-path[=] show-pulls date-order author-date-order topo-order reverse no-walk[=] do-walk "
            "pretty[=] format= abbrev-commit oneline encoding= expand-tabs[=] notes[=] show-notes[=] standard-notes "
            "show-signature relative-date date= parents children left-right graph show-linear-break[=] cc "
            "combined-all-paths diff-merges= remerge-diff dd decorate[=] decorate-refs= decorate-refs-exclude= "
            "clear-decorations source use-mailmap mailmap log-size objects objects-edge unpacked count timestamp "
            "header quiet since-as-filter= in-commit-order no-object-names object-names")
GIT_SUBS = {  # subcommand: its options (short, long); the log family has GIT_REVS and GIT_DIFF too
    "status": ("vsbzu::M::", "verbose short branch show-stash ahead-behind porcelain[=] long null untracked-files[=] "
               "ignored[=] ignore-submodules[=] column[=] renames find-renames[=]"),
    "blame": ("bfnpctlsewS:C::M::L:", "incremental root show-stats progress score-debug show-name show-number "
              "porcelain line-porcelain show-email ignore-rev= ignore-revs-file= color-lines color-by-age minimal "
              "contents= abbrev[=] reverse first-parent date="),
    "grep": ("viwaIrEGFPnhHlLzocC:B:A:pWf:e:qO::m:0123456789", "cached no-index untracked exclude-standard "
             "recurse-submodules invert-match ignore-case word-regexp text textconv recursive max-depth= "
             "extended-regexp basic-regexp fixed-strings perl-regexp line-number column full-name "
             "files-with-matches name-only files-without-match null only-matching count color[=] break heading "
             "context= before-context= after-context= threads= show-function function-context and or not quiet "
             "all-match open-files-in-pager[=] ext-grep max-count= index"),
    "ls-files": ("ztvfcdmoiskux:X:", "cached deleted modified others ignored stage killed directory eol "
                 "empty-directory unmerged resolve-undo exclude= exclude-from= exclude-per-directory= "
                 "exclude-standard full-name recurse-submodules error-unmatch with-tree= abbrev[=] debug deduplicate "
                 "sparse format="),
    "ls-tree": ("drtzl", "long name-only name-status object-only full-name full-tree format= abbrev[=]"),
    "cat-file": ("eptsz", "allow-unknown-type use-mailmap mailmap batch[=] batch-check[=] batch-command[=] "
                 "batch-all-objects buffer follow-symlinks unordered textconv filters path="),
    "describe": ("", "contains debug all tags long first-parent abbrev[=] exact-match candidates= match= exclude= "
                 "always dirty[=] broken[=]"),
    "name-rev": ("", "name-only tags refs= exclude= all stdin annotate-stdin undefined always"),
    "merge-base": ("a", "all octopus independent is-ancestor fork-point"),
    "for-each-ref": ("sp", "shell perl python tcl count= format= color[=] sort= points-at= merged[=] no-merged[=] "
                     "contains[=] no-contains[=] ignore-case"),
    "show-ref": ("ds::q", "tags heads verify head dereference hash[=] abbrev[=] quiet exclude-existing[=]"),
    "count-objects": ("vH", "verbose human-readable"),
    "check-ignore": ("qvzn", "quiet verbose stdin non-matching no-index"),
    "cherry": ("v", "abbrev[=] verbose"),
    "show-branch": ("arg::", "all remotes color[=] more[=] list no-name current sha1-name merge-base independent "
                    "topo-order topics sparse date-order reflog[=]"),
    "rev-parse": ("q", "verify quiet short[=] abbrev-ref[=] symbolic symbolic-full-name all branches[=] tags[=] "
                  "remotes[=] glob= exclude= disambiguate= show-toplevel show-prefix show-cdup git-dir "
                  "absolute-git-dir git-common-dir is-inside-git-dir is-inside-work-tree is-bare-repository "
                  "is-shallow-repository show-superproject-working-tree shared-index-path show-object-format[=] "
                  "local-env-vars resolve-git-dir= git-path= since= after= until= before= default= prefix= revs-only "
                  "no-revs flags no-flags sq sq-quote not"),
    "var": ("l", ""), "version": ("", "build-options"),
    "log": ("qL:", "follow"), "show": ("", ""), "whatchanged": ("", ""), "rev-list": ("", ""),
    "diff": ("", ""), "diff-tree": ("rtvm", "root no-commit-id stdin pretty[=] always"),
    "diff-files": ("qc0123", ""), "diff-index": ("m", "cached merge-base"),
    "range-diff": ("", "creation-factor= no-dual-color left-only right-only"),
    "shortlog": ("cnsew::", "committer numbered summary email group="),
    # the forms that only read of subcommands that also write (git_listing decides)
    "branch": ("vqtu:radDmMcClfi", "verbose quiet track[=] set-upstream-to= unset-upstream color[=] remotes "
               "contains[=] no-contains[=] abbrev[=] all delete move copy list show-current create-reflog "
               "edit-description force merged[=] no-merged[=] column[=] sort= points-at= ignore-case "
               "recurse-submodules format="),
    "tag": ("ln::dvam:F:esu:fi", "list delete verify annotate message= file= edit sign cleanup= local-user= force "
            "create-reflog column[=] contains[=] no-contains[=] merged[=] no-merged[=] sort= points-at= format= "
            "color[=] ignore-case"),
    "config": ("f:let:z", "global system local worktree file= blob= get get-all get-regexp get-urlmatch replace-all "
               "add unset unset-all rename-section remove-section list fixed-value edit get-color get-colorbool "
               "type= bool int bool-or-int bool-or-str path expiry-date null name-only includes show-origin "
               "show-scope default="),
    "remote": ("v", "verbose"), "remote show": ("n", ""), "remote get-url": ("", "push all"),
    "stash list": ("", ""), "stash show": ("u", "include-untracked only-untracked"),
    "worktree list": ("vz", "porcelain verbose expire="), "reflog": ("", ""),
}
GIT_LOGS = ("log", "show", "whatchanged", "rev-list", "shortlog", "stash list", "reflog")  # revisions and diffs
GIT_DIFFS = ("diff", "diff-tree", "diff-files", "diff-index", "range-diff", "stash show")  # diffs
GIT_WRITES = {"--output": "writes a file", "--ext-diff": "runs the external diff program",
              "-O": "runs a program on the files", "--open-files-in-pager": "runs a program on the files",
              "-c": "sets configuration, which can run a program", "--config-env": "sets configuration, which can run "
              "a program", "--exec-path": "runs git's commands from another folder"}
GIT_ACTIONS = {  # subcommand: options that make it write; and those after which a name only filters a listing
    "branch": ({"-d", "-D", "-m", "-M", "-c", "-C", "-f", "-t", "-u", "--track", "--set-upstream-to",
                "--unset-upstream", "--delete", "--move", "--copy", "--force", "--create-reflog",
                "--edit-description", "--recurse-submodules"},
               {"-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"}),
    "tag": ({"-a", "-s", "-u", "-d", "-v", "-m", "-F", "-e", "-f", "--annotate", "--sign", "--local-user",
             "--delete", "--verify", "--message", "--file", "--edit", "--force", "--cleanup", "--create-reflog"},
            {"-l", "--list", "-n", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"}),
}
GIT_GETS = {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--get-color", "--get-colorbool"}
GIT_SETS = {"--replace-all", "--add", "--unset", "--unset-all", "--rename-section", "--remove-section", "--edit", "-e"}


@cache
def git_spec(sub: str) -> tuple[str, str]:
    """The options `git sub` reads: its own, and the log family's revision and diff options."""
    short, long = GIT_SUBS[sub]  # last, so that its own meaning wins (shortlog -n numbers, log's -n counts)
    if sub in GIT_LOGS:
        short, long = GIT_REVS[0] + GIT_DIFF[0] + short, f"{GIT_REVS[1]} {GIT_DIFF[1]} {long}"
    elif sub in GIT_DIFFS or sub == "blame":
        short, long = GIT_DIFF[0] + short, f"{GIT_DIFF[1]} {long}"
    return short, long


def git(name, args):
    """git: its own options (-c, --config-env, --exec-path ask), then a subcommand that only reads, each
    read with its options; `git branch`, `tag`, `remote`, `stash`, `worktree`, `reflog`, `config` only
    in their listing forms."""
    try:
        opts, rest = getopt(args, GIT)
    except Unknown as exc:
        return f"`git`: {exc}, so it may run something"
    if hit := next((o for o, _ in opts if o in GIT_WRITES), None):
        return f"`git {hit}` {GIT_WRITES[hit]}"
    if not rest:
        return None
    sub = rest[0]
    if sub in ("remote", "stash", "worktree") and len(rest) > 1 and f"{sub} {rest[1]}" in GIT_SUBS:
        sub, rest = f"{sub} {rest[1]}", rest[1:]
    if sub not in GIT_SUBS:
        return f"`git {sub}` is not a read-only git command"
    try:
        opts, operands = getopt(rest[1:], git_spec(sub), negatable=True)
    except Unknown as exc:
        return f"`git {sub}`: {exc}, so it may write"
    flags = {o for o, _ in opts}
    if hit := next((o for o, _ in opts if o in GIT_WRITES), None):
        return f"`git {sub} {hit}` {GIT_WRITES[hit]}"
    return git_listing(sub, flags, operands)


def git_listing(sub, flags, operands) -> str | None:
    """Why a subcommand that also writes is not in a form that only lists, or None."""
    if sub in GIT_ACTIONS:
        actions, filters = GIT_ACTIONS[sub]
        if (flags & actions) or (operands and not flags & filters):
            return f"`git {sub} {' '.join(sorted(flags & actions) + operands[:1])}` changes " + (
                "branches" if sub == "branch" else "tags")
    elif sub == "config" and ((flags & GIT_SETS) or len(operands) > (1 if not flags & GIT_GETS else 3)):
        return "`git config` with a value or an option that writes changes the configuration"
    elif sub == "remote" and operands:
        return f"`git remote {operands[0]}` changes the remotes"
    elif sub == "reflog" and operands and operands[0] not in ("show", "exists", "list"):
        return f"`git reflog {operands[0]}` may change the reflog"
    return None


def pytest(name, args):
    """A test runner runs the project's code: allowed, as a choice (see readonly.py's Not modeled), with the
    options known not to write (`--junitxml`, `--log-file`, `--debug=FILE`, `--basetemp` and any other ask);
    `-p` only to switch a plugin off (`-p no:cacheprovider`), since a plugin is code; no `@file` of options."""
    try:
        opts, operands = getopt(args, OPTIONS["pytest"])
    except Unknown as exc:
        return f"`{name}`: {exc}, so it may write"
    if plugin := next((v for o, v in opts if o == "-p" and not v.startswith("no:")), None):
        return f"`{name} -p {plugin}` loads a plugin, which is code"
    if given := next((a for a in operands if a.startswith("@")), None):
        return f"`{name} {given}` reads more options from a file"
    return None


EVALUATED = ("-v", "-R", "-eq", "-ne", "-lt", "-le", "-gt", "-ge")  # test's operands bash evaluates


def test(name, args):
    """`test`: read-only unless an operand is evaluated (`-v a[$(…)]`, `x -eq 0` with x='a[$(…)]'), or a
    word known only at run time could be such an operator (`test $op x`)."""
    if hit := next((a or "$x" for a in args if a is None or a in EVALUATED), None):
        return f"`{name} {hit}` evaluates its operand, which can run a command"
    return None


def printf(name, args):
    """`printf -v var` assigns, and `var` can be `a[$(…)]`: not read-only."""
    if None in args[:1] or (args and args[0] is not None and args[0].startswith("-v")):
        return f"`{name} -v` assigns a variable, which can run a command"
    return None


VERSION_ONLY = {  # what each interpreter prints and then exits on, running nothing (python's -v is verbose)
    "python": ("--version", "-V", "-VV", "--help", "-h", "--help-env", "--help-xoptions", "--help-all"),
    "node": ("--version", "-v", "--help", "-h"), "perl": ("--version", "-v", "-V", "--help", "-h"),
    "ruby": ("--version", "--help", "-h"), "php": ("--version", "-v", "--help", "-h"),
}


UNITTEST = ("hvqfcbk:s:p:t:", "help verbose quiet locals durations= failfast catch buffer start-directory= pattern= "
            "top-level-directory=")  # python3 -m unittest [discover]: its -h lists these


def unittest(name, args):
    """python3 -m unittest [discover]: the standard library's test runner, allowed as pytest is, with its options."""
    try:
        getopt(args[1:] if args[:1] == ["discover"] else args, UNITTEST)
    except Unknown as exc:
        return f"`{name} -m unittest`: {exc}, so it may write"
    return None


def interpreter(name, args):
    """python3 -m pytest is pytest (and -m unittest, unittest); a version or help flag alone runs nothing;
    anything else runs code."""
    if args[:2] == ["-m", "pytest"]:
        return pytest("pytest", args[2:])
    if args[:2] == ["-m", "unittest"] and re.fullmatch(r"python[\d.]*", name):
        return unittest(name, args[2:])
    known = VERSION_ONLY[re.sub(r"[\d.]+$", "", name)]
    if args and all(a in known for a in args):
        return None
    flag = next((a for a in args if a in ("-c", "-e", "-E", "-p", "-pe", "-pi", "-i", "-r")), None)
    if flag:
        return f"`{name} {flag}` runs code"
    return f"`{name}` runs a program" if any(a is None or not a.startswith("-") for a in args) else (
        f"`{name}` runs code from its input")


READ_ONLY = {name: None for name in BUILTINS} | {name: options for name in OPTIONS} | {
    "sed": sed, "find": find, "git": git, "pytest": pytest, "py.test": pytest, "test": test, "[": test,
    "printf": printf, "uniq": uniq, "date": date,
    **{p: interpreter for p in ("python", "python3", "node", "perl", "ruby", "php")},
}
for _wrapper in ("env", "timeout", "nice", "xargs", "command", "time", "exec"):  # readonly.unwrap reads these
    READ_ONLY.pop(_wrapper)
