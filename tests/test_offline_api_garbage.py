"""Garbage at every public entry point of the offline API: a one-line 4xx naming the problem, never a 500.

A rich valid request (tools, a tool loop, an image, a PDF, a text document, a search result,
redacted thinking, cache_control, context management) is taken apart: every value at every
depth is replaced by values of the wrong JSON type, huge numbers, unicode, an unhashable
tag, or removed; and raw bodies that are not JSON (NaN, invalid UTF-8, lone surrogates)
are sent to every route. The fast sweep uses a few replacements; `-m slow` runs them all,
on count_tokens too.
"""

from __future__ import annotations

import copy
import json

import pytest
from test_offline_api_battery import CALC, TEXT_DOC, pdf, png

from offline import OfflineModel
from offline.serve.http import handle

HEADERS = {"anthropic-version": "2023-06-01", "anthropic-beta": "context-management-2025-06-27"}
FEW = [[], {"type": []}, "é🙂"]
ALL = FEW + [None, 10**30, {}, "", "x", -1, 1.5, True, [[[]]], [{}], {"a": 1}]
ROUTES = [("POST", "/v1/messages"), ("POST", "/v1/messages/count_tokens"), ("POST", "/v1/messages/batches"),
          ("GET", "/v1/messages/batches"), ("GET", "/v1/messages/batches/msgbatch_%00%ff"),
          ("GET", "/v1/messages/batches/x/results"), ("POST", "/v1/messages/batches/x/cancel"),
          ("GET", "/v1/models?limit=-1&after_id=%ff"), ("GET", "/v1/models/%00"), ("POST", "/v1/offline/faults"),
          ("DELETE", "/v1/messages"), ("POST", "/v1/files")]
RAW_BODIES = [b"", b"{", b"[]", b"null", b'"hi"', b"NaN", b'{"max_tokens": NaN}', b'{"max_tokens": Infinity}',
              b"\xff\xfe\x00", b'{"model": "\\ud800"}', b'{"a": 1e999999}', b"1" * 100_000, b"\xef\xbb\xbf{}",
              b'{"requests": [{"custom_id": [], "params": []}]}', b'{"status": 429, "count": 1000000000}']


def valid() -> dict:
    return {
        "model": "claude-sonnet-4-5", "max_tokens": 3000,
        "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
        "tools": [dict(CALC, cache_control={"type": "ephemeral", "ttl": "1h"})],
        "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
        "metadata": {"user_id": "u1"}, "stop_sequences": ["STOP"], "output_config": {"effort": "high"},
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "context_management": {"edits": [{"type": "clear_tool_uses_20250919", "exclude_tools": ["x"],
                                          "trigger": {"type": "input_tokens", "value": 50_000}}]},
        "messages": [
            {"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png(20, 10)}},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf()},
                 "citations": {"enabled": True}, "title": "Report"},
                {"type": "document", "source": TEXT_DOC},
                {"type": "search_result", "source": "s", "title": "t", "content": [{"type": "text", "text": "x"}]},
                {"type": "text", "text": "What is 2+2?"}]},
            {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "abc"},
                                              {"type": "tool_use", "id": "toolu_1", "name": "calc",
                                               "input": {"expr": "2+2"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": False,
                                          "content": [{"type": "text", "text": "4"}]}]},
        ]}


def paths(node, path=()):
    """Every path into `node` (dict keys and list indices), outermost first."""
    if path:
        yield path
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        yield from paths(child, path + (key,))


def replaced(body: dict, path: tuple, value, *, delete: bool = False) -> dict:
    out = copy.deepcopy(body)
    node = out
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


def answer(model, method, path, body: bytes, headers=HEADERS):
    status, out_headers, out = handle(model, method, path, dict(headers), body)
    out = out if isinstance(out, bytes) else b"".join(out)
    return status, out


def assert_clean(status: int, out: bytes, what) -> None:
    """Never a 5xx; a 4xx is the API's error JSON with a one-line message."""
    assert status < 500, (what, out[:300])
    if status >= 400:
        error = json.loads(out)["error"]
        assert error["type"] and error["message"] and "\n" not in error["message"], (what, error)


def sweep(values, routes):
    model, base = OfflineModel(tool_prompt=True), valid()
    status, out = answer(model, "POST", "/v1/messages", json.dumps(base).encode())
    assert status == 200, out  # the request is valid before it is taken apart
    for path in list(paths(base)):
        for value, delete in [(v, False) for v in values] + [(None, True)]:
            body = replaced(base, path, value, delete=delete)
            for route in routes:
                if route.endswith("count_tokens"):
                    body = {k: v for k, v in body.items() if k not in ("max_tokens", "metadata", "stop_sequences")}
                assert_clean(*answer(model, "POST", route, json.dumps(body).encode()), (route, path, value, delete))


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_wrong_types_at_every_level_are_one_line_400s():
    sweep(FEW, ["/v1/messages"])


@pytest.mark.slow
def test_every_garbage_value_at_every_level_on_messages_and_count_tokens():
    sweep(ALL, ["/v1/messages", "/v1/messages/count_tokens"])


@pytest.mark.parametrize("method, path", ROUTES)
@pytest.mark.parametrize("body", RAW_BODIES, ids=lambda b: repr(b[:24]))
def test_raw_garbage_on_every_route_is_never_a_500(method, path, body):
    assert_clean(*answer(OfflineModel(tool_prompt=True), method, path, body), (method, path, body[:40]))


@pytest.mark.parametrize("body, says", [
    (b'{"model": "claude-sonnet-4-5", "max_tokens": NaN, "messages": [{"role": "user", "content": "hi"}]}',
     "not valid JSON"),
    (b'{"model": "claude-sonnet-4-5", "max_tokens": 5, "messages": [{"role": "user", "content": "\\udc00"}]}',
     "lone surrogate"),
    (b'{"model": "claude-sonnet-4-5", "max_tokens": 1e400, "messages": [{"role": "user", "content": "hi"}]}',
     "max_tokens"),
    (b'{"model": "claude-sonnet-4-5", "max_tokens": 5, "messages": [{"role": "user", "content": [{"type": {}}]}]}',
     "Input tag"),
])
def test_what_json_cannot_say_is_a_400_naming_it(body, says):
    status, out = answer(OfflineModel(tool_prompt=True), "POST", "/v1/messages", body)
    assert status == 400 and says in json.loads(out)["error"]["message"], out


def test_the_served_model_answers_garbage_over_http_with_400s():
    import http.client

    from offline.serve.server import serve_in_thread

    server = serve_in_thread(OfflineModel(tool_prompt=True))
    host, port = server.server_address
    try:
        for body in [b'{"max_tokens": NaN}', b'{"model": "\\ud800"}', b"\xff\xfe",
                     json.dumps(replaced(valid(), ("tool_choice", "type"), [])).encode()]:
            conn = http.client.HTTPConnection(host, port, timeout=10)
            conn.request("POST", "/v1/messages", body, {"content-type": "application/json", **HEADERS})
            reply = conn.getresponse()
            assert reply.status == 400, reply.read()
            assert json.loads(reply.read())["error"]["type"] == "invalid_request_error"
            conn.close()
    finally:
        server.shutdown()
        server.server_close()
