"""The API's request rules, through the real SDK: same-role merge, and each parameter 400 with the API's text.

Each case here was accepted by the offline model before (issue 10) and is refused
by the real API; the message is the API's own (see validate.py for the few whose
wording follows its pydantic style).
"""

from __future__ import annotations

import time

import anthropic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from offline import OfflineModel, offline_client
from offline.api.validate import merge_roles
from offline.serve.http import MAX_BODY
from tests.strategies import histories

BASH = {"name": "bash", "description": "run a command",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}
HI = [{"role": "user", "content": "hi"}]
USE = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}]}
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
THINK = {"type": "enabled", "budget_tokens": 2000}


V2023 = {"anthropic-version": "2023-06-01"}


def ask(client, **kw):
    kw.setdefault("messages", HI)
    kw.setdefault("max_tokens", 100)
    return client.messages.create(model="offline", **kw)


def image(data: str, media_type: str = "image/png") -> dict:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


BAD = {  # case -> (request keywords, the API's message)
    "text before tool_result": (
        {"messages": [HI[0], USE, {"role": "user", "content": [
            {"type": "text", "text": "note"}, {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}],
         "tools": [BASH]},
        "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages following "
        "`tool_use` blocks must begin with a matching number of `tool_result` blocks."),
    "tool_choice names an unknown tool": (
        {"tools": [BASH], "tool_choice": {"type": "tool", "name": "weather"}},
        "tool_choice.name: Tool 'weather' not found in provided tools"),
    "tool_choice without tools": (
        {"tool_choice": {"type": "any"}}, "tool_choice may only be specified while providing tools."),
    "tool_choice of an unknown type": (
        {"tools": [BASH], "tool_choice": {"type": "required"}},
        "tool_choice: Input tag 'required' found using 'type' does not match any of the expected tags"),
    # temperature / top_k exist only in anthropic-version 2023-06-01 (2026-10-21 refuses them: test_offline_versions)
    "temperature above 1": ({"extra_body": {"temperature": 1.5}, "extra_headers": V2023}, "temperature: range: 0..1"),
    "temperature below 0": ({"extra_body": {"temperature": -0.1}, "extra_headers": V2023}, "temperature: range: 0..1"),
    "top_k below 0": ({"extra_body": {"top_k": -1}, "extra_headers": V2023},
                      "top_k: Input should be greater than or equal to 0"),
    "stop_sequences as a string": ({"extra_body": {"stop_sequences": "END"}}, "stop_sequences: Input should be a valid list"),
    "extra metadata keys": ({"metadata": {"user_id": "u1", "session": "s"}},
                            "metadata.session: Extra inputs are not permitted"),
    "tool name with a dot": (
        {"tools": [dict(BASH, name="my.tool")]},
        "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"),
    "tool name of 65 characters": (
        {"tools": [dict(BASH, name="t" * 65)]},
        "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"),
    "input_schema not an object": (
        {"tools": [dict(BASH, input_schema={"type": "string"})]},
        "tools.0.custom.input_schema.type: Input should be 'object'"),
    "thinking budget below 1024": (
        {"max_tokens": 4000, "thinking": {"type": "enabled", "budget_tokens": 500}},
        "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"),
    "thinking budget not below max_tokens": (
        {"max_tokens": 2000, "thinking": THINK},
        "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at"),
    "thinking with a temperature other than 1": (
        {"max_tokens": 4000, "thinking": THINK, "extra_body": {"temperature": 0.5}, "extra_headers": V2023},
        "`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at"),
    "thinking with a forced tool": (
        {"max_tokens": 4000, "thinking": THINK, "tools": [BASH], "tool_choice": {"type": "any"}},
        "Thinking may not be enabled when tool_choice forces tool use."),
    "invalid base64 in an image": (
        {"messages": [{"role": "user", "content": [image("not base64!"), {"type": "text", "text": "what is it?"}]}]},
        "messages.0.content.0.image.source.base64: invalid base64 data"),
    "an image of an unknown media type": (
        {"messages": [{"role": "user", "content": [image(PNG, "image/bmp")]}]},
        "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', "
        "'image/gif' or 'image/webp'"),
}


@pytest.mark.parametrize("case", BAD)
def test_each_rule_is_the_apis_400_with_its_message(client, model, case):
    kwargs, message = BAD[case]
    with pytest.raises(anthropic.BadRequestError) as err:
        ask(client, **kwargs)
    assert err.value.status_code == 400 and err.value.body["error"]["type"] == "invalid_request_error"
    assert message in err.value.body["error"]["message"], err.value.body["error"]["message"]


GOOD = {  # the valid neighbours of the cases above: each is answered
    "tool_result first, then text": {"messages": [HI[0], USE, {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}, {"type": "text", "text": "note"}]}],
        "tools": [BASH]},
    "temperature 0 and 1, top_k 0": {"extra_body": {"temperature": 0, "top_k": 0}, "extra_headers": V2023},
    "stop_sequences as a list": {"stop_sequences": ["END"]},
    "metadata with user_id": {"metadata": {"user_id": "u1"}},
    "tool names at the limits": {"tools": [dict(BASH, name="a"), dict(BASH, name="B-_9" * 16)]},
    "thinking done right": {"max_tokens": 4000, "thinking": THINK, "extra_body": {"temperature": 1},
                            "extra_headers": V2023},
    "a valid image": {"messages": [{"role": "user", "content": [image(PNG), {"type": "text", "text": "what?"}]}]},
    "tool_choice auto and none": {"tools": [BASH], "tool_choice": {"type": "auto", "disable_parallel_tool_use": True}},
}


@pytest.mark.parametrize("case", GOOD)
def test_the_valid_neighbours_are_answered(client, case):
    assert ask(client, **GOOD[case]).content


def test_a_string_stop_sequence_is_not_split_into_characters(client):
    """The bug the 400 replaces: "END" used to stop the answer at any 'E', 'N' or 'D'."""
    with pytest.raises(anthropic.BadRequestError):
        ask(client, messages=[{"role": "user", "content": "What is a token?"}], extra_body={"stop_sequences": "e"})


# ------------------------------------------------------------------ same-role merge

def test_consecutive_user_messages_are_merged_like_the_api(client):
    """Two user messages in a row are one user turn: the same answer, ids and usage as the merged history."""
    split = [{"role": "user", "content": "Here is the summary of our work so far."},
             {"role": "user", "content": [{"type": "text", "text": "Run `echo hi`"}]}]
    merged = [{"role": "user", "content": [{"type": "text", "text": "Here is the summary of our work so far."},
                                           {"type": "text", "text": "Run `echo hi`"}]}]
    a, b = ask(client, messages=split, tools=[BASH]), ask(client, messages=merged, tools=[BASH])
    assert a.model_dump(exclude={"id"}) == b.model_dump(exclude={"id"}) and a.content[-1].input == {"command": "echo hi"}
    count = client.messages.count_tokens(model="offline", messages=split, tools=[BASH]).input_tokens
    assert count == client.messages.count_tokens(model="offline", messages=merged, tools=[BASH]).input_tokens


def test_consecutive_assistant_messages_are_merged_and_the_loop_goes_on(client):
    """A seed's manual compact ends on [summary, assistant "Understood."]; the loop appends the next
    assistant turn after it. The API merges the two assistant turns, and so the session goes on."""
    task = {"role": "user", "content": "Run `echo one`"}
    first = ask(client, messages=[task], tools=[BASH])
    history = [task, {"role": "assistant", "content": "Understood."},
               {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": first.content[-1].id,
                                             "content": "one"}]}]
    r = ask(client, messages=history, tools=[BASH])
    assert r.stop_reason == "end_turn" and "one" in r.content[0].text


def test_a_merge_can_put_text_before_a_tool_result_which_the_api_refuses(client):
    """Merging does not repair a history: a note sent before the results makes the results come second."""
    history = [HI[0], USE, {"role": "user", "content": "a note"},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}]
    with pytest.raises(anthropic.BadRequestError, match="Did not find 1 `tool_result` block"):
        ask(client, messages=history, tools=[BASH])


def test_merged_errors_name_the_merged_index(client):
    history = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"},
               {"role": "assistant", "content": "c"}, {"role": "user", "content": [{"type": "text", "text": " "}]}]
    with pytest.raises(anthropic.BadRequestError, match="non-whitespace text"):
        ask(client, messages=history)


# ------------------------------------------------------------------ 413

def test_a_body_over_32_mb_is_413_request_too_large_in_process(client, model):
    big = "x" * (MAX_BODY + 10)
    with pytest.raises(anthropic.APIStatusError) as err:
        ask(offline_client(model, max_retries=0), messages=[{"role": "user", "content": big}])
    assert err.value.status_code == 413 and err.value.body["error"]["type"] == "request_too_large"
    assert err.value.body["error"]["message"] == "Request exceeds the maximum allowed number of bytes."
    assert model.calls == 0  # refused before the model reads it


def test_count_tokens_checks_the_same_parameters():
    client = offline_client(OfflineModel(), max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="tool_choice may only be specified while providing tools"):
        client.messages.count_tokens(model="offline", messages=HI, tool_choice={"type": "any"})
    with pytest.raises(anthropic.BadRequestError, match="budget_tokens: Input should be greater than or equal to 1024"):
        client.messages.count_tokens(model="offline", messages=HI, thinking={"type": "enabled", "budget_tokens": 10})


@st.composite
def split_histories(draw):
    """A valid history, and the same history with list contents cut into runs of same-role messages."""
    history = draw(histories(max_turns=8))
    split = []
    for msg in history:
        content = msg["content"]
        if isinstance(content, list) and len(content) > 1:
            cuts = sorted(draw(st.sets(st.integers(1, len(content) - 1))))
            pieces = [content[a:b] for a, b in zip([0, *cuts], [*cuts, len(content)])]
            split += [{"role": msg["role"], "content": piece} for piece in pieces]
        elif isinstance(content, list) and draw(st.booleans()):  # one block: also as a string, merged after
            split.append(msg)
            if content and content[0].get("type") == "text" and msg["role"] == "user":
                split.append({"role": "user", "content": "and one more thing"})
                history = None  # the merged history differs from the original: checked below
        else:
            split.append(msg)
    return history, split


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@settings(max_examples=80, deadline=None)
@given(case=split_histories())
def test_merging_same_role_runs_gives_back_the_history(case):
    """merge_roles(split) is the original history, blocks in order; with an added string, one more text block."""
    history, split = case
    merged = merge_roles(split)
    roles = [m["role"] for m in merged]
    assert all(a != b for a, b in zip(roles, roles[1:]))
    assert sum(len(m["content"]) if isinstance(m["content"], list) else 1 for m in merged) == \
        sum(len(m["content"]) if isinstance(m["content"], list) else 1 for m in split)
    if history is not None:
        assert merged == history
    assert merge_roles(merged) == merged  # idempotent


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_sse_arrives_event_by_event_in_process_too():
    model = OfflineModel(stream_delay=0.1)
    client = offline_client(model, max_retries=0)
    times = []
    with client.messages.stream(model="offline", max_tokens=300, messages=[{"role": "user", "content": "What is a token?"}]) \
            as stream:
        for event in stream:
            times.append((event.type, time.monotonic()))
    first_text = next(t for kind, t in times if kind == "text")
    assert times[-1][1] - first_text >= 0.2
    with pytest.raises(ValueError, match="stream_delay must be 0-10 seconds"):
        OfflineModel(stream_delay=-1)
