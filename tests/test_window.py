"""The lesson window on the anthropic backend: a request over N never leaves the process (the endpoint
sees nothing) and fails with the offline model's 400; one under N is sent byte for byte; max_tokens is
clamped to the room left; count_tokens is asked only when told to."""

from __future__ import annotations

import json

import anthropic
import pytest

from lessonkit import ConfigError, make_client, tokens
from lessonkit.backends.window import window_of
from offline import OfflineModel, offline_client
from tests.stubs import MESSAGE, StubEndpoint

TOOLS = [{"name": "bash", "description": "run a command",
          "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}]


def env_for(url: str, **extra) -> dict:
    return {"LESSONS_BACKEND": "anthropic", "ANTHROPIC_API_KEY": "x", "ANTHROPIC_BASE_URL": url, **extra}


def request(words: int, max_tokens: int = 50) -> dict:
    return {"model": "offline", "max_tokens": max_tokens, "system": "be brief", "tools": TOOLS,
            "messages": [{"role": "user", "content": "hello " * words}]}


def test_a_request_over_the_window_never_leaves_the_process():
    body = request(2_000)
    n = tokens.count_request(body)
    with StubEndpoint(200, MESSAGE) as stub:
        client = make_client(env=env_for(stub.url), context_window=n - 1)
        with pytest.raises(anthropic.BadRequestError) as caught:
            client.messages.create(**body)
    assert stub.requests == []
    assert caught.value.status_code == 400
    assert caught.value.body["error"]["message"] == f"prompt is too long: {n} tokens > {n - 1} maximum"


def test_the_refusal_reads_exactly_like_the_offline_models():
    body = request(2_000)
    n = tokens.count_request(body)
    with pytest.raises(anthropic.BadRequestError) as offline:
        offline_client(OfflineModel(n - 1), max_retries=0).messages.create(**body)
    with StubEndpoint(200, MESSAGE) as stub, pytest.raises(anthropic.BadRequestError) as online:
        make_client(env=env_for(stub.url), context_window=n - 1).messages.create(**body)
    assert online.value.body["error"] == offline.value.body["error"]
    assert type(online.value) is type(offline.value)


def test_a_request_under_the_window_is_sent_unchanged():
    body = request(200, max_tokens=50)
    n = tokens.count_request(body)
    with StubEndpoint(200, MESSAGE) as plain:
        make_client(env=env_for(plain.url), max_retries=0).messages.create(**body)
    with StubEndpoint(200, MESSAGE) as windowed:
        client = make_client(env=env_for(windowed.url), context_window=n + 50, max_retries=0)
        assert client.messages.create(**body).content[0].text == "ok"
    assert [r[0] for r in windowed.requests] == ["/v1/messages"]
    assert windowed.requests[0][1] == plain.requests[0][1]  # byte for byte what the SDK built
    assert json.loads(windowed.requests[0][1]) == body


def test_max_tokens_is_clamped_to_the_room_left():
    body = request(200, max_tokens=4_000)
    n = tokens.count_request(body)
    with StubEndpoint(200, MESSAGE) as stub:
        make_client(env=env_for(stub.url), context_window=n + 100, max_retries=0).messages.create(**body)
    sent = json.loads(stub.requests[0][1])
    assert sent["max_tokens"] == 100 and dict(sent, max_tokens=4_000) == body


def test_count_tokens_is_asked_when_told_and_its_count_decides():
    body = request(50)
    counted = dict(MESSAGE, input_tokens=10_000)  # the endpoint's tokenizer thinks it is much longer
    with StubEndpoint(200, counted) as stub:
        client = make_client(env=env_for(stub.url, LESSONS_WINDOW_COUNT="endpoint"), context_window=5_000)
        with pytest.raises(anthropic.BadRequestError, match="10000 tokens > 5000 maximum"):
            client.messages.create(**body)
    assert [r[0] for r in stub.requests] == ["/v1/messages/count_tokens"]
    assert set(json.loads(stub.requests[0][1])) == {"model", "messages", "system", "tools"}


def test_an_endpoint_without_count_tokens_falls_back_to_the_kit_counter():
    body = request(50)
    with StubEndpoint(404, {"type": "error", "error": {"type": "not_found_error", "message": "no"}}) as stub:
        client = make_client(env=env_for(stub.url, LESSONS_WINDOW_COUNT="endpoint"), context_window=5,
                             max_retries=0)
        for _ in range(2):
            with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
                client.messages.create(**body)
    assert [r[0] for r in stub.requests] == ["/v1/messages/count_tokens"]  # asked once, then never again


def test_window_of_is_the_same_on_every_backend():
    assert window_of(make_client(env={}, context_window=3_000)) == 3_000
    assert window_of(make_client(env=env_for("http://127.0.0.1:1"), context_window=3_000)) == 3_000
    assert window_of(make_client(env=env_for("http://127.0.0.1:1", LESSONS_CONTEXT_WINDOW="4000"))) == 4_000
    assert window_of(make_client(env=env_for("http://127.0.0.1:1"))) is None  # the real model's own window


@pytest.mark.parametrize("env, options, problem", [
    ({}, {"context_window": 0}, "context_window=0"),
    ({"LESSONS_WINDOW_COUNT": "bpe"}, {"context_window": 10}, "LESSONS_WINDOW_COUNT"),
])
def test_bad_window_settings_are_one_line_config_errors(env, options, problem):
    with pytest.raises(ConfigError, match=problem):
        make_client(env=env_for("http://127.0.0.1:1", **env), **options)
