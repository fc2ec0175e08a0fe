"""The task grammar: the plain requests the offline model serves, in English and Chinese.

A request is split into clauses at "and then" / "then" / "，然后" / "然后" (and at "and"
before a verb: "create x.py that prints hi and run it"); text in `backticks` is never
split. Each clause must match one entry below, or the whole request is outside the
grammar (nothing runs, and the answer says so: answers.outside).

    entry     example (English / Chinese)                                  tool calls (role: input)
    write     Create a file hello.py that prints Hello, World!            write hello.py `print("Hello, World!")`
              创建文件 hello.py，打印 你好                                  (.py .js .sh .rb .go .rs; .txt .md: text)
              Write notes.md with `- [ ] ship it` / 创建 a.txt，内容为 `hi`   write the text as given
              Create greet.py with a greet(name) function                 write a known function (FUNCTIONS)
    mkdir     Create a directory called test_output / 新建文件夹 test_output  bash `mkdir -p test_output`
    run       Run hello.py / 运行 hello.py / run `ls` / run it             bash `python3 hello.py` (node, bash, ruby...)
    test      Run the tests / 运行测试                                      bash: pytest if installed, else unittest
    list      List the files in src/ / 列出 src 里的文件                     list src (list_dir, LS, Glob, or `ls -la`)
    show      Show hello.py / 查看 hello.py                                 read hello.py
    read      Read hello.py / 读取 hello.py                                 read hello.py (answered "Read hello.py.")
    count     How many lines are in a.py? / a.py 有多少行？ / count words     bash `sed -n '$=' a.py` (or read, count)
    find      Which files mention TODO? / find all TODOs / 找出所有 TODO     bash `grep -rlIF ... -e TODO . | sort`
              Find TODO in notes.py / 在 notes.py 里搜索 TODO                bash `grep -nF -e TODO notes.py`
              How many times does TODO appear in notes.py?                 bash `grep -oF -e TODO notes.py | wc -l`
    move      Rename a.txt to b.txt / 把 a.txt 重命名为 b.txt                 bash `mv a.txt b.txt` (s03 asks first)
    copy      Copy a.txt to b.txt / 把 a.txt 复制到 b.txt                    bash `cp -r a.txt b.txt`
    delete    Delete old.txt / 删除 old.txt                                 bash `rm old.txt` (s03 asks first)
    replace   Replace foo with bar in a.txt / 把 a.txt 里的 foo 替换成 bar    edit a.txt foo -> bar
    append    Append the line done to notes.txt / 在 notes.txt 末尾追加一行 done  bash `printf ... >> notes.txt`
    git       What is the current git branch? / git status / show the git log / what changed?
              当前是哪个分支？ / git 状态 / 提交记录 / 改动                    bash `git branch --show-current` ...
    explain   What does hello.py do? / hello.py 是做什么的？                 read hello.py, answer from what it read
  in grammar_files.py, files as a whole:
    list      list python files / 列出所有 Python 文件                      Glob **/*.py, or bash `find . -name '*.py'`
    files     How many Python files are there? / 这里有几个 .py 文件？        bash `find . -type f -name '*.py' ...`
    loc       How many lines of code are there? / 统计代码行数                bash `find ... | xargs -0 -r grep -Hc ''`
    lines     Print the first 5 lines of a.py / a.py 的前 5 行是什么          bash `head -n 5 a.py` (tail, sed)
    size      How big is a.py? / a.py 有多大？ / Show me the biggest file     bash `wc -c < a.py`
    touch     create empty file x.txt / 创建 test.txt 文件                   bash `touch x.txt && wc -c < x.txt`
  in grammar_shell.py, questions to the system:
    command   run ls -la / 运行 pytest / pwd / ls -la src                    bash, as typed (known programs only)
    ask       What's the python version? / 当前目录是什么 / What time is it?  bash `python3 --version`, `pwd`, `date`

Example: parse("create hello.py that prints hi and run it", roles with bash and write_file)
  -> [Action("write", "Writing hello.py", [("write", {"path": "hello.py", "content": 'print("hi")\\n'})], "hello.py"),
      Action("run", "Running `python3 hello.py`", [("bash", {"command": "python3 hello.py"})], "python3 hello.py")]

Each file here is one idea: this one splits a request into clauses; grammar_clause.py
matches a clause to its entry and holds the entries that write, move and read named files;
grammar_files.py the entries about files as a whole; grammar_shell.py the ones that ask the
system; grammar_kinds.py every file of a kind; grammar_parts.py what they share.

Not modeled: code it has not been shown, except the few FUNCTIONS (grammar_clause.py); requests
that mix several entries in one clause without "then".
"""

from __future__ import annotations

import re

from . import clause as grammar_clause
from . import refs
from .parts import Action, unquote  # unquote: part of the grammar's API (tests, polite.vocabulary)

__all__ = ["Action", "clauses", "parse", "parse_parts", "spaced", "unquote"]

PREFIX = re.compile(r"^\s*(?:(?:please|pls|can you|could you|would you|now|also|first|and|then|just|ok|"
                    r"请你?|帮我|麻烦你?|你|先|再|接着|并且?|然后)[\s,，:]*)+", re.IGNORECASE)
VERBS = (r"run|execute|show|display|print|cat|list|count|delete|remove|rename|move|copy|append|replace|"
         r"create|make|write|explain|tell|check|fix|add|update|refactor|format|summari[sz]e|describe|translate|"
         r"improve|give|let|commit|push|install|read|open|find|search|sort|edit|change|also|save|put|store|"
         r"compute|calculate|compare")
SPLIT = re.compile(r"\s*(?:[,;]?\s+and\s+then\s+|[,;]?\s+then\s+|，?\s*然后\s*|[;；]\s*|[,，]?\s+and\s+(?=(?:"
                   + VERBS + r")\b))", re.IGNORECASE)


def spaced(text: str) -> str:
    """A space where Chinese meets a name, so paths stand alone. Example: '运行hello.py吧' -> '运行 hello.py 吧'"""
    text = re.sub(r"([\u3400-\u9fff])(?=[A-Za-z0-9_`])", r"\1 ", text)
    return re.sub(r"([A-Za-z0-9_`])(?=[\u3400-\u9fff])", r"\1 ", text)


def clauses(task: str) -> list[str]:
    """The clauses of a request (backticked text is kept whole).

    Example: 'create a.py containing `x then y` and then run it' -> ['create a.py containing `x then y`', 'run it']
    """
    ticks: list[str] = []
    masked = re.sub(r"`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”",
                    lambda m: ticks.append(m.group(0)) or f"\x00{len(ticks) - 1}\x00", task.strip())
    parts = [p for p in SPLIT.split(masked) if p and p.strip(" ,，。.")]
    return [re.sub(r"\x00(\d+)\x00", lambda m: ticks[int(m.group(1))], p).strip() for p in parts]


def parse(task: str, roles: dict, recent: str = "") -> list[Action] | None:
    """The actions of a request, or None if any clause is outside the grammar.

    `recent` is the file the conversation worked on last, what "it" means when the request names none.
    """
    actions, skipped = parse_parts(task, roles, recent)
    return None if skipped else actions or None


def parse_parts(task: str, roles: dict, recent: str = "") -> tuple[list[Action], list[str]]:
    """(the actions of the clauses inside the grammar, the clauses outside it, as typed).

    Example: parse_parts("show a.py and fix any style issues", roles)
      -> ([Action("show", ...)], ["fix any style issues"])
    """
    actions: list[Action] = [Action("recent", "", [], recent)] if recent else []
    skipped = []
    for text in clauses(task):
        raw = PREFIX.sub("", spaced(text)).strip()
        clause = raw.rstrip("?？!！。").strip()
        found = grammar_clause.clause(clause, actions, roles, raw) if clause else None
        if found and refs.unresolved(found):  # "delete it" with no file it can mean: never `rm it`
            found = None
        if not found:
            skipped.append(text.strip())
            continue
        actions += found
    return [a for a in actions if a.kind != "recent"], skipped
