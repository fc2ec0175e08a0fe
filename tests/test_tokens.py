"""The kit's one token counter: documented examples, content awareness, structure, consistency.

Speed is measured in benchmarks/bench_tokens.py, not here.
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from lessonkit import tokens
from lessonkit.show.demo import module_source

PROSE = ("Compaction keeps an agent working when its context fills up. The loop sends the whole history "
         "on every turn, so old tool results cost tokens again and again. ") * 40
CODE = "\n".join(module_source(i, 60, __import__("random").Random(i)) for i in range(4))
JSON = json.dumps([{"id": i, "name": f"item-{i}", "tags": ["a", "b"], "price": i * 1.25} for i in range(200)])
CJK = "上下文压缩让代理在上下文填满时继续工作。每一轮都会重新发送整个历史。" * 40


def per_char(text: str) -> float:
    return tokens.count_text(text) / len(text)


def test_the_documented_examples():
    assert tokens.count_text("The quick brown fox.") == 5
    assert tokens.count_text("上下文压缩") == 5
    assert tokens.count_text("hello world") == 3
    assert tokens.count_text("") == 0 and tokens.count_text(" ") == 1
    assert tokens.count_text("🙂🙂") == 4 and tokens.count_text("naïve") == 2
    assert tokens.count_message({"role": "user", "content": "hi"}) == 7


def test_content_types_weigh_differently():
    prose, code, data, cjk = per_char(PROSE), per_char(CODE), per_char(JSON), per_char(CJK)
    assert 0.15 < prose < 0.3  # about 4-5 characters per token
    assert prose < code < data  # punctuation and indentation are dense
    assert cjk > 3 * prose and cjk == 1.0


def test_indentation_costs_tokens_but_single_spaces_do_not():
    assert tokens.count_text("a b c d") == tokens.count_text("abcd")
    assert tokens.count_text("x\n        y") > tokens.count_text("x\ny")


# examples: the profile's (conftest.py: 50 in make test, 200 in make test-slow)
@given(st.text(), st.text())
def test_counting_is_additive_within_two_tokens(a, b):
    whole, parts = tokens.count_text(a + b), tokens.count_text(a) + tokens.count_text(b)
    assert parts - 2 <= whole <= parts + 1
    assert tokens.count_text(a) >= (1 if a else 0)


def test_lone_surrogates_and_control_characters_are_counted_not_raised():
    assert tokens.count_text("\ud800\x00\x07") >= 1


def test_a_request_is_its_tools_system_and_messages():
    tool = {"name": "bash", "description": "run", "input_schema": {"type": "object"}}
    messages = [{"role": "user", "content": "Run `ls`"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "bash", "input": {"command": "ls"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "a.py"},
                                             {"type": "image", "source": {}}]}]
    request = {"tools": [tool], "system": "be brief", "messages": messages}
    assert tokens.count_request(request) == (tokens.count_tools([tool]) + tokens.count_system("be brief")
                                             + tokens.count_messages(messages))
    assert tokens.count_block(messages[2]["content"][1]) == tokens.PER_BLOCK + tokens.PER_IMAGE
    assert tokens.count_block(messages[1]["content"][0]) == (
        tokens.PER_BLOCK + tokens.count_text("bash") + tokens.count_text('{"command":"ls"}'))


def test_equivalent_forms_count_the_same():
    assert tokens.count_content("hi") == tokens.count_content([{"type": "text", "text": "hi"}])
    assert tokens.count_system("s") == tokens.count_system([{"type": "text", "text": "s"}])
    marked = {"name": "t", "input_schema": {}, "cache_control": {"type": "ephemeral"}}
    assert tokens.count_tools([marked]) == tokens.count_tools([{"name": "t", "input_schema": {}}])
    text = {"type": "text", "text": "hello"}
    assert tokens.count_block(dict(text, cache_control={"type": "ephemeral"})) == tokens.count_block(text)
    result = {"type": "tool_result", "tool_use_id": "t", "content": "out"}
    assert tokens.count_block(result) == tokens.count_block(dict(result, content=[{"type": "text", "text": "out"}]))


def test_counts_grow_with_the_text():
    assert tokens.count_text(PROSE * 10) > 9 * tokens.count_text(PROSE)
    assert tokens.count_messages([]) == 0 and tokens.count_system(None) == 0 and tokens.count_tools(None) == 0
