"""Serve the offline model over real HTTP, on 127.0.0.1 only.

Any Anthropic-compatible client can use it: point ANTHROPIC_BASE_URL at it.

    python -m offline serve --port 8765 [--context-window 8000]
    LESSONS_BACKEND=anthropic ANTHROPIC_API_KEY=x ANTHROPIC_BASE_URL=http://127.0.0.1:8765 ...

    client ──HTTP/1.1──> uvicorn (h11, one asyncio event loop: every connection, idle or not)
                         ──> asgi.OfflineApp ──> pool of MAX_WORKERS threads ──> http.handle ──> OfflineModel

uvicorn with its pure-Python h11 protocol parses HTTP; an idle keep-alive connection costs a
socket and a little memory, never a thread. This module adds, on top of uvicorn's own protocol:
  - a deadline for a request's head (`head_timeout`): a slow sender (slowloris) gets a 408
    and is closed, uvicorn itself would wait forever; idle keep-alive closes after IDLE_S;
  - h11's protocol errors as the API's JSON (400; 431 for a head over MAX_HEAD; 501 for a
    transfer coding other than chunked), and the connection closed;
  - a listen backlog of BACKLOG, so a burst of clients connecting at once is queued, not reset;
  - TCP_NODELAY on every connection (without it, Nagle's algorithm and the
    client's delayed ACK add about 40 ms to every keep-alive request).

Example: server = serve_in_thread(OfflineModel(), port=0); server.server_address[1] -> 40123;
         server.shutdown(); server.server_close()

Not modeled: TLS, authentication (any key works), HTTP/2.
"""

from __future__ import annotations

import socket
import sys
import threading

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..model import OfflineModel
from .asgi import BODY_S, MAX_HEAD, MAX_WORKERS, OfflineApp, error_body

HOST = "127.0.0.1"
BACKLOG = 512  # connections the kernel queues before the server accepts them
IDLE_S = 15.0  # a keep-alive connection idle this long is closed (the SDK keeps idle ones 5 s)
HEAD_S = 10.0  # a request's head must arrive within this of its first byte (or of connecting)
GRACE_S = 2.0  # on shutdown, how long requests in progress may finish
STATUS = {400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large",
          501: "Not Implemented"}
KINDS = {408: "timeout_error", 501: "api_error"}


def raw_error(status: int, message: str) -> bytes:
    """A whole HTTP/1.1 error response that closes the connection (written without h11's state)."""
    body = error_body(KINDS.get(status, "invalid_request_error"), message)
    head = (f"HTTP/1.1 {status} {STATUS.get(status, 'Error')}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n")
    return head.encode() + body


class Protocol(H11Protocol):
    """uvicorn's h11 protocol, with a deadline for the request head and JSON protocol errors."""

    head_timeout = HEAD_S  # set per server by make_server (on a subclass)

    def connection_made(self, transport):
        self._head_timer = None
        sock = transport.get_extra_info("socket")
        if sock is not None:  # asyncio sets it only on sockets made with proto=IPPROTO_TCP
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
        self._arm_head()  # a new connection must send a whole request head in time

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:
            self._arm_head()  # the first bytes of a request: its head must now arrive in time
        super().data_received(data)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE and self._head_timer is not None:
            self._head_timer.cancel()  # the head is in; the body has its own deadline (asgi.py)
            self._head_timer = None

    def _arm_head(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.head_timeout, self._head_late)

    def _head_late(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.conn.trailing_data[0]:  # part of a head: say why the connection closes
            self.transport.write(raw_error(408, "The request head did not arrive in time"))
        self.transport.close()

    def connection_lost(self, exc):
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """Called by uvicorn inside `except h11.RemoteProtocolError`: answer with that error's status."""
        exc = sys.exc_info()[1]
        status = getattr(exc, "error_status_hint", 400)
        text = str(exc) if exc is not None and str(exc) else msg
        if status == 431:
            text = f"The request head is over {MAX_HEAD // 1024} KB"
        self.transport.write(raw_error(status if status in STATUS else 400, f"Invalid HTTP request: {text}"))
        self.transport.close()


class OfflineServer:
    """uvicorn serving the offline model on a socket bound at creation (so the port is known at once).

    The face of the standard library's servers: server_address, serve_forever(), shutdown()
    (from another thread: returns when serving has stopped), server_close().
    """

    def __init__(self, model: OfflineModel, port: int, *, workers: int, head_timeout: float,
                 body_timeout: float, idle_timeout: float):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind((HOST, port))
            self.socket.listen(BACKLOG)
        except OSError:
            self.socket.close()
            raise
        self.server_address = self.socket.getsockname()
        self.url = f"http://{HOST}:{self.server_address[1]}"
        self.thread_name = f"offline-model-{self.server_address[1]}"
        self.app = OfflineApp(model, self.server_address[1], workers=workers, body_timeout=body_timeout,
                              name=self.thread_name)
        protocol = type("OfflineProtocol", (Protocol,), {"head_timeout": head_timeout})
        config = uvicorn.Config(self.app, http=protocol, lifespan="off", log_config=None, log_level="critical",
                                access_log=False, timeout_keep_alive=int(idle_timeout), backlog=BACKLOG,
                                h11_max_incomplete_event_size=MAX_HEAD, timeout_graceful_shutdown=int(GRACE_S))
        self.uvicorn = uvicorn.Server(config)
        self._serving = threading.Event()
        self._stopped = threading.Event()

    def serve_forever(self, poll_interval: float | None = None) -> None:
        """Serve until shutdown() (or Ctrl-C in the main thread). uvicorn notices within 0.1 s."""
        self._serving.set()
        try:
            self.uvicorn.run(sockets=[self.socket])
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop serving: new connections are refused, idle ones closed, requests in progress get GRACE_S."""
        self.uvicorn.should_exit = True
        if self._serving.is_set():
            self._stopped.wait(GRACE_S + 5)

    def server_close(self) -> None:
        """Release the port and the model's worker threads."""
        self.socket.close()
        self.app.close()

    @property
    def workers(self) -> int:
        """Model threads started so far (never more than the pool's bound)."""
        return sum(1 for t in threading.enumerate() if t.name.startswith(self.thread_name + "_"))


def make_server(model: OfflineModel, port: int = 0, *, workers: int = MAX_WORKERS, head_timeout: float = HEAD_S,
                body_timeout: float | None = None, idle_timeout: float = IDLE_S) -> OfflineServer:
    """A server bound to 127.0.0.1:port (0 = any free port), not yet serving."""
    for name, value in (("head_timeout", head_timeout), ("idle_timeout", idle_timeout)):
        if not isinstance(value, (int, float)) or value <= 0:
            raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
    return OfflineServer(model, port, workers=workers, head_timeout=head_timeout,
                         body_timeout=BODY_S if body_timeout is None else body_timeout, idle_timeout=idle_timeout)


def serve_in_thread(model: OfflineModel, port: int = 0, **options) -> OfflineServer:
    """Start serving in a daemon thread; stop with .shutdown() then .server_close()."""
    server = make_server(model, port, **options)
    threading.Thread(target=server.serve_forever, daemon=True, name="offline-model").start()
    return server

