"""The client factory: backends from the environment or a .env file, one-line errors, no import side effects;
and the HTTP library detection the offline transport relies on (httpx2 today, httpx in older SDKs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import anthropic
import pytest

from lessonkit import ConfigError, backend_name, make_client, model_id
from lessonkit.backends import client as client_module
from lessonkit.backends import settings as settings_module
from offline import OfflineModel, model_of
from offline.serve import transport
from offline.serve.transport import OFFLINE_BASE_URL, http_library, library_of, make_transport

ROOT = Path(__file__).resolve().parent.parent
VARIABLES = ("LESSONS_BACKEND", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "MODEL_ID", "LESSONS_CONTEXT_WINDOW")
KEYED = {"LESSONS_BACKEND": "anthropic", "ANTHROPIC_API_KEY": "sk-test"}


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """No kit variable in os.environ, and the repo root (for .env) is an empty tmp folder."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(settings_module, "REPO_ROOT", tmp_path)
    return tmp_path


def test_offline_is_the_default_with_a_200k_window(clean_env):
    client = make_client()
    assert isinstance(client, anthropic.Anthropic) and backend_name() == "offline"
    assert model_of(client).context_window == 200_000 and model_id() == client_module.DEFAULT_MODEL
    assert client.messages.create(model=model_id(), max_tokens=50,
                                  messages=[{"role": "user", "content": "hi"}]).stop_reason == "end_turn"


def test_offline_options_window_scenarios_and_a_shared_model():
    assert model_of(make_client(env={"LESSONS_CONTEXT_WINDOW": "8_000"})).context_window == 8000
    assert model_of(make_client(env={"LESSONS_CONTEXT_WINDOW": "8000"}, context_window=500)).context_window == 500
    scenario = {"match": "^ping$", "steps": [{"say": "pong", "calls": []}], "final": "pong!"}
    client = make_client(env={}, scenarios=[scenario])
    assert model_of(client).scenarios()[0] is scenario
    shared = OfflineModel(context_window=1234)
    assert model_of(make_client(env={}, model=shared)) is shared
    assert make_client(env={}, max_retries=5).max_retries == 5


def test_the_real_api_backend_uses_key_base_url_and_model_id():
    client = make_client(env=dict(KEYED, ANTHROPIC_BASE_URL="https://llm.example.org/anthropic", MODEL_ID="my-model"))
    assert client.api_key == "sk-test" and str(client.base_url).startswith("https://llm.example.org/anthropic")
    assert model_of(client) is None and model_id(env={"MODEL_ID": " my-model "}) == "my-model"
    assert str(make_client(env=KEYED).base_url).startswith("https://api.anthropic.com")
    assert make_client("anthropic", env={"ANTHROPIC_API_KEY": "k"}).api_key == "k"  # argument over env
    assert model_of(make_client("offline", env=KEYED)) is not None


BAD = [
    ({"LESSONS_BACKEND": "bogus"}, "LESSONS_BACKEND"),
    ({"LESSONS_BACKEND": "anthropic"}, "ANTHROPIC_API_KEY"),
    ({"LESSONS_BACKEND": "anthropic", "ANTHROPIC_API_KEY": "  "}, "ANTHROPIC_API_KEY"),
    (dict(KEYED, ANTHROPIC_BASE_URL="localhost:8765"), "ANTHROPIC_BASE_URL"),
    (dict(KEYED, ANTHROPIC_BASE_URL="ftp://example.org"), "ANTHROPIC_BASE_URL"),
    (dict(KEYED, ANTHROPIC_BASE_URL="http://[::1"), "ANTHROPIC_BASE_URL"),
    (dict(KEYED, ANTHROPIC_BASE_URL="http://host:port"), "ANTHROPIC_BASE_URL"),
    (dict(KEYED, ANTHROPIC_BASE_URL="http:///no-host"), "ANTHROPIC_BASE_URL"),
    (dict(KEYED, ANTHROPIC_BASE_URL="http://a b.org"), "ANTHROPIC_BASE_URL"),
    ({"LESSONS_CONTEXT_WINDOW": "big"}, "LESSONS_CONTEXT_WINDOW"),
    ({"LESSONS_CONTEXT_WINDOW": "-5"}, "LESSONS_CONTEXT_WINDOW"),
]


@pytest.mark.parametrize("env, variable", BAD)
def test_bad_settings_are_one_line_errors_naming_the_variable(env, variable):
    with pytest.raises(ConfigError) as err:
        make_client(env=env)
    message = str(err.value)
    assert message.startswith(variable) and "\n" not in message


@pytest.mark.parametrize("kwargs, name", [({"backend": "openai"}, "backend"), ({"context_window": 0}, "context_window"),
                                          ({"max_retries": -1}, "max_retries")])
def test_bad_arguments_are_one_line_errors_naming_the_argument(kwargs, name):
    with pytest.raises(ConfigError, match=f"^{name}"):
        make_client(env={}, **kwargs)


def test_a_dotenv_file_is_read_and_the_environment_wins(clean_env, monkeypatch):
    (clean_env / ".env").write_text("LESSONS_BACKEND=anthropic\nANTHROPIC_API_KEY='from-dotenv'\n"
                                    "ANTHROPIC_BASE_URL=http://127.0.0.1:9\n# a comment\nMODEL_ID=dot-model\n")
    client = make_client()
    assert client.api_key == "from-dotenv" and str(client.base_url).startswith("http://127.0.0.1:9")
    assert model_id() == "dot-model" and backend_name() == "anthropic"
    monkeypatch.setenv("LESSONS_BACKEND", "offline")
    assert model_of(make_client()) is not None
    (clean_env / ".env").write_text("LESSONS_BACKEND=bogus\n")
    monkeypatch.delenv("LESSONS_BACKEND")
    with pytest.raises(ConfigError, match="^LESSONS_BACKEND='bogus'"):
        make_client()
    assert model_of(make_client(env={})) is not None  # env= is used as it is: no .env


def test_importing_lessonkit_reads_no_environment_and_makes_no_client():
    code = ("import sys, lessonkit, offline, lessonkit.tokens\n"
            "print(sorted(m for m in ('anthropic', 'dotenv', 'httpx2', 'httpx') if m in sys.modules))")
    env = dict(os.environ, LESSONS_BACKEND="bogus", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60, cwd=ROOT,
                          check=False)
    assert done.returncode == 0 and json.loads(done.stdout.replace("'", '"')) == [], done.stderr


@pytest.mark.parametrize("env, variable", [({"LESSONS_BACKEND": "bogus"}, "LESSONS_BACKEND"),
                                           ({"LESSONS_BACKEND": "anthropic"}, "ANTHROPIC_API_KEY")])
def test_the_repl_exits_2_with_one_line(env, variable, tmp_path):
    base = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    done = subprocess.run([sys.executable, "-m", "s01_loop", "--workspace", str(tmp_path)], input="",
                          capture_output=True, text=True, env=dict(base, PYTHONPATH=str(ROOT), **env), timeout=60,
                          cwd=ROOT, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"error: {variable}") and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_interrupt_during_a_tool_call_in_the_repl_stops_the_turn_not_the_session(tmp_path, ctrl_c):
    """Ctrl-C while a command runs: the command's group is killed, the REPL says so and the next
    prompt is answered on the same history (before: the command ran on and the session ended)."""
    import signal
    import time

    base = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    proc = subprocess.Popen([sys.executable, "-m", "s01_loop", "--workspace", str(tmp_path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(base, PYTHONPATH=str(ROOT)), cwd=ROOT)
    try:
        proc.stdin.write("Run `touch started && sleep 2 && touch late`\nhello there\n\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while not (tmp_path / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    time.sleep(max(0.0, started + 2.5 - time.monotonic()))  # had the command gone on, `late` would be there
    assert proc.returncode == 0, err
    assert "(interrupted: the next prompt goes on from here)" in err and "error:" not in err
    assert out.count("s01 >> ") == 3 and not (tmp_path / "late").exists()


# ------------------------------------------------------------------ httpx2 or httpx

def fake_class(module: str, base=object):
    return types.new_class("Client", (base,), exec_body=lambda ns: ns.update(__module__=module))


def test_library_of_reads_the_class_hierarchy():
    old_sdk = fake_class("anthropic._base_client", fake_class("httpx._client"))
    new_sdk = fake_class("anthropic._base_client", fake_class("httpx2._client"))
    assert library_of(old_sdk) == "httpx" and library_of(new_sdk) == "httpx2"
    assert library_of(fake_class("requests.sessions")) is None and library_of(None) is None


def test_http_library_is_the_one_the_installed_sdk_is_built_on():
    lib = http_library()
    assert lib.Client in anthropic.DefaultHttpxClient.__mro__


def test_an_sdk_on_httpx_gets_httpx(monkeypatch):
    httpx = pytest.importorskip("httpx")
    monkeypatch.setattr(anthropic, "DefaultHttpxClient", types.new_class("DefaultHttpxClient", (httpx.Client,)))
    assert http_library() is httpx
    monkeypatch.delattr(anthropic, "DefaultHttpxClient")  # older still: ask the base client module
    base = __import__("anthropic._base_client", fromlist=["x"])
    monkeypatch.setattr(base, "httpx2", None, raising=False)
    monkeypatch.setattr(base, "httpx", httpx, raising=False)
    assert http_library() is httpx


def test_the_offline_transport_works_on_httpx_too():
    """What an SDK on httpx would send through: the same answers on httpx's MockTransport."""
    httpx = pytest.importorskip("httpx")
    model = OfflineModel()
    with httpx.Client(transport=make_transport(model, httpx), base_url=OFFLINE_BASE_URL) as http:
        body = {"model": "offline", "max_tokens": 50, "messages": [{"role": "user", "content": "hi"}]}
        answer = http.post("/v1/messages", json=body)
        assert answer.status_code == 200 and answer.json()["id"].startswith("msg_")
        assert http.post("/v1/messages", json=dict(body, messages=[])).json()["error"]["type"] == "invalid_request_error"
        model.inject_fault(delay=5)
        with pytest.raises(httpx.ReadTimeout):
            http.post("/v1/messages", json=body, timeout=0.05)


def test_http_library_fails_clearly_when_nothing_is_importable(monkeypatch):
    monkeypatch.setattr(transport.importlib, "import_module", lambda name: (_ for _ in ()).throw(ImportError(name)))
    monkeypatch.setattr(anthropic, "DefaultHttpxClient", fake_class("httpx2._client"))
    with pytest.raises(RuntimeError, match="needs httpx2 or httpx"):
        http_library()
