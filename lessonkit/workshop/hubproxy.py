"""The hub's proxy: JupyterHub's Python configurable-http-proxy, with room for a whole room at once.

configurable-http-proxy (the PyPI package, so the hub needs no Node.js) forwards each request with
tornado's AsyncHTTPClient, which by default runs 10 requests at a time and queues the rest; a request
still queued after 20 s is answered `503 ... Timeout in request queue`. Thirty students opening the
hub together send far more than 10 requests at once (the login, the spawn page polling, JupyterLab's
first dozens of files), so a third of them got a 503 and no server. Here the proxy's client runs up
to WORKSHOP_PROXY_CLIENTS requests at once (default 1000), then configurable-http-proxy starts as usual.
Its other default is tornado's too: a server that takes 20 s to answer (a kernel's websocket while ten
kernels start on two cores) is cut off with a 599. Here a server has WORKSHOP_PROXY_TIMEOUT seconds
(default 600), as long as a student would wait (the Node.js proxy JupyterHub ships waits without a limit).
And a websocket the server closes (a kernel shut down, or its ping not answered on a loaded machine) is
closed at the browser too (`PassOnClose`): the Python proxy dropped that close, so JupyterLab never
reconnected and the running cell waited forever.

    python -m lessonkit.workshop.hubproxy [configurable-http-proxy's options]   (workshop/jupyterhub_config.py)

Example: WORKSHOP_PROXY_CLIENTS=500 python -m lessonkit.workshop.hubproxy --port 8000 --api-port 8002
  -> the proxy on :8000, forwarding up to 500 requests at once
"""

from __future__ import annotations

import os
import sys

CLIENTS = 1000   # requests the proxy forwards at once (tornado's default is 10)
TIMEOUT_S = 600  # how long a server may take to answer a request or a websocket (tornado's default is 20)


def clients() -> int:
    """WORKSHOP_PROXY_CLIENTS, or CLIENTS; a bad value is a one-line error. Example: "500" -> 500"""
    value = os.environ.get("WORKSHOP_PROXY_CLIENTS", "").strip() or str(CLIENTS)
    if not value.isdigit() or int(value) < 10:
        raise SystemExit(f"WORKSHOP_PROXY_CLIENTS={value!r}: a number of requests at once, 10 or more")
    return int(value)


def timeout_ms() -> int:
    """WORKSHOP_PROXY_TIMEOUT (seconds), or TIMEOUT_S, in the milliseconds the proxy takes. Example: "60" -> 60000"""
    value = os.environ.get("WORKSHOP_PROXY_TIMEOUT", "").strip() or str(TIMEOUT_S)
    if not value.isdigit() or int(value) < 1:
        raise SystemExit(f"WORKSHOP_PROXY_TIMEOUT={value!r}: seconds a server may take to answer, 1 or more")
    return int(value) * 1000


def pass_on_close(handler_class):
    """`handler_class` (configurable-http-proxy's ProxyHandler) with the server's close passed on to the
    browser. Example: the kernel closes its socket with 1001 -> the browser's socket closes with 1001."""

    class PassOnClose(handler_class):
        async def start_ws_client(self, path=None):
            await super().start_ws_client(path)
            upstream = self.ws_client
            if upstream is None:
                return
            forward = upstream._on_message_callback   # tornado calls it with None when the server closes

            def forward_or_close(message):
                forward(message)
                if message is None:
                    self.close_like(upstream)
            upstream._on_message_callback = forward_or_close

        def open(self, *args):
            upstream = self.ws_client
            if upstream is not None and upstream.protocol is None:   # closed before the browser's side opened
                self.close_like(upstream)

        def close_like(self, upstream):
            if self.ws_connection is not None:   # None until the browser's side is open (then `open` does it)
                code = upstream.close_code if upstream.close_code not in (None, 1005, 1006) else 1011
                self.close(code, upstream.close_reason)   # 1005/1006 cannot be sent: "server went away"

    return PassOnClose


def main(argv=None) -> None:
    from tornado.httpclient import AsyncHTTPClient

    AsyncHTTPClient.configure(None, max_clients=clients())   # before the proxy makes its client
    from configurable_http_proxy import configproxy
    from configurable_http_proxy.cli import main as proxy

    configproxy.ProxyHandler = pass_on_close(configproxy.ProxyHandler)   # the app is built with this name

    args = list(sys.argv[1:] if argv is None else argv)
    if not any(a.startswith("--proxy-timeout") for a in args):
        args += ["--proxy-timeout", str(timeout_ms())]
    proxy(args=args, prog_name="configurable-http-proxy")


if __name__ == "__main__":
    main()
