"""The offline API tells a client what the real Messages API would (issue 23's table, one test a row).

Each row is checked twice: as raw HTTP through `http.handle` (the function both the
mock transport and the served mode call), and through the real anthropic SDK on the
kit's offline client, which raises the SDK's own exception classes.
"""

from __future__ import annotations

import base64
import json

import anthropic
import pytest

from offline.agent.thinking import signature
from offline.api.models import MODELS
from offline.serve.http import handle

MODEL = "claude-sonnet-4-5"            # an alias: extended thinking ("enabled"), 64,000 output tokens at most
HI = [{"role": "user", "content": "What is a token?"}]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 24
USE = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "bash",
                                         "input": {"command": "ls"}}]}
RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py"}]}
BASH = {"name": "bash", "description": "Run a command", "input_schema": {"type": "object", "properties": {}}}


def raw(model, body: dict | bytes, *, method="POST", path="/v1/messages", headers=None):
    """One request through http.handle: (status, headers, JSON body or the SSE text)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    status, out_headers, out = handle(model, method, path, headers or {}, data)
    if not isinstance(out, bytes):
        return status, out_headers, b"".join(out).decode()
    return status, out_headers, json.loads(out)


def request(**fields) -> dict:
    return {"model": MODEL, "max_tokens": 200, "messages": HI, **fields}


def assert_error(answer, status: int, kind: str, message: str) -> None:
    got_status, _, body = answer
    assert (got_status, body["error"]["type"]) == (status, kind), body
    assert message in body["error"]["message"], body["error"]["message"]


def image(data: bytes, media_type: str) -> dict:
    return {"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": media_type,
                                     "data": base64.b64encode(data).decode()}},
        {"type": "text", "text": "What is this?"}]}


# ---------------------------------------------------------------- model names
@pytest.mark.parametrize("name", ["not-a-real-model", "m", "claude-sonnet-4-5-latest", "gpt-4o"])
def test_an_unknown_model_is_the_apis_404_naming_it(model, client, name):
    assert_error(raw(model, request(model=name)), 404, "not_found_error", f"model: {name}")
    assert_error(raw(model, {"model": name, "messages": HI}, path="/v1/messages/count_tokens"), 404,
                 "not_found_error", f"model: {name}")
    with pytest.raises(anthropic.NotFoundError, match=f"model: {name}"):
        client.messages.create(**request(model=name))


@pytest.mark.parametrize("name", ["claude-sonnet-5-5", "claude-sonnet-4-5", "claude-sonnet-4-5-20250929",
                                  "claude-haiku-4-5", "claude-opus-4-1", "offline"])
def test_documented_ids_aliases_and_the_kits_own_name_are_answered(model, client, name):
    assert raw(model, request(model=name))[0] == 200
    assert client.messages.create(**request(model=name)).content


def test_a_model_that_is_not_a_string_is_a_400(model, client):
    assert_error(raw(model, request(model=5)), 400, "invalid_request_error", "model: Input should be a valid string")
    with pytest.raises(anthropic.BadRequestError, match="model: Input should be a valid string"):
        client.messages.create(**request(model=5))


# ---------------------------------------------------------------- request rules
def test_tool_blocks_in_the_history_need_tools(model, client):
    body = request(messages=[*HI, USE, RESULT])
    message = "Requests which include `tool_use` or `tool_result` blocks must define tools."
    assert_error(raw(model, body), 400, "invalid_request_error", message)
    counted = {"model": MODEL, "messages": body["messages"]}
    assert_error(raw(model, counted, path="/v1/messages/count_tokens"), 400, "invalid_request_error", message)
    with pytest.raises(anthropic.BadRequestError, match="must define tools"):
        client.messages.create(**body)
    assert client.messages.create(**body, tools=[BASH]).content  # the same history, with tools: answered


@pytest.mark.parametrize("stream", [False, True])
def test_max_tokens_over_the_models_maximum_is_a_400(model, client, stream):
    message = ("max_tokens: 1000000 > 64000, which is the maximum allowed number of output tokens for "
               "claude-sonnet-4-5-20250929")
    assert_error(raw(model, request(max_tokens=1_000_000, stream=stream)), 400, "invalid_request_error", message)
    with pytest.raises(anthropic.BadRequestError, match="maximum allowed number of output tokens"):
        if stream:
            with client.messages.stream(**request(max_tokens=1_000_000)) as events:
                events.get_final_message()
        else:
            client.messages.create(**request(max_tokens=1_000_000))


@pytest.mark.parametrize("name,ceiling", [(m.id, m.max_tokens) for m in MODELS])
def test_each_models_ceiling_is_allowed_and_one_more_is_not(model, name, ceiling):
    assert raw(model, request(model=name, max_tokens=ceiling))[0] == 200
    assert_error(raw(model, request(model=name, max_tokens=ceiling + 1)), 400, "invalid_request_error",
                 f"max_tokens: {ceiling + 1} > {ceiling}")


def test_max_tokens_of_the_wrong_type_names_the_type(model, client):
    assert_error(raw(model, request(max_tokens="abc")), 400, "invalid_request_error",
                 "max_tokens: Input should be a valid integer")
    assert_error(raw(model, request(max_tokens=-3)), 400, "invalid_request_error",
                 "max_tokens: Input should be greater than or equal to 0")  # 0: a cache pre-warming request
    with pytest.raises(anthropic.BadRequestError, match="max_tokens: Input should be a valid integer"):
        client.messages.create(**request(max_tokens="abc"))


@pytest.mark.parametrize("data,media_type,message", [
    (b"hello, this is plain text", "image/png", "messages.0.content.0.image.source.base64.data: Could not process image"),
    (JPEG, "image/png", "The image was specified using the image/png media type, but the image appears to be a "
                        "image/jpeg image"),
    (PNG, "image/webp", "but the image appears to be a image/png image"),
])
def test_base64_that_decodes_but_is_not_that_image_is_a_400(model, client, data, media_type, message):
    body = request(messages=[image(data, media_type)])
    assert_error(raw(model, body), 400, "invalid_request_error", message)
    with pytest.raises(anthropic.BadRequestError, match="image"):
        client.messages.create(**body)


@pytest.mark.parametrize("data,media_type", [(PNG, "image/png"), (JPEG, "image/jpeg"), (b"GIF89a" + b"\0" * 9, "image/gif"),
                                             (b"RIFF\0\0\0\0WEBPVP8 ", "image/webp")])
def test_an_image_whose_bytes_match_its_media_type_is_answered(model, data, media_type):
    assert raw(model, request(messages=[image(data, media_type)]))[0] == 200


def test_an_unknown_beta_is_a_400_and_known_ones_are_accepted(model, client):
    message = ("Unexpected value(s) `not-a-beta` for the `anthropic-beta` header. Please consult our documentation "
               "at docs.anthropic.com or try again without the header.")
    assert_error(raw(model, request(), headers={"anthropic-beta": "prompt-caching-2024-07-31, not-a-beta"}),
                 400, "invalid_request_error", message)
    assert_error(raw(model, b"", method="GET", path="/v1/models", headers={"Anthropic-Beta": "not-a-beta"}),
                 400, "invalid_request_error", "`not-a-beta`")
    assert raw(model, request(), headers={"anthropic-beta": "context-1m-2025-08-07,files-api-2025-04-14"})[0] == 200
    with pytest.raises(anthropic.BadRequestError, match="anthropic-beta"):
        client.beta.messages.create(**request(), betas=["not-a-beta"])
    assert client.beta.messages.create(**request(), betas=["interleaved-thinking-2025-05-14"]).content


# ---------------------------------------------------------------- thinking
THINK = {"type": "enabled", "budget_tokens": 2048}


def test_thinking_enabled_puts_a_signed_thinking_block_before_the_answer(model, client):
    r = client.messages.create(**request(max_tokens=4000, thinking=THINK))
    first, *rest = r.content
    assert first.type == "thinking" and first.signature == signature(first.thinking)
    assert first.thinking.startswith('The task: "What is a token?".') and "I will answer" in first.thinking
    assert rest and rest[0].type == "text" and rest[0].text[:60] in first.thinking  # it says what it will say
    plain = client.messages.create(**request(max_tokens=4000))
    assert [b.model_dump() for b in rest] == [b.model_dump() for b in plain.content]  # same answer, thought first
    assert r.usage.output_tokens > plain.usage.output_tokens


def test_thinking_before_a_tool_call_names_the_call(model, client):
    r = client.messages.create(**request(max_tokens=4000, thinking=THINK, tools=[BASH],
                                         messages=[{"role": "user", "content": "Run `echo hi`"}]))
    thought, *_, call = r.content
    assert call.type == "tool_use" and f'I will call bash {json.dumps(call.input)}' in thought.thinking


def test_a_thinking_history_sent_back_is_accepted_and_an_edited_one_is_not(model, client):
    r = client.messages.create(**request(max_tokens=4000, thinking=THINK))
    history = [*HI, {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in r.content]},
               {"role": "user", "content": "And a context window?"}]
    assert client.messages.create(**request(max_tokens=4000, thinking=THINK, messages=history)).content
    assert client.messages.create(**request(messages=history)).content  # thinking off now: still accepted
    history[1]["content"][0] = dict(history[1]["content"][0], thinking="I edited this.")
    assert_error(raw(model, request(messages=history)), 400, "invalid_request_error",
                 "messages.1.content.0: Invalid `signature` in `thinking` block")
    del history[1]["content"][0]["signature"]
    assert_error(raw(model, request(messages=history)), 400, "invalid_request_error",
                 "messages.1.content.0.thinking.signature: Field required")


def test_thinking_streams_thinking_and_signature_deltas(model, client):
    status, headers, text = raw(model, request(max_tokens=4000, thinking=THINK, stream=True))
    events = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    kinds = [e["delta"]["type"] for e in events if e["type"] == "content_block_delta" and e["index"] == 0]
    assert status == 200 and kinds[0] == "thinking_delta" and kinds[-1] == "signature_delta"
    assert set(kinds) == {"thinking_delta", "signature_delta"}
    with client.messages.stream(**request(max_tokens=4000, thinking=THINK)) as stream:
        final = stream.get_final_message()
    assert final.content[0].type == "thinking" and final.content[0].signature == signature(final.content[0].thinking)


@pytest.mark.parametrize("thinking,max_tokens,message", [
    ({"type": "enabled", "budget_tokens": 1023}, 4000,
     "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"),
    ({"type": "enabled", "budget_tokens": 4000}, 4000, "`max_tokens` must be greater than `thinking.budget_tokens`"),
    ({"type": "enabled"}, 4000, "thinking.enabled.budget_tokens: Field required"),
    ({"type": "sometimes"}, 4000, "thinking: Input tag 'sometimes' found using 'type' does not match"),
])
def test_budget_tokens_rules_are_enforced(model, client, thinking, max_tokens, message):
    assert_error(raw(model, request(max_tokens=max_tokens, thinking=thinking)), 400, "invalid_request_error", message)
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(**request(max_tokens=max_tokens, thinking=thinking))


def test_thinking_disabled_is_accepted_and_adds_no_block(model, client):
    r = client.messages.create(**request(thinking={"type": "disabled"}))
    assert [b.type for b in r.content] == ["text"]


@pytest.mark.parametrize("name,thinking,message", [
    ("claude-sonnet-5-5", THINK, '"thinking.type.enabled" is not supported for this model.'),
    ("claude-opus-4-7", THINK, '"thinking.type.enabled" is not supported for this model.'),
    ("claude-sonnet-4-5", {"type": "adaptive"}, "thinking: Input tag 'adaptive' found using 'type'"),
    ("claude-fable-5", {"type": "disabled"}, '"thinking.type.disabled" is not supported for this model.'),
])
def test_thinking_types_a_model_does_not_support_are_a_400(model, name, thinking, message):
    assert_error(raw(model, request(model=name, max_tokens=4000, thinking=thinking)), 400, "invalid_request_error",
                 message)


def test_adaptive_thinking_on_a_current_model_also_thinks_first(model, client):
    r = client.messages.create(**request(model="claude-sonnet-5-5", thinking={"type": "adaptive"}))
    assert [b.type for b in r.content] == ["thinking", "text"]


# ---------------------------------------------------------------- GET /v1/models
def test_the_model_list_has_the_apis_shape(model, client):
    status, _, page = raw(model, b"", method="GET", path="/v1/models")
    assert status == 200 and set(page) == {"data", "has_more", "first_id", "last_id"}
    assert [m["id"] for m in page["data"]] == [m.id for m in MODELS][:20] and page["has_more"] is True
    assert (page["first_id"], page["last_id"]) == (page["data"][0]["id"], page["data"][-1]["id"])
    for entry in page["data"]:
        assert entry["type"] == "model" and entry["display_name"] and entry["created_at"].endswith("Z")
    listed = [m.id for m in client.models.list(limit=7)]  # the SDK pages on with after_id
    assert listed == [m.id for m in MODELS]


def test_one_model_by_id_or_alias_and_an_unknown_one(model, client):
    status, _, one = raw(model, b"", method="GET", path="/v1/models/claude-sonnet-4-5")
    assert status == 200 and one["id"] == "claude-sonnet-4-5-20250929" and one["type"] == "model"
    assert client.models.retrieve("claude-opus-4-1").display_name == "Claude Opus 4.1"
    assert_error(raw(model, b"", method="GET", path="/v1/models/not-a-real-model"), 404, "not_found_error",
                 "model: not-a-real-model")
    with pytest.raises(anthropic.NotFoundError):
        client.models.retrieve("not-a-real-model")


def test_the_model_list_pages_both_ways(model):
    ids = [m.id for m in MODELS]
    _, _, page = raw(model, b"", method="GET", path=f"/v1/models?limit=3&after_id={ids[2]}")
    assert [m["id"] for m in page["data"]] == ids[3:6] and page["has_more"] is True
    _, _, page = raw(model, b"", method="GET", path=f"/v1/models?limit=2&before_id={ids[5]}")
    assert [m["id"] for m in page["data"]] == ids[3:5] and page["has_more"] is True
    assert_error(raw(model, b"", method="GET", path="/v1/models?limit=0"), 400, "invalid_request_error", "limit")
    assert raw(model, b"", method="POST", path="/v1/models")[0] == 405


# ---------------------------------------------------------------- ids
def test_identical_requests_get_unique_ids_and_the_same_content(model, client):
    a, b = (client.messages.create(**request(tools=[BASH], messages=[{"role": "user", "content": "Run `ls`"}]))
            for _ in range(2))
    assert a.id != b.id and a.id.startswith("msg_01") and len(a.id) == len(b.id) == 28
    assert a.content == b.content  # content (tool_use ids included) stays deterministic: recordings replay
    first, second = (raw(model, request()) for _ in range(2))
    assert first[1]["request-id"] != second[1]["request-id"] and first[2]["id"] != second[2]["id"]


def test_no_key_and_no_version_header_are_accepted_in_served_mode(model):
    """The kit's own client sends both; a bare curl without them is answered too (a deliberate difference)."""
    assert raw(model, request(), headers={})[0] == 200

