"""A stub HTTP endpoint on 127.0.0.1 for client tests: it records every request and answers as told.

Example: with StubEndpoint(401, {"type": "error", "error": {...}}) as stub:
             make_client(env={..., "ANTHROPIC_BASE_URL": stub.url}) ... ; stub.requests -> [(path, body)]
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class StubEndpoint:
    """Answers every POST with `status` and `body` (JSON); `requests` holds (path, body bytes, headers)."""

    def __init__(self, status: int = 200, body: dict | None = None):
        self.status, self.body, self.requests = status, body or {}, []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                data = self.rfile.read(int(self.headers.get("content-length") or 0))
                stub.requests.append((self.path, data, {k.lower(): v for k, v in self.headers.items()}))
                payload = json.dumps(stub.body).encode()
                self.send_response(stub.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "offline", "stop_reason": "end_turn",
           "stop_sequence": None, "content": [{"type": "text", "text": "ok"}],
           "usage": {"input_tokens": 5, "output_tokens": 1}}
