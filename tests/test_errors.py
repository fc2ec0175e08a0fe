"""Errors a student can act on: connection refused names the URL and its variable, 401 says the key in
ANTHROPIC_API_KEY was refused (never the key), 404 names MODEL_ID; one line each, the SDK error chained."""

from __future__ import annotations

import socket
import subprocess
import sys

import anthropic
import pytest

from lessonkit import make_client
from lessonkit.backends.errors import EndpointUnreachable, KeyRefused, ModelNotFound
from tests.stubs import MESSAGE, StubEndpoint

KEY = "sk-secret-do-not-print-4242"
HI = [{"role": "user", "content": "hi"}]


def env_for(url: str, **extra) -> dict:
    return {"LESSONS_BACKEND": "anthropic", "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": url, **extra}


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def send(env: dict, **options):
    return make_client(env=env, max_retries=0, **options).messages.create(model="claude-x", max_tokens=10,
                                                                           messages=HI)


def test_connection_refused_names_the_url_and_the_variable():
    url = f"http://127.0.0.1:{closed_port()}"
    with pytest.raises(EndpointUnreachable) as caught:
        send(env_for(url))
    text = str(caught.value)
    assert url in text and "ANTHROPIC_BASE_URL" in text and "refused" in text.lower()
    assert "\n" not in text and isinstance(caught.value, anthropic.APIConnectionError)
    assert type(caught.value.__cause__) is anthropic.APIConnectionError  # the SDK's own, chained


def test_the_default_url_is_named_as_the_default():
    from lessonkit.backends.errors import url_source

    assert "default" in url_source("https://api.anthropic.com/") and "ANTHROPIC_BASE_URL" in url_source(
        "https://api.anthropic.com")
    assert url_source("http://127.0.0.1:1") == "from ANTHROPIC_BASE_URL"


def test_a_401_says_the_key_was_refused_without_printing_it():
    body = {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
    with StubEndpoint(401, body) as stub, pytest.raises(KeyRefused) as caught:
        send(env_for(stub.url))
    text = str(caught.value)
    assert "the key in ANTHROPIC_API_KEY was refused" in text and stub.url in text and "invalid x-api-key" in text
    assert KEY not in text and KEY not in repr(caught.value.body) and "\n" not in text
    assert isinstance(caught.value, anthropic.AuthenticationError)
    assert type(caught.value.__cause__) is anthropic.AuthenticationError
    assert any(KEY in value for value in stub.requests[0][2].values())  # it was sent, just never shown


def test_a_404_for_the_model_names_model_id():
    body = {"type": "error", "error": {"type": "not_found_error", "message": "model: claude-x"}}
    with StubEndpoint(404, body) as stub, pytest.raises(ModelNotFound) as caught:
        send(env_for(stub.url))
    text = str(caught.value)
    assert "'claude-x'" in text and "MODEL_ID" in text and stub.url in text and "\n" not in text
    assert isinstance(caught.value, anthropic.NotFoundError)
    assert type(caught.value.__cause__) is anthropic.NotFoundError


def test_a_404_for_the_path_names_the_base_url():
    body = {"type": "error", "error": {"type": "not_found_error", "message": "Not found: POST /v1/v1/messages"}}
    with StubEndpoint(404, body) as stub, pytest.raises(ModelNotFound) as caught:
        send(env_for(stub.url + "/v1"))
    text = str(caught.value)
    assert "ANTHROPIC_BASE_URL" in text and "should not end in /v1" in text and "MODEL_ID" not in text


def test_other_errors_keep_the_sdks_class_and_message():
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": "messages: Field required"}}
    with StubEndpoint(400, body) as stub, pytest.raises(anthropic.BadRequestError) as caught:
        send(env_for(stub.url))
    assert type(caught.value) is anthropic.BadRequestError and "messages: Field required" in str(caught.value)
    with StubEndpoint(200, MESSAGE) as stub:
        assert send(env_for(stub.url)).content[0].text == "ok"


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_the_repl_prints_the_connection_error_in_one_line(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}"
    env = {"PATH": "/usr/bin:/bin", **env_for(url)}
    done = subprocess.run([sys.executable, "-m", "s01_loop", "--workspace", str(tmp_path), "--quiet"],
                          input="Run `ls`\n", capture_output=True, text=True, env=env, timeout=60)
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and url in errors[0] and "ANTHROPIC_BASE_URL" in errors[0], done.stderr
    assert "Traceback" not in done.stderr and KEY not in done.stdout + done.stderr
