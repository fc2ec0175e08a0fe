"""The zh build joins hard-wrapped lines between CJK characters (a soft break renders as a space)."""

from __future__ import annotations

from lessonkit.i18n.lessons import join_wrapped


def test_a_break_between_cjk_sentences_is_joined():
    """Issue 34: "然后停下。 必须…" showed a space from the wrap in every Chinese lesson."""
    assert join_wrapped("然后停下。\n必须先问。\n再来") == "然后停下。必须先问。再来"
    assert join_wrapped("一个工具调用，\n（tool_use）") == "一个工具调用，（tool_use）"


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

    cjk = "[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]"
    for english in english_lessons():
        nb = generate(english, "zh")
        for cell in nb["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            prose = re.sub(r"```.*?```", "", cell["source"], flags=re.S)
            bad = [m.group(0) for m in re.finditer(f"{cjk}\n{cjk}", prose)]
            assert not bad, (english.name, cell["id"], bad[:3])
