"""The hub's proxy (lessonkit/workshop/hubproxy.py), run as the hub runs it, between a real client and a real
server on 127.0.0.1: a whole room's requests at once, and a websocket that ends when either side ends it."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time

import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.web import Application, RequestHandler
from tornado.websocket import WebSocketHandler, websocket_connect

from lessonkit.workshop import hubproxy

READ_S = 10   # far longer than any close takes here; a close that is never passed on waits out this instead


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proxy:
    """`python -m lessonkit.workshop.hubproxy` in front of a server on `target`, as workshop/jupyterhub_config.py
    starts it (default target instead of routes the hub would add)."""

    def __init__(self, target: int, **env):
        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, "-m", "lessonkit.workshop.hubproxy", "--ip", "127.0.0.1",
                                      "--port", str(self.port), "--api-ip", "127.0.0.1", "--api-port",
                                      str(free_port()), "--default-target", f"http://127.0.0.1:{target}"],
                                     env={**os.environ, "CONFIGPROXY_AUTH_TOKEN": "t", **env},
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    async def up(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.proc.stderr.read().decode()
            try:
                _r, w = await asyncio.open_connection("127.0.0.1", self.port)
                w.close()
                return self
            except OSError:
                await asyncio.sleep(0.1)
        raise AssertionError("the proxy did not listen in 30 s")

    def stop(self):
        self.proc.kill()
        self.proc.wait()
        self.proc.stderr.close()


class Server:
    """A websocket that says hello, then either closes itself (`/ws/close`) or echoes; `/slow` holds each
    request until `hold` of them are in at once (or 10 s have passed), counting the most seen together."""

    def __init__(self, hold: int = 0):
        self.port, self.hold, self.now, self.most = free_port(), hold, 0, 0
        self.released = asyncio.Event()
        self.client_closed = asyncio.Event()
        server = self

        class Socket(WebSocketHandler):
            def open(self, how):
                self.write_message("hello")
                if how == "close":
                    self.close(4001, "the kernel went away")

            def on_message(self, message):
                self.write_message(message)

            def on_close(self):
                if self.request.path.endswith("/echo"):
                    server.client_closed.set()

        class Slow(RequestHandler):
            async def get(self):
                server.now += 1
                server.most = max(server.most, server.now)
                if server.now >= server.hold:
                    server.released.set()
                try:
                    await asyncio.wait_for(server.released.wait(), 10)
                except asyncio.TimeoutError:
                    pass
                self.write("ok")
                server.now -= 1

        self.http = Application([(r"/ws/(close|echo)", Socket), (r"/slow", Slow)]).listen(self.port, "127.0.0.1")


def run(coro):
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()


def test_a_websocket_the_server_closes_is_closed_for_the_student_too():
    """A kernel's websocket that the server closes (a kernel shut down, a ping not answered on a loaded
    machine) must close at the browser too, or JupyterLab never reconnects and the cell waits forever."""
    async def go():
        server = Server()
        proxy = await Proxy(server.port).up()
        try:
            ws = await websocket_connect(f"ws://127.0.0.1:{proxy.port}/ws/close")
            first = await asyncio.wait_for(ws.read_message(), READ_S)
            try:
                then = await asyncio.wait_for(ws.read_message(), READ_S)
            except asyncio.TimeoutError:
                then = "still open"
            return first, then, ws.close_code, ws.close_reason
        finally:
            proxy.stop()
            server.http.stop()

    assert run(go()) == ("hello", None, 4001, "the kernel went away")


def test_a_websocket_the_student_closes_is_closed_at_the_server_and_messages_go_both_ways():
    async def go():
        server = Server()
        proxy = await Proxy(server.port).up()
        try:
            ws = await websocket_connect(f"ws://127.0.0.1:{proxy.port}/ws/echo")
            said = [await asyncio.wait_for(ws.read_message(), READ_S)]
            await ws.write_message("2 + 2")
            said.append(await asyncio.wait_for(ws.read_message(), READ_S))
            ws.close()
            await asyncio.wait_for(server.client_closed.wait(), READ_S)
            return said
        finally:
            proxy.stop()
            server.http.stop()

    assert run(go()) == ["hello", "2 + 2"]


@pytest.mark.parametrize(("clients", "most"), [("", 30), ("12", 12)])
def test_a_whole_room_is_forwarded_at_once_not_ten_at_a_time(clients, most):
    """tornado's client forwards 10 at a time and answers a request queued 20 s with a 503; the proxy forwards
    WORKSHOP_PROXY_CLIENTS (default 1000) at once."""
    async def go():
        server = Server(hold=most)   # each request waits for `most` at once: 12 of 30 at a time, or all 30
        proxy = await Proxy(server.port, WORKSHOP_PROXY_CLIENTS=clients).up()
        client = AsyncHTTPClient(force_instance=True, max_clients=30)
        try:
            got = await asyncio.gather(*(client.fetch(HTTPRequest(f"http://127.0.0.1:{proxy.port}/slow",
                                                                  request_timeout=60)) for _ in range(30)))
            return [r.code for r in got], server.most
        finally:
            client.close()
            proxy.stop()
            server.http.stop()

    codes, seen = run(go())
    assert codes == [200] * 30 and seen == most


@pytest.mark.parametrize(("name", "value"), [("WORKSHOP_PROXY_CLIENTS", "9"), ("WORKSHOP_PROXY_CLIENTS", "lots"),
                                             ("WORKSHOP_PROXY_TIMEOUT", "0"), ("WORKSHOP_PROXY_TIMEOUT", "1.5")])
def test_a_bad_setting_is_a_one_line_error_naming_it(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as stop:
        hubproxy.main(["--port", str(free_port())])
    assert str(stop.value).startswith(f"{name}={value!r}:") and "\n" not in str(stop.value)
