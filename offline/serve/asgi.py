"""The offline model as an ASGI app: what the served mode adds around `http.handle`.

    ASGI request ──> guards (method, framing, faults endpoint) ──> body (bounded, timed)
                 ──> http.handle in a worker thread ──> JSON, or SSE written event by event

`http.handle` stays the one protocol implementation (the in-process transport calls it too);
this layer adds only what a server on a socket needs:
  - the model runs in a bounded pool of threads (it is synchronous and CPU-bound), so a
    connection holds a worker only while the model computes or a stream is paced;
  - a body's memory is bounded: over MAX_BODY it is read and dropped (413), and bodies over
    LARGE_BODY are held only while their bytes fit in BODY_BUDGET (one always fits; the others
    wait, unread, the client's sending paused by TCP flow control); after one, freed memory
    is given back to the OS;
  - a body must arrive within `body_timeout` seconds (408, and the connection is closed);
  - a request head over MAX_HEAD is a 431 (h11 checks only a head still arriving);
  - Content-Length together with Transfer-Encoding is a 400 and the connection is closed
    (RFC 9112 6.3: a request smuggling risk), an unknown method is a 501;
  - /v1/offline/faults takes only `application/json`, from loopback, with no Origin or a
    same-origin one (a web page's form can send text/plain with any Origin): else 403.

Example: app = OfflineApp(OfflineModel(), port=8765); uvicorn.Config(app, ...) (server.py)

Not modeled: authentication (any key is accepted), HTTP/2, websockets.
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from ..model import OfflineModel
from .http import MAX_BODY, handle, too_large

MAX_WORKERS = 32  # threads running the model; a paced stream sleeps in one between events
LARGE_BODY = 1 << 20  # bytes: a body over this must fit in BODY_BUDGET to be read
BODY_BUDGET = 48 << 20  # bytes of large bodies held at once (each costs about 5 x its size while parsed)
DRAIN_MAX = 4 * MAX_BODY  # a body over MAX_BODY but under this is read and dropped, so the 413 is seen
BODY_S = 30.0  # seconds a request's body may take to arrive
MAX_HEAD = 64 * 1024  # bytes of request line + headers; more is a 431
M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
METHODS = {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"}
FAULTS = "/v1/offline/faults"
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def error_body(kind: str, message: str) -> bytes:
    """The API's JSON error. Example: error_body("timeout_error", "x") -> b'{"type": "error", ...}'"""
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()


@functools.lru_cache(maxsize=1)
def _glibc():
    """glibc's malloc controls, or None (macOS, Windows, musl)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)  # the symbols already loaded into this process, libc among them
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None


def release_memory() -> None:
    """Give freed heap back to the OS (glibc keeps freed blocks in its arenas otherwise); a no-op elsewhere."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


def map_large_blocks() -> None:
    """Have glibc give every block over 1 MB its own mapping, returned to the OS when freed.

    By default the threshold rises to the largest block freed so far, so after one 30 MB body
    the next ones come from the heap and stay there. A no-op where libc is not glibc.
    """
    libc = _glibc()
    if libc is not None:
        libc.mallopt(M_MMAP_THRESHOLD, LARGE_BODY)


class Budget:
    """Bytes of request bodies held at once. acquire(n) waits until n more fit; one body always fits.

    Example: b = Budget(48); await b.acquire(30); await b.acquire(30) waits for b.release(30)
    """

    def __init__(self, total: int):
        self.total, self.used = total, 0
        self.freed = asyncio.Event()  # bound to the server's event loop at first use

    async def acquire(self, n: int) -> None:
        while self.used and self.used + n > self.total:  # one event loop: no await between test and add
            self.freed.clear()
            await self.freed.wait()
        self.used += n

    def release(self, n: int) -> None:
        if n:
            self.used -= n
            self.freed.set()


class Refused(Exception):
    """A request answered without calling the model: status, error type, message, close the connection?"""

    def __init__(self, status: int, kind: str, message: str, close: bool = False, body: bytes | None = None):
        super().__init__(message)
        self.status, self.close = status, close
        self.body = body if body is not None else error_body(kind, message)


def faults_allowed(scope, headers: dict, port: int) -> str:
    """'' if this request may reach the faults endpoint, else why not.

    Example: content-type text/plain -> 'faults: only application/json is accepted'
    """
    client = (scope.get("client") or ("",))[0]
    if client not in ("127.0.0.1", "::1"):
        return "faults: only from loopback"
    if headers.get("content-type", "").split(";", 1)[0].strip().lower() != "application/json":
        return "faults: only application/json is accepted"
    origins = {f"http://{host}:{port}" for host in LOOPBACK}
    if headers.get("host", "").lower() not in {o.removeprefix("http://") for o in origins}:
        return "faults: only for a loopback Host"
    if "origin" in headers and headers["origin"].lower() not in origins:
        return "faults: cross-origin requests are refused"
    return ""


class OfflineApp:
    """ASGI app serving one OfflineModel; `workers` threads run it, `port` is where it listens."""

    def __init__(self, model: OfflineModel, port: int, *, workers: int = MAX_WORKERS,
                 body_timeout: float = BODY_S, name: str = "offline-model"):
        if not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive int, got {workers!r}")
        self.model, self.port, self.body_timeout = model, port, body_timeout
        map_large_blocks()
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self.budget = Budget(BODY_BUDGET)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return
        raw = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope["headers"]]
        headers: dict[str, str] = {}
        for key, value in raw:
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        method, path = scope["method"], scope["raw_path"].decode("latin-1")
        if scope.get("query_string"):
            path += "?" + scope["query_string"].decode("latin-1")
        held = 0
        try:
            self.check(scope, method, path, headers)
            body, held = await self.read_body(receive, headers)
            call = partial(handle, self.model, method, path, headers, body)
            del body
            status, out_headers, payload = await asyncio.get_running_loop().run_in_executor(self.pool, call)
            del call
        except Refused as refused:
            extra = {"connection": "close"} if refused.close else {}
            return await self.send_bytes(send, refused.status, {"content-type": "application/json", **extra},
                                         refused.body)
        finally:
            if held:
                self.budget.release(held)
                await asyncio.get_running_loop().run_in_executor(self.pool, release_memory)
        if isinstance(payload, (bytes, bytearray)):
            return await self.send_bytes(send, status, out_headers, payload)
        await self.send_stream(receive, send, status, out_headers, payload)

    def check(self, scope, method: str, path: str, headers: dict) -> None:
        """Refuse what must not reach the model (see the module docstring)."""
        if len(path) + sum(len(k) + len(v) + 4 for k, v in scope["headers"]) > MAX_HEAD:
            raise Refused(431, "invalid_request_error", f"The request head is over {MAX_HEAD // 1024} KB", close=True)
        if method not in METHODS:
            raise Refused(501, "api_error", f"Method {method} is not implemented", close=True)
        if "content-length" in headers and "transfer-encoding" in headers:
            raise Refused(400, "invalid_request_error",
                          "A request must not have both Content-Length and Transfer-Encoding", close=True)
        if path.split("?", 1)[0].rstrip("/") == FAULTS:
            why = faults_allowed(scope, headers, self.port)
            if why:
                raise Refused(403, "permission_error", why)

    async def read_body(self, receive, headers: dict) -> tuple[bytes, int]:
        """The body (b'' past MAX_BODY), and the bytes of BODY_BUDGET held for it (release them)."""
        loop = asyncio.get_running_loop()
        length = int(headers.get("content-length") or 0)  # h11 has checked it is digits
        if length > DRAIN_MAX:
            raise Refused(413, "request_too_large", "", close=True, body=too_large())
        held = length if LARGE_BODY < length <= MAX_BODY else 0
        if held:
            await self.budget.acquire(held)
        chunks, size = [], 0
        deadline = loop.time() + self.body_timeout
        try:
            while True:
                try:
                    message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
                except asyncio.TimeoutError:
                    raise Refused(408, "timeout_error", "The request body did not arrive in time", close=True) \
                        from None
                if message["type"] == "http.disconnect":
                    raise Refused(400, "invalid_request_error", "client disconnected", close=True)
                data = message.get("body", b"")
                size += len(data)
                if size > DRAIN_MAX:
                    raise Refused(413, "request_too_large", "", close=True, body=too_large())
                if size <= MAX_BODY:
                    if not held and size > LARGE_BODY:  # a chunked body grew large: count it at the limit
                        await self.budget.acquire(MAX_BODY)
                        held = MAX_BODY
                    chunks.append(data)
                else:
                    chunks = []  # over the limit: read to the end and dropped
                if not message.get("more_body"):
                    break
        except BaseException:
            self.budget.release(held)
            raise
        if size > MAX_BODY:
            self.budget.release(held)
            raise Refused(413, "request_too_large", "", body=too_large())
        return b"".join(chunks), held

    @staticmethod
    async def send_bytes(send, status: int, headers: dict, payload: bytes) -> None:
        fields = [(k.encode("latin-1"), str(v).encode("latin-1")) for k, v in headers.items()]
        fields.append((b"content-length", str(len(payload)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": fields})
        await send({"type": "http.response.body", "body": bytes(payload), "more_body": False})

    async def send_stream(self, receive, send, status: int, headers: dict, events) -> None:
        """SSE: each event sent as soon as the model's iterator yields it (chunked, or to close on HTTP/1.0)."""
        loop = asyncio.get_running_loop()
        gone = asyncio.Event()

        async def watch():  # after the body, receive() returns only when the client goes away
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()

        watcher = asyncio.ensure_future(watch())
        try:
            fields = [(k.encode("latin-1"), str(v).encode("latin-1")) for k, v in headers.items()]
            await send({"type": "http.response.start", "status": status, "headers": fields})
            iterator = iter(events)
            while not gone.is_set():
                event = await loop.run_in_executor(self.pool, next, iterator, None)
                if event is None:
                    break
                await send({"type": "http.response.body", "body": event, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()

    def close(self) -> None:
        """Stop the worker threads once their current calls end."""
        self.pool.shutdown(wait=False, cancel_futures=True)
