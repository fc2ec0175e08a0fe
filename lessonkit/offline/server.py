"""Serve the offline model over real HTTP, on 127.0.0.1 only.

Any Anthropic-compatible client can use it: point ANTHROPIC_BASE_URL at it.

    python -m lessonkit.offline serve --port 8765 [--context-window 8000]
    LESSONS_BACKEND=anthropic ANTHROPIC_API_KEY=x ANTHROPIC_BASE_URL=http://127.0.0.1:8765 ...

    client ──HTTP/1.1──> accept (backlog 128) ──> pool of MAX_WORKERS threads ──> http.handle ──> OfflineModel
                                                  one connection per worker,
                                                  keep-alive until idle IDLE_S

The standard library's http.server, set up the way a real server is:
  - TCP_NODELAY on every connection: small answers leave at once (without it, Nagle's
    algorithm and the client's delayed ACK add about 40 ms to every keep-alive request);
  - a listen backlog of 128, so a burst of clients connecting at once is queued, not reset;
  - a bounded pool of threads (MAX_WORKERS): more connections wait their turn;
  - request bodies with Content-Length or `Transfer-Encoding: chunked` (read to the
    last chunk and its trailers, so the next request on the connection starts clean);
    over 32 MB: 413 request_too_large, and the connection is closed;
  - SSE written event by event, each flushed, in a chunked response (keep-alive stays);
  - the API's JSON error for every method and path (404 not_found_error, 405 for
    GET/PUT/..., JSON also for malformed requests), HEAD with headers only.

Example: server = serve_in_thread(OfflineModel(), port=0); server.server_address[1] -> 40123;
         server.shutdown(); server.server_close()

Not modeled: TLS, authentication (any key works), HTTP/2 (`Expect: 100-continue` is http.server's own).
"""

from __future__ import annotations

import json
import queue
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from .http import MAX_BODY, handle, too_large
from .model import OfflineModel

HOST = "127.0.0.1"
POLL_S = 0.05  # how soon .shutdown() is noticed
BACKLOG = 128  # connections the kernel queues before accept()
MAX_WORKERS = 64  # threads serving connections; more connections wait in a queue
IDLE_S = 15.0  # a keep-alive connection idle this long is closed (frees its worker; the SDK keeps idle ones 5 s)
DRAIN_MAX = 4 * MAX_BODY  # a body over MAX_BODY but under this is read and dropped, so the 413 is seen
READ_CHUNK = 1 << 16
ERROR_TYPES = {400: "invalid_request_error", 404: "not_found_error", 405: "invalid_request_error",
               408: "timeout_error", 413: "request_too_large", 414: "invalid_request_error",
               431: "invalid_request_error", 501: "api_error"}


class BodyTooLarge(Exception):
    """A request body over MAX_BODY; `drained` if it was read to its end (the connection can go on)."""

    def __init__(self, drained: bool):
        super().__init__("request body over MAX_BODY")
        self.drained = drained


class BadChunk(Exception):
    """A chunked body that does not follow RFC 9112."""


def drain(rfile, n: int) -> None:
    """Read and drop n bytes."""
    while n > 0:
        got = rfile.read(min(n, READ_CHUNK))
        if not got:
            return
        n -= len(got)


def read_chunked(rfile, limit: int = MAX_BODY) -> bytes:
    """A `Transfer-Encoding: chunked` body: every chunk, then the trailers up to the blank line.

    Example: b"5\\r\\nhello\\r\\n0\\r\\n\\r\\n" -> b"hello"
    """
    parts, size = [], 0
    while True:
        line = rfile.readline(1026)
        try:
            n = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise BadChunk(f"bad chunk size line {line[:40]!r}") from None
        if n < 0:
            raise BadChunk("negative chunk size")
        if n == 0:
            break
        size += n
        if size > DRAIN_MAX:
            raise BodyTooLarge(drained=False)
        if size > limit:
            parts = []
            drain(rfile, n)
        else:
            parts.append(rfile.read(n))
        if rfile.read(2) != b"\r\n":
            raise BadChunk("a chunk must end with CRLF")
    while rfile.readline(8192).strip():  # trailer fields, then the blank line
        pass
    if size > limit:
        raise BodyTooLarge(drained=True)
    return b"".join(parts)


class Handler(BaseHTTPRequestHandler):
    """One connection: requests in a row (keep-alive), each answered by http.handle."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # TCP_NODELAY
    timeout = IDLE_S
    model: OfflineModel  # set by make_server on a subclass

    def _body(self) -> bytes:
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            return read_chunked(self.rfile)
        try:
            length = int(self.headers.get("content-length") or 0)
        except ValueError:
            raise BadChunk("bad content-length") from None
        if length < 0:
            raise BadChunk("bad content-length")
        if length > MAX_BODY:
            if length <= DRAIN_MAX:
                drain(self.rfile, length)
            raise BodyTooLarge(drained=length <= DRAIN_MAX)
        return self.rfile.read(length) if length else b""

    def _answer(self):
        try:
            body = self._body()
        except BodyTooLarge as exc:  # read to its end (the connection goes on), or not (it is closed)
            self.close_connection = not exc.drained
            headers = {"content-type": "application/json"} if exc.drained else \
                {"content-type": "application/json", "connection": "close"}
            return self._send(413, headers, too_large())
        except BadChunk as exc:
            self.close_connection = True
            return self.send_error(400, str(exc))
        status, headers, payload = handle(self.model, self.command, self.path, dict(self.headers), body)
        self._send(status, headers, payload)

    def _send(self, status: int, headers: dict, payload):
        try:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            if isinstance(payload, (bytes, bytearray)):
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)
                return
            chunked = self.request_version != "HTTP/1.0"  # HTTP/1.0: the stream ends when the connection does
            if chunked:
                self.send_header("transfer-encoding", "chunked")  # a stream: one chunk per event
            else:
                self.send_header("connection", "close")
                self.close_connection = True
            self.end_headers()
            for event in payload:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event) if chunked else event)
                self.wfile.flush()
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):  # the client stopped waiting (a timeout)
            self.close_connection = True

    do_POST = do_GET = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _answer

    def send_error(self, code, message=None, explain=None):
        """http.server's own errors (bad request line, unknown method, ...) as the API's JSON."""
        kind = ERROR_TYPES.get(code, "api_error" if code >= 500 else "invalid_request_error")
        text = message or self.responses.get(code, ("error",))[0]
        body = json.dumps({"type": "error", "error": {"type": kind, "message": text}}).encode()
        self.close_connection = True
        self.request_version = "HTTP/1.1"  # a request line too broken to name its version gets a status line too
        try:
            self.send_response(code, message)
            self.send_header("content-type", "application/json")
            self.send_header("connection", "close")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD" and code >= 200 and code not in (204, 304):
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):  # quiet: lessons print their own summaries
        pass


class PooledHTTPServer(HTTPServer):
    """HTTPServer whose connections are served by at most `workers` daemon threads.

    Accepted connections wait in a queue; a worker is started when none is idle,
    up to `workers`. server_close() also closes the open connections.
    """

    request_queue_size = BACKLOG

    def __init__(self, address, handler, workers: int = MAX_WORKERS):
        if not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive int, got {workers!r}")
        self.max_workers = workers
        self._waiting: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._idle = 0  # workers waiting for a connection
        self._pending = 0  # connections accepted, not yet taken by a worker
        self._open: set = set()
        super().__init__(address, handler)  # binds and listens (calls server_close if it cannot)

    def process_request(self, request, client_address):
        with self._lock:
            self._pending += 1
            thread = None
            if self._pending > self._idle and len(self._threads) < self.max_workers:
                self._idle += 1
                thread = threading.Thread(target=self._work, daemon=True,
                                          name=f"offline-model-{len(self._threads) + 1}")
                self._threads.append(thread)
        self._waiting.put((request, client_address))
        if thread is not None:
            thread.start()

    def _work(self):
        while True:
            item = self._waiting.get()
            if item is None:
                return
            request, client_address = item
            with self._lock:
                self._pending -= 1
                self._idle -= 1
                self._open.add(request)
            try:
                self.finish_request(request, client_address)
            except Exception:  # noqa: BLE001 - a dropped connection is not news
                pass
            finally:
                with self._lock:
                    self._open.discard(request)
                    self._idle += 1
                self.shutdown_request(request)

    @property
    def workers(self) -> int:
        """Threads started so far (never more than max_workers)."""
        return len(self._threads)

    def handle_error(self, request, client_address):
        pass

    def server_close(self):
        super().server_close()
        with self._lock:
            still_open = list(self._open)
        for request in still_open:  # wake workers blocked on idle keep-alive connections
            try:
                request.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for _ in self._threads:
            self._waiting.put(None)


def make_server(model: OfflineModel, port: int = 0, *, workers: int = MAX_WORKERS) -> PooledHTTPServer:
    """A server bound to 127.0.0.1:port (0 = any free port), not yet serving."""
    handler = type("OfflineHandler", (Handler,), {"model": model})
    return PooledHTTPServer((HOST, port), handler, workers)


def serve_in_thread(model: OfflineModel, port: int = 0) -> PooledHTTPServer:
    """Start serving in a daemon thread; stop with .shutdown() then .server_close()."""
    server = make_server(model, port)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True,
                     name="offline-model").start()
    return server
