"""Injected faults on any backend that takes them: in-process, served (POST /v1/offline/faults), and a
one-line FaultsUnsupported from an endpoint that is not the kit's offline model."""

from __future__ import annotations

import anthropic
import pytest

from lessonkit import make_client
from lessonkit.backends.faults import FaultsUnsupported, can_inject, inject_fault
from offline import OfflineModel
from offline.serve.server import serve_in_thread
from tests.stubs import StubEndpoint

HI = {"model": "offline", "max_tokens": 300, "messages": [{"role": "user", "content": "hi"}]}


def served_env(url: str) -> dict:
    return {"LESSONS_BACKEND": "anthropic", "ANTHROPIC_API_KEY": "x", "ANTHROPIC_BASE_URL": url}


def test_in_process_faults_reach_the_model():
    client = make_client(env={}, max_retries=0)
    assert can_inject(client)
    inject_fault(client, 529)
    with pytest.raises(anthropic.InternalServerError, match="Overloaded"):
        client.messages.create(**HI)
    assert client.messages.create(**HI).stop_reason == "end_turn"


def test_served_faults_go_through_the_control_endpoint():
    model = OfflineModel()
    server = serve_in_thread(model, port=0)
    try:
        client = make_client(env=served_env(f"http://127.0.0.1:{server.server_address[1]}"), max_retries=0,
                             context_window=3_000)
        assert can_inject(client)
        inject_fault(client, 529, count=2)
        assert model.pending_faults == 2
        for _ in range(2):
            with pytest.raises(anthropic.InternalServerError, match="Overloaded"):
                client.messages.create(**HI)
        assert client.messages.create(**HI).stop_reason == "end_turn"
    finally:
        server.shutdown()
        server.server_close()


def test_an_endpoint_without_faults_says_so_in_one_line():
    body = {"type": "error", "error": {"type": "not_found_error", "message": "Not found"}}
    with StubEndpoint(404, body) as stub:
        client = make_client(env=served_env(stub.url), max_retries=0)
        assert not can_inject(client)
        with pytest.raises(FaultsUnsupported, match="answered 404: this endpoint takes no injected faults") as caught:
            inject_fault(client, 529)
        assert [path for path, _, _ in stub.requests] == ["/v1/offline/faults", "/v1/offline/faults"]
    assert "\n" not in str(caught.value)
