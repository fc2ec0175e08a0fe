"""Serve the offline model over real HTTP, on 127.0.0.1 only.

Any Anthropic-compatible client can use it: point ANTHROPIC_BASE_URL at it.

    python -m lessonkit.offline serve --port 8765 [--context-window 8000]
    LESSONS_BACKEND=anthropic ANTHROPIC_API_KEY=x ANTHROPIC_BASE_URL=http://127.0.0.1:8765 ...

Example: serve(OfflineModel(), port=0) -> a running server; .server_address[1] is the port.

Not modeled: TLS, keep-alive tuning, authentication (any key works).
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .http import handle
from .model import OfflineModel

HOST = "127.0.0.1"


def make_server(model: OfflineModel, port: int = 0) -> ThreadingHTTPServer:
    """A server bound to 127.0.0.1:port (0 = any free port), not yet serving."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self):
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            status, headers, payload = handle(model, self.command, self.path, dict(self.headers), body)
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_POST = do_GET = do_PUT = do_DELETE = _answer

        def log_message(self, *args):  # quiet: lessons print their own summaries
            pass

    return ThreadingHTTPServer((HOST, port), Handler)


def serve_in_thread(model: OfflineModel, port: int = 0) -> ThreadingHTTPServer:
    """Start serving in a daemon thread; call .shutdown() to stop. Returns the server."""
    server = make_server(model, port)
    threading.Thread(target=server.serve_forever, daemon=True, name="offline-model").start()
    return server
