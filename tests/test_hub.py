"""A workshop hub on loopback: JupyterHub, 10 users, s06's student notebook in every user's kernel at once.

Runs with `make test-hub` (about two minutes on 2 cores, so not in `make test`, where it is
skipped saying so). It starts `jupyterhub -f workshop/jupyterhub_config.py` on free 127.0.0.1
ports in tmp_path, creates the users and starts their servers through the hub's REST API,
opens work/s06_compact.ipynb from each user's server (the contents API), runs every code
cell in a kernel of that server over the kernel websocket, all users concurrently, and
checks what a student sees: every demo cell runs, every check fails on the starter saying
why. Time and memory per user go to artifacts/hub/report.md and the terminal. Everything
it started is stopped, and the test checks that no user process is left.

Settings: WORKSHOP_HUB_USERS (default 10). Also here: repo2docker's build plan for Binder, made
without Docker (it needs the 'hub' extra too).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest

pytestmark = pytest.mark.hub

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "workshop" / "jupyterhub_config.py"
LESSON = "s06_compact"
USERS = int(os.environ.get("WORKSHOP_HUB_USERS", "10"))
TOKEN = uuid.uuid4().hex

import psutil  # noqa: E402
from tornado.httpclient import AsyncHTTPClient, HTTPRequest  # noqa: E402
from tornado.websocket import websocket_connect  # noqa: E402


def test_repo2docker_generates_the_binder_build_from_pyproject(tmp_path):
    """repo2docker's own build plan for this repository (--no-build: no container runtime needed):
    the kit installed from pyproject.toml, then postBuild, on a Python the kit supports."""
    pytest.importorskip("repo2docker", reason="make test-hub installs the 'hub' extra (jupyter-repo2docker)")
    run = subprocess.run([str(Path(sys.executable).parent / "jupyter-repo2docker"), "--no-build", "--no-run",
                          "--debug", str(ROOT)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    plan = run.stdout + run.stderr
    assert "Building conda environment for python=3.11" in plan
    install = plan.index("RUN ${KERNEL_PYTHON_PREFIX}/bin/pip install --no-cache-dir .")
    assert install < plan.index("RUN ./postBuild")


@pytest.fixture
def hub_allowed():
    if os.environ.get("LESSONS_HUB_TEST") != "1":
        pytest.skip("the hub test runs with `make test-hub` (10 users, about two minutes on 2 cores)")
    pytest.importorskip("jupyterhub", reason="make test-hub installs the 'hub' extra")


def free_port_block(size: int = 3) -> int:
    """A port p with p .. p+size-1 all free on 127.0.0.1 (the hub config uses port, +1, +2)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + size > 65535:
            continue
        try:
            held = []
            for p in range(base, base + size):
                sock = socket.socket()
                held.append(sock)
                sock.bind(("127.0.0.1", p))
            return base
        except OSError:
            continue
        finally:
            for sock in held:
                sock.close()
    raise RuntimeError("no block of free ports on 127.0.0.1")


class Hub:
    """The hub process and a small REST client for it."""

    def __init__(self, tmp: Path):
        self.port = free_port_block()
        self.url = f"http://127.0.0.1:{self.port}"
        self.homes = tmp / "homes"
        self.log = (tmp / "hub.log").open("w")
        env = {**os.environ, "WORKSHOP_HUB_PORT": str(self.port), "WORKSHOP_HOMES": str(self.homes),
               "WORKSHOP_STATE": str(tmp), "WORKSHOP_ADMIN_TOKEN": TOKEN, "WORKSHOP_AUTHENTICATOR": "dummy",
               "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        env.pop("LESSONS_BACKEND", None)
        self.proc = subprocess.Popen([str(Path(sys.executable).parent / "jupyterhub"), "-f", str(CONFIG)],
                                     cwd=tmp, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.http = AsyncHTTPClient(force_instance=True, defaults={"request_timeout": 300, "connect_timeout": 30})

    async def api(self, method: str, path: str, body=None, *, user: str | None = None, ok=(200, 201, 202, 204)):
        prefix = f"/user/{quote(user)}" if user else "/hub/api"
        request = HTTPRequest(self.url + prefix + path, method=method, headers={"Authorization": f"token {TOKEN}"},
                              body=None if body is None else json.dumps(body), allow_nonstandard_methods=True)
        response = await self.http.fetch(request, raise_error=False)
        if response.code not in ok:
            raise AssertionError(f"{method} {prefix}{path}: HTTP {response.code} {response.body[:300]!r}")
        return json.loads(response.body) if response.body else None

    async def wait_up(self, deadline_s: float = 60):
        start = time.monotonic()
        while time.monotonic() - start < deadline_s:
            assert self.proc.poll() is None, f"the hub exited: {self.log_tail()}"
            try:
                await self.api("GET", "/", ok=(200,))
                return
            except (AssertionError, OSError):
                await asyncio.sleep(0.5)
        raise AssertionError(f"the hub did not answer in {deadline_s} s: {self.log_tail()}")

    def log_tail(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")[-2000:]

    def stop(self):
        """SIGTERM the hub (it stops the proxy and every user's server), then anything left."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.http.close()
        self.log.close()


def user_processes(users) -> list[psutil.Process]:
    """The processes (servers, kernels) whose environment names one of `users`, or the test's hub."""
    found = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if proc.environ().get("JUPYTERHUB_USER") in users:
                found.append(proc)
        except (psutil.Error, OSError):
            continue
    return found


async def start_server(hub: Hub, name: str) -> float:
    start = time.monotonic()
    await hub.api("POST", f"/users/{name}/server", {})
    while True:
        model = await hub.api("GET", f"/users/{name}")
        server = (model.get("servers") or {}).get("")
        if server and server.get("ready"):
            return time.monotonic() - start
        assert time.monotonic() - start < 180, f"{name}'s server not ready in 180 s: {hub.log_tail()}"
        await asyncio.sleep(0.5)


async def run_cell(ws, session: str, code: str) -> list[dict]:
    """Send one execute_request over the kernel websocket; the cell's outputs once the kernel is idle."""
    msg_id = uuid.uuid4().hex
    await ws.write_message(json.dumps({
        "header": {"msg_id": msg_id, "username": "test", "session": session, "msg_type": "execute_request",
                   "version": "5.3", "date": ""},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": True}}))
    outputs, idle, replied = [], False, False
    while not (idle and replied):
        raw = await asyncio.wait_for(ws.read_message(), timeout=300)
        assert raw is not None, "the kernel websocket closed"
        msg = json.loads(raw)
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind = msg["header"]["msg_type"]
        if kind in ("stream", "execute_result", "display_data", "error"):
            outputs.append({"output_type": kind, **msg["content"]})
        elif kind == "status" and msg["content"]["execution_state"] == "idle":
            idle = True
        elif kind == "execute_reply":
            replied = True
    return outputs


def first_line(outputs) -> str:
    for out in outputs:
        if out["output_type"] == "error":
            return f"{out['ename']}: {out['evalue']}"
        text = out.get("text") or out.get("data", {}).get("text/plain", "")
        text = "".join(text) if isinstance(text, list) else text
        if text.strip():
            return text.strip().splitlines()[0]
    return ""


async def run_student_notebook(hub: Hub, name: str) -> dict:
    """Open ~/work/s06_compact.ipynb through the user's server and run it in a new kernel there."""
    nb = (await hub.api("GET", f"/api/contents/work/{LESSON}.ipynb", user=name))["content"]
    session = await hub.api("POST", "/api/sessions", {"path": f"work/{LESSON}.ipynb", "type": "notebook",
                                                      "name": f"{LESSON}.ipynb", "kernel": {"name": "python3"}},
                            user=name)
    kernel = session["kernel"]["id"]
    ws_url = hub.url.replace("http", "ws", 1) + f"/user/{quote(name)}/api/kernels/{kernel}/channels"
    ws = await websocket_connect(HTTPRequest(ws_url, headers={"Authorization": f"token {TOKEN}"}))
    start, checks, errors = time.monotonic(), [], []
    try:
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            outputs = await run_cell(ws, uuid.uuid4().hex, cell["source"])
            tags = cell["metadata"].get("tags", [])
            if "check" in tags:
                checks.append(first_line(outputs))
            elif any(o["output_type"] == "error" for o in outputs):
                errors.append(f"{cell['id']}: {first_line(outputs)}")
        seconds = time.monotonic() - start
        peak = await run_cell(ws, uuid.uuid4().hex,
                              "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    finally:
        ws.close()
    server_mb = sum(p.memory_info().rss for p in user_processes({name})
                    if "ipykernel" not in " ".join(p.cmdline())) / 2**20
    await hub.api("DELETE", f"/api/sessions/{session['id']}", user=name)
    return {"user": name, "seconds": seconds, "kernel_peak_mb": int(first_line(peak)) / 1024,
            "server_mb": server_mb, "checks": checks, "errors": errors}


async def room(hub: Hub, users: list[str]):
    """Create the users, start their servers, run the notebook everywhere at once; the figures."""
    await hub.wait_up()
    await hub.api("POST", "/users", {"usernames": users}, ok=(201,))
    spawn = await asyncio.gather(*(start_server(hub, u) for u in users))
    start = time.monotonic()
    runs = await asyncio.gather(*(run_student_notebook(hub, u) for u in users))
    wall = time.monotonic() - start
    tree = psutil.Process(hub.proc.pid)
    total_mb = sum(p.memory_info().rss for p in [tree, *tree.children(recursive=True)]) / 2**20
    await asyncio.gather(*(hub.api("DELETE", f"/users/{u}/server") for u in users))
    return list(spawn), list(runs), wall, total_mb


def test_ten_users_run_s06_student_notebook_at_once(tmp_path, hub_allowed):
    users = [f"student{i:02d}" for i in range(1, USERS + 1)]
    hub = Hub(tmp_path)
    try:
        loop = asyncio.new_event_loop()
        try:
            spawn, runs, wall, hub_mb = loop.run_until_complete(room(hub, users))
        finally:
            loop.close()
    finally:
        hub.stop()
    time.sleep(1)
    assert user_processes(set(users)) == [], "a user's server or kernel outlived the hub"

    lesson = json.loads((ROOT / "lessons" / f"{LESSON}.ipynb").read_text(encoding="utf-8"))
    expected = [first_line(c["outputs"]) for c in lesson["cells"] if "check" in c["metadata"].get("tags", [])]
    for run in runs:
        assert run["errors"] == [], f"{run['user']}: {run['errors']}"
        assert run["checks"] == expected and all(line.startswith("✗") for line in expected)
        assert (tmp_path / "homes" / run["user"] / "work" / f"{LESSON}.ipynb").is_file()

    seconds = sorted(r["seconds"] for r in runs)
    lines = [f"# Hub on loopback: {USERS} users run work/{LESSON}.ipynb at once",
             f"machine: {os.cpu_count()} CPUs, {psutil.virtual_memory().total / 2**30:.0f} GiB; "
             f"load average (1 min) at the end: {os.getloadavg()[0]:.1f}",
             f"server start (spawn to ready): median {sorted(spawn)[len(spawn) // 2]:.1f} s, max {max(spawn):.1f} s",
             f"notebook run, all users at once: wall {wall:.1f} s; per user median {seconds[len(seconds) // 2]:.1f} s, "
             f"max {seconds[-1]:.1f} s",
             f"memory per user: kernel peak median {sorted(r['kernel_peak_mb'] for r in runs)[USERS // 2]:.0f} MiB, "
             f"server {sorted(r['server_mb'] for r in runs)[USERS // 2]:.0f} MiB; "
             f"hub + proxy + the {USERS} servers once the kernels are shut down: {hub_mb:.0f} MiB",
             "", "| user | run s | kernel peak MiB | server MiB |", "|---|---:|---:|---:|"]
    lines += [f"| {r['user']} | {r['seconds']:.1f} | {r['kernel_peak_mb']:.0f} | {r['server_mb']:.0f} |" for r in runs]
    report = ROOT / "artifacts" / "hub" / "report.md"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n" + "\n".join(lines))
