"""Benchmark: the offline model served over real HTTP on 127.0.0.1 (latency, and resets under a burst).

    python benchmarks/bench_served.py [--requests 200] [--clients 100] [--per-client 5]

Starts `python -m lessonkit.offline serve --port 0` in a subprocess (so client and
server do not share a GIL), then measures, with the standard library's http.client:

    keep-alive   1 client, one connection, `--requests` short POST /v1/messages in a row
    burst        `--clients` threads released at once, each making `--per-client`
                 requests, each on a NEW connection (connect, POST, read, close)

and prints p50 / p99 / max in milliseconds, and for the burst how many connections
were reset or refused (a listen backlog too small for the burst shows up here) and
the answers per second (with 100 requests in flight, a request's latency is mostly
its wait behind the others: about 100 x the time to serve one).
The short request is a plain "hi" with max_tokens 50: it measures the server, not the policy.

Example output (the project's 2-core machine, shared with other work):
    keep-alive  1 x 200    p50    0.6 ms  p99    5.9 ms  max    7.5 ms
    burst       100 x 5    p50   74.3 ms  p99  116.9 ms  max  129.5 ms  resets 0 / 500  (1300 answers/s)
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BODY = json.dumps({"model": "offline", "max_tokens": 50, "messages": [{"role": "user", "content": "hi"}]}).encode()
HEADERS = {"content-type": "application/json", "x-api-key": "any", "anthropic-version": "2023-06-01"}
RESETS = (ConnectionResetError, ConnectionRefusedError, BrokenPipeError, http.client.RemoteDisconnected)


def start_server() -> tuple[subprocess.Popen, int]:
    """The offline model in its own process; its port from the line it prints."""
    proc = subprocess.Popen([sys.executable, "-m", "lessonkit.offline", "serve", "--port", "0"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.search(r"127\.0\.0\.1:(\d+)", line)
    if not match:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r} {proc.stderr.read()}")
    return proc, int(match.group(1))


def post(conn: http.client.HTTPConnection) -> None:
    conn.request("POST", "/v1/messages", BODY, HEADERS)
    response = conn.getresponse()
    payload = response.read()
    if response.status != 200:
        raise RuntimeError(f"{response.status}: {payload[:200]!r}")


def keep_alive(port: int, n: int) -> list[float]:
    """n requests on one connection, in a row: the latency of each, in ms."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    post(conn)  # warm up: the first request also imports and reads the scenarios
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        post(conn)
        times.append((time.perf_counter() - t0) * 1000)
    conn.close()
    return times


def burst(port: int, clients: int, per_client: int) -> tuple[list[float], int, list[str]]:
    """`clients` threads at once, each `per_client` requests on new connections: latencies, resets, other errors."""
    times, resets, errors = [], [0], []
    lock = threading.Lock()
    gate = threading.Barrier(clients)

    def client():
        gate.wait()
        for _ in range(per_client):
            t0 = time.perf_counter()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                post(conn)
                with lock:
                    times.append((time.perf_counter() - t0) * 1000)
            except RESETS:
                with lock:
                    resets[0] += 1
            except Exception as exc:  # noqa: BLE001 - counted and printed, the benchmark goes on
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")
            finally:
                conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times, resets[0], errors


def summary(times: list[float]) -> str:
    if not times:
        return "no answers"
    q = statistics.quantiles(times, n=100) if len(times) > 1 else times * 99
    return f"p50 {statistics.median(times):6.1f} ms  p99 {q[98]:6.1f} ms  max {max(times):6.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--per-client", type=int, default=5)
    args = parser.parse_args()
    proc, port = start_server()
    try:
        print(f"keep-alive  1 x {args.requests:<6} {summary(keep_alive(port, args.requests))}")
        t0 = time.perf_counter()
        times, resets, errors = burst(port, args.clients, args.per_client)
        wall = time.perf_counter() - t0
        total = args.clients * args.per_client
        print(f"burst       {args.clients} x {args.per_client:<4} {summary(times)}  resets {resets} / {total}"
              f"  ({len(times) / wall:.0f} answers/s)"
              + (f"  other errors {len(errors)}: {errors[0]}" if errors else ""))
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
