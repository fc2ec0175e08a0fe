"""One clause of a request -> its Actions: the grammar's entries, tried in order (the table in grammar.py).

    "create hello.py that prints hi"  ──> clause() ──> git? mkdir? write? append? replace? move/copy?
        every file of a kind (grammar_kinds.py)? delete? count? files as a whole (grammar_files.py)?
        find? explain? show/read? test/run? list? a typed command or a question (grammar_shell.py)?
    the first entry that matches answers; one that matches but cannot be served (no shell) gives None.

This file holds the entries that write, move and read named files; "it" / "它" is the file
acted on last in the request (or by the request before: refs.py).

Example: clause("create hello.py that prints hi", [], roles with write_file, raw="create hello.py that prints hi")
  -> [Action("write", "Writing hello.py", [("write", {"path": "hello.py", "content": 'print("hi")\\n'})],
             "hello.py", {"prints": "hi"})]
"""

from __future__ import annotations

import json
import re
import shlex

from . import files as grammar_files
from . import kinds as grammar_kinds
from . import refs
from . import shell as grammar_shell
from .parts import KINDS, NAME, Action, F, Q, bash, unquote, where

CODE = {  # extension -> how a program prints one line of text
    ".py": lambda t: f"print({json.dumps(t, ensure_ascii=False)})\n",
    ".js": lambda t: f"console.log({json.dumps(t, ensure_ascii=False)});\n",
    ".mjs": lambda t: f"console.log({json.dumps(t, ensure_ascii=False)});\n",
    ".sh": lambda t: f"#!/bin/sh\nprintf '%s\\n' {shlex.quote(t)}\n",
    ".rb": lambda t: f"puts {json.dumps(t, ensure_ascii=False)}\n",
    ".go": lambda t: ('package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println('
            + json.dumps(t, ensure_ascii=False) + ')\n}\n'),
    ".rs": lambda t: f'fn main() {{\n    println!("{{}}", {json.dumps(t, ensure_ascii=False)});\n}}\n',
    ".txt": lambda t: t + "\n", ".md": lambda t: t + "\n",
}
RUNNERS = {".py": "python3", ".js": "node", ".mjs": "node", ".sh": "bash", ".rb": "ruby", ".go": "go run"}
FUNCTIONS = {  # the functions it can write from their name alone: name -> Python body
    "greet": 'return f"Hello, {%s}!"', "hello": 'return f"Hello, {%s}!"', "say_hello": 'return f"Hello, {%s}!"',
    "add": "return %s + %s", "subtract": "return %s - %s", "multiply": "return %s * %s",
    "square": "return %s * %s", "double": "return 2 * %s", "is_even": "return %s %% 2 == 0",
}
TEST_COMMAND = ("if python3 -m pytest --version >/dev/null 2>&1; then python3 -m pytest -q; "
                "else python3 -m unittest discover -v; fi")  # each part one that s03 runs unasked
GIT = (  # (pattern, command, what it is)
    (r"\bbranch\b|分支", "git branch --show-current", "branch"),
    (r"\bstatus\b|状态", "git status --short --branch", "status"),
    (r"\blog\b|\bcommits?\b|\bhistory\b|提交|日志|历史", "git log --oneline -10", "log"),
    (r"\bdiff\b|\bchanged?\b|\bchanges\b|改动|差异|修改了", "git diff", "diff"),
)


_bash = bash


def _write(path: str, content: str, **extra) -> Action:
    return Action("write", f"Writing {path}", [("write", {"path": path, "content": content})], path, extra)


def _last_action(actions: list[Action]) -> Action | None:
    """The latest action that worked on one file ("recent": the file an earlier request acted on)."""
    worked_on = ("write", "show", "read", "explain", "append", "lines", "size", "touch", "count", "replace", "recent")
    return next((a for a in reversed(actions) if a.kind in worked_on), None)


def _last_file(actions: list[Action]) -> str:
    last = _last_action(actions)
    return last.target if last else ""


def _run_file(path: str) -> Action | None:
    ext = "." + path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if ext not in RUNNERS:
        return None
    command = f"{RUNNERS[ext]} {shlex.quote(path)}"
    return _bash("run", command, f"Running `{command}`")


def _function(path: str, name: str, args: str) -> Action | None:
    params = [a.strip() for a in args.split(",") if a.strip()] or ["x"]
    body = FUNCTIONS.get(name.lower())
    if body is None or not path.endswith(".py") or body.count("%s") > len(params) and len(params) != 1:
        return None
    filled = body % tuple((params * 2)[:body.count("%s")])
    return _write(path, f"def {name}({', '.join(params)}):\n    {filled}\n", function=name)


IN_FILE = "`?" + F + "`?$"
FIND_IN = [  # the lines of one file that have a text
    r"^(?P<verb>search\s+for|grep(?:\s+for)?|look\s+for|find|locate|show(?:\s+me)?)\s+(?:all\s+(?:the\s+)?|every\s+|the\s+)?"
    r"(?P<lines>(?:lines?|places?|occurrences)\s+(?:with|containing|that\s+contains?|mentioning|of)\s+)?"
    r"(?P<text>\S.*?)\s+in\s+(?:the\s+file\s+)?" + IN_FILE,
    r"^(?:在\s*)?`?" + F + r"`?\s*(?:里面?|中)?\s*(?P<verb>找一下|搜一下|查找|搜索|找)\s*(?P<text>\S.*?)$",
]
COUNT_IN = [  # how often a text appears in one file ("times"), or on how many of its lines ("lines")
    r"^how\s+many\s+times\s+(?:does|do|is|are)\s+(?P<text>\S.*?)\s+(?:appear|occur|show\s+up|used|mentioned)\s+in\s+"
    + IN_FILE,
    r"^how\s+many\s+(?P<unit>lines)\s+(?:contain|mention|have|include)\s+(?P<text>\S.*?)\s+in\s+" + IN_FILE,
    r"^how\s+many\s+(?P<plain>\S.*?)\s+(?:are|is)\s+(?:there\s+)?in\s+" + IN_FILE,
    r"^count\s+(?:the\s+)?(?:(?:occurrences|mentions|instances)\s+of\s+)?(?P<plain>\S.*?)\s+in\s+" + IN_FILE,
    r"^`?" + F + r"`?\s*(?:里面?|中)?\s*有(?:多少|几)个\s*(?P<plain>\S.*?)$",
]


def _literal(text: str) -> str | None:
    """What a request searches for, if it is clearly a text: quoted, a marker such as TODO (or TODOs), or code
    (a name with _ . ( = : or /). "the bug" is not: "find the bug in calc.py" asks for debugging, not grep.
    Example: 'TODOs' -> 'TODO'; '`x = 1`' -> 'x = 1'; 'the bug' -> None"""
    quoted = unquote(text)
    if quoted != text.strip().rstrip("。."):
        return quoted or None
    marker = re.fullmatch(r"([A-Z][A-Z0-9_]+?)(?:s|es)?(?:\s+(?:comments?|markers?|notes?))?", text.strip())
    if marker:
        return marker.group(1)
    return text.strip() if re.fullmatch(r"\S*[_.(=:/]\S*", text.strip()) else None


def _path_of(m: re.Match) -> str:
    """The file a FIND_IN or COUNT_IN match names: F's own group, the one group without a name."""
    return next(m.group(k) for k in range(1, m.re.groups + 1) if k not in m.re.groupindex.values())


def _in_file(c: str, shell: bool) -> list[Action] | None:
    """"Find TODO in notes.py" -> `grep -nF -e TODO notes.py`; "How many times does TODO appear in notes.py?" ->
    `grep -oF -e TODO notes.py | wc -l`. None when no entry matches (or what it names is not clearly a text); []
    when one matches and cannot be served (no shell)."""
    for pattern in FIND_IN:
        m = re.search(pattern, c, re.IGNORECASE)
        if m:
            path = _path_of(m)
            searched = m.group("verb").lower().startswith(("search", "grep", "look", "搜", "查", "找一"))
            text = unquote(m.group("text")) if searched or m.groupdict().get("lines") else _literal(m.group("text"))
            if not text:
                return None   # not clearly a text: another entry, or the honest "I cannot"
            command = f"grep -nF -e {shlex.quote(text)} {shlex.quote(path)}"   # -F: the text as typed, never a pattern
            return [_bash("find", command, f"Searching {path} for {text!r}", text, path=path)] if shell else []
    for pattern in COUNT_IN:
        m = re.search(pattern, c, re.IGNORECASE)
        if m:
            path = _path_of(m)
            plain = m.groupdict().get("plain")
            text = _literal(plain) if plain is not None else unquote(m.group("text"))
            if not text:
                return None
            unit = m.groupdict().get("unit") or "times"
            grep = "grep -oF" if unit == "times" else "grep -F"   # -o: each occurrence on its own line
            command = f"{grep} -e {shlex.quote(text)} {shlex.quote(path)} | wc -l"
            return [_bash("find", command, f"Counting {text!r} in {path}", text, path=path, unit=unit)] \
                if shell else []
    return None


def clause(c: str, done: list[Action], roles: dict, raw: str = "") -> list[Action] | None:
    """The actions one clause asks for (see the table in the module docstring), or None.

    `c` has its end punctuation taken off; a text to print or write is taken from `raw`.
    """
    i = re.IGNORECASE
    shell = "bash" in roles
    last = _last_file(done)
    if last and not re.search(F, c) and refs.REF.search(c):  # "it" / "它": the file acted on last
        word = refs.REF.search(c).group(0)
        found = clause(refs.REF.sub(f" {last} ", c, count=1).strip(), done, roles,
                        refs.REF.sub(f" {last} ", raw, count=1).strip())
        if found:
            if _last_action(done).kind == "recent":  # from an earlier request: the answer says which file
                for a in found:
                    a.extra.setdefault("means", (word, last))
            return found
    # git
    if re.search(r"\bgit\b|\bbranch\b|\bcommits\b|last commit|^what(?:'s| has| have)? changed|当前分支|哪个分支|"
                 r"提交记录|改动|修改了什么", c, i) and shell \
            and not re.search(F, c) and not re.search(r"\s-", c):
        # a git question; "run git log --output=x" is a typed command (grammar_shell.py), never shortened
        for pattern, command, what in GIT:
            if re.search(pattern, c, i):
                n = re.search(r"\b(?:last|latest|recent)\s+(\d{1,3})\b|最近\s*(\d{1,3})", c, i)
                if what == "log" and n:
                    command = f"git log --oneline -{n.group(1) or n.group(2)}"
                return [_bash("git", command, f"Checking the git {what}", what=what)]
    # make a folder
    m = (re.search(r"^(?:create|make|add)\s+(?:a\s+|the\s+)?(?:new\s+)?(?:directory|folder|dir)\s+"
                   r"(?:called\s+|named\s+)?" + NAME + r"$", c, i)
         or re.search(r"^mkdir\s+(?:-p\s+)?" + NAME + "$", c, i)
         or re.search(r"^(?:创建|新建|建立)(?:一个)?(?:名为|叫)?\s*" + NAME + r"\s*的?(?:目录|文件夹)$", c)
         or re.search(r"^(?:创建|新建|建立)(?:一个)?(?:目录|文件夹)\s*(?:叫|名为)?\s*" + NAME + "$", c))
    if m:
        return [_bash("mkdir", f"mkdir -p {shlex.quote(m.group(1).rstrip('/'))}",
                      f"Making the folder {m.group(1)}", m.group(1).rstrip("/"))] if shell else None
    # create a file that prints a text / containing a text / with a function
    head = (r"^(?:create|write|make|add|save)\s+(?:a\s+|the\s+)?(?:new\s+)?(?:(?:python|js|javascript|shell|"
            r"text|ruby|go|rust|markdown)\s+)?(?:file|script|program)?\s*(?:called\s+|named\s+)?`?" + F + "`?")
    zh = r"^(?:创建|新建|写)(?:一个)?(?:文件|脚本)?\s*`?" + F + r"`?\s*[,，]?\s*"
    m = re.search(head + r",?\s+(?:that|which|to)\s+(?:prints?|outputs?|says?|echoes|displays?)\s+" + Q + "$", raw, i) \
        or re.search(zh + r"(?:它|用来|来|并)?(?:打印|输出|显示)\s*" + Q + "$", raw.rstrip("。"))
    if m:
        path, text = m.group(1), unquote(m.group(2))
        ext = "." + path.rsplit(".", 1)[-1].lower()
        return [_write(path, CODE[ext](text), prints=text)] if ext in CODE else None
    m = re.search(head + r",?\s+(?:containing|with(?: the)?(?: content| text| contents)?|that contains|"
                  r"saying)\s*:?\s*" + Q + "$", c, i) \
        or re.search(zh + r"(?:内容(?:为|是)|写入|包含)\s*[:：]?\s*" + Q + "$", c)
    if m:
        path, rest = m.group(1), re.sub(r"\s+(?:in|inside)\s+it\W*$", "", m.group(2), flags=i)
        fn = re.fullmatch(r"(?:an?\s+|the\s+)?(?:function\s+)?`?(\w+)\(([^)]*)\)`?(?:\s+function)?", rest.strip(), i)
        if fn and re.search(r"\bfunction\b", rest, i):
            action = _function(path, fn.group(1), fn.group(2))
            return [action] if action else None
        if not re.match(r"[`\"'“‘「]", rest.strip()) and re.search(r"\b(function|class|method|code|api|that)\b",
                                                                      rest, i):
            return None  # "with a class that ..." is code to write, not a text to put there
        return [_write(m.group(1), unquote(rest).replace("\\n", "\n"))]
    m = re.search(r"^(?:write|put|save)\s+(`[^`]+`|\"[^\"]+\"|'[^']+')\s+(?:to|in|into)\s+`?" + F + "`?$", c, i)
    if m:
        return [_write(m.group(2), unquote(m.group(1)).replace("\\n", "\n"))]
    # append a line ("add" only with the word "line" or a quoted text: "add type hints to a.py" is code)
    tail = r"\s+(?:to|at the end of)\s+(?:the end of\s+)?`?" + F + "`?$"
    m = (re.search(r"^append\s+(?:a\s+|the\s+)?(?:line\s+)?" + Q + tail, c, i)
         or re.search(r"^add\s+(?:a\s+|the\s+)?(?:new\s+)?line\s+" + Q + tail, c, i)
         or re.search(r"^add\s+(`[^`]+`|\"[^\"]+\"|'[^']+')" + tail, c, i)
         or re.search(r"^(?:在|向|往)\s*`?" + F + r"`?\s*(?:的)?(?:末尾|最后|结尾)?\s*"
                      r"(?:追加(?:一行)?|(?:添加|加上?)一行)\s*[:：]?\s*"
                      + Q + "$", c))
    if m:
        text, path = (m.group(1), m.group(2)) if not c.startswith(("在", "向", "往")) else (m.group(2), m.group(1))
        line = unquote(text)
        return [_bash("append", f"printf '%s\\n' {shlex.quote(line)} >> {shlex.quote(path)}",
                      f"Appending a line to {path}", path, line=line)] if shell else None
    # replace one text with another in a file
    m = (re.search(r"^(?:in\s+`?" + F + r"`?,?\s+)?(?:replace|change|substitute)\s+" + Q + r"\s+(?:with|to|by|into)\s+"
                   + Q + r"(?:\s+in\s+`?" + F + r"`?)?$", c, i)
         or re.search(r"^(?:把|将)\s*`?" + F + r"`?\s*(?:里|中|里面)?的?\s*" + Q
                      + r"\s*(?:替换成|替换为|改成|改为|换成)\s*" + Q + "$", c))
    if m:
        if c.startswith(("把", "将")):
            path, old, new = m.group(1), m.group(2), m.group(3)
        else:
            path, old, new = m.group(1) or m.group(4), m.group(2), m.group(3)
        if path:
            old, new = unquote(old), unquote(new)
            return [Action("replace", f"Editing {path}: `{old}` -> `{new}`",
                           [("edit", {"path": path, "old": old, "new": new})], path)]
    # rename / move, copy, delete
    m = (re.search(r"^(rename|move|mv|copy|cp)\s+" + NAME + r"\s+(to|into|as)?\s*" + NAME + "$", c, i)
         or re.search(r"^(?:把|将)\s*" + NAME + r"\s*(重命名为|改名为|移动到|移到|复制到|拷贝到)\s*" + NAME + "$", c))
    if m:
        if m.re.pattern.startswith("^(rename"):
            verb, src, into, dst = m.group(1).lower(), m.group(2), (m.group(3) or "").lower() == "into", m.group(4)
        else:
            verb, src, into, dst = m.group(2), m.group(1), False, m.group(3)
        copy = verb in ("copy", "cp", "复制到", "拷贝到")
        into = into or dst.endswith("/")  # "into archive", "to archive/": a folder, the file keeps its name
        target = dst.rstrip("/") + "/" if into else dst
        command = f"{'cp -r' if copy else 'mv'} {shlex.quote(src)} {shlex.quote(target)}"
        folder = dst.rstrip("/") if into else dst.rpartition("/")[0]   # the folder the file lands in
        if folder and folder not in (".", ".."):  # it may not exist yet: make it first
            command = f"mkdir -p {shlex.quote(folder)} && {command}"
        what = "Copying" if copy else "Moving"
        return [_bash("copy" if copy else "move", command, f"{what} {src} to {dst}", src, dest=dst)] if shell else None
    found = grammar_kinds.entry(c, roles)  # every file of a kind: "delete all the .pyc files"
    if found:
        return found
    m = re.search(r"^(?:delete|remove|rm|erase)\s+(?:the\s+)?(?:file\s+|(folder|directory)\s+)?" + NAME + "$", c, i) \
        or re.search(r"^(?:删除|删掉|移除)\s*(?:文件|(文件夹|目录))?\s*" + NAME + "$", c)
    if m:
        folder = bool(m.group(1)) or m.group(2).endswith("/")
        name = m.group(2).rstrip("/")
        return [_bash("delete", f"rm {'-r ' if folder else ''}{shlex.quote(name)}", f"Deleting {name}", name)] \
            if shell else None
    # count lines or words
    m = (re.search(r"^(?:how many|count(?: the)?(?: number of)?)\s+(lines|words|characters|chars)\s+(?:are\s+|is\s+)?"
                   r"(?:there\s+)?(?:in|of|does)\s+`?" + F + r"`?(?:\s+have|\s+contain)?$", c, i)
         or re.search(r"^`?" + F + r"`?\s*(?:有|共有|一共有)?多少(行|字|个字|词|个词|字符)", c)
         or re.search(r"^统计\s*`?" + F + r"`?\s*(?:的)?(行数|字数|词数|字符数)$", c))
    if m:
        unit = m.group(1) if m.re.pattern.startswith("^(?:how") else m.group(2)
        path = m.group(2) if m.re.pattern.startswith("^(?:how") else m.group(1)
        unit = {"行": "lines", "行数": "lines", "字": "words", "个字": "words", "词": "words", "个词": "words",
                "字数": "words", "词数": "words", "字符": "characters", "字符数": "characters",
                "chars": "characters"}.get(unit, unit.lower())
        flag = {"lines": "-l", "words": "-w", "characters": "-m"}[unit]
        if shell:  # `sed -n '$='` numbers the last line even without a final newline (`wc -l` would say 0)
            command = f"sed -n '$=' {shlex.quote(path)}" if unit == "lines" else f"wc {flag} < {shlex.quote(path)}"
            return [_bash("count", command, f"Counting the {unit} of {path}", path, unit=unit)]
        return [Action("count", f"Reading {path} to count its {unit}", [("read", {"path": path})], path,
                       {"unit": unit})]
    # files as a whole: how many, their lines, their size, an empty one (grammar_files.py)
    found = grammar_files.entry(c, roles)
    if found:
        return found
    # a text in one named file: the lines that have it, or how often it appears
    found = _in_file(c, shell)
    if found is not None:
        return found or None
    # which files mention a text
    m = (re.search(r"^(?:which|what)\s+files?\s+(?:mentions?|contains?|references?|uses?|includes?|has|have)\s+"
                   + Q + "$", c, i)
         or re.search(r"^(?:find|search for|grep(?: for)?|look for|locate)\s+(?:all\s+(?:the\s+)?|every\s+|the\s+)?"
                      r"(?:(?:occurrences|uses|usages|mentions|instances|references)\s+(?:of|to)\s+)?"
                      r"(?:files?\s+(?:that\s+)?(?:mentions?|mentioning|contains?|containing|with)\s+)?" + Q
                      + r"(?:\s+in\s+(?:the\s+|all\s+(?:the\s+)?|this\s+)?(?:files|code|codebase|project|folder))?$",
                      c, i)
         or re.search(r"^哪些文件(?:里)?(?:提到了?|包含了?|用到了?|有)\s*" + Q + "$", c)
         or re.search(r"^(?:找出|找到|查找|搜索|搜一下|找一下)\s*(?:所有的?|全部的?)?\s*(?:提到|包含)?\s*" + Q
                      + r"\s*(?:的地方|的文件|在哪里?)?$", c))
    if m and re.search(r"\s+in\s+`?" + F + "`?$", m.group(1)):   # "find the bug in calc.py" is not a search
        m = None
    if m and not re.match(r"grep\s+(?:-|\S+\s+`?" + F + "`?$)", c, i):  # `grep -n x a.txt` is a command
        text = unquote(m.group(1))
        if text == m.group(1).strip():  # unquoted: "all TODOs" means TODO, "TODO comments" too
            text = re.sub(r"\s+(?:comments?|markers?|notes?|items?|tags?)$", "", text, flags=i)
            text = re.sub(r"^([A-Z][A-Z_]+)s$", r"\1", text)
        if not text or text.endswith("文件"):
            return None
        command = f"grep -rlIF --exclude-dir='.?*' -e {shlex.quote(text)} . | sort"
        return [_bash("find", command, f"Searching the files for {text!r}", text)] if shell else None
    # what does X do
    m = (re.search(r"^(?:what\s+does|what's|what is)\s+`?" + F + r"`?\s+(?:do|for|doing)$", c, i)
         or re.search(r"^(?:explain|describe|summari[sz]e)\s+(?:what\s+)?`?" + F + r"`?(?:\s+does)?$", c, i)
         or re.search(r"^`?" + F + r"`?\s*(?:是)?(?:做什么的|干什么的|有什么用|做了什么|是干嘛的)", c)
         or re.search(r"^(?:解释一下|解释|说明)\s*`?" + F + "`?", c))
    if m:
        return [Action("explain", f"Reading {m.group(1)}", [("read", {"path": m.group(1)})], m.group(1))]
    # show a file, or read it
    m = re.search(r"^(?:show|display|print|cat|open|view)\s+(?:me\s+)?(?:the\s+)?(?:contents?\s+of\s+)?(?:file\s+)?`?"
                  + F + "`?$", c, i) \
        or re.search(r"^(?:显示|查看|打开|看看|看一下)\s*(?:文件)?\s*`?" + F + "`?(?:的内容)?$", c) \
        or re.search(r"^what(?:'s| is)\s+in\s+`?" + F + "`?$", c, i) \
        or re.search(r"^`?" + F + r"`?\s*(?:里面?)?(?:有什么|写了什么)$", c)
    if m:
        return [Action("show", f"Reading {m.group(1)}", [("read", {"path": m.group(1)})], m.group(1))]
    m = re.search(r"^(?:read|读取|读一下|读)\s*(?:the\s+)?(?:file\s+)?`?" + F + "`?$", c, i)
    if m:  # answered as the policy answers a read: what the file holds, in a line
        return [Action("read", f"Reading {m.group(1)}", [("read", {"path": m.group(1)})], m.group(1))]
    # run the tests, a file, it, or commands in backticks
    if re.search(r"^(?:run|execute)\s+(?:the\s+|all\s+(?:the\s+)?|my\s+)?(?:unit\s+)?tests?(?:\s+suite)?$"
                 r"|^运行(?:所有)?测试$", c, i):
        return [_bash("test", TEST_COMMAND, "Running the tests", "the tests")] if shell else None
    m = re.search(r"^(?:run|execute|运行|执行)\s*(?:the\s+(?:file|script)\s+)?"
                  r"(?:(?:python3?|node|bash|sh|ruby|go run)\s+)?"
                  r"`?(" + F + "|it|它)`?$", c, i)
    if m:
        path = _last_file(done) if m.group(1).lower() in ("it", "它") else m.group(1)
        action = _run_file(path) if path and shell else None
        return [action] if action else None
    m = re.fullmatch(r"(?:(?:run|execute|exec|try|运行|执行)\s*)?((?:`[^`]+`(?:\s*(?:,|and|和)?\s*))+)", c, i)
    if m and shell:
        return [_bash("run", cmd, f"Running `{cmd}`", ticked=True) for cmd in re.findall(r"`([^`]+)`", m.group(1))]
    # list (optionally one kind of file: "list the python files in src")
    kinds = "|".join(KINDS)
    m = (re.search(r"^(?:list|ls|show)(?:\s+(?:me\s+)?(?:all\s+)?(?:the\s+)?(?:(" + kinds
                   + r")\s+)?(?:files|contents|entries))?"
                   r"(?:\s+(?:in|of|under)\s+(?:the\s+)?" + NAME + r"(?:\s+(?:folder|directory|dir))?)?$", c, i)
         or re.search(r"^what\s+(?:(" + kinds + r")\s+)?files\s+are\s+(?:here|there|in\s+" + NAME + ")$", c, i)
         or re.search(r"^()what(?:'s|\s+is)\s+in\s+(?:the\s+)?" + NAME + r"\s+(?:folder|directory|dir)$", c, i)
         or re.search(r"^列出()(?:\s*`?([\w./-]+?)`?\s*(?:里|中|下|目录里?|文件夹里?)的?)?\s*(?:所有)?的?文件$", c)
         or re.search(r"^()(?:" + NAME + r"\s*(?:里|中|下))?有哪些文件$", c)
         or re.search(r"^()(?:这个|当前)?(?:文件夹|目录)(?:里|中|下)?(?:有什么|有哪些东西)$", c)
         or re.search(r"^()(?:这里|这儿|这边|此处)(?:都)?有(?:哪些|什么)(?:文件|东西)$", c))
    if m:
        return [grammar_files.listing(where(m.group(2) if m.lastindex and m.lastindex >= 2 else ""),
                                      KINDS.get((m.group(1) or "").lower(), ""), roles)]
    # a command typed without backticks, the folder, a version, the date (grammar_shell.py)
    return grammar_shell.entry(c, roles)
