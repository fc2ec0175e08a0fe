"""s08 exercise 2 (`estimate`): estimate_one(message), the characters / 3 estimate the trigger reads.

    estimate_one(message) -> characters / 3 (rounded down once, for the whole message)
      a plain-string content         its characters
      text block                     its text
      tool_use                       its name + its input as compact JSON (non-ASCII kept as is)
      tool_result                    its tool_use_id + its content's text (a str or text blocks)
      any other block                nothing

The starter measures str(message), the repr of the dict. Why a wrong number is wrong (the slip
that gives it, or the rules it breaks) is in estimate_slips.py.

Example: estimate.check(reprs) -> ✗ estimate_one: 0/6 cases pass
  ✗ a plain-string prompt (and 5 more cases like it): returned 22, expected 12 for a message of ['str']:
    that is str(message) // 3, the dict's repr with its keys and quotes: count the text only

Reference: s08_compact4.TokenEstimator.estimate_one (the seed's TokenEstimator, chars / 3).
"""

from __future__ import annotations

import json

from s08_compact4 import TokenEstimator

from .. import Case, Exercise, Mistake
from .estimate_slips import estimated, with_diagnosis

ESTIMATE_STARTER = '''\
def estimate_one(message):
    """Estimated tokens of one message: characters / 3."""
    return len(str(message)) // 3
'''

ESTIMATE_TASK = """Write estimate_one(message): the estimated tokens of one message, characters // 3 for the
whole message, counting a plain-string content; text blocks' text; a tool_use's name and its
input as compact JSON (json.dumps(input, ensure_ascii=False, separators=(",", ":"))); a
tool_result's tool_use_id and its content's text (a string, or the text of its text blocks)."""

CALL = {"type": "tool_use", "id": "toolu_01", "name": "write_file",
        "input": {"path": "notes/上下文.md", "content": "压缩 compaction, 保持 keep"}}


PROMPT = {"role": "user", "content": "Now read app_01.py, then app_02.py."}   # 35 // 3 = 11, not 12


def _user(*blocks) -> dict:
    return {"role": "user", "content": list(blocks)}


def _result(content, **extra) -> dict:
    return {"type": "tool_result", "tool_use_id": "toolu_01", "content": content, **extra}


THREE = _user(_result([{"type": "text", "text": "def f():\n"}, {"type": "text", "text": "    return 1\n"},
                       {"type": "text", "text": "# the end\n"}]))                      # 40 // 3 = 13, joined: 14
PICTURE = _user({"type": "text", "text": "What is in this picture?"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                             "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4"
                                                     "DwABBAEAwS2OUAAAAABJRU5ErkJggg=="}})   # 24 // 3 = 8


def estimate_cases(env=None) -> list[Case]:
    listed = _user(_result([{"type": "text", "text": "line one\n" * 20}, {"type": "text", "text": "end\n"}]))
    return [
        Case("a plain-string prompt", ({"role": "user", "content": "Read every Python file, one at a time"},),
             estimated({"role": "user", "content": "Read every Python file, one at a time"})),
        Case("text blocks", ({"role": "assistant", "content": [{"type": "text", "text": "Reading (1/3)."},
                                                               {"type": "text", "text": "And more!!"}]},),
             estimated({"role": "assistant", "content": [{"type": "text", "text": "Reading (1/3)."},
                                                         {"type": "text", "text": "And more!!"}]})),
        Case("a tool call with non-ASCII input", ({"role": "assistant", "content": [CALL]},),
             estimated({"role": "assistant", "content": [CALL]})),
        Case("a tool result (a string)", (_user(_result("def f():\n    return 1\n" * 10)),),
             estimated(_user(_result("def f():\n    return 1\n" * 10)))),
        Case("a tool result given as a list of blocks", (listed,), estimated(listed)),
        Case("an empty content", ({"role": "assistant", "content": []},), estimated({"role": "assistant",
                                                                                      "content": []})),
        Case("a prompt of 35 characters", (PROMPT,), estimated(PROMPT)),
        Case("a tool result of three text blocks", (THREE,), estimated(THREE)),
        Case("an image beside a question", (PICTURE,), estimated(PICTURE)),
    ]


def reprs(message):
    """The starter: str() of the dict."""
    return len(str(message)) // 3


def per_block(message):
    """Rounds each block down on its own."""
    content = message["content"]
    if isinstance(content, str):
        return len(content) // 3
    return sum(TokenEstimator.estimate_one({"role": message["role"], "content": [b]}) for b in content)


def escaped_json(message):
    """json.dumps with its defaults: non-ASCII as \\uXXXX escapes, and spaces."""
    content = message["content"]
    if isinstance(content, str):
        return len(content) // 3
    chars = 0
    for b in content:
        if b["type"] == "text":
            chars += len(b["text"])
        elif b["type"] == "tool_use":
            chars += len(b["name"]) + len(json.dumps(b["input"]))
        elif b["type"] == "tool_result":
            c = b["content"]
            chars += len(b["tool_use_id"]) + len(c if isinstance(c, str) else "".join(x.get("text", "") for x in c))
    return chars // 3


def no_inputs(message):
    """Counts a tool call's name, but not its input."""
    content = message["content"]
    if isinstance(content, str):
        return len(content) // 3
    chars = 0
    for b in content:
        if b["type"] == "text":
            chars += len(b["text"])
        elif b["type"] == "tool_use":
            chars += len(b["name"])
        elif b["type"] == "tool_result":
            c = b["content"]
            chars += len(b["tool_use_id"]) + len(c if isinstance(c, str) else "".join(x.get("text", "") for x in c))
    return chars // 3


def str_contents(message):
    """A tool_result's content measured with str(): a list of blocks counts its repr."""
    content = message["content"]
    if isinstance(content, str):
        return len(content) // 3
    chars = 0
    for b in content:
        if b["type"] == "text":
            chars += len(b["text"])
        elif b["type"] == "tool_use":
            chars += len(b["name"]) + len(json.dumps(b["input"], ensure_ascii=False, separators=(",", ":")))
        elif b["type"] == "tool_result":
            chars += len(b["tool_use_id"]) + len(str(b["content"]))
    return chars // 3


def true_division(message):
    """/ 3 instead of // 3: a float."""
    return TokenEstimator.estimate_one(message) * 3 / 3 + 0.0


ESTIMATE_MISTAKES = (
    Mistake("the starter: str(message)", reprs, "that is str(message) // 3"),
    Mistake("each block rounded on its own", per_block, "each block was rounded down on its own"),
    Mistake("json.dumps with its defaults", escaped_json, "counted with json.dumps's defaults"),
    Mistake("tool inputs not counted", no_inputs, "the tool_use's input was not counted"),
    Mistake("str() of a list of blocks", str_contents, "a tool_result's content can be a list of blocks"),
    Mistake("/ 3, a float", true_division, "use // 3, not / 3"),
)

ESTIMATE_HINTS = (
    "Count what is sent as text, not the dict's repr: the characters of each part of the message, "
    "added up, then divided by 3 once.",
    "A str content counts as it is. Per block: text -> text; tool_use -> name + "
    "json.dumps(input, ensure_ascii=False, separators=(',', ':')); tool_result -> tool_use_id + its "
    "content (a str, or the joined text of its text blocks); anything else -> 0.",
    "chars = 0; for block in content: chars += <the block's characters as above>; return chars // 3 "
    "(and len(content) // 3 for a str content).",
)

estimate = Exercise(name="estimate_one", task=ESTIMATE_TASK, starter=ESTIMATE_STARTER,
                    reference=TokenEstimator.estimate_one, cases=estimate_cases, adapt=with_diagnosis,
                    hints=ESTIMATE_HINTS, mistakes=ESTIMATE_MISTAKES)
