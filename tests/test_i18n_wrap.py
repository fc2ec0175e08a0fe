"""The zh build joins hard-wrapped lines between CJK characters (a soft break renders as a space)."""

from __future__ import annotations

from lessonkit.i18n.lessons import join_wrapped


def test_a_break_between_cjk_sentences_is_joined():
    """Issue 34: "然后停下。 必须…" showed a space from the wrap in every Chinese lesson."""
    assert join_wrapped("然后停下。\n必须先问。\n再来") == "然后停下。必须先问。再来"
    assert join_wrapped("一个工具调用，\n（tool_use）") == "一个工具调用，（tool_use）"


def test_a_break_beside_full_width_punctuation_is_joined():
    """Held out: a break after '。' before code, before '（' after bold, and a continuation indented by two
    spaces still rendered a space in 50 places of the Chinese lessons ("。 `show`", "**文件工具** （")."""
    assert join_wrapped("然后重复。\n`show` 打印源码") == "然后重复。`show` 打印源码"
    assert join_wrapped("的**文件工具**\n（`read_file`）") == "的**文件工具**（`read_file`）"
    assert join_wrapped("是**普通 dict**\n  （历史就是数据）") == "是**普通 dict**（历史就是数据）"
    assert join_wrapped("执行 `cat`。\ns01 把输出截断") == "执行 `cat`。s01 把输出截断"
    assert join_wrapped("它丢失 26 和\n  142 个结果") == "它丢失 26 和\n  142 个结果"  # a CJK letter beside a digit
    assert join_wrapped("- 第一项，\n- 第二项") == "- 第一项，\n- 第二项"


def test_other_breaks_and_blocks_are_kept():
    kept = [
        "用 `ls`\nand more",               # Latin after the break: a space is right there
        "the model\n模型",                  # Latin before it
        "## 标题\n正文",                    # a heading ends at its line
        "| 表 | 头 |\n内容",                 # a table row
        "```\n代码\n注释\n```",             # code is never touched
        "第一段。\n\n第二段。",              # a blank line is a paragraph break
        "- 第一项\n- 第二项",                # list items
    ]
    for text in kept:
        assert join_wrapped(text) == text, text


def test_the_built_chinese_lessons_have_no_break_between_cjk_characters():
    import re

    from lessonkit.i18n.lessons import english_lessons, generate

    cjk = re.compile("[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")
    punct = re.compile("[\u3000-\u303f\uff08\uff09\uff0c\uff1a\uff1b\uff01\uff1f]")
    block = re.compile(r"\s*(?:[-*+]\s|\d+[.)]\s|[|#>]|```)")
    for english in english_lessons():
        nb = generate(english, "zh")
        for cell in nb["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            lines = re.sub(r"```.*?```", "", cell["source"], flags=re.S).split("\n")
            bad = []
            for prev, line in zip(lines, lines[1:]):  # a break inside a paragraph renders as a space
                if not prev.strip() or not line.strip() or block.match(line) or block.match(prev):
                    continue
                last, first = prev.rstrip("*_ ")[-1:], line.lstrip(" *_")[:1]
                if (cjk.match(last) and cjk.match(first)) or punct.match(last) or punct.match(first):
                    bad.append(f"{prev[-12:]}|{line[:12]}")
            assert not bad, (english.name, cell["id"], bad[:3])
