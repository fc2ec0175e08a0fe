"""Fault injection through the real SDK: error classes, retries, delays and timeouts, the control endpoint."""

from __future__ import annotations

import importlib
import json

import anthropic
import pytest

from offline import offline_client
from offline.serve.transport import http_library

HI = [{"role": "user", "content": "hi"}]
OVERLOADED = getattr(anthropic, "OverloadedError", anthropic.APIStatusError)  # 529's class in anthropic 2.x


def ask(client, **kw):
    return client.messages.create(model="offline", max_tokens=100, messages=HI, **kw)


@pytest.mark.parametrize("status, error_class, error_type", [
    (429, anthropic.RateLimitError, "rate_limit_error"),
    (529, OVERLOADED, "overloaded_error"),
    (500, anthropic.InternalServerError, "api_error"),
    (401, anthropic.AuthenticationError, "authentication_error"),
    (403, anthropic.PermissionDeniedError, "permission_error"),
    (400, anthropic.BadRequestError, "invalid_request_error"),
])
def test_each_fault_raises_the_sdks_class_for_it(client, model, status, error_class, error_type):
    model.inject_fault(status)
    with pytest.raises(error_class) as err:
        ask(client)
    assert err.value.status_code == status and err.value.body["error"]["type"] == error_type
    assert err.value.response.headers["retry-after-ms"] == "20"
    assert ask(client).content  # one fault, one failed call


def test_529_is_the_overloaded_error_class():
    assert OVERLOADED.__name__ == "OverloadedError" and issubclass(OVERLOADED, anthropic.InternalServerError)


def test_retries_get_through_as_many_faults_as_allowed(model):
    model.inject_fault(529, count=2)
    r = ask(offline_client(model, max_retries=2))
    assert r.stop_reason == "end_turn" and model.calls == 3 and model.pending_faults == 0
    model.inject_fault(429, count=2)
    with pytest.raises(anthropic.RateLimitError):
        ask(offline_client(model, max_retries=1))
    assert model.calls == 5 and model.pending_faults == 0


def test_faults_hit_count_tokens_and_streams_too(client, model):
    model.inject_fault(500, message="boom")
    with pytest.raises(anthropic.InternalServerError, match="boom"):
        client.messages.count_tokens(model="offline", messages=HI)
    model.inject_fault(529)
    with pytest.raises(OVERLOADED):
        ask(client, stream=True)
    assert [e.type for e in ask(client, stream=True)][-1] == "message_stop"


def test_a_delay_answers_late_and_a_short_timeout_gives_up(client, model):
    model.inject_fault(delay=0.05)
    assert ask(client).content
    model.inject_fault(delay=30)
    with pytest.raises(anthropic.APITimeoutError):
        ask(client.with_options(timeout=0.1))
    assert model.pending_faults == 0 and ask(client).content  # the slow answer was the one that timed out
    model.inject_fault(529, delay=0.05)  # slow, then overloaded
    with pytest.raises(OVERLOADED):
        ask(client)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_a_timeout_is_retried_like_the_real_api(model):
    model.inject_fault(delay=30)
    client = offline_client(model, max_retries=1, timeout=0.1)
    assert ask(client).content and model.calls == 2


def test_clear_faults_and_bad_fault_requests(client, model):
    model.inject_fault(429, count=5)
    model.clear_faults()
    assert ask(client).content
    for bad in [{"status": 200}, {"status": 429, "count": 0}, {}, {"delay": -1}, {"status": "429"}]:
        with pytest.raises(ValueError):
            model.inject_fault(**bad)


def test_the_control_endpoint_schedules_faults_over_http(client, model):
    answer = client.post("/v1/offline/faults", body={"status": 529, "count": 2}, cast_to=object)
    assert answer == {"ok": True, "pending": 2}
    with pytest.raises(OVERLOADED):
        ask(client)
    assert client.post("/v1/offline/faults", body={"clear": True}, cast_to=object) == {"ok": True, "pending": 0}
    assert ask(client).content
    with pytest.raises(anthropic.BadRequestError, match="faults: status must be"):
        client.post("/v1/offline/faults", body={"status": 700}, cast_to=object)
    with pytest.raises(anthropic.BadRequestError, match="expected"):
        client.post("/v1/offline/faults", body={"colour": 1}, cast_to=object)


def test_the_transport_is_the_sdks_own_http_library(client):
    lib = http_library()
    assert isinstance(client._client, lib.Client) and isinstance(client._client._transport, lib.MockTransport)


# ------------------------------------------------------------------ issue 9, failure 7: a crash inside the model

def pasted_summary_request(result_content) -> list:
    """A seed-style summary prompt whose pasted JSON history has `result_content` in a tool_result."""
    history = [{"role": "user", "content": "How many lines has a.py?"},
               {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash",
                                                  "input": {"command": "wc -l a.py"}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": result_content}]}]
    return [{"role": "user", "content": "Summarize this conversation:\n" + json.dumps(history)}]


@pytest.mark.parametrize("content", [7, 2.5, True, None, {"type": "text", "text": 3}, [None, 1],
                                     [{"type": "text", "text": None}]])
def test_failure_7_a_pasted_history_with_odd_tool_result_content_is_summarised(client, content):
    """It raised TypeError inside the model (`'int' object is not iterable`) and the SDK said "Connection error."."""
    r = client.messages.create(model="offline", max_tokens=400, messages=pasted_summary_request(content))
    assert r.content[0].text.startswith("1. User requests:\n- How many lines has a.py?")


@pytest.mark.parametrize("odd", [{"id": 7}, {"id": {"a": 1}}, {"name": ["x"]}, {"name": {"a": 1}}])
def test_failure_7_odd_ids_and_names_in_a_pasted_history_are_summarised(client, odd):
    history = [{"role": "user", "content": "list files"},
               {"role": "assistant", "content": [dict({"type": "tool_use", "id": "t1", "name": "bash",
                                                       "input": {"command": "ls"}}, **odd)]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": odd.get("id", "t1"),
                                             "content": "a.py"}]}]
    r = client.messages.create(model="offline", max_tokens=400, messages=[
        {"role": "user", "content": "Summarize this conversation:\n" + json.dumps(history)}])
    assert "list files" in r.content[0].text


def boom(*args, **kwargs):
    raise RuntimeError("boom at step 3")


@pytest.mark.parametrize("target", ["policy.decide", "tokens.count_request"])
def test_failure_7_a_crash_inside_the_model_is_a_500_api_error_naming_it(model, monkeypatch, target):
    module, name = target.split(".")
    monkeypatch.setattr(importlib.import_module("offline.model").__dict__[module], name, boom)
    client = offline_client(model, max_retries=2)
    call = ask if module == "policy" else (lambda c: c.messages.count_tokens(model="offline", messages=HI))
    with pytest.raises(anthropic.InternalServerError) as err:
        call(client)
    assert not isinstance(err.value, anthropic.APIConnectionError)
    assert err.value.status_code == 500 and err.value.body["error"] == {
        "type": "api_error", "message": "offline model error: RuntimeError: boom at step 3"}
    assert model.calls == 1  # x-should-retry: false, the same request would crash the same way
