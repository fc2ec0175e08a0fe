"""Grammar entries about files as a whole: which there are, how many, their lines, their size, an empty one.

    entry    example (English / Chinese)                          tool call
    list     list python files / 列出所有 Python 文件               Glob `**/*.py`, or bash `find . -name '*.py' ...`
    files    How many Python files are there? / 这里有几个 .py 文件？ bash `find . -type f -name '*.py' ... | sort`
    loc      How many lines of code are there? / 统计代码行数         bash `find ... | xargs -0 -r grep -Hc ''`
    lines    Print the first 5 lines of a.py / a.py 的前 5 行是什么   bash `head -n 5 a.py` (`tail`, `sed -n '3,5p'`)
    size     How big is a.py? / a.py 有多大？                        bash `wc -c < a.py`
    biggest  Show me the biggest file / 哪个文件最大？                bash `find ... | xargs -0 -r wc -c | sort`
    touch    create empty file x.txt / 创建 test.txt 文件             bash `touch x.txt && wc -c < x.txt`

Counts look in sub-folders too and skip hidden ones (.git, .venv) and __pycache__, and the
answer says so. Each entry reads what a request says as a whole: "how many files are in this
folder" names a count, a kind and a place, and any other word ("how many files did you eat")
leaves the clause outside the grammar. Without a shell only `lines` (read the file, then cut
it) and `list` (the list tool) are served; the others are outside.

Example: entry("How many Python files are there", {"bash": ...})
  -> [Action("files", "Counting the .py files in this folder", [("bash", {"command":
        "find . -type f -name '*.py' -not -path '*/.*' -not -path '*/__pycache__/*' | sort"})], ".", {"ext": ".py"})]

Not modeled: sizes of folders, files named by a pattern other than one extension, gitignored files.
"""

from __future__ import annotations

import re
import shlex

from ..conversation.roles import is_glob
from .parts import KIND, KINDS, NAME, NUMBER, ZH_HERE, Action, F, bash, kind_ext, number, where

ANY_CASE = re.IGNORECASE
SKIP = "-not -path '*/.*' -not -path '*/__pycache__/*'"  # hidden folders and files, Python's caches
CODE_EXTS = (".py", ".js", ".ts", ".sh", ".rb", ".go", ".rs", ".java", ".c", ".h")
ASCII_NAME = r"`?((?:\.{1,2}/)?[A-Za-z0-9_@][A-Za-z0-9_.@-]*(?:/[A-Za-z0-9_.@-]+)*/?)`?"
# "in this folder", "under src/", "in the docs directory": the place a count looks in, as a group
PLACE = (r"\s+(?:in|under|inside|within)\s+(?:the\s+)?(?:folder\s+|directory\s+)?" + ASCII_NAME
         + r"(?:\s+(?:folder|directory|dir))?")
# words a count request may hold besides its count, kind and place
FILLER = {"are", "is", "there", "here", "do", "we", "i", "you", "have", "exist", "in", "total", "altogether",
          "all", "the", "this", "folder", "directory", "dir", "project", "repo", "workspace", "present",
          "currently", "now", "right", "of", "it", "has", "contain", "contains", "does", "overall"}
NOT_KIND = r"(?!(?:" + KIND.strip("()") + r")(?![\w.]))"  # "Python 代码" names a kind, not a folder
ZH_PLACE = r"(?:(" + ZH_HERE + r")|" + NOT_KIND + ASCII_NAME + r"\s*(?:目录|文件夹)?)?\s*(?:里面|里|中|下|内|下面)?\s*"
ZH_HEAD = r"^(?:数一下|数一数|数数|统计一下|统计|算一下|计算|查一下|看一下|看看)?\s*"


def _only_filler(rest: str) -> bool:
    return all(w in FILLER for w in re.findall(r"[a-z']+", rest.lower()))


def _place(rest: str) -> tuple[str, str] | None:
    """(the folder a rest of a clause names, the rest without it), or None if it names two."""
    found = list(re.finditer(PLACE, rest, ANY_CASE))
    if len(found) > 1:
        return None
    if not found:
        return ".", rest
    m = found[0]
    return where(m.group(1)), rest[:m.start()] + " " + rest[m.end():]


def find_files(root: str, exts: tuple = ()) -> str:
    """The `find` command for the files under root with one of exts (any file if none), hidden ones skipped.

    Example: find_files(".", (".py",)) -> "find . -type f -name '*.py' -not -path '*/.*' -not -path '*/__pycache__/*'"
    """
    names = [f"-name {shlex.quote('*' + e)}" for e in exts]
    select = (f"\\( {' -o '.join(names)} \\) " if len(names) > 1 else f"{names[0]} " if names else "")
    return f"find {shlex.quote(root)} -type f {select}{SKIP}"


def _label(root: str, ext: str = "") -> str:
    return f"{ext + ' ' if ext else ''}files in {'this folder' if root == '.' else root}"


def _count_files(c: str) -> tuple[str, str] | None:
    """(folder, extension) a "how many files" clause asks about, or None."""
    m = re.match(r"^(?:how\s+many|count(?:\s+up)?(?:\s+all)?(?:\s+the)?(?:\s+number\s+of)?|(?:what(?:'s|\s+is)\s+)?"
                 r"(?:the\s+)?(?:total\s+)?number\s+of)\s+(?:the\s+|all\s+)?(?:" + KIND + r"\s+)?"
                 r"(?:files|scripts|modules|source\s+files)\b(.*)$", c, ANY_CASE)
    if m:
        place = _place(m.group(2))
        return (place[0], kind_ext(m.group(1))) if place and _only_filler(place[1]) else None
    many = r"(?:一共|总共|共)?\s*有?\s*(?:多少|几)\s*个?\s*"
    m = (re.match(ZH_HEAD + ZH_PLACE + many + KIND + r"?\s*(?:的)?\s*文件\s*[呢吗啊]?$", c, ANY_CASE)
         or re.match(r"^(?:统计|数一下|数数|计算|算一下)\s*" + ZH_PLACE + r"的?\s*(?:所有的?)?\s*" + KIND
                     + r"?\s*文件\s*(?:的)?\s*(?:数量|个数|数目|总数)$", c, ANY_CASE)
         or re.match(ZH_HEAD + ZH_PLACE + r"的?\s*" + KIND + r"?\s*文件\s*" + many.replace("有?", "有")
                     + r"[呢吗啊]?$", c, ANY_CASE))
    if m:
        return where(m.group(1) or m.group(2)), kind_ext(m.group(3))
    return None


def _count_lines(c: str) -> tuple[str, tuple] | None:
    """(folder, extensions) a "how many lines of code" clause asks about, or None."""
    m = re.match(r"^(?:how\s+many|count(?:\s+the)?(?:\s+total)?(?:\s+number\s+of)?|(?:what(?:'s|\s+is)\s+)?"
                 r"(?:the\s+)?total(?:\s+number\s+of)?)\s+lines\s+(?:of\s+(?:" + KIND + r"\s+)?(code|source|"
                 + KIND.strip("()") + r")|(?:are\s+)?(?:there\s+)?in\s+(?:all\s+)?(?:the\s+|my\s+)?(?:" + KIND
                 + r"\s+)?files)\b(.*)$", c, ANY_CASE)
    if m:
        place = _place(m.group(4))
        code = (m.group(2) or "").lower() in ("code", "source")
        word = m.group(1) or (m.group(2) if not code else "") or m.group(3)
        code = code and not m.group(1)
        exts = CODE_EXTS if code else (kind_ext(word),) if kind_ext(word) else ()
        return (place[0], exts) if place and _only_filler(place[1]) else None
    code = r"(代码|源码|源代码|文件)"
    many = r"(?:一共|总共|共)?\s*有?\s*(?:多少|几)\s*行"
    m = (re.match(ZH_HEAD + ZH_PLACE + r"的?\s*(?:所有的?|全部的?)?\s*" + KIND + r"?\s*" + code + r"\s*" + many
                  + r"(?:代码)?\s*[呢吗]?$", c, ANY_CASE)
         or re.match(ZH_HEAD + ZH_PLACE + many + r"\s*()(代码|源码|源代码)\s*[呢吗]?$", c, ANY_CASE)
         or re.match(r"^(?:统计|数一下|计算|算一下)\s*" + ZH_PLACE + r"的?\s*(?:所有的?)?\s*" + KIND
                     + r"?\s*" + code + r"?\s*的?\s*(?:总)?行数$", c, ANY_CASE))
    if m:
        ext = kind_ext(m.group(3))
        exts = (ext,) if ext else () if m.group(4) == "文件" else CODE_EXTS
        return where(m.group(1) or m.group(2)), exts
    return None


ASK = r"(?:(?:show|print|display|give|output|read|cat|get|list|tell)\s+(?:me\s+)?|what(?:'s|\s+is|\s+are)\s+)?"
ZH_SHOW = r"^(?:显示|查看|打印|看看|看一下|输出|读取|给我看)?\s*(?:文件)?\s*`?" + F + r"`?\s*(?:文件)?\s*"
ZH_WHAT = r"\s*(?:是什么|的内容|内容|写了什么|有什么)?$"


def _lines_of(c: str) -> tuple[str, str, int, int] | None:
    """(path, 'first' | 'last' | 'range', n or first line, last line) a clause asks to see, or None."""
    m = (re.match(r"^" + ASK + r"(?:the\s+)?(first|last|top|bottom|opening|final)\s+(?:" + NUMBER
                  + r"\s+|(few)\s+)?(lines?)\s+(?:of|in|from)\s+(?:the\s+file\s+)?`?" + F + "`?$", c, ANY_CASE)
         or re.match(r"^(head|tail)\s+(?:-n\s*(\d+)\s+|-(\d+)\s+)?()`?" + F + "`?$", c, ANY_CASE))
    if m and m.re.pattern.startswith("^(head"):
        return m.group(5), "first" if m.group(1).lower() == "head" else "last", int(m.group(2) or m.group(3) or 10), 0
    if m:
        end = "first" if m.group(1).lower() in ("first", "top", "opening") else "last"
        n = number(m.group(2)) if m.group(2) else 5 if m.group(3) else 10 if m.group(4).lower() == "lines" else 1
        return (m.group(5), end, n, 0) if n else None
    m = (re.match(r"^" + ASK + r"(?:on\s+)?(?:the\s+)?lines?\s+(\d{1,6})"
                  r"(?:\s*(?:-|to|through|thru|–)\s*(\d{1,6}))?\s+(?:of|in|from)\s+`?" + F + "`?$", c, ANY_CASE)
         or re.match(ZH_SHOW + r"的?\s*第\s*(\d{1,6})\s*(?:(?:到|-|至|~)\s*(?:第\s*)?(\d{1,6})\s*)?行" + ZH_WHAT, c))
    if m:
        if m.re.pattern.startswith(ZH_SHOW):
            path, a, b = m.group(1), int(m.group(2)), int(m.group(3) or m.group(2))
        else:
            path, a, b = m.group(3), int(m.group(1)), int(m.group(2) or m.group(1))
        return (path, "range", a, b) if 0 < a <= b else None
    m = re.match(ZH_SHOW + r"(?:的|里的|中的)?\s*(前|后|最后|末尾|开头|头|尾)\s*" + NUMBER + r"?\s*(几)?\s*行"
                 + ZH_WHAT, c)
    if m:
        n = number(m.group(3)) if m.group(3) else 10
        return (m.group(1), "first" if m.group(2) in ("前", "开头", "头") else "last", n, 0) if n else None
    return None


def _size_of(c: str) -> str | None:
    zh = r"^(?:查看|显示|看看|看一下)?\s*`?" + F + r"`?\s*(?:文件)?\s*"
    m = (re.match(r"^(?:how\s+(?:big|large)\s+is|what(?:'s|\s+is)\s+the\s+(?:file\s+)?size\s+of|what\s+size\s+is|"
                  r"(?:get|show|tell\s+me|check|give\s+me)\s+(?:me\s+)?the\s+(?:file\s+)?size\s+of|(?:the\s+)?"
                  r"(?:file\s+)?size\s+of|how\s+many\s+bytes\s+(?:is|are\s+in|does))\s+(?:the\s+file\s+)?`?" + F
                  + r"`?(?:\s+(?:have|take|take\s+up|hold))?$", c, ANY_CASE)
         or re.match(zh + r"(?:有|是)?\s*(?:多大|多少字节|多少个字节)$", c)
         or re.match(zh + r"的?\s*(?:文件)?(?:大小|体积)\s*(?:是多少|有多大|多少|是多大)?$", c))
    return m.group(1) if m else None


def _extreme(c: str) -> tuple[str, str] | None:
    """(folder, 'biggest' | 'smallest') a clause asks for, or None."""
    m = (re.match(r"^(?:(?:show|tell|give)\s+me\s+|what(?:'s|\s+is)\s+|which\s+is\s+|find\s+)?(?:the\s+)?"
                  r"(biggest|largest|smallest)\s+file\b(.*)$", c, ANY_CASE)
         or re.match(r"^which\s+file\s+is\s+(?:the\s+)?(biggest|largest|smallest)\b(.*)$", c, ANY_CASE)
         or re.match(r"^(?:tell\s+me\s+)?which(?:\s+one|\s+file)?\s+is\s+(?:the\s+)?(biggest|largest|smallest)"
                     r"(?:\s+one)?\b(.*)$", c, ANY_CASE))
    if m:
        place = _place(m.group(2))
        return (place[0], "smallest" if m.group(1).lower() == "smallest" else "biggest") \
            if place and _only_filler(place[1]) else None
    m = (re.match(r"^(?:找出|显示|看看|看一下)?\s*" + ZH_PLACE + r"的?\s*最(大|小)的(?:一个)?文件"
                  r"(?:是(?:哪个|哪一个|什么))?$", c)
         or re.match(r"^" + ZH_PLACE + r"哪(?:个|一个)文件最(大|小)$", c))
    if m:
        return where(m.group(1) or m.group(2)), "biggest" if m.group(3) == "大" else "smallest"
    return None


def _empty_file(c: str) -> str | None:
    m = (re.match(r"^(?:create|touch|new)\s+(?:an?\s+)?(?:new\s+)?(?:empty\s+|blank\s+)?(?:(?:text|python|markdown|"
                  r"js|javascript|shell|json|yaml)\s+)?(?:file\s+)?(?:called\s+|named\s+)?`?" + F
                  + r"`?(?:\s+file)?$", c, ANY_CASE)
         or re.match(r"^make\s+(?:an?\s+)?(?:new\s+)?(?:empty\s+|blank\s+)?(?:\w+\s+)?file\s+(?:called\s+|named\s+)?`?"
                     + F + "`?$", c, ANY_CASE)
         or re.match(r"^(?:创建|新建|建立|建)\s*(?:一个)?\s*(?:新的?)?\s*(?:空白?的?)?\s*(?:文本|Python|python)?\s*"
                     r"(?:文件)?\s*(?:名为|叫做?)?\s*`?" + F + r"`?\s*(?:的)?\s*(?:空白?的?)?\s*(?:文件)?$", c))
    return m.group(1) if m else None


def listing(root: str, ext: str, roles: dict) -> Action:
    """List a folder; the files of one kind are found in sub-folders too (Glob, or `find` with a shell)."""
    label = "this folder" if root == "." else root
    if ext and "bash" in roles and not ("list" in roles and is_glob(roles["list"])):
        command = find_files(root, (ext,)) + " | sort"
        return Action("list", f"Listing the {ext} files in {label}", [("bash", {"command": command})], root,
                      {"ext": ext})
    return Action("list", f"Listing {label}", [("list", {"path": root, "pattern": f"**/*{ext}" if ext else "*"})],
                  root, {"ext": ext})


def _of_kind(c: str) -> tuple[str, str] | None:
    """(folder, extension) of "list python files" / "find all .md files in docs" / "列出所有 Python 文件", or None.

    A listing, not a search for the words "python files".
    """
    kind = r"(?:(?P<kind>" + "|".join(KINDS) + r")|\*?\.(?P<ext>[A-Za-z]\w{0,5}))"
    place = r"(?:\s+(?:in|under|inside)\s+(?:the\s+)?" + NAME.replace("(", "(?P<place>", 1) \
        + r"(?:\s+(?:folder|directory|dir))?)?"
    m = (re.search(r"^(?:find|get|search\s+for|locate|list|show)\s+(?:me\s+)?(?:all\s+|every\s+)?(?:the\s+|my\s+)?"
                   + kind + r"\s+files" + place + "$", c, ANY_CASE)
         or re.search(r"^(?:列出|找出|查找|显示)\s*(?:`?(?P<place>[\w./-]+?)`?\s*(?:里|中|下|目录里?|文件夹里?)的?)?\s*"
                      r"(?:所有|全部)?的?\s*" + kind + r"\s*文件$", c, ANY_CASE))
    if not m:
        return None
    return where(m.group("place")), KINDS.get((m.group("kind") or "").lower()) or "." + m.group("ext").lower()


def entry(c: str, roles: dict) -> list[Action] | None:
    """The action of a clause about files as a whole (see the table above), or None."""
    shell = "bash" in roles
    q = shlex.quote
    lines = _lines_of(c)
    if lines:
        path, end, a, b = lines
        what = (f"line {a}" if a == b else f"lines {a}-{b}") if end == "range" else \
            f"the {end} line" if a == 1 else f"the {end} {a} lines"
        extra = {"end": end, "n": a, "to": b}
        if not shell:  # read it all, then cut (report.py)
            return [Action("lines", f"Reading {path} for {what}", [("read", {"path": path})], path, extra)]
        command = {"first": f"head -n {a} {q(path)}", "last": f"tail -n {a} {q(path)}",
                   "range": f"sed -n '{a}p' {q(path)}" if a == b else f"sed -n '{a},{b}p' {q(path)}"}[end]
        return [bash("lines", command, f"Showing {what} of {path}", path, **extra)]
    kind = _of_kind(c)
    if kind:
        return [listing(*kind, roles)]
    if not shell:
        return None
    counted = _count_files(c)
    if counted:
        root, ext = counted
        return [bash("files", find_files(root, (ext,) if ext else ()) + " | sort", f"Counting the {_label(root, ext)}",
                     root, ext=ext)]
    code = _count_lines(c)
    if code:
        root, exts = code
        # `grep -c ''` counts a last line without a newline too (`wc -l` would not)
        return [bash("loc", find_files(root, exts) + " -print0 | xargs -0 -r grep -Hc ''",
                     f"Counting the lines of {'code' if exts == CODE_EXTS else 'the ' + _label(root, ''.join(exts))}"
                     + (f" in {'this folder' if root == '.' else root}" if exts == CODE_EXTS else ""), root,
                     exts=list(exts))]
    path = _size_of(c)
    if path:
        return [bash("size", f"wc -c < {q(path)}", f"Measuring {path}", path)]
    extreme = _extreme(c)
    if extreme:
        root, which = extreme
        return [bash("biggest", find_files(root) + " -print0 | xargs -0 -r wc -c | sort -n",
                     f"Finding the {which} file in {'this folder' if root == '.' else root}", root, which=which)]
    path = _empty_file(c)
    if path:
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        make = f"mkdir -p {q(folder)} && " if folder else ""
        return [bash("touch", f"{make}touch {q(path)} && wc -c < {q(path)}", f"Making sure {path} exists", path)]
    return None
