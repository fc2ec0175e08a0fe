"""The grammar's entries about files as a whole (grammar_files.py), driven through the s02 and s03 agents.

Each answer is checked against the workspace itself: the count is the number of files really
there (and changes when one is added), the lines shown are the file's own, the size is its size.
"""

from __future__ import annotations

import os

import pytest

from offline.grammar.table import parse
from tests.test_offline_grammar import CALC, NOTES, STAGES, Asked, ask, make_agent, said, with_read_only, ws  # noqa: F401

NUMS = "".join(f"line {k}\n" for k in range(1, 13))
SH = {"bash": {"name": "bash"}}


@pytest.fixture
def tree(ws):  # noqa: F811 -- the fixture from test_offline_grammar, with sub-folders
    (ws / "sub").mkdir()
    (ws / "sub" / "more.md").write_text("a TODO here\n")
    (ws / "sub" / "x.py").write_text("print(1)\nprint(2)\n")
    (ws / ".hidden").mkdir()
    (ws / ".hidden" / "y.py").write_text("secret = 1\n")
    (ws / "__pycache__").mkdir()
    (ws / "__pycache__" / "calc.cpython-311.pyc").write_bytes(b"\x00\x01")
    (ws / "nums.txt").write_text(NUMS)
    return ws


def files_there(root, ext=""):
    """The files a count should find, walked here: sub-folders in, hidden ones and __pycache__ out."""
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        found += [os.path.relpath(os.path.join(folder, n), root) for n in names
                  if not n.startswith(".") and n.endswith(ext)]
    return sorted(found)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@STAGES
@pytest.mark.parametrize("prompt, ext", [
    ("How many files are in this folder?", ""), ("count the files", ""), ("有多少个文件", ""),
    ("数一下这个文件夹里有多少个文件", ""), ("How many Python files are there?", ".py"), ("how many .py files", ".py"),
    ("这里有几个 .py 文件？", ".py"), ("count all markdown files", ".md"), ("统计 .txt 文件的数量", ".txt")])
def test_a_file_count_is_the_number_of_files_really_there(tree, stage, prompt, ext):
    expected = files_there(tree, ext)
    answer, calls = ask(make_agent(stage, tree), prompt)
    assert [name for name, _ in calls] == ["bash"] and calls[0][1]["command"].startswith("find . -type f")
    count = said(prompt, f"{len(expected)} {ext + ' ' if ext else ''}file{'s' * (len(expected) != 1)}, "
                         "sub-folders included (hidden ones skipped)",
                 f"共 {len(expected)} 个{' ' + ext + ' ' if ext else ''}文件（含子文件夹，不计隐藏文件）")
    assert count in answer and ", ".join(expected) in answer and "y.py" not in answer and ".pyc" not in answer
    (tree / "sub" / "new.py").write_text("")  # one more: the answer follows the workspace
    answer, _ = ask(make_agent(stage, tree), prompt)
    assert str(len(files_there(tree, ext))) + " " in answer and len(files_there(tree, ext)) == len(expected) + (
        ext in ("", ".py"))


@STAGES
def test_a_count_in_a_named_folder_counts_there(tree, stage):
    answer, _ = ask(make_agent(stage, tree), "how many files are in the sub folder")
    assert "sub: 2 files" in answer and "sub/more.md, sub/x.py" in answer
    answer, _ = ask(make_agent(stage, tree), "sub 里有多少个文件")
    assert "sub：共 2 个文件" in answer


@STAGES
@pytest.mark.parametrize("prompt, ext", [("how many lines of code are in this project", ".py"),
                                         ("统计代码行数", ".py"), ("how many lines of python code are there", ".py"),
                                         ("所有 .md 文件一共有多少行", ".md")])
def test_lines_of_code_are_the_sum_of_the_files_lines(tree, stage, prompt, ext):
    files = files_there(tree, ext)
    total = sum(len((tree / f).read_text().splitlines()) for f in files)
    answer, _ = ask(make_agent(stage, tree), prompt)
    assert said(prompt, f"{total} lines", f"共 {total} 行") in answer, answer
    assert all(f"{f} ({len((tree / f).read_text().splitlines())})" in answer for f in files)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@STAGES
@pytest.mark.parametrize("prompt, shown, header", [
    ("Print the first 5 lines of nums.txt", range(1, 6), "nums.txt, the first 5 lines:"),
    ("show the last 3 lines of nums.txt", range(10, 13), "nums.txt, the last 3 lines:"),
    ("nums.txt 的前 5 行是什么", range(1, 6), "nums.txt 的前 5 行："),
    ("显示 nums.txt 的最后两行", range(11, 13), "nums.txt 的最后 2 行："),
    ("show lines 4 to 6 of nums.txt", range(4, 7), "nums.txt, lines 4-6:"),
    ("查看 nums.txt 的第 7 行", range(7, 8), "nums.txt 的第 7 行："),
    ("head nums.txt", range(1, 11), "nums.txt, the first 10 lines:"),
    ("what is the first line of nums.txt", range(1, 2), "nums.txt, the first line:"),
    ("print the first 20 lines of nums.txt", range(1, 13), "nums.txt has only 12 lines:")])
def test_the_lines_shown_are_the_files_own(tree, stage, prompt, shown, header):
    answer, _ = ask(make_agent(stage, tree), prompt)
    body = "".join(f"    line {k}\n" for k in shown).rstrip("\n")
    assert f"- {header}\n{body}" in answer
    assert f"line {shown.start - 1}\n" not in answer and f"line {shown.stop}\n" not in answer + "\n"


def test_lines_without_a_shell_are_cut_from_what_was_read(tree):
    call, answer = with_read_only("show the last 2 lines of nums.txt", tree)
    assert call.input == {"file_path": "nums.txt"}
    assert "- nums.txt, the last 2 lines:\n    line 11\n    line 12" in answer


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@STAGES
@pytest.mark.parametrize("prompt", ["How big is calc.py?", "what's the size of calc.py", "calc.py 有多大？",
                                    "查看 calc.py 的大小"])
def test_a_size_is_the_files_size(tree, stage, prompt):
    size = (tree / "calc.py").stat().st_size
    answer, calls = ask(make_agent(stage, tree), prompt)
    assert calls == [("bash", {"command": "wc -c < calc.py"})]
    assert said(prompt, f"- calc.py is {size} bytes.", f"- calc.py 的大小是 {size} 字节。") in answer
    (tree / "calc.py").write_text("x" * 3000)
    assert said(prompt, "3000 bytes (2.9 KB)", "3000 字节（2.9 KB）") in ask(make_agent(stage, tree), prompt)[0]


@STAGES
@pytest.mark.parametrize("prompt, which", [("Show me the biggest file", "biggest"), ("which file is the largest", "biggest"),
                                           ("哪个文件最小？", "smallest")])
def test_the_biggest_and_smallest_file_are_found_by_their_sizes(tree, stage, prompt, which):
    sizes = sorted(((tree / f).stat().st_size, f) for f in files_there(tree))
    n, name = sizes[-1] if which == "biggest" else sizes[0]
    answer, _ = ask(make_agent(stage, tree), prompt)
    assert said(prompt, f"the {which} file in this folder is {name} ({n} bytes)",
                f"当前目录里最{'大' if which == 'biggest' else '小'}的文件是 {name}（{n} 字节）") in answer


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@STAGES
@pytest.mark.parametrize("prompt, path", [("create empty file x.txt", "x.txt"), ("创建 test.txt 文件", "test.txt"),
                                          ("touch docs/new.md", "docs/new.md"), ("新建一个空文件 a.py", "a.py")])
def test_an_empty_file_is_made_and_an_existing_one_is_kept(tree, stage, prompt, path):
    asked = Asked()
    answer, _ = ask(make_agent(stage, tree, asked), prompt)
    assert (tree / path).read_bytes() == b""
    assert len(asked.calls) == (0 if stage == "s02" else 1)  # s03 asks (yes here) before anything that writes
    assert said(prompt, f"- {path}: there now, empty (0 bytes)", f"- {path}：文件已就绪，是空的（0 字节）") in answer
    answer, _ = ask(make_agent(stage, tree), prompt.replace(path, "notes.txt"))
    assert (tree / "notes.txt").read_text() == NOTES  # never emptied
    assert said(prompt, f"it already existed ({len(NOTES)} bytes)", f"文件早已存在（{len(NOTES)} 字节）") in answer


@STAGES
@pytest.mark.parametrize("prompt", ["find all TODOs", "find all the TODO comments", "找出所有 TODO"])
def test_find_all_todos_searches_for_todo(tree, stage, prompt):
    answer, calls = ask(make_agent(stage, tree), prompt)
    assert calls[0][1]["command"].startswith("grep -rlIF --exclude-dir='.?*' -e TODO .")
    assert said(prompt, "2 files mention 'TODO': notes.txt, sub/more.md",
                "有 2 个文件提到了 'TODO'：notes.txt, sub/more.md") in answer


@STAGES
@pytest.mark.parametrize("prompt", ["list python files", "find all python files", "列出所有 Python 文件",
                                    "show me the .py files"])
def test_listing_one_kind_of_file_lists_only_those_sub_folders_included(tree, stage, prompt):
    answer, _ = ask(make_agent(stage, tree), prompt)
    assert said(prompt, "3 .py files: calc.py, sub/x.py, test_calc.py",
                "3 个 .py 文件：calc.py, sub/x.py, test_calc.py") in answer
    assert "notes.txt" not in answer and "y.py" not in answer


@STAGES
def test_read_is_part_of_the_grammar_so_it_chains(ws, stage):  # noqa: F811
    (ws / "hi.py").write_text('print("hi")\n')
    answer, calls = ask(make_agent(stage, ws), "read hi.py then run it")
    assert [name for name, _ in calls] == ["read_file", "bash"] and calls[1][1] == {"command": "python3 hi.py"}
    assert answer.startswith("Done: 2 steps.") and "- hi.py: 1 line: print(\"hi\")" in answer and "1 line: hi" in answer
    assert ask(make_agent(stage, ws), "Read calc.py")[0] == f"Read calc.py.\n- calc.py: {len(CALC.splitlines())} lines, " \
                                                           "defines add"  # as the policy answered a read before


@pytest.mark.parametrize("prompt", [
    "how many files did you change", "how many people live in Paris", "how big is the universe",
    "what is the size of the sun", "count the stars in the sky", "show me the first lines of a poem",
    "how many test files should I write", "数一下天上有多少颗星星", "create a class Stack in stack.py with push and pop"])
def test_requests_that_only_look_like_these_entries_are_outside(prompt):
    assert parse(prompt, SH) is None
