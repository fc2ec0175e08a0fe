"""Record once, replay for a room: API request/response pairs in a cassette file.

    LESSONS_BACKEND=record LESSONS_CASSETTE=c.jsonl   answer from the real API (or, with
                                                      LESSONS_RECORD_FROM=offline, the offline
                                                      model) and write every pair to c.jsonl
    LESSONS_BACKEND=replay LESSONS_CASSETTE=c.jsonl   answer from c.jsonl, offline, through the
                                                      same SDK path; a request not in it goes to
                                                      the offline model, with one line on stderr
    LESSONS_REPLAY=strict                             ... or is refused: CassetteMiss, one line naming
                                                      the lesson, its first user text not recorded, what to do
    LESSONS_CASSETTE=workshop/cassettes/              a folder: each notebook replays <folder>/<its lesson>.jsonl
                                                      (a relative path is the kit root's, never the notebook's)

    SDK ──> httpx2.Client ──> RecordingTransport ──> the real endpoint (HTTP) or the offline model
                                  └── append {key, status, headers, body | events} to the cassette
    SDK ──> httpx2.Client ──> ReplayTransport ──> cassette[key] (in recorded order) | offline model

A request's key is the sha256 of its method, path and canonical JSON body (keys sorted;
the `model` name left out, so a cassette answers whatever MODEL_ID a student has). One
key recorded several times (a 529, then the retry's 200) replays in the same order, then
repeats its last answer. No request header, and so no API key, is ever written; the key's
value is also scrubbed from the bodies. A streamed answer is kept as its SSE events and
replayed one event per chunk. A process shares one cassette per path, so every client a
notebook makes replays in the order the notebook recorded.

A cassette is checked entry by entry when it is opened: a malformed one (no status, headers not an
object, an event without data, a stored content-encoding, a 200 with no content) is one line naming
its file and line. A recorded retry-after is not waited again on replay. A replayed answer is acted
on like a model's (its tool calls run), so replay only cassettes you trust.

Example: LESSONS_BACKEND=replay LESSONS_CASSETTE=workshop/cassettes make lab

Not modeled: live streaming while recording (the answer is read whole, then passed on),
matching a request that differs in any byte of its body (no fuzzy matching).
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from pathlib import Path

from .cassette_rules import CassetteMiss, cassette_path, explain_miss, user_texts, validate

__all__ = ["Cassette", "CassetteMiss", "cassette_client", "open_cassette", "validate"]

KEPT_HEADERS = ("content-type", "request-id", "retry-after", "retry-after-ms", "x-should-retry")
SECRET = "[secret]"
_OPEN: dict = {}   # (mode, resolved path) -> Cassette, filled on first use
_LOCK = threading.Lock()


def canonical(method: str, path: str, body: bytes) -> str:
    """The canonical text of a request. Example: ('POST', '/v1/messages', b'{"b":1, "a":2}')
    -> 'POST /v1/messages {"a":2,"b":1}'"""
    try:
        data = json.loads(body or b"null")
    except ValueError:
        return f"{method} {path} {body.decode('utf-8', 'replace')}"
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k != "model"}
    return f"{method} {path} " + json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_key(method: str, path: str, body: bytes) -> str:
    return hashlib.sha256(canonical(method, path, body).encode("utf-8")).hexdigest()


def parse_sse(text: str) -> list[dict]:
    """SSE text -> [{"event": name, "data": json}].

    Example: 'event: ping\\ndata: {}\\n\\n' -> [{'event': 'ping', 'data': {}}]
    """
    events = []
    for chunk in text.replace("\r\n", "\n").split("\n\n"):
        if not chunk.strip():
            continue
        name, data = None, []
        for line in chunk.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())
        raw = "\n".join(data)
        try:
            events.append({"event": name, "data": json.loads(raw)})
        except ValueError:
            events.append({"event": name, "text": raw})
    return events


def sse_chunk(event: dict) -> bytes:
    data = event["text"] if "text" in event else json.dumps(event["data"], ensure_ascii=False)
    head = f"event: {event['event']}\n" if event.get("event") else ""
    return f"{head}data: {data}\n\n".encode()


def summary(body: bytes) -> dict:
    """A short, readable note of what was asked (the key is what matches)."""
    try:
        data = json.loads(body or b"null")
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    last = (data.get("messages") or [{}])[-1]
    content = last.get("content") if isinstance(last, dict) else None
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return {"model": data.get("model"), "messages": len(data.get("messages") or []),
            "stream": bool(data.get("stream")), "last": (text or "")[:100], "users": user_texts(data)}


class Cassette:
    """The recorded pairs of one file: `add` appends one (recording), `answer` replays one."""

    def __init__(self, path: Path, mode: str, secrets=()):
        self.path, self.mode = Path(path), mode
        self.secrets = [s for s in secrets if s]
        self.entries: dict[str, list[dict]] = {}
        self.used: dict[str, int] = {}
        self.lock = threading.Lock()
        if mode == "record":
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text("", encoding="utf-8")   # record once: a new recording starts empty
        else:
            for n, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except ValueError:
                    raise ValueError(f"{self.path}:{n}: not a cassette entry (a JSON object with a 'key')") from None
                validate(entry, f"{self.path}:{n}")
                self.entries.setdefault(entry["key"], []).append(entry)

    def scrub(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, SECRET)
        return text

    def add(self, method: str, path: str, body: bytes, status: int, headers: dict, content: bytes) -> None:
        """Append one request/response pair (no request headers; the secrets scrubbed)."""
        kept = {k.lower(): v for k, v in headers.items() if k.lower() in KEPT_HEADERS}
        entry = {"key": request_key(method, path, body),
                 "request": {"method": method, "path": path, **summary(body)},
                 "status": status, "headers": kept}
        text = content.decode("utf-8", "replace")
        if "text/event-stream" in kept.get("content-type", ""):
            entry["events"] = parse_sse(text)
        else:
            try:
                entry["body"] = json.loads(text)
            except ValueError:
                entry["text"] = text
        line = self.scrub(json.dumps(entry, ensure_ascii=False))
        with self.lock, self.path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")

    def miss(self, path: str, body: bytes) -> str:
        """One line: the lesson, the request's first user text that the recording does not have, what to do."""
        return explain_miss(self.path, self.entries, path, body)

    def answer(self, method: str, path: str, body: bytes) -> dict | None:
        """The next recorded answer to this request (the last one again once all were used), or None."""
        key = request_key(method, path, body)
        with self.lock:
            found = self.entries.get(key)
            if not found:
                return None
            n = self.used.get(key, 0)
            self.used[key] = n + 1
            return found[min(n, len(found) - 1)]


def open_cassette(path, mode: str, secrets=()) -> Cassette:
    """The process's one Cassette for `path` in `mode` (so every client of a notebook shares it)."""
    resolved = Path(path).expanduser().resolve()
    with _LOCK:
        key = (mode, resolved)
        if key not in _OPEN:
            _OPEN[key] = Cassette(resolved, mode, secrets)
        return _OPEN[key]


def forget_cassettes() -> None:
    """Close the process's cassettes (the next client opens them afresh; tests use it)."""
    with _LOCK:
        _OPEN.clear()


def recording_transport(inner, cassette: Cassette, lib):
    """A transport of `lib` that passes each request to `inner` and records the pair."""

    class RecordingTransport(lib.BaseTransport):
        def __init__(self):
            self.inner, self.cassette = inner, cassette
            self.model = getattr(inner, "model", None)   # model_of() still finds an offline model

        def handle_request(self, request):
            body = request.read()
            response = self.inner.handle_request(request)
            content = response.read()
            cassette.add(request.method, request.url.path, body, response.status_code, dict(response.headers),
                         content)
            headers = {k: v for k, v in response.headers.items()
                       if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")}
            return lib.Response(response.status_code, headers=headers, content=content)

        def close(self):
            self.inner.close()

    return RecordingTransport()


def replay_transport(fallback, cassette: Cassette, lib, *, strict: bool, warn=None):
    """A MockTransport of `lib` answering from `cassette`; a miss goes to `fallback` (or is refused)."""
    warn = warn or (lambda line: print(line, file=sys.stderr, flush=True))

    class ReplayTransport(lib.MockTransport):
        def __init__(self):
            super().__init__(self.replay)
            self.cassette, self.model = cassette, getattr(fallback, "model", None)

        def replay(self, request):
            body = request.read()
            entry = cassette.answer(request.method, request.url.path, body)
            if entry is None:
                key = request_key(request.method, request.url.path, body)
                where = f"{request.method} {request.url.path} (key {key[:12]})"
                if strict:
                    raise CassetteMiss(cassette.miss(request.url.path, body))
                warn(f"cassette miss: {where} is not in {cassette.path.name}; the offline model answers")
                return fallback.handle_request(request)
            headers = {k: v for k, v in entry["headers"].items() if k.lower() not in ("retry-after", "retry-after-ms")}
            if len(headers) < len(entry["headers"]):
                headers["retry-after-ms"] = "1"   # the recorded wait is not waited again on replay
            if "events" in entry:
                chunks = [sse_chunk(e) for e in entry["events"]]
                return lib.Response(entry["status"], headers=headers, content=iter(chunks))
            content = (json.dumps(entry["body"], ensure_ascii=False).encode() if "body" in entry
                       else entry.get("text", "").encode())
            return lib.Response(entry["status"], headers=headers, content=content)

    return ReplayTransport()


def cassette_client(mode: str, conf: dict, offline_model, *, max_retries: int = 2, timeout: float = 60.0):
    """An `anthropic.Anthropic` client that records to or replays from LESSONS_CASSETTE.

    `offline_model` answers a replay miss, and is the endpoint recorded from with
    LESSONS_RECORD_FROM=offline. Raises ConfigError for a missing cassette or key.
    """
    import anthropic

    from offline.serve.transport import OFFLINE_API_KEY, OFFLINE_BASE_URL, http_library, make_transport

    from .settings import DEFAULT_BASE_URL, ConfigError, check_url

    path = cassette_path(conf, mode)
    lib = http_library()
    offline = make_transport(offline_model, lib)
    if mode == "replay":
        strictness = (conf.get("LESSONS_REPLAY") or "").strip().lower()
        if strictness not in ("", "strict", "fallback"):
            raise ConfigError(f"LESSONS_REPLAY={strictness!r} is not a replay mode: use 'strict' or leave it unset")
        if not Path(path).expanduser().is_file():
            raise ConfigError(f"LESSONS_CASSETTE: {path} does not exist: record one with LESSONS_BACKEND=record "
                              "(LESSONS_RECORD_FROM=offline needs no key)")
        try:
            cassette = open_cassette(path, "replay")
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        quiet = (conf.get("LESSONS_REPLAY_QUIET") or "").strip().lower() in ("1", "true", "yes", "on")
        transport = replay_transport(offline, cassette, lib, strict=strictness == "strict",
                                     warn=(lambda line: None) if quiet else None)   # a room: misses unprinted
        key, base_url = OFFLINE_API_KEY, OFFLINE_BASE_URL
    else:
        source = (conf.get("LESSONS_RECORD_FROM") or "anthropic").strip().lower()
        if source == "offline":
            inner, key, base_url = offline, OFFLINE_API_KEY, OFFLINE_BASE_URL
        elif source == "anthropic":
            key = (conf.get("ANTHROPIC_API_KEY") or "").strip()
            if not key:
                raise ConfigError("ANTHROPIC_API_KEY is not set: LESSONS_BACKEND=record records the real API "
                                  "(or set LESSONS_RECORD_FROM=offline)")
            base_url = (conf.get("ANTHROPIC_BASE_URL") or "").strip() or DEFAULT_BASE_URL
            check_url(base_url)
            inner = lib.HTTPTransport()
        else:
            raise ConfigError(f"LESSONS_RECORD_FROM={source!r} is not a source: use 'anthropic' or 'offline'")
        transport = recording_transport(inner, open_cassette(path, "record", secrets=[key]), lib)
    http_client = lib.Client(transport=transport, base_url=base_url)
    return anthropic.Anthropic(api_key=key, base_url=base_url, http_client=http_client,
                               max_retries=max_retries, timeout=timeout)
