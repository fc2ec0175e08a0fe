"""The language the offline model answers in: the language the request was written in.

Like Claude, the offline model answers in the language it was asked in, whatever the
student's LESSONS_LANG says. The rule, from the request text alone:

    drop `code spans` ──> count CJK characters and Latin words ──> 'zh' if CJK >= words, else 'en'
                                                                   (and at least one CJK character)

A Latin word is a run starting with a letter, with its dots, slashes and dashes, so a
file name like `hello.py` counts once and a Chinese request naming files stays Chinese.

Example: request_language("统计 a.py 的行数") -> "zh"   (5 CJK characters, 1 word)
         request_language("What does 压缩 mean?") -> "en"   (2 CJK characters, 3 words)

Not modeled: Japanese kana or Korean hangul (only CJK ideographs count), mixed answers.
"""

from __future__ import annotations

import re

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
WORD = re.compile(r"[A-Za-z][\w./-]*")
CODE = re.compile(r"`[^`\n]*`")


def request_language(text: str) -> str:
    """'zh' when the request is mostly CJK (CJK characters >= Latin words, code spans aside), else 'en'."""
    prose = CODE.sub(" ", text or "")
    cjk = len(CJK.findall(prose))
    return "zh" if cjk and cjk >= len(WORD.findall(prose)) else "en"


# The summary's six sections and how each is written in Chinese: the code that reads a summary
# back (policy.find_task, answers.facts, summarize, progress) accepts either name.
SECTION_ZH = {"User requests": "用户请求", "Technical concepts": "技术概念", "Files and code": "文件与代码",
              "Errors and fixes": "错误与修复", "Pending tasks": "待办任务", "Current work": "当前工作"}


def section_name(name: str) -> str:
    """A regex for a section's English or Chinese name. Example: 'Pending tasks' -> '(?:Pending\\ tasks|待办任务)'"""
    return f"(?:{re.escape(name)}|{SECTION_ZH[name]})"


def find_section(text: str, name: str) -> int:
    """Where a section's name first appears in a summary in either language (-1 if nowhere)."""
    m = re.search(section_name(name), text)
    return m.start() if m else -1
