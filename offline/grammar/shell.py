"""Grammar entries that ask the system something: a command typed without backticks, the folder, a version.

    entry    example (English / Chinese)                                  tool call (bash)
    command  run ls -la / run pytest / 运行 ls -la / pwd / ls -la src      the command as typed (`python` -> `python3`)
    pwd      What is the current directory? / 当前目录是什么？             `pwd`
    version  Which Python version is installed? / python 是什么版本？      `python3 --version` (node, git, pip...)
    date     What time is it? / 现在几点？                                 `date`
    whoami   Who am I? / 当前用户是谁？                                    `whoami`
    os       What OS is this? / 这是什么操作系统？                          `uname -a`

A command without backticks is taken only when it reads as one: its first word is a known
program (COMMANDS; typed alone, without "run", only those in BARE, and then its other
words are flags, file names, numbers or quoted texts, not English words), programs that
would wait for input get an argument, and it holds no `;`, `&`, `>`, `<`, `$` or
backticks (a `|` joins known programs). So "run the marathon", "run faster" and
"sort the lines of notes.txt" stay outside the grammar and run nothing; "run `...`" runs
anything, as before (grammar.py).

Example: entry("run ls -la", {"bash": ...})
           -> [Action("run", "Running `ls -la`", [("bash", {"command": "ls -la"})], "ls -la")]
         entry("run the marathon", {"bash": ...}) -> None

Not modeled: commands that change files (rm, mv, cp, pip install ...: each has its own entry or
needs backticks), interactive programs, environment variables.
"""

from __future__ import annotations

import re
import shlex

from .parts import Action, bash

ANY_CASE = re.IGNORECASE
# Known programs: mostly ones that only read; a test runner, interpreters given a script or a flag.
COMMANDS = {"ls", "pwd", "pytest", "python", "python3", "pip", "pip3", "git", "echo", "cat", "wc", "head", "tail",
            "date", "whoami", "uname", "which", "hostname", "du", "df", "tree", "node", "npm", "ruby", "go", "cargo",
            "make", "grep", "sort", "uniq", "stat", "file", "id", "uptime", "cal", "basename", "dirname", "realpath",
            "diff", "cmp", "md5sum", "sha256sum", "seq", "java", "javac", "gcc", "rustc", "ps", "nproc", "free",
            "printf", "true", "false", "find"}
BARE = {"ls", "pwd", "pytest", "python", "python3", "pip", "pip3", "whoami", "uname", "hostname", "du", "df",
        "tree", "node", "npm", "wc", "echo", "uptime", "nproc", "date", "cargo", "grep"}  # typed alone, no "run"
NEEDS_ARGUMENT = {"python", "python3", "node", "ruby", "cat", "wc", "head", "tail", "grep", "sort", "uniq", "diff",
                  "cmp", "md5sum", "sha256sum", "stat", "file", "basename", "dirname", "which", "printf", "seq",
                  "java", "javac", "gcc", "rustc"}  # alone, they wait for input or do nothing
SUBCOMMANDS = {  # programs whose first argument is a subcommand: the ones that only read or test
    "git": {"status", "log", "diff", "show", "branch", "ls-files", "blame", "shortlog", "remote", "rev-parse",
            "describe", "--version", "version", "tag"},
    "pip": {"list", "show", "freeze", "--version", "-V"}, "pip3": {"list", "show", "freeze", "--version", "-V"},
    "npm": {"test", "ls", "list", "--version", "-v", "run", "start"},
    "cargo": {"test", "run", "build", "check", "--version", "version"},
    "go": {"version", "test", "run", "build", "vet", "env"},
}
NEVER = {"find": r"-(?:delete|exec|execdir|ok|okdir|fprint\w*)", "tail": r"-f|-F|--follow(?:=\w+)?",
         "sort": r"-o", "python": r"-i", "python3": r"-i", "node": r"-i", "ruby": r"-i"}  # they write or wait
LOOSE = {"ls", "echo"}  # typed alone, any word may follow them; others take flags, files and quoted texts
INTERPRETERS = {"python", "python3", "node", "ruby", "java", "gcc", "rustc"}  # `python --version` is enough
WORD = re.compile(r"""^(?:[\w./@~+*?,:%=-]+|'[^']*'|"[^"]*")$""")  # a flag, a name, a number or a quoted text
FILE = re.compile(r"^[\w.@~*?/-]*(?:/|\.[A-Za-z*]\w{0,5})[\w.@*?/-]*$|^\d+$")  # a/b, a.py, *.md, 3
TOOLS = {"python": "python3 --version", "python3": "python3 --version", "node": "node --version",
         "nodejs": "node --version", "git": "git --version", "npm": "npm --version", "pip": "pip --version",
         "pip3": "pip3 --version", "ruby": "ruby --version", "go": "go version", "golang": "go version",
         "rust": "rustc --version", "rustc": "rustc --version", "cargo": "cargo --version", "java": "java -version",
         "gcc": "gcc --version", "make": "make --version", "bash": "bash --version", "pytest": "pytest --version"}
VERSION_FILLER = {"which", "what", "what's", "whats", "is", "the", "of", "version", "versions", "installed", "do", "i",
                  "we", "have", "are", "using", "running", "this", "it", "current", "show", "check", "print", "get",
                  "me", "tell", "my", "am", "there", "here", "used", "on", "machine", "system", "available", "s", "you",
                  "find", "out", "see", "a"}
ZH_VERSION_FILLER = re.compile(r"查看|看看|看一下|显示|告诉我|当前|现在|目前|这台|电脑|机器|系统|上|里|的|是|什么|"
                               r"哪个|哪一个|多少|"
                               r"版本号?|装|安装|了|呢|吗|一下|我|用|使用|在|有|\s")


def _words_ok(program: str, args: list[str], bare: bool, piped: bool) -> bool:
    """Whether the words after a program read as its arguments (see the module docstring)."""
    if program in SUBCOMMANDS and (not args or args[0] not in SUBCOMMANDS[program]):
        return False  # "git push", "pip install x": not a reading command
    operands = [a for a in args if not a.startswith("-")]
    if program in NEEDS_ARGUMENT and not piped and not (operands or program in INTERPRETERS and args):
        return False  # `cat` or `python` alone would wait for input
    if program in NEVER and any(re.fullmatch(NEVER[program], a) for a in args):
        return False
    if not all(WORD.match(a) for a in args):
        return False
    if bare and program == "echo" and any(re.search(r"[,?!]$", a) for a in args):
        return False  # "echo is a command, right?" is a sentence
    if bare and program not in LOOSE:  # typed alone: no English word may pass as an argument ("pytest failed")
        pattern = operands[0] if program == "grep" and operands else None  # `grep TODO a.txt`: its pattern
        return all(a.startswith(("-", "'", '"')) or FILE.match(a) or k and args[k - 1].startswith("-")
                   or a is pattern for k, a in enumerate(args))
    return True


def command(text: str, bare: bool) -> str | None:
    """The command a clause types without backticks, or None if it does not read as one.

    Example: command("ls -la | wc -l", bare=True) -> "ls -la | wc -l"; command("faster", bare=False) -> None
    """
    unquoted = re.sub(r"'[^']*'|\"[^\"]*\"", "''", text or "")
    if not text or re.search(r"[$`\\\n]", text) or re.search(r"[;&<>(){}]|\|\|", unquoted):
        return None
    out = []
    for k, segment in enumerate(s.strip() for s in text.split("|")):
        try:
            words = shlex.split(segment, posix=False)
        except ValueError:
            return None
        program = words[0] if words else ""  # as commands are typed: "Python 3" is not one
        if program not in COMMANDS or bare and k == 0 and program not in BARE:
            return None
        if not _words_ok(program, words[1:], bare and k == 0, piped=k > 0):
            return None
        out.append(" ".join(["python3" if program == "python" else program] + words[1:]))
    return " | ".join(out)


def _version(c: str) -> str | None:
    """The command that prints the version a clause asks about.

    Example: "What's the python version" -> "python3 --version"; "which python library is best" -> None
    """
    words = re.findall(r"[a-z0-9'+.]+", c.lower().replace("’", "'"))
    tools = [w for w in words if w in TOOLS]
    if len(tools) == 1 and ("version" in words or "versions" in words) and all(
            w in VERSION_FILLER or w in TOOLS for w in words):
        return TOOLS[tools[0]]
    if "版本" in c:
        found = re.findall(r"[A-Za-z][\w.+]*", c)
        if len(found) == 1 and found[0].lower() in TOOLS and not ZH_VERSION_FILLER.sub("", c.replace(found[0], "")):
            return TOOLS[found[0].lower()]
    return None


ASKS = (  # (pattern, command, what): questions whose answer is one command's output
    (r"^(?:pwd|(?:what(?:'s|\s+is)|show(?:\s+me)?|print|tell\s+me)\s+(?:the\s+|my\s+)?(?:current|present|working)\s+"
     r"(?:working\s+)?(?:directory|folder|dir|path)|where\s+am\s+i|(?:which|what)\s+(?:directory|folder)\s+am\s+i\s+in|"
     r"(?:the\s+)?current\s+(?:working\s+)?(?:directory|folder)|当前(?:的)?(?:工作)?(?:目录|路径|文件夹)(?:是(?:什么|哪里|哪个))?|"
     r"现在(?:的)?(?:工作)?(?:目录|路径)(?:是(?:什么|哪里|哪个))?|我(?:现在)?在哪个?(?:目录|文件夹|路径)?(?:里|下)?|"
     r"(?:显示|查看|打印)\s*(?:当前|工作)(?:工作)?(?:目录|路径))$", "pwd", "pwd"),
    (r"^(?:what\s+time\s+is\s+it(?:\s+now)?|what(?:'s|\s+is)\s+(?:the\s+)?(?:current\s+)?(?:time|date)(?:\s+(?:now|today))?|"
     r"what(?:'s|\s+is)\s+today's\s+date|what\s+(?:day|date)\s+is\s+(?:it|today)(?:\s+today)?|"
     r"(?:show|print|tell)\s+(?:me\s+)?the\s+(?:current\s+)?(?:date|time)|"
     r"现在几点了?|今天(?:是)?(?:几号|几月几号|星期几|什么日期|哪天)|(?:现在的?|当前的?)(?:时间|日期)(?:是(?:多少|什么))?)$",
     "date", "date"),
    (r"^(?:who\s+am\s+i|whoami|what(?:'s|\s+is)\s+my\s+user\s*name|which\s+user\s+am\s+i|当前用户(?:名)?是(?:谁|什么)|"
     r"我是哪个用户)$", "whoami", "whoami"),
    (r"^(?:(?:what|which)\s+(?:os|operating\s+system)\s+(?:is\s+this|am\s+i\s+(?:on|using|running)|is\s+it|are\s+we\s+on|"
     r"is\s+(?:installed|running))|(?:这是|当前是|当前的?)?什么操作系统|(?:当前的?)?操作系统是(?:什么|哪个))$",
     "uname -a", "os"),
)


def entry(c: str, roles: dict) -> list[Action] | None:
    """The action of a clause that asks the system something (see the table above), or None."""
    if "bash" not in roles:
        return None
    for pattern, cmd, what in ASKS:
        if re.match(pattern, c, ANY_CASE):
            return [bash("run", cmd, f"Running `{cmd}`", cmd, about=what)]
    cmd = _version(c)
    if cmd:
        return [bash("run", cmd, f"Running `{cmd}`", cmd, about="version")]
    m = re.match(r"^(?:run|execute|exec|type|运行|执行)\s*(?:the\s+command\s+|命令\s*)?(\S.*)$", c, ANY_CASE)
    cmd = command(m.group(1).strip(), bare=False) if m else command(c.strip(), bare=True)
    return [bash("run", cmd, f"Running `{cmd}`", cmd, typed=True)] if cmd else None
