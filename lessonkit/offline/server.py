"""Serve the offline model over real HTTP, on 127.0.0.1 only.

Any Anthropic-compatible client can use it: point ANTHROPIC_BASE_URL at it.

    python -m lessonkit.offline serve --port 8765 [--context-window 8000]
    LESSONS_BACKEND=anthropic ANTHROPIC_API_KEY=x ANTHROPIC_BASE_URL=http://127.0.0.1:8765 ...

    client ──HTTP──> ThreadingHTTPServer(127.0.0.1) ──> http.handle ──> OfflineModel

Example: server = serve_in_thread(OfflineModel(), port=0); server.server_address[1] -> 40123;
         server.shutdown(); server.server_close()

Not modeled: TLS, authentication (any key works), chunked request bodies.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .http import handle
from .model import OfflineModel

HOST = "127.0.0.1"
POLL_S = 0.05  # how soon .shutdown() is noticed
MAX_BODY = 64 * 1024 * 1024  # bytes: a request larger than this is refused with 413


def make_server(model: OfflineModel, port: int = 0) -> ThreadingHTTPServer:
    """A server bound to 127.0.0.1:port (0 = any free port), not yet serving."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self):
            try:
                length = int(self.headers.get("content-length") or 0)
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_BODY:
                body = b'{"type":"error","error":{"type":"request_too_large","message":"bad content-length"}}'
                return self._send(413, {"content-type": "application/json", "connection": "close"}, body)
            body = self.rfile.read(length) if length else b""
            status, headers, payload = handle(model, self.command, self.path, dict(self.headers), body)
            self._send(status, headers, payload)

        def _send(self, status: int, headers: dict, payload: bytes):
            try:
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client stopped waiting (a timeout)
                self.close_connection = True

        do_POST = do_GET = do_PUT = do_DELETE = _answer

        def log_message(self, *args):  # quiet: lessons print their own summaries
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):  # a dropped connection is not news
            pass

    return Server((HOST, port), Handler)


def serve_in_thread(model: OfflineModel, port: int = 0) -> ThreadingHTTPServer:
    """Start serving in a daemon thread; stop with .shutdown() then .server_close()."""
    server = make_server(model, port)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True,
                     name="offline-model").start()
    return server
