"""The offline model's HTTP face: routes, JSON bodies, SSE streams, error shapes.

One function, `handle`, turns (method, path, headers, body bytes) into (status,
headers, body bytes). The SDK's mock transport (transport.py) and the real
server (server.py) both call it, so both speak exactly the same protocol.

    POST /v1/messages                 message JSON, or SSE when "stream": true
    POST /v1/messages/count_tokens    {"input_tokens": N}
    GET  /v1/models[?limit=&after_id=&before_id=]   {"data": [models], "has_more", "first_id", "last_id"}
    GET  /v1/models/{id or alias}     one model, or 404 not_found_error
    POST /v1/offline/faults           {"status": 529, "count": 2, "delay": 0}, or {"clear": true}
                                      (the kit's own control endpoint, not the API's)

Streaming sends the standard event sequence: message_start, then per block
content_block_start / content_block_delta (text_delta, input_json_delta, or
thinking_delta then signature_delta) / content_block_stop, then message_delta
(stop_reason, cumulative usage), message_stop.
The body of a stream is an iterator of events (bytes), so the server can write and
flush each one as it comes (the model's `stream_delay` spaces them out).

    POST /v1/messages/batches, GET /v1/messages/batches[/{id}[/results]], POST .../{id}/cancel,
    DELETE .../{id}                   Message Batches answered by the same model (batches.py)

Each Messages request is read under the version and betas its headers ask for
(versions.Api: `anthropic-version`, `anthropic-beta`; an unknown one is the API's 400), and
every answer carries the API's anthropic-ratelimit-* headers. JSON nested deeper than
MAX_DEPTH is a 400 (never a RecursionError's 500).

Errors are the API's JSON: 4xx for a bad request (413 request_too_large over 32 MB),
and a crash inside the model is a 500 `api_error` whose message names it
("offline model error: TypeError: ..."), with `x-should-retry: false` because the
same request would crash the same way. Never a dropped connection. An
`anthropic-beta` header naming a beta the API does not know is a 400, as from the
API (models.known_betas). Every answer carries a fresh `request-id`.

Example: handle(model, "POST", "/v1/messages", {}, b"{}")
  -> (400, {...}, b'{"type":"error","error":{"type":"invalid_request_error",...}}')

Not modeled: authentication (any key is accepted; no key or `anthropic-version` is
needed), real rate limits, the Files API (404).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from urllib.parse import parse_qsl, unquote

from ..api.betas import check_betas
from ..api.models import lookup, model_list
from ..api.validate import ApiError
from ..api.versions import Api
from ..model import ClientTimeout, OfflineModel, rate_limit_headers, unique_id
from . import batches

MAX_BODY = 32 * 1024 * 1024  # bytes: the API's limit for a Messages request
TOO_LARGE = "Request exceeds the maximum allowed number of bytes."
CHUNK_CHARS = 48
MAX_DEPTH = 128  # JSON nesting a request may have (inferred: the API's own limit is not documented)
ROUTES = (  # (path pattern, {method: route name})
    (re.compile(r"/v1/messages"), {"POST": "create"}),
    (re.compile(r"/v1/messages/count_tokens"), {"POST": "count"}),
    (re.compile(r"/v1/messages/batches"), {"POST": "batch_create", "GET": "batch_list"}),
    (re.compile(r"/v1/messages/batches/(?P<id>[^/]+)"), {"GET": "batch_get", "DELETE": "batch_delete"}),
    (re.compile(r"/v1/messages/batches/(?P<id>[^/]+)/results"), {"GET": "batch_results"}),
    (re.compile(r"/v1/messages/batches/(?P<id>[^/]+)/cancel"), {"POST": "batch_cancel"}),
    (re.compile(r"/v1/models(/.+)?"), {"GET": "models"}),
    (re.compile(r"/v1/offline/faults"), {"POST": "faults"}),
)


def _route(method: str, path: str, allow_control: bool) -> tuple[str, dict]:
    """The route a request takes and its path arguments, or the API's 404 / 405."""
    for pattern, methods in ROUTES:
        match = pattern.fullmatch(path)
        if match and (methods.get("POST") != "faults" or allow_control):
            if method not in methods:
                raise ApiError(405, "invalid_request_error", f"Method {method} not allowed for {path}")
            return methods[method], {k: unquote(v) for k, v in match.groupdict().items() if v}
    raise ApiError(404, "not_found_error", f"Not found: {method} {path}")


SURROGATE = re.compile("[\ud800-\udfff]")  # a lone surrogate escape ("\\ud800") decodes to one: not Unicode
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")  # the only way a surrogate gets into a parsed body


def _depth(value) -> int:
    """How deeply `value` nests lists and dicts, without recursion. Example: {"a": [[1]]} -> 3"""
    deepest, stack = 0, [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            return level
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, (dict, list)):
                stack.append((child, level + 1))
    return deepest


def _lone_surrogate(value) -> bool:
    """Whether a string (or a key) in `value` holds a lone surrogate, which is not Unicode text."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if SURROGATE.search(node):
                return True
        elif isinstance(node, dict):
            stack.extend(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")  # NaN, Infinity, -Infinity: Python's json reads them, JSON has none


def parse_body(body: bytes):
    """The request's JSON, or the API's 400 (not JSON: NaN and Infinity are not; nested deeper than MAX_DEPTH;
    text that is not Unicode)."""
    too_deep = ApiError(400, "invalid_request_error",
                        f"The request body is not valid JSON: it nests deeper than {MAX_DEPTH} levels.")
    try:
        payload = json.loads(body or b"null", parse_constant=_no_constant)
    except RecursionError:  # deeper than the JSON parser goes
        raise too_deep from None
    except ValueError:
        raise ApiError(400, "invalid_request_error", "The request body is not valid JSON.") from None
    if _depth(payload) > MAX_DEPTH:
        raise too_deep
    if SURROGATE_ESCAPE.search(body or b"") and _lone_surrogate(payload):  # a pair is one character: fine
        raise ApiError(400, "invalid_request_error", "The request body is not valid JSON: a string holds a lone "
                                                     "surrogate (\\ud800-\\udfff), which is not Unicode text.")
    return payload


def _json(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


def _chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """Split text into deltas of about `size` characters, at spaces where possible."""
    out, start = [], 0
    while start < len(text):
        end = min(len(text), start + size)
        space = text.rfind(" ", start + 1, end)
        if end < len(text) and space > start:
            end = space
        out.append(text[start:end])
        start = end
    return out


def sse_events(message: dict) -> list[tuple[str, dict]]:
    """The (event, data) sequence that streams `message`."""
    start = dict(message, content=[], stop_reason=None, stop_sequence=None,
                 usage=dict(message["usage"], output_tokens=1))
    events = [("message_start", {"type": "message_start", "message": start}), ("ping", {"type": "ping"})]
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            start_block = {"type": "text", "text": ""} if "citations" not in block else \
                {"type": "text", "text": "", "citations": []}
            events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": start_block}))
            deltas = [{"type": "citations_delta", "citation": c} for c in block.get("citations") or []]
            deltas += [{"type": "text_delta", "text": c} for c in _chunks(block["text"])]
        elif block["type"] == "thinking":
            events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": {"type": "thinking", "thinking": "",
                                                                     "signature": ""}}))
            deltas = [{"type": "thinking_delta", "thinking": c} for c in _chunks(block["thinking"])]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        else:
            events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": dict(block, input={})}))
            deltas = [{"type": "input_json_delta", "partial_json": c}
                      for c in _chunks(json.dumps(block["input"], ensure_ascii=False))]
        events += [("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d})
                   for d in deltas]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": message["stop_reason"],
                                               "stop_sequence": message["stop_sequence"]},
                                     "usage": dict(message["usage"])}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def sse_bytes(message: dict) -> bytes:
    """The SSE stream of `message`, as the bytes of one response body."""
    return b"".join(f"event: {name}\ndata: ".encode() + _json(data) + b"\n\n"
                    for name, data in sse_events(message))


def sse_stream(message: dict, delay: float = 0.0) -> Iterator[bytes]:
    """The SSE stream of `message`, one event at a time (`delay` seconds between events).

    The events are encoded before the first is sent, so nothing can fail mid-stream.
    """
    encoded = [f"event: {name}\ndata: ".encode() + _json(data) + b"\n\n" for name, data in sse_events(message)]
    return _paced(encoded, delay)


def _paced(events: list[bytes], delay: float) -> Iterator[bytes]:
    for k, event in enumerate(events):
        if k and delay:
            time.sleep(delay)
        yield event


def too_large(request_id: str = "") -> bytes:
    """The 413 body for a request over MAX_BODY."""
    return _json(ApiError(413, "request_too_large", TOO_LARGE).body(request_id))


def handle(model: OfflineModel, method: str, path: str, headers: dict, body: bytes,
           *, allow_control: bool = True, timeout: float | None = None) -> tuple[int, dict, bytes | Iterator[bytes]]:
    """Answer one HTTP request to the offline model: status, headers, and the body
    (bytes, or an iterator of SSE events for a stream).

    `timeout` is how long the caller waits (an injected delay beyond it raises
    ClientTimeout, which the mock transport turns into the HTTP library's timeout).
    """
    path, _, query = path.partition("?")
    path = path.rstrip("/")
    request_id = unique_id("req")
    base = {"request-id": request_id, "content-type": "application/json"}
    try:
        if len(body) > MAX_BODY:
            raise ApiError(413, "request_too_large", TOO_LARGE)
        name, args = _route(method, path, allow_control)
        if name == "faults":
            return 200, base, _json(control_faults(model, parse_body(body)))
        if name == "models":
            check_betas(headers)
            return 200, base, _json(models_route(path, query))
        api = Api.from_headers(headers)  # anthropic-version and anthropic-beta: a 400 for one it does not know
        base.update(rate_limit_headers())
        if name == "create":
            payload = parse_body(body)
            message = model.create(payload, timeout=timeout, api=api)
            if isinstance(payload, dict) and payload.get("stream") is True:
                return 200, dict(base, **{"content-type": "text/event-stream", "cache-control": "no-cache"}), \
                    sse_stream(message, model.stream_delay)
            return 200, base, _json(message)
        if name == "count":
            return 200, base, _json(model.count_tokens(parse_body(body), timeout=timeout, api=api))
        if name == "batch_create":
            host = next((v for k, v in headers.items() if k.lower() == "host"), "127.0.0.1")
            return 200, base, _json(batches.create(model, parse_body(body), api, f"http://{host}"))
        if name == "batch_list":
            return 200, base, _json(batches.listing(model))
        if name == "batch_results":
            return 200, dict(base, **{"content-type": "application/x-jsonl"}), batches.results(model, args["id"])
        if name == "batch_delete":
            return 200, base, _json(batches.delete(model, args["id"]))
        return 200, base, _json(batches.lookup(model, args["id"])[0])  # batch_get, batch_cancel (already ended)
    except ApiError as err:
        return err.status, dict(base, **err.headers), _json(err.body(request_id))
    except ClientTimeout:
        raise  # the transport turns it into the HTTP library's read timeout
    except RecursionError:  # a structure too deep for a check that recursed: the request's fault, not a crash
        err = ApiError(400, "invalid_request_error", "The request is nested too deeply to be read.")
        return 400, base, _json(err.body(request_id))
    except Exception as exc:  # noqa: BLE001 - a bug in the model: the API's 500, naming it
        err = ApiError(500, "api_error", f"offline model error: {type(exc).__name__}: {exc}")
        return 500, dict(base, **{"x-should-retry": "false"}), _json(err.body(request_id))


def models_route(path: str, query: str) -> dict:
    """GET /v1/models (a page of the list) or GET /v1/models/{id} (one model; an alias names its model)."""
    if path == "/v1/models":
        return model_list(dict(parse_qsl(query)))
    return lookup(unquote(path.removeprefix("/v1/models/"))).as_json()


def control_faults(model: OfflineModel, payload) -> dict:
    """POST /v1/offline/faults: schedule faults, or clear them. Example: {"status": 529, "count": 2}"""
    if not isinstance(payload, dict) or set(payload) - {"status", "count", "delay", "message", "clear"}:
        raise ApiError(400, "invalid_request_error",
                       'faults: expected {"status", "count", "delay", "message"} or {"clear": true}')
    try:
        if payload.get("clear"):
            model.clear_faults()
        else:
            model.inject_fault(payload.get("status"), count=payload.get("count", 1),
                               delay=float(payload.get("delay", 0)), message=payload.get("message"))
    except (TypeError, ValueError) as exc:
        raise ApiError(400, "invalid_request_error", f"faults: {exc}") from None
    return {"ok": True, "pending": model.pending_faults}
