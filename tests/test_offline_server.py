"""The offline model over real HTTP on 127.0.0.1, used by a plain `anthropic.Anthropic(base_url=...)`."""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import sys
import threading
import time

import anthropic
import pytest

from lessonkit import make_client
from offline import OfflineModel
from offline.agent import policy
from offline.serve.http import MAX_BODY
from offline.serve.server import make_server, serve_in_thread

BASH = {"name": "bash", "description": "run a command",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}
HI = [{"role": "user", "content": "Run `echo hi`"}]
SERVERS = {}  # id(model) -> its server, for tests that look at the server's sockets


@pytest.fixture
def served():
    model = OfflineModel(context_window=2_000)
    server = serve_in_thread(model)
    SERVERS[id(model)] = server
    host, port = server.server_address
    yield model, f"http://{host}:{port}"
    server.shutdown()
    server.server_close()
    SERVERS.pop(id(model))


def sdk(url, **kw):
    return anthropic.Anthropic(base_url=url, api_key="any-key", max_retries=0, **kw)


def test_listens_on_loopback_only(served):
    _, url = served
    assert url.startswith("http://127.0.0.1:")


def test_create_stream_and_count_tokens_over_http(served):
    model, url = served
    client = sdk(url)
    r = client.messages.create(model="offline", max_tokens=200, messages=HI, tools=[BASH])
    assert r.stop_reason == "tool_use" and r.content[1].input == {"command": "echo hi"}
    with client.messages.stream(model="offline", max_tokens=200, messages=HI, tools=[BASH]) as stream:
        streamed = stream.get_final_message()
    assert streamed.model_dump(exclude={"id"}) == r.model_dump(exclude={"id"})  # same content across transports
    assert client.messages.count_tokens(model="offline", messages=HI, tools=[BASH]).input_tokens == r.usage.input_tokens
    assert model.calls == 3


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_errors_over_http_are_the_sdks_classes(served):
    model, url = served
    client = sdk(url)
    with pytest.raises(anthropic.BadRequestError, match=r"prompt is too long: \d+ tokens > 2000 maximum"):
        client.messages.create(model="offline", max_tokens=10, messages=[{"role": "user", "content": "word " * 3000}])
    with pytest.raises(anthropic.BadRequestError, match="first message must use the \"user\" role"):
        client.messages.create(model="offline", max_tokens=10, messages=[{"role": "assistant", "content": "hi"}])
    assert client.post("/v1/offline/faults", body={"status": 529}, cast_to=object)["pending"] == 1
    with pytest.raises(anthropic.OverloadedError):
        client.messages.create(model="offline", max_tokens=10, messages=HI)
    model.inject_fault(delay=2)
    with pytest.raises(anthropic.APITimeoutError):
        sdk(url, timeout=0.2).messages.create(model="offline", max_tokens=10, messages=HI)


def test_concurrent_clients_are_served(served):
    _, url = served
    answers = []

    def one(k):
        answers.append(sdk(url).messages.create(model="offline", max_tokens=100,
                                                messages=[{"role": "user", "content": f"Run `echo {k}`"}],
                                                tools=[BASH]).content[1].input["command"])
    threads = [threading.Thread(target=one, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert sorted(answers) == [f"echo {k}" for k in range(4)]


def test_the_client_factory_points_at_it_as_an_anthropic_compatible_endpoint(served):
    _, url = served
    client = make_client(env={"LESSONS_BACKEND": "anthropic", "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": url},
                         max_retries=0)
    assert client.messages.create(model="offline", max_tokens=100, messages=HI, tools=[BASH]).stop_reason == "tool_use"


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_the_command_line_serves_on_the_port_it_prints():
    proc = subprocess.Popen([sys.executable, "-m", "offline", "serve", "--port", "0",
                             "--context-window", "5000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        m = re.match(r"offline model on (http://127\.0\.0\.1:(\d+)) \(context window 5,000 tokens\)", line)
        assert m, line
        client = sdk(m.group(1))
        assert client.messages.create(model="offline", max_tokens=50, messages=HI, tools=[BASH]).content[1].input
        with pytest.raises(anthropic.BadRequestError, match="> 5000 maximum"):
            client.messages.create(model="offline", max_tokens=10, messages=[{"role": "user", "content": "w " * 20000}])
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("args, message", [(["--port", "70000"], "--port must be 0-65535"),
                                           (["--context-window", "0"], "--context-window must be positive")])
def test_the_command_line_rejects_bad_arguments_in_one_line(args, message):
    done = subprocess.run([sys.executable, "-m", "offline", "serve", *args],
                          capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_a_busy_port_is_a_one_line_error(served):
    _, url = served
    port = url.rsplit(":", 1)[1]
    done = subprocess.run([sys.executable, "-m", "offline", "serve", "--port", port],
                          capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2 and done.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}")
    assert len(done.stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------ a real server (issue 10)

SHORT = json.dumps({"model": "offline", "max_tokens": 50, "messages": [{"role": "user", "content": "hi"}]}).encode()


def address(url) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


def connect(url) -> http.client.HTTPConnection:
    return http.client.HTTPConnection(*address(url), timeout=10)


def test_every_connection_has_tcp_nodelay(served):
    """Without it, each keep-alive answer waits ~40 ms for the client's delayed ACK (benchmarks/bench_served.py)."""
    model, url = served
    conn = connect(url)
    conn.request("POST", "/v1/messages", SHORT)
    assert conn.getresponse().read()
    server_socks = [c.transport.get_extra_info("socket") for c in served_server(model).uvicorn.server_state.connections]
    assert server_socks and all(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for s in server_socks)
    conn.close()


def served_server(model):
    return SERVERS[id(model)]


def test_a_burst_of_128_connections_is_queued_not_reset():
    """The listen backlog takes 128 connections before the server accepts one (it was 5: 1-3 % were reset)."""
    server = make_server(OfflineModel(), workers=4)
    socks = []
    try:
        for _ in range(128):  # nobody accepts yet: the kernel queues them
            socks.append(socket.create_connection(server.server_address, timeout=2))
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        request = (b"POST /v1/messages HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\n"
                   b"content-length: %d\r\n\r\n%s" % (len(SHORT), SHORT))
        for s in socks:
            s.sendall(request)
        answers = [s.makefile("rb").read() for s in socks]
        assert all(a.startswith(b"HTTP/1.1 200") for a in answers)
        assert server.workers <= 4  # bounded: 128 connections, at most 4 threads
    finally:
        for s in socks:
            s.close()
        server.shutdown()
        server.server_close()


def test_a_chunked_body_is_read_and_the_connection_stays_usable(served):
    _, url = served
    conn = connect(url)
    parts = [SHORT[:10], SHORT[10:30], SHORT[30:]]
    conn.request("POST", "/v1/messages", body=iter(parts), encode_chunked=True,
                 headers={"content-type": "application/json"})
    first = conn.getresponse()
    assert first.status == 200 and json.loads(first.read())["type"] == "message"
    conn.request("POST", "/v1/messages/count_tokens", json.dumps({"model": "offline", "messages": HI}).encode())
    second = conn.getresponse()  # the same connection: no leftover bytes in the way
    assert second.status == 200 and json.loads(second.read())["input_tokens"] > 0
    conn.close()


def test_a_chunked_body_with_extensions_and_trailers(served):
    _, url = served
    body = (b"a;name=x\r\n" + SHORT[:10] + b"\r\n" + b"%x\r\n" % (len(SHORT) - 10) + SHORT[10:] + b"\r\n"
            b"0\r\nx-trailer: 1\r\n\r\n")
    with socket.create_connection(address(url), timeout=10) as s:
        s.sendall(b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n"
                  b"connection: close\r\n\r\n" + body)
        answer = s.makefile("rb").read()
    assert answer.startswith(b"HTTP/1.1 200") and b'"type": "message"' in answer


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_a_body_over_32_mb_is_413_over_http_and_the_connection_goes_on(served):
    model, url = served
    client = sdk(url)
    with pytest.raises(anthropic.APIStatusError) as err:
        client.messages.create(model="offline", max_tokens=5, messages=[{"role": "user", "content": "x" * (MAX_BODY + 1)}])
    assert err.value.status_code == 413 and err.value.body["error"]["type"] == "request_too_large"
    assert client.messages.create(model="offline", max_tokens=50, messages=HI).content  # the server is fine
    conn = connect(url)  # chunked, over the limit: read to its end, refused, the connection stays usable
    big = b"x" * (1 << 20)
    conn.request("POST", "/v1/messages", body=iter([big] * 33), encode_chunked=True)
    refused = conn.getresponse()
    assert refused.status == 413 and json.loads(refused.read())["error"]["type"] == "request_too_large"
    conn.request("POST", "/v1/messages", SHORT)
    assert conn.getresponse().status == 200
    conn.close()


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("method, path, status, kind", [
    ("GET", "/v1/messages", 405, "invalid_request_error"), ("PUT", "/v1/messages", 405, "invalid_request_error"),
    ("DELETE", "/v1/messages", 405, "invalid_request_error"), ("PATCH", "/v1/messages", 405, "invalid_request_error"),
    ("OPTIONS", "/v1/messages", 405, "invalid_request_error"), ("POST", "/v1/nothing", 404, "not_found_error"),
    ("GET", "/", 404, "not_found_error"), ("BREW", "/v1/messages", 501, "api_error"),
])
def test_every_method_and_path_gets_the_apis_json_error(served, method, path, status, kind):
    _, url = served
    conn = connect(url)
    conn.request(method, path)
    r = conn.getresponse()
    assert r.status == status and r.getheader("content-type") == "application/json"
    assert json.loads(r.read())["error"]["type"] == kind
    conn.close()


def test_head_answers_headers_only(served):
    _, url = served
    conn = connect(url)
    conn.request("HEAD", "/v1/messages")
    r = conn.getresponse()
    assert r.status == 405 and r.getheader("content-type") == "application/json" and r.read() == b""
    conn.request("POST", "/v1/messages", SHORT)  # no stray body bytes: the next answer parses
    assert conn.getresponse().status == 200
    conn.close()


def test_a_malformed_request_line_gets_a_json_400(served):
    _, url = served
    with socket.create_connection(address(url), timeout=10) as s:
        s.sendall(b"NONSENSE\r\n\r\n")
        answer = s.makefile("rb").read()
    assert answer.startswith(b"HTTP/1.1 400") and b'"invalid_request_error"' in answer.split(b"\r\n\r\n", 1)[1]


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_sse_is_written_event_by_event(served):
    """A `messages.stream` consumer sees the first text while the server is still producing the rest."""
    model, url = served
    model.stream_delay = 0.15
    client = sdk(url)
    seen = []
    with client.messages.stream(model="offline", max_tokens=300, messages=[{"role": "user", "content": "What is a token?"}]) \
            as stream:
        for event in stream:
            seen.append((event.type, time.monotonic()))
        final = stream.get_final_message()
    first_text = next(t for kind, t in seen if kind == "text")
    events_after = sum(1 for _, t in seen if t > first_text)
    assert final.stop_reason == "end_turn" and events_after >= 3
    assert seen[-1][1] - first_text >= 0.3  # a single buffered body would arrive all at once


def test_failure_7_a_crash_inside_the_served_model_is_a_500_not_a_dropped_connection(served, monkeypatch):
    model, url = served
    monkeypatch.setattr(policy, "decide", lambda *a, **k: 1 / 0)
    with pytest.raises(anthropic.InternalServerError) as err:
        sdk(url).messages.create(model="offline", max_tokens=50, messages=HI)
    assert not isinstance(err.value, anthropic.APIConnectionError)
    assert err.value.body["error"] == {"type": "api_error",
                                       "message": "offline model error: ZeroDivisionError: division by zero"}


def test_an_http_10_client_gets_the_stream_unchunked(served):
    _, url = served
    body = json.dumps({"model": "offline", "max_tokens": 50, "stream": True, "messages": HI}).encode()
    with socket.create_connection(address(url), timeout=10) as s:
        s.sendall(b"POST /v1/messages HTTP/1.0\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        answer = s.makefile("rb").read()
    head, events = answer.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 200") and b"chunked" not in head.lower()
    assert events.startswith(b"event: message_start\n") and events.endswith(b"event: message_stop\ndata: "
                                                                             b'{"type": "message_stop"}\n\n')
