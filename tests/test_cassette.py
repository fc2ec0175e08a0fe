"""Record once, replay for a room (lessonkit/backends/cassette.py): identical SDK objects, no secrets, strict misses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anthropic
import pytest

from lessonkit import make_client
from lessonkit.backends.cassette import (
    Cassette,
    CassetteMiss,
    canonical,
    forget_cassettes,
    replay_transport,
    request_key,
)
from lessonkit.backends.client import ConfigError
from offline import OfflineModel, model_of
from offline.serve.server import serve_in_thread
from offline.serve.transport import http_library, make_transport

ROOT = Path(__file__).resolve().parent.parent
CASSETTES = ROOT / "workshop" / "cassettes"
BASH = {"name": "bash", "description": "run a command",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}
SECRET = "sk-ant-api03-DO-NOT-WRITE-ME"


@pytest.fixture(autouse=True)
def fresh_cassettes():
    forget_cassettes()
    yield
    forget_cassettes()


def session(client):
    """What a lesson does with a client: a tool call, a streamed answer, a refused request."""
    reply = client.messages.create(model="offline", max_tokens=500, tools=[BASH],
                                   messages=[{"role": "user", "content": "Run `ls` and `wc -l app.py`"}])
    with client.messages.stream(model="offline", max_tokens=500, messages=[
            {"role": "user", "content": "Explain the agent loop to the room in a few sentences."}]) as stream:
        events = [event.model_dump() for event in stream]
        final = stream.get_final_message()
    try:
        client.messages.create(model="offline", max_tokens=10, messages=[{"role": "assistant", "content": "hi"}])
    except anthropic.BadRequestError as exc:
        refused = (type(exc), exc.status_code, exc.body)
    tokens = client.messages.count_tokens(model="offline", messages=[{"role": "user", "content": "count me"}])
    return reply.model_dump(), events, final.model_dump(), refused, tokens.model_dump()


def record_env(path, **extra):
    return {"LESSONS_BACKEND": "record", "LESSONS_RECORD_FROM": "offline", "LESSONS_CASSETTE": str(path), **extra}


def test_record_then_replay_gives_identical_sdk_objects(tmp_path):
    path = tmp_path / "c.jsonl"
    recorded = session(make_client(env=record_env(path), max_retries=0))
    assert len(path.read_text(encoding="utf-8").splitlines()) == 4
    forget_cassettes()
    replayed = session(make_client(env={"LESSONS_BACKEND": "replay", "LESSONS_REPLAY": "strict",
                                        "LESSONS_CASSETTE": str(path), "MODEL_ID": "another-model"}, max_retries=0))
    assert replayed == recorded
    assert recorded[0]["stop_reason"] == "tool_use" and len(recorded[1]) > 6 and recorded[3][1] == 400


def test_a_real_http_endpoint_is_recorded_without_the_key(tmp_path):
    """Record from a server on 127.0.0.1 (the offline model over real HTTP) with a key: no request
    header is written, and the key's value is scrubbed even where the conversation quotes it."""
    server = serve_in_thread(OfflineModel())
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        path = tmp_path / "real.jsonl"
        env = {"LESSONS_BACKEND": "record", "LESSONS_CASSETTE": str(path), "ANTHROPIC_API_KEY": SECRET,
               "ANTHROPIC_BASE_URL": url}
        client = make_client(env=env, max_retries=0)
        reply = client.messages.create(model="offline", max_tokens=200,
                                       messages=[{"role": "user", "content": f"Repeat after me: {SECRET}"}])
    finally:
        server.shutdown()
        server.server_close()
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text and "x-api-key" not in text.lower() and "authorization" not in text.lower()
    [entry] = [json.loads(line) for line in text.splitlines()]
    assert entry["request"]["last"] == "Repeat after me: [secret]"
    assert set(entry["headers"]) <= {"content-type", "request-id", "retry-after", "retry-after-ms", "x-should-retry"}
    assert entry["body"]["id"] == reply.id


def test_streaming_replays_event_by_event(tmp_path):
    path = tmp_path / "s.jsonl"
    client = make_client(env=record_env(path))
    request = {"model": "offline", "max_tokens": 300, "stream": True,
               "messages": [{"role": "user", "content": "Say something long enough to stream in several deltas."}]}
    with client.messages.stream(**{k: v for k, v in request.items() if k != "stream"}) as stream:
        stream.until_done()
    forget_cassettes()
    lib = http_library()
    [entry] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    names = [e["event"] for e in entry["events"]]
    assert names[0] == "message_start" and names[-1] == "message_stop" and "content_block_delta" in names
    transport = replay_transport(None, Cassette(path, "replay"), lib, strict=True)
    body = json.dumps(request).encode()
    response = transport.handle_request(lib.Request("POST", "http://x/v1/messages", content=body))
    chunks = list(response.iter_raw())
    assert len(chunks) == len(entry["events"]) > 6
    assert all(chunk.startswith(b"event: ") and chunk.endswith(b"\n\n") for chunk in chunks)


def test_a_key_recorded_twice_replays_in_order(tmp_path):
    """A 529 then the retry's 200 (same request, same key): the replay retries the same way."""
    path = tmp_path / "retry.jsonl"
    client = make_client(env=record_env(path), max_retries=1)
    model_of(client).inject_fault(529, count=1)
    first = client.with_options(timeout=5).messages.create(model="offline", max_tokens=50,
                                                           messages=[{"role": "user", "content": "hello"}])
    statuses = [json.loads(line)["status"] for line in path.read_text(encoding="utf-8").splitlines()]
    assert statuses == [529, 200]
    forget_cassettes()
    strict = {"LESSONS_BACKEND": "replay", "LESSONS_REPLAY": "strict", "LESSONS_CASSETTE": str(path)}
    with pytest.raises(anthropic.InternalServerError, match="529|verloaded"):
        make_client(env=strict, max_retries=0).messages.create(model="offline", max_tokens=50,
                                                               messages=[{"role": "user", "content": "hello"}])
    forget_cassettes()
    again = make_client(env=strict, max_retries=1).messages.create(model="offline", max_tokens=50,
                                                                   messages=[{"role": "user", "content": "hello"}])
    assert again.model_dump() == first.model_dump()


def test_a_strict_miss_is_one_line_naming_the_lesson_and_the_changed_text_and_a_lenient_one_says_so(tmp_path,
                                                                                                      capsys):
    path = tmp_path / "s01_loop.jsonl"
    make_client(env=record_env(path)).messages.create(model="offline", max_tokens=50,
                                                      messages=[{"role": "user", "content": "hello"}])
    forget_cassettes()
    unseen = [{"role": "user", "content": "something never recorded"}]
    strict = make_client(env={"LESSONS_BACKEND": "replay", "LESSONS_REPLAY": "strict", "LESSONS_CASSETTE": str(path)})
    with pytest.raises(CassetteMiss) as caught:
        strict.messages.create(model="offline", max_tokens=50, messages=unseen)
    [line] = caught.value._render_traceback_()
    assert line == str(caught.value) and "\n" not in line
    assert line.startswith("cassette miss in s01_loop: the request's user text 'something never recorded' is not "
                           "in s01_loop.jsonl (recorded: 'hello')")
    assert "replay without LESSONS_REPLAY=strict" in line
    lenient = make_client(env={"LESSONS_BACKEND": "replay", "LESSONS_CASSETTE": str(path)})
    reply = lenient.messages.create(model="offline", max_tokens=50, messages=unseen)
    assert reply.content[0].type == "text"
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("cassette miss: POST /v1/messages (key ")
    assert err[0].endswith("is not in s01_loop.jsonl; the offline model answers")


def test_a_room_replays_quietly_and_a_check_under_replay_never_misses(tmp_path, capsys, monkeypatch):
    """On a hub (LESSONS_REPLAY_QUIET=1, set by workshop/jupyterhub_config.py) a miss is answered without a
    line above the student's output; a check's own runs never ask the cassette (they would all miss)."""
    path = tmp_path / "s06_compact.jsonl"
    make_client(env=record_env(path)).messages.create(model="offline", max_tokens=50,
                                                      messages=[{"role": "user", "content": "hello"}])
    forget_cassettes()
    quiet = make_client(env={"LESSONS_BACKEND": "replay", "LESSONS_CASSETTE": str(path), "LESSONS_REPLAY_QUIET": "1"})
    reply = quiet.messages.create(model="offline", max_tokens=50, messages=[{"role": "user", "content": "unseen"}])
    assert reply.content[0].type == "text" and capsys.readouterr().err == ""
    from lessonkit.exercises.s06_compact import threshold_runs

    clients, real = [], threshold_runs.make_client
    monkeypatch.setattr(threshold_runs, "make_client", lambda **kw: clients.append(kw.get("backend")) or real(**kw))
    monkeypatch.setenv("LESSONS_BACKEND", "replay")
    monkeypatch.setenv("LESSONS_CASSETTE", str(path))
    threshold_runs._client(4000)
    assert clients == ["offline"]


@pytest.mark.slow
def test_a_replayed_s06_check_prints_no_cassette_miss(tmp_path):
    probe = ("from lessonkit.exercises.s06_compact import thresholds\n"
             "thresholds.check(lambda window: int(window * 0.55))\n")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=900, cwd=tmp_path,
                         env={**os.environ, "LESSONS_BACKEND": "replay",
                              "LESSONS_CASSETTE": str(CASSETTES / "s06_compact.jsonl")})
    assert run.returncode == 0, run.stderr[-2000:]
    assert "cassette miss" not in run.stdout + run.stderr


GOOD = {"key": "k" * 64, "request": {"method": "POST", "path": "/v1/messages"}, "status": 200,
        "headers": {"content-type": "application/json"},
        "body": {"id": "msg_1", "type": "message", "role": "assistant", "model": "offline", "stop_reason": "end_turn",
                 "stop_sequence": None, "content": [{"type": "text", "text": "hi"}],
                 "usage": {"input_tokens": 1, "output_tokens": 1}}}


@pytest.mark.parametrize(("change", "problem"), [
    ({"status": None, "headers": None, "body": None}, "only a key: an entry needs a status"),
    ({"headers": [["content-type", "application/json"]]}, "headers must be an object of strings"),
    ({"body": None, "events": [{"event": "message_start"}]}, "an event without data"),
    ({"headers": {"content-type": "application/json", "content-encoding": "gzip"}}, "content-encoding"),
    ({"status": "200x"}, "status '200x' is not an HTTP status"),
    ({"body": {"id": "msg_1", "type": "message"}}, "needs a body with a content list"),
])
def test_a_malformed_cassette_is_one_line_naming_its_file_and_line(tmp_path, change, problem):
    entry = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    if change.get("status", 0) is None:   # the key-only entry
        entry = {"key": GOOD["key"]}
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(entry) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        make_client(env={"LESSONS_BACKEND": "replay", "LESSONS_CASSETTE": str(path)})
    message = str(caught.value)
    assert message.startswith(f"{path}:2: ") and problem in message and "\n" not in message


def test_a_recorded_retry_after_is_not_waited_on_replay(tmp_path):
    import time

    overloaded = {**GOOD, "status": 529, "headers": {"content-type": "application/json", "retry-after": "50"},
                  "body": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}}
    body = {"max_tokens": 50, "messages": [{"role": "user", "content": "hello"}]}
    key = request_key("POST", "/v1/messages", json.dumps({"model": "offline", **body}).encode())
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({**e, "key": key}) + "\n" for e in (overloaded, GOOD)), encoding="utf-8")
    client = make_client(env={"LESSONS_BACKEND": "replay", "LESSONS_REPLAY": "strict", "LESSONS_CASSETTE": str(path)},
                         max_retries=2)
    start = time.perf_counter()
    reply = client.messages.create(model="offline", **body)
    assert reply.content[0].text == "hi" and time.perf_counter() - start < 5


def test_a_folder_of_cassettes_each_notebook_replays_its_own_and_relative_is_the_kits(tmp_path, monkeypatch):
    folder = tmp_path / "room"
    for lesson, text in (("s01_loop", "one"), ("s02_tools", "two")):
        make_client(env=record_env(folder / f"{lesson}.jsonl")).messages.create(
            model="offline", max_tokens=50, messages=[{"role": "user", "content": text}])
    forget_cassettes()
    for lesson, text in (("s01_loop", "one"), ("s02_tools", "two")):
        env = {"LESSONS_BACKEND": "replay", "LESSONS_REPLAY": "strict", "LESSONS_CASSETTE": str(folder),
               "JPY_SESSION_NAME": str(tmp_path / "work" / f"{lesson}.ipynb")}
        make_client(env=env).messages.create(model="offline", max_tokens=50, messages=[{"role": "user", "content": text}])
    with pytest.raises(ConfigError, match="is a folder, and which lesson asks is unknown"):
        make_client(env={"LESSONS_BACKEND": "replay", "LESSONS_CASSETTE": str(folder)})
    monkeypatch.chdir(tmp_path)   # a notebook's folder: a relative cassette is still the kit's
    env = {"LESSONS_BACKEND": "replay", "LESSONS_REPLAY": "strict", "LESSONS_CASSETTE": "workshop/cassettes",
           "LESSONS_LESSON": "s01_loop"}
    assert Cassette(CASSETTES / "s01_loop.jsonl", "replay").entries
    assert make_client(env=env) is not None


@pytest.mark.parametrize(("env", "problem"), [
    ({"LESSONS_BACKEND": "replay"}, "^LESSONS_CASSETTE is not set: LESSONS_BACKEND=replay needs a cassette"),
    ({"LESSONS_BACKEND": "record"}, "^LESSONS_CASSETTE is not set"),
    ({"LESSONS_BACKEND": "replay", "LESSONS_CASSETTE": "/nonexistent/c.jsonl"}, "does not exist: record one"),
    ({"LESSONS_BACKEND": "replay", "LESSONS_CASSETTE": "workshop/nothing-here.jsonl"},
     f"^LESSONS_CASSETTE: {ROOT}/workshop/nothing-here.jsonl does not exist"),
    ({"LESSONS_BACKEND": "record", "LESSONS_CASSETTE": "c.jsonl"}, "^ANTHROPIC_API_KEY is not set"),
    ({"LESSONS_BACKEND": "record", "LESSONS_RECORD_FROM": "tape", "LESSONS_CASSETTE": "c.jsonl"},
     "^LESSONS_RECORD_FROM='tape' is not a source"),
    ({"LESSONS_BACKEND": "record", "LESSONS_CASSETTE": "c.jsonl", "ANTHROPIC_API_KEY": "k",
      "ANTHROPIC_BASE_URL": "localhost:1"}, "^ANTHROPIC_BASE_URL='localhost:1' is not a valid"),
])
def test_bad_settings_are_one_line_config_errors(env, problem):
    with pytest.raises(ConfigError, match=problem):
        make_client(env=env)


def test_a_bad_replay_mode_or_a_corrupt_cassette_is_named(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(GOOD) + '\nnot json\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="^LESSONS_REPLAY='always' is not a replay mode"):
        make_client(env={"LESSONS_BACKEND": "replay", "LESSONS_CASSETTE": str(path), "LESSONS_REPLAY": "always"})
    with pytest.raises(ConfigError, match=r"c\.jsonl:2: not a cassette entry"):
        make_client(env={"LESSONS_BACKEND": "replay", "LESSONS_CASSETTE": str(path)})


def test_the_key_is_the_canonical_request_without_the_model_name():
    a = canonical("POST", "/v1/messages", b'{"model": "x", "max_tokens": 5, "messages": []}')
    assert a == 'POST /v1/messages {"max_tokens":5,"messages":[]}'
    assert request_key("POST", "/v1/messages", b'{"messages":[],"max_tokens":5,"model":"y"}') == \
        request_key("POST", "/v1/messages", b'{"model":"x","max_tokens":5,"messages":[]}')
    assert request_key("POST", "/v1/messages", b'{"max_tokens":6,"messages":[]}') != \
        request_key("POST", "/v1/messages", b'{"max_tokens":5,"messages":[]}')
    assert request_key("POST", "/v1/messages/count_tokens", b"{}") != request_key("POST", "/v1/messages", b"{}")


def test_recording_keeps_model_of_working_and_starts_a_cassette_afresh(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text("stale line\n", encoding="utf-8")
    client = make_client(env=record_env(path), context_window=4_000)
    assert model_of(client).context_window == 4_000
    assert path.read_text(encoding="utf-8") == ""
    lib = http_library()
    assert replay_transport(make_transport(OfflineModel(), lib), Cassette(path, "replay"), lib,
                            strict=False).model is not None


LESSON_CASSETTES = sorted(CASSETTES.glob("*.jsonl"))


def test_the_kit_ships_a_cassette_for_every_lesson_that_calls_the_api():
    names = {p.stem for p in LESSON_CASSETTES}
    assert {f"s0{i}" for i in range(1, 9)} == {n.split("_")[0] for n in names}
    for path in LESSON_CASSETTES:
        entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert entries and all(len(e["key"]) == 64 and "status" in e for e in entries), path.name
        assert "x-api-key" not in path.read_text(encoding="utf-8").lower()


@pytest.mark.slow
@pytest.mark.parametrize("lesson", ["s01_loop", "s06_compact"])
def test_a_lesson_replayed_strictly_from_its_cassette_shows_its_committed_outputs(lesson):
    """nbval on the committed lesson, every API answer from the cassette (a miss would fail)."""
    env = {**os.environ, "LESSONS_BACKEND": "replay", "LESSONS_REPLAY": "strict",
           "LESSONS_CASSETTE": str(CASSETTES / f"{lesson}.jsonl")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider",
                          f"lessons/{lesson}.ipynb"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + "\nif the lesson changed, re-record its cassette: " \
        "python -m lessonkit.workshop cassettes lessons/s0*.ipynb"
    assert " passed" in run.stdout and "failed" not in run.stdout
