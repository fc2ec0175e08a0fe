"""One check of a history's shape, for every public entry point that takes a history.

    messages ──> a list? ──> each message a dict with role user|assistant ──> content a str
                                                                             or a list of blocks
             ──> each block a dict with a str "type"; text has str text; tool_use has str id,
                 str name and a dict input; tool_result has a str tool_use_id and str or list content
             ──> every value plain JSON (dict with str keys, list, str, int, finite float, bool, None)
             any problem ──> ValueError("message 3, block 1 (tool_use): input is a set, not a dict")

It checks the *shape* the code relies on, not the API's rules about order (roles
that alternate, every tool_use answered): `ask()` repairs an early stop, and
the compaction layers keep those rules themselves. A value that is not JSON (a
set, bytes, NaN) is refused, never turned into a string: the transcript and the
request would then disagree with the history.

Example: check_history([{"role": "user", "content": None}])
  -> ValueError("not a valid history: message 0 (user): content is NoneType; expected a str or a
                 list of blocks")

`check_message` is the same check for one message. Every stage calls these before it
touches a history it was given (s01's ask, the budget, each compaction layer), so a
malformed history fails at the door with one line, not three calls later with a KeyError.

Not modeled: the contents of image and document blocks (their sources are not checked).
"""

from __future__ import annotations

import math

ROLES = ("user", "assistant")
MAX_DEPTH = 64  # nesting deeper than this is refused (and a structure that contains itself)


_PLAIN = {str, int, bool, type(None)}


def _plain_json(value) -> bool:
    """Is `value` plain JSON? The fast pass (no paths kept): a long history is checked every turn."""
    stack = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if level > MAX_DEPTH:
            return False
        if type(item) is dict:
            if not all(type(key) is str for key in item):
                return False
            children = item.values()
        elif type(item) is list:
            children = item
        else:
            children = (item,)
            level -= 1
        for child in children:
            kind = type(child)
            if kind in _PLAIN:
                continue
            if kind is float:
                if not math.isfinite(child):
                    return False
            elif kind is dict or kind is list:
                if child is not item:
                    stack.append((child, level + 1))
                else:
                    return False
            else:
                return False
    return True


def _json_problem(value) -> str | None:
    """What in `value` is not plain JSON, or None. Example: {'a': {1, 2}} -> 'a set is not JSON at a'"""
    if _plain_json(value):
        return None
    stack = [(value, "", 0)]
    while stack:  # a loop, not recursion: a deep or self-containing value is an answer, not a RecursionError
        item, where, level = stack.pop()
        at = f" at {where}" if where else ""
        if level > MAX_DEPTH:
            return f"a value is nested more than {MAX_DEPTH} levels deep{at}"
        if isinstance(item, dict):
            for key, inner in item.items():
                if not isinstance(key, str):
                    return f"a key {key!r} is a {type(key).__name__}, not a string{at}"
                stack.append((inner, f"{where}.{key}" if where else key, level + 1))
        elif isinstance(item, list):
            stack.extend((inner, f"{where}[{k}]", level + 1) for k, inner in enumerate(item))
        elif isinstance(item, float) and not math.isfinite(item):
            return f"{item!r} is not a JSON number{at}"
        elif item is not None and not isinstance(item, (str, int, float, bool)):
            return f"a {type(item).__name__} is not JSON{at}"
    return None


def _block_problem(block) -> str | None:
    """What is wrong with one content block's shape, or None."""
    if not isinstance(block, dict):
        return f"is a {type(block).__name__}, not a dict"
    kind = block.get("type")
    if not isinstance(kind, str):
        return "has no string 'type'"
    if kind == "text" and not isinstance(block.get("text"), str):
        return "(text): 'text' is not a string"
    if kind == "tool_use":
        for key, want in (("id", str), ("name", str), ("input", dict)):
            if not isinstance(block.get(key), want):
                return f"(tool_use): {key!r} is a {type(block.get(key)).__name__}, not a {want.__name__}"
    if kind == "tool_result":
        if not isinstance(block.get("tool_use_id"), str):
            return "(tool_result): 'tool_use_id' is not a string"
        content = block.get("content", "")
        if not isinstance(content, (str, list)):
            return f"(tool_result): content is a {type(content).__name__}; expected a str or a list of blocks"
        for k, inner in enumerate(content if isinstance(content, list) else ()):
            problem = _block_problem(inner)
            if problem:
                return f"(tool_result): content block {k} {problem}"
    return None


def history_problem(messages) -> str | None:
    """What is wrong with the shape of `messages`, naming the message (and block), or None."""
    if not isinstance(messages, list):
        return f"the history is a {type(messages).__name__}, not a list of messages"
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            return f"message {i} is a {type(message).__name__}, not a dict"
        role = message.get("role")
        if role not in ROLES:
            return f"message {i} has role {role!r}; expected 'user' or 'assistant'"
        content = message.get("content")
        if not isinstance(content, (str, list)):
            return (f"message {i} ({role}): content is {type(content).__name__}; "
                    "expected a str or a list of blocks")
        for k, block in enumerate(content if isinstance(content, list) else ()):
            problem = _block_problem(block)
            if problem:
                return f"message {i} ({role}), block {k} {problem}"
        problem = _json_problem(message)
        if problem:
            return f"message {i} ({role}): {problem}"
    return None


def check_history(messages) -> None:
    """Raise one ValueError naming the message and the problem if `messages` is not a history."""
    problem = history_problem(messages)
    if problem:
        raise ValueError(f"not a valid history: {problem}")


def check_message(message) -> None:
    """Raise one ValueError if `message` is not one message of a history. Example: None -> ValueError"""
    if not isinstance(message, dict):
        raise ValueError(f"not a valid message: a {type(message).__name__}, not a dict")
    problem = history_problem([message])
    if problem:
        raise ValueError(f"not a valid message: {problem.replace('message 0', 'the message', 1)}")
