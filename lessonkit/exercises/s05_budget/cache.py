"""s05 exercise 2: the prompt-cache breakpoint.

    with_cache_breakpoint(history) -> a NEW list: history[:-1] shared as they are, the last
    message copied, its last markable block copied with "cache_control": {"type": "ephemeral"}
    (a plain-string content becomes one text block; an empty one is left alone)

The starter is the seed-style one-liner: it writes cache_control into the history itself,
so every later request carries one more breakpoint (the API refuses a fifth), and a
plain-string prompt crashes it. Why an answer is wrong is in cache_verdicts.py.

Example: cache_exercise.check(marks_in_place) -> ✗ with_cache_breakpoint: 0/7 cases pass
  ✗ a turn of tool results (and 3 more cases like it): changed messages[4] of the history it was given (block 0 gained
    cache_control): the history is the agent's record; a breakpoint written into it stays, ...

Reference: s05_budget.with_cache_breakpoint.
"""

from __future__ import annotations

import copy

from s05_budget import with_cache_breakpoint

from .. import Case, Exercise, Mistake
from .cache_verdicts import run_cache, sent_as

CACHE_STARTER = '''\
def with_cache_breakpoint(messages):
    """The request to send: `messages` with cache_control on the last block of the last message."""
    messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return messages
'''

CACHE_TASK = """Write with_cache_breakpoint(messages): a new list to send, whose last message's last
markable block (text, image, document, tool_use, tool_result) carries "cache_control":
{"type": "ephemeral"}. Never change `messages`: copy the last message (and the block
you mark), share the others. A plain-string content becomes one text block; an empty
string, an empty history, or a message with no markable block is left as it is."""

MARK = {"type": "ephemeral"}


def _turns(n: int) -> list:
    """A request, then n read_file turns; the last message is a user turn of tool results."""
    h = [{"role": "user", "content": "Read the files"}]
    for i in range(n):
        h += [{"role": "assistant", "content": [{"type": "text", "text": f"Reading ({i + 1})."},
                                                {"type": "tool_use", "id": f"toolu_{i:02d}", "name": "read_file",
                                                 "input": {"path": f"f{i}.py"}}]},
              {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i:02d}",
                                            "content": f"x = {i}\n"}]}]
    return h


def _two_results() -> list:
    h = _turns(1)
    h[-2]["content"].append({"type": "tool_use", "id": "toolu_09", "name": "list_dir", "input": {"path": "."}})
    h[-1]["content"].append({"type": "tool_result", "tool_use_id": "toolu_09", "content": "f0.py"})
    return h


def _with_note() -> list:
    """The last message ends with a block the API cannot mark (a redacted thinking block)."""
    h = _turns(1)
    h[-1]["content"].append({"type": "redacted_thinking", "data": "abc"})
    return h


def _marked(h: list, k: int | None = -1) -> list:
    """h with cache_control on block k of its last message (a str content becomes one text block)."""
    h = copy.deepcopy(h)
    content = h[-1]["content"]
    if isinstance(content, str):
        h[-1]["content"] = [{"type": "text", "text": content, "cache_control": dict(MARK)}]
    else:
        content[k] = {**content[k], "cache_control": dict(MARK)}
    return h


def cache_cases(env=None) -> list[Case]:
    long = _turns(100)
    empty_text = _turns(1)[:1] + [{"role": "assistant", "content": ""}]
    return [
        Case("a plain-string prompt", ([{"role": "user", "content": "hi"}],), sent_as(_marked([{"role": "user",
                                                                                                "content": "hi"}]))),
        Case("a turn of tool results", (_turns(2),), sent_as(_marked(_turns(2)))),
        Case("two results in the last turn", (_two_results(),), sent_as(_marked(_two_results()))),
        Case("a last block the API cannot mark", (_with_note(),), sent_as(_marked(_with_note(), 0))),
        Case("an empty history", ([],), sent_as([])),
        Case("an empty string content", (empty_text,), sent_as(copy.deepcopy(empty_text))),
        Case("a 201-message history", (long,), sent_as(_marked(long))),
    ]


def marks_the_history(messages):
    """The starter: the mark goes into the history, which is returned as the request."""
    messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return messages


def marks_in_place(messages):
    """Copies the list and the last message, but marks the block the history holds."""
    out = list(messages)
    last = dict(out[-1])
    last["content"] = list(last["content"])
    last["content"][-1]["cache_control"] = {"type": "ephemeral"}
    out[-1] = last
    return out


def copies_everything(messages):
    """A deep copy of the whole history, then the mark: right, and O(n) per request."""
    out = copy.deepcopy(messages)
    if out and out[-1]["content"]:
        if isinstance(out[-1]["content"], str):
            out[-1]["content"] = [{"type": "text", "text": out[-1]["content"]}]
        for block in reversed(out[-1]["content"]):
            if block.get("type") in ("text", "image", "document", "tool_use", "tool_result"):
                block["cache_control"] = {"type": "ephemeral"}
                break
    return out


def marks_every_turn(messages):
    """A breakpoint on the last block of every user message."""
    out = []
    for m in messages:
        if m["role"] == "user" and isinstance(m["content"], list) and m["content"]:
            m = {**m, "content": [*m["content"][:-1], {**m["content"][-1], "cache_control": {"type": "ephemeral"}}]}
        out.append(m)
    return out + [] if messages else []


def first_block(messages):
    """Marks the first block of the last message."""
    if not messages or not isinstance(messages[-1]["content"], list) or not messages[-1]["content"]:
        return list(messages)
    last = messages[-1]
    return [*messages[:-1], {**last, "content": [{**last["content"][0], "cache_control": {"type": "ephemeral"}},
                                                 *last["content"][1:]]}]


def lists_only(messages):
    """Marks the last block of a list content; a plain-string content is sent unmarked."""
    if not messages or not isinstance(messages[-1]["content"], list):
        return list(messages)
    last = messages[-1]
    blocks = list(last["content"])
    for k in range(len(blocks) - 1, -1, -1):
        if blocks[k].get("type") in ("text", "image", "document", "tool_use", "tool_result"):
            blocks[k] = {**blocks[k], "cache_control": {"type": "ephemeral"}}
            break
    return [*messages[:-1], {**last, "content": blocks}]


def any_last_block(messages):
    """Marks the last block whatever its type, and turns an empty string into an empty text block."""
    if not messages:
        return []
    last = messages[-1]
    blocks = [{"type": "text", "text": last["content"]}] if isinstance(last["content"], str) else list(last["content"])
    blocks[-1] = {**blocks[-1], "cache_control": {"type": "ephemeral"}}
    return [*messages[:-1], {**last, "content": blocks}]


CACHE_MISTAKES = (
    Mistake("the starter: the mark written into the history", marks_the_history,
            "raised TypeError: 'str' object does not support item assignment on a plain-string content"),
    Mistake("a copy of the list, the block marked in place", marks_in_place,
            "changed messages[4] of the history it was given (block 0 gained cache_control)"),
    Mistake("a deep copy of everything", copies_everything, "copied 4 of the 4 messages before the last"),
    Mistake("a breakpoint on every turn", marks_every_turn, "blocks carry cache_control ([(2, 0), (4, 0)])"),
    Mistake("the first block marked", first_block, "cache_control is on block 0 of messages[2], expected block 1"),
    Mistake("a plain-string content left unmarked", lists_only, "no block carries cache_control: a plain-string"),
    Mistake("any last block marked, an empty text made", any_last_block, "expected the request left as it is"),
)

CACHE_HINTS = (
    "The history is the agent's record and is never changed: what you return is the request, a new list. "
    "Only its last message differs from the history's, and in it one block carries the mark.",
    "Build [*messages[:-1], new_last]: the earlier messages are shared, not copied. For new_last, copy the "
    "message and its content list; walk the blocks from the end and mark the first one whose type is "
    "text, image, document, tool_use or tool_result, as a new dict {**block, 'cache_control': ...}.",
    "if not messages: return []. content = messages[-1]['content']: a non-empty str becomes "
    "[{'type': 'text', 'text': content, 'cache_control': {...}}]; an empty one, or a list with no "
    "markable block, returns list(messages). Return [*messages[:-1], {**messages[-1], 'content': blocks}].",
)

cache_exercise = Exercise(name="with_cache_breakpoint", task=CACHE_TASK, starter=CACHE_STARTER,
                          reference=with_cache_breakpoint, cases=cache_cases, adapt=run_cache,
                          hints=CACHE_HINTS, mistakes=CACHE_MISTAKES)
