"""Hypothesis strategies for Messages-API histories the real API accepts, and a validity oracle.

Every history drawn here passes `assert_api_valid`: the first message is user, roles
alternate, every tool_use is answered by a tool_result in the next message and every
tool_result answers one. Inside that, it varies what real sessions vary: parallel
tool calls, text beside tool blocks, tool_result content as a string or a list of
blocks, is_error results, CJK and other non-ASCII text, tiny and long results.

Example: histories().example() -> [{"role": "user", "content": "fix 测试"}, {"role": "assistant", ...}, ...]
"""

from __future__ import annotations

from functools import cache

from hypothesis import strategies as st

from offline.api.validate import ApiError, validate_request

TOOL_NAMES = ("bash", "read_file", "write_file", "edit_file", "list_dir")
WORDS = ("fix", "the", "test", "file", "read", "main.py", "src/app.py", "error", "ok", "测试", "上下文",
         "压缩", "ファイル", "ciao", "naïve", "Ω", "🙂", "{", "}", "\n", "def f():", "return 1")


def api_error(messages: list) -> str | None:
    """The API's error message for this history, or None if the API accepts it."""
    try:
        validate_request({"model": "offline", "max_tokens": 1, "messages": messages})
    except ApiError as exc:
        return exc.message
    return None


def assert_api_valid(messages: list) -> None:
    err = api_error(messages)
    assert err is None, err


@cache
def text(min_words: int = 1, max_words: int = 12):
    return st.lists(st.sampled_from(WORDS), min_size=min_words, max_size=max_words).map(
        lambda ws: " ".join(ws).strip() or "ok")


@cache
def long_text():
    """Anything from a few characters to tens of thousands (big logs and file reads)."""
    return st.tuples(text(), st.sampled_from((1, 1, 1, 2, 5, 40, 300, 2000))).map(
        lambda t: "\n".join([t[0]] * t[1]))


@cache
def result_content():
    return st.one_of(
        long_text(),
        st.lists(long_text().map(lambda s: {"type": "text", "text": s}), min_size=1, max_size=3),
    )


@st.composite
def tool_turn(draw, ids):
    """An assistant turn with 1-4 parallel tool calls and the user turn answering them."""
    n = draw(st.integers(1, 4))
    uses = []
    for _ in range(n):
        ids[0] += 1
        name = draw(st.sampled_from(TOOL_NAMES))
        key = "command" if name == "bash" else "path"
        uses.append({"type": "tool_use", "id": f"toolu_{ids[0]:05d}", "name": name,
                     "input": {key: draw(text(1, 4))}})
    content = ([{"type": "text", "text": draw(text())}] if draw(st.booleans()) else []) + uses
    results = []
    for use in uses:
        block = {"type": "tool_result", "tool_use_id": use["id"], "content": draw(result_content())}
        if draw(st.integers(0, 4)) == 0:
            block["is_error"] = True
        results.append(block)
    if draw(st.integers(0, 5)) == 0:
        results.append({"type": "text", "text": draw(text())})
    return [{"role": "assistant", "content": content}, {"role": "user", "content": results}]


@st.composite
def text_turn(draw):
    """An assistant text answer and the user's next request."""
    user = draw(text())
    return [{"role": "assistant", "content": [{"type": "text", "text": draw(text())}]},
            {"role": "user", "content": user if draw(st.booleans()) else [{"type": "text", "text": user}]}]


@st.composite
def histories(draw, min_turns: int = 0, max_turns: int = 30, end_with_answer=None):
    """A valid history: a first user request, then tool turns and text turns.

    end_with_answer: True appends a final assistant text, False never does, None either.
    """
    ids = [0]
    messages = [{"role": "user", "content": draw(text())}]
    for _ in range(draw(st.integers(min_turns, max_turns))):
        messages += draw(st.one_of(tool_turn(ids), tool_turn(ids), text_turn()))
    final = draw(st.booleans()) if end_with_answer is None else end_with_answer
    if final:
        messages.append({"role": "assistant", "content": [{"type": "text", "text": draw(text())}]})
    return messages
