"""The offline model over real HTTP on 127.0.0.1, used by a plain `anthropic.Anthropic(base_url=...)`."""

from __future__ import annotations

import re
import subprocess
import sys
import threading

import anthropic
import pytest

from lessonkit import make_client
from lessonkit.offline import OfflineModel
from lessonkit.offline.server import serve_in_thread

BASH = {"name": "bash", "description": "run a command",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}
HI = [{"role": "user", "content": "Run `echo hi`"}]


@pytest.fixture
def served():
    model = OfflineModel(context_window=2_000)
    server = serve_in_thread(model)
    host, port = server.server_address
    yield model, f"http://{host}:{port}"
    server.shutdown()
    server.server_close()


def sdk(url, **kw):
    return anthropic.Anthropic(base_url=url, api_key="any-key", max_retries=0, **kw)


def test_listens_on_loopback_only(served):
    _, url = served
    assert url.startswith("http://127.0.0.1:")


def test_create_stream_and_count_tokens_over_http(served):
    model, url = served
    client = sdk(url)
    r = client.messages.create(model="m", max_tokens=200, messages=HI, tools=[BASH])
    assert r.stop_reason == "tool_use" and r.content[1].input == {"command": "echo hi"}
    with client.messages.stream(model="m", max_tokens=200, messages=HI, tools=[BASH]) as stream:
        streamed = stream.get_final_message()
    assert streamed.model_dump() == r.model_dump()  # same ids, same text: deterministic across transports
    assert client.messages.count_tokens(model="m", messages=HI, tools=[BASH]).input_tokens == r.usage.input_tokens
    assert model.calls == 3


def test_errors_over_http_are_the_sdks_classes(served):
    model, url = served
    client = sdk(url)
    with pytest.raises(anthropic.BadRequestError, match=r"prompt is too long: \d+ tokens > 2000 maximum"):
        client.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": "word " * 3000}])
    with pytest.raises(anthropic.BadRequestError, match="first message must use the \"user\" role"):
        client.messages.create(model="m", max_tokens=10, messages=[{"role": "assistant", "content": "hi"}])
    assert client.post("/v1/offline/faults", body={"status": 529}, cast_to=object)["pending"] == 1
    with pytest.raises(anthropic.OverloadedError):
        client.messages.create(model="m", max_tokens=10, messages=HI)
    model.inject_fault(delay=2)
    with pytest.raises(anthropic.APITimeoutError):
        sdk(url, timeout=0.2).messages.create(model="m", max_tokens=10, messages=HI)


def test_concurrent_clients_are_served(served):
    _, url = served
    answers = []

    def one(k):
        answers.append(sdk(url).messages.create(model="m", max_tokens=100,
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
    assert client.messages.create(model="m", max_tokens=100, messages=HI, tools=[BASH]).stop_reason == "tool_use"


def test_the_command_line_serves_on_the_port_it_prints():
    proc = subprocess.Popen([sys.executable, "-m", "lessonkit.offline", "serve", "--port", "0",
                             "--context-window", "5000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        m = re.match(r"offline model on (http://127\.0\.0\.1:(\d+)) \(context window 5,000 tokens\)", line)
        assert m, line
        client = sdk(m.group(1))
        assert client.messages.create(model="m", max_tokens=50, messages=HI, tools=[BASH]).content[1].input
        with pytest.raises(anthropic.BadRequestError, match="> 5000 maximum"):
            client.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": "w " * 20000}])
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("args, message", [(["--port", "70000"], "--port must be 0-65535"),
                                           (["--context-window", "0"], "--context-window must be positive")])
def test_the_command_line_rejects_bad_arguments_in_one_line(args, message):
    done = subprocess.run([sys.executable, "-m", "lessonkit.offline", "serve", *args],
                          capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_a_busy_port_is_a_one_line_error(served):
    _, url = served
    port = url.rsplit(":", 1)[1]
    done = subprocess.run([sys.executable, "-m", "lessonkit.offline", "serve", "--port", port],
                          capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2 and done.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}")
    assert len(done.stderr.strip().splitlines()) == 1
