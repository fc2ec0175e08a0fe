"""Benchmark: the offline model in-process and served over real HTTP on 127.0.0.1, alone and under a room.

    python benchmarks/bench_served.py [--requests 200] [--clients 200] [--per-client 5] [--no-memory]

Starts `python -m offline serve --port 0` in a subprocess (so client and server do
not share a GIL), then measures, in one run:

    in-process        the real SDK on the kit's in-process transport (what a lesson uses), `--requests` in a row
    served SDK        the real SDK over HTTP keep-alive, `--requests` in a row
    served raw        http.client on one keep-alive connection (the server's own cost)
    room keep-alive   `--clients` threads, each on its own keep-alive connection, `--per-client` requests each
    newcomer          while `--clients` connections sit idle, 20 new clients one after another
    burst             `--clients` threads released at once, each request on a NEW connection
    slowloris         70 connections dripping a request head; 20 normal requests meanwhile
    memory            8 parallel 30 MB bodies: the server's RSS before, at the peak, after (from /proc)

and prints p50 / p99 / max in milliseconds. The short request is a plain "hi" with max_tokens 50:
it measures the server, not the policy. The first lines name the date, the machine and its load.
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MESSAGES = [{"role": "user", "content": "hi"}]
BODY = json.dumps({"model": "offline", "max_tokens": 50, "messages": MESSAGES}).encode()
HEADERS = {"content-type": "application/json", "x-api-key": "any", "anthropic-version": "2023-06-01"}
RESETS = (ConnectionResetError, ConnectionRefusedError, BrokenPipeError, http.client.RemoteDisconnected)


def start_server() -> tuple[subprocess.Popen, int]:
    """The offline model in its own process; its port from the line it prints."""
    proc = subprocess.Popen([sys.executable, "-m", "offline", "serve", "--port", "0"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.search(r"127\.0\.0\.1:(\d+)", line)
    if not match:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r} {proc.stderr.read()}")
    return proc, int(match.group(1))


def post(conn: http.client.HTTPConnection, body: bytes = BODY) -> int:
    conn.request("POST", "/v1/messages", body, HEADERS)
    response = conn.getresponse()
    response.read()
    return response.status


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def in_row(call, n: int) -> list[float]:
    call()  # warm up: the first request also imports and reads the scenarios
    return [timed(call) for _ in range(n)]


def sdk_rows(port: int, n: int) -> tuple[list[float], list[float]]:
    """The real SDK in-process (mock transport) and over HTTP keep-alive."""
    import anthropic

    from offline import OfflineModel, offline_client
    local = offline_client(OfflineModel())
    served = anthropic.Anthropic(base_url=f"http://127.0.0.1:{port}", api_key="any", max_retries=0)
    return (in_row(lambda: local.messages.create(model="offline", max_tokens=50, messages=MESSAGES), n),
            in_row(lambda: served.messages.create(model="offline", max_tokens=50, messages=MESSAGES), n))


def room(port: int, clients: int, per_client: int, new_connections: bool) -> tuple[list[float], int, list[str]]:
    """`clients` threads at once, `per_client` requests each, on one keep-alive connection or new ones."""
    times, resets, errors = [], [0], []
    lock, gate = threading.Lock(), threading.Barrier(clients)

    def client():
        conn = None if new_connections else http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        gate.wait()
        for _ in range(per_client):
            c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            try:
                t0 = time.perf_counter()
                status = post(c)
                with lock:
                    (times.append((time.perf_counter() - t0) * 1000) if status == 200 else errors.append(status))
            except RESETS:
                with lock:
                    resets[0] += 1
            except Exception as exc:  # noqa: BLE001 - counted and printed, the benchmark goes on
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")
            finally:
                if conn is None:
                    c.close()
        if conn is not None:
            conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times, resets[0], errors


def newcomer(port: int, idle: int, n: int = 20) -> list[float]:
    """`idle` connections each make one request and stay open; then n new clients, one after another."""
    held = [http.client.HTTPConnection("127.0.0.1", port, timeout=60) for _ in range(idle)]
    for conn in held:
        post(conn)
    try:
        times = []
        for _ in range(n):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            times.append(timed(lambda c=conn: post(c)))
            conn.close()
        return times
    finally:
        for conn in held:
            conn.close()


def slowloris(port: int, n: int = 70) -> list[float]:
    """n connections send a request head one byte every 0.5 s; 20 normal requests are timed meanwhile."""
    slow = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(n)]
    head = b"POST /v1/messages HTTP/1.1\r\nhost: x\r\n"
    for s in slow:
        s.send(head[:1])
    try:
        times = []
        for k in range(20):
            if k % 5 == 0:
                for s in slow:
                    try:
                        s.send(head[1 + k // 5:2 + k // 5])
                    except OSError:
                        pass
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            times.append(timed(lambda c=conn: post(c)))
            conn.close()
            time.sleep(0.1)
        return times
    finally:
        for s in slow:
            s.close()


def memory(pid: int, port: int) -> str:
    """8 parallel 30 MB bodies: the server's RSS before, its peak, and after."""
    def mb():
        status = Path(f"/proc/{pid}/status").read_text()
        return [int(re.search(rf"{k}:\s+(\d+) kB", status).group(1)) // 1024 for k in ("VmRSS", "VmHWM")]
    big = json.dumps({"model": "offline", "messages": [{"role": "user", "content": "word " * (6 << 20)}]}).encode()
    before, _ = mb()

    def one():
        post(http.client.HTTPConnection("127.0.0.1", port, timeout=300), big)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    time.sleep(0.5)
    after, peak = mb()
    return f"RSS before {before} MB, peak {peak} MB, after {after} MB  ({wall:.1f} s for the 8)"


def summary(times: list[float]) -> str:
    if not times:
        return "no answers"
    q = statistics.quantiles(times, n=100, method="inclusive") if len(times) > 1 else times * 99
    return f"p50 {statistics.median(times):7.1f} ms  p99 {q[98]:7.1f} ms  max {max(times):7.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--per-client", type=int, default=5)
    parser.add_argument("--no-memory", action="store_true", help="skip the 8 x 30 MB bodies")
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
          f"load average {load} (1, 5, 15 min)")
    proc, port = start_server()
    try:
        local, served = sdk_rows(port, args.requests)
        print(f"in-process       SDK 1 x {args.requests:<5} {summary(local)}")
        print(f"served SDK       1 x {args.requests:<9} {summary(served)}")
        raw = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        print(f"served raw       1 x {args.requests:<9} {summary(in_row(lambda: post(raw), args.requests))}")
        raw.close()
        times, resets, errors = room(port, args.clients, args.per_client, new_connections=False)
        print(f"room keep-alive  {args.clients} x {args.per_client:<7} {summary(times)}  resets {resets}"
              + (f"  errors {len(errors)}: {errors[0]}" if errors else ""))
        print(f"newcomer         {args.clients} idle + 20  {summary(newcomer(port, args.clients))}")
        t0 = time.perf_counter()
        times, resets, errors = room(port, args.clients, args.per_client, new_connections=True)
        rate = len(times) / (time.perf_counter() - t0)
        print(f"burst            {args.clients} x {args.per_client:<7} {summary(times)}  resets {resets}"
              f"  ({rate:.0f} answers/s)" + (f"  errors {len(errors)}: {errors[0]}" if errors else ""))
        print(f"slowloris        70 + 20      {summary(slowloris(port))}")
        if not args.no_memory and sys.platform.startswith("linux"):
            print(f"memory           8 x 30 MB    {memory(proc.pid, port)}")
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
