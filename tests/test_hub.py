"""A workshop hub on loopback: JupyterHub, a room of students each a Unix user, all starting at once.

Runs with `make test-hub`, as root (minutes on 2 cores, so not in `make test`, where it is skipped
saying so). It starts `jupyterhub -f workshop/jupyterhub_config.py` from .hub/venv (a Python every
user can read) on free 127.0.0.1 ports, with ANTHROPIC_API_KEY and WORKSHOP_ADMIN_TOKEN in the hub's
environment, and checks:
- the whole room starts together as browsers do: every student logs in through the login form at
  the same moment, their server starts, JupyterLab's page and its files load (6 requests at a time
  per student, as a browser does), with not one 5xx from the proxy (before: tornado's 10 requests at
  a time, and `503 Timeout in request queue` for a third of 30);
- each user is a Unix account with a 0700 home, and each server runs as that account (never root);
- from each student's kernel: the other student's home and the hub's state cannot be read or written,
  no hub secret is in os.environ, the address space is capped (a 2 GiB+ allocation is a MemoryError);
- the login page: `root` and the instructor's name with the students' password are refused, the
  instructor with the admin password is an admin;
- s06's student notebook runs in several users' kernels at once, every check failing on the starter;
- every student runs s01's check: the room service (its records sent with each student's own hub
  token) shows the whole room, no-shows "not logged in", the instructor not a student, on the
  same page and CSV as `progress`; a student cannot read the room or write another's records;
- `reset` as root, as the guide says, leaves a notebook the student's own server can save;
- the hub stops in seconds; a second hub with a 10 s idle timeout: jupyterhub-idle-culler stops an
  untouched server; the refusals; the image's command (workshop/start-user) as uid 1000.
Every Unix user the hub made is deleted afterwards, even when a check fails. Time and memory go to
artifacts/hub/report.md and the terminal.

Settings: WORKSHOP_HUB_USERS (how many students, default 30), WORKSHOP_HUB_USER_PREFIX (their names:
<prefix>01, <prefix>02, ...; default "student") or WORKSHOP_HUB_NAMES (the names themselves, comma-
separated), WORKSHOP_HUB_NOTEBOOK_USERS (how many of them run all of s06, default 10),
WORKSHOP_GRADER_UIDS (the grading uids verify uses, child.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

pytestmark = pytest.mark.hub

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "workshop" / "jupyterhub_config.py"
HUB_BIN = Path(os.environ.get("WORKSHOP_HUB_VENV", ROOT / ".hub" / "venv")) / "bin"
LESSON = "s06_compact"
USERS = int(os.environ.get("WORKSHOP_HUB_USERS", "30"))
NOTEBOOK_USERS = int(os.environ.get("WORKSHOP_HUB_NOTEBOOK_USERS", "10"))
BROWSER_CONNECTIONS = 6     # what a browser opens to one host at a time (HTTP/1.1)
STATIC_FILES = 40           # JupyterLab's files each student's page loads (of its ~300), as a first visit does


RUN = uuid.uuid4().hex[:4]   # this run's names are its own: another run on the machine (a colleague's) uses others
ADMIN = os.environ.get("WORKSHOP_HUB_ADMIN", f"teach{RUN}")
IDLE = f"idle{RUN}"


def room_names() -> list[str]:
    """The students' names: WORKSHOP_HUB_NAMES, else <WORKSHOP_HUB_USER_PREFIX><nn> for WORKSHOP_HUB_USERS
    (default prefix st<4 hex of this run>-)."""
    names = [n.strip() for n in os.environ.get("WORKSHOP_HUB_NAMES", "").split(",") if n.strip()]
    if names:
        return names
    prefix = os.environ.get("WORKSHOP_HUB_USER_PREFIX", f"st{RUN}-")
    return [f"{prefix}{i:02d}" for i in range(1, USERS + 1)]


def not_taken(names) -> None:
    """Fail, naming them, when accounts with the test's names exist already: the hub would refuse them."""
    taken = {}
    for name in names:
        try:
            taken[name] = pwd.getpwnam(name).pw_dir
        except KeyError:
            pass
    assert not taken, (f"Unix accounts with the test's names exist already: {taken}; a hub refuses an account it "
                       "did not make. Remove them (userdel) or choose other names (WORKSHOP_HUB_USER_PREFIX, "
                       "WORKSHOP_HUB_ADMIN)")
TOKEN = uuid.uuid4().hex
SECRETS = {"ANTHROPIC_API_KEY": "sk-ant-" + uuid.uuid4().hex, "WORKSHOP_ADMIN_TOKEN": TOKEN,
           "WORKSHOP_PASSWORD": "room-" + uuid.uuid4().hex[:8], "WORKSHOP_ADMIN_PASSWORD": uuid.uuid4().hex}
MEM_LIMIT = 2 * 2**30   # the config's default WORKSHOP_MEM_LIMIT, 2G

import psutil  # noqa: E402
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest  # noqa: E402
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
        pytest.skip("the hub test runs with `make test-hub` (10 users, about three minutes on 2 cores)")
    if os.geteuid() != 0:
        pytest.skip("the hub test runs as root: the hub creates a Unix user per student (sudo make test-hub)")
    assert (HUB_BIN / "jupyterhub").exists(), f"no {HUB_BIN}/jupyterhub: make test-hub builds .hub/venv"


@pytest.fixture
def sandbox(hub_allowed, request):
    """A folder every user can traverse (tmp_path is not), holding homes/ and state/; afterwards every
    process of the Unix users the hub made there is killed, each user deleted, the folder removed."""
    top = Path(tempfile.mkdtemp(prefix="lessons-hub-"))
    top.chmod(0o711)
    try:
        yield top
    finally:
        made = [p for p in pwd.getpwall() if p.pw_dir.startswith(f"{top}/")]   # the admin too, made at start
        uids = {p.pw_uid for p in made}
        for proc in psutil.process_iter(["uids"]):
            if proc.info["uids"] and proc.info["uids"].real in uids:
                try:
                    proc.kill()
                except psutil.Error:
                    pass
        for account in made:
            subprocess.run(["userdel", "--force", account.pw_name], capture_output=True)
        for log in top.glob("*.log"):   # kept for a look after a failure, one per test
            (ROOT / "artifacts" / "hub").mkdir(parents=True, exist_ok=True)
            shutil.copy(log, ROOT / "artifacts" / "hub" / f"{request.node.name[:80]}.{log.name}")
        shutil.rmtree(top, ignore_errors=True)
        assert not [p for p in pwd.getpwall() if p.pw_dir.startswith(str(top))], "a Unix user outlived the test"


def free_port_block(size: int = 3) -> int:
    """A port p with p .. p+size-1 all free on 127.0.0.1 (the hub config uses port, +1, +2)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + size > 65535:
            continue
        held = []
        try:
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


def hub_env(top: Path, **extra) -> dict:
    return {**os.environ, **SECRETS, "WORKSHOP_HOMES": str(top / "homes"), "WORKSHOP_STATE": str(top / "state"),
            "WORKSHOP_KERNELS": str(top / "kernels"), "WORKSHOP_ADMIN": ADMIN,
            "PATH": f"{HUB_BIN}{os.pathsep}{os.environ.get('PATH', '')}", **extra}


class Hub:
    """The hub process and a small REST client for it."""

    def __init__(self, top: Path, **extra):
        self.port = free_port_block()
        self.url = f"http://127.0.0.1:{self.port}"
        self.top, self.homes, self.state = top, top / "homes", top / "state"
        self.log = (top / "hub.log").open("w")
        env = hub_env(top, WORKSHOP_HUB_PORT=str(self.port), **extra)
        env.pop("LESSONS_BACKEND", None)
        self.proc = subprocess.Popen([str(HUB_BIN / "jupyterhub"), "-f", str(CONFIG)], cwd=top, env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.http = AsyncHTTPClient(force_instance=True, defaults={"request_timeout": 300, "connect_timeout": 30})

    async def api(self, method: str, path: str, body=None, *, user: str | None = None, ok=(200, 201, 202, 204)):
        prefix = f"/user/{quote(user)}" if user else "/hub/api"
        request = HTTPRequest(self.url + prefix + path, method=method, headers={"Authorization": f"token {TOKEN}"},
                              body=None if body is None else json.dumps(body), allow_nonstandard_methods=True)
        response = await self.http.fetch(request, raise_error=False)
        if response.code not in ok:
            raise AssertionError(f"{method} {prefix}{path}: HTTP {response.code} {response.body[:300]!r}")
        return json.loads(response.body) if response.body else None

    async def login(self, name: str, password: str) -> int:
        """The login form as a browser posts it (with its _xsrf cookie and field): 302 in, 403 refused."""
        page = await self.http.fetch(self.url + "/hub/login", raise_error=False)
        cookies = "; ".join(c.split(";")[0] for c in page.headers.get_list("Set-Cookie"))
        xsrf = next(c.split("=", 1)[1] for c in cookies.split("; ") if c.startswith("_xsrf="))
        response = await self.http.fetch(HTTPRequest(
            self.url + "/hub/login", method="POST", headers={"Cookie": cookies}, follow_redirects=False,
            body=urlencode({"username": name, "password": password, "_xsrf": xsrf})), raise_error=False)
        return response.code

    async def wait_up(self, deadline_s: float = 90):
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
        return Path(self.log.name).read_text(errors="replace")[-3000:]

    def stop(self):
        """SIGTERM the hub (it stops the proxy and every user's server), then anything left."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(90)   # it stops the culler first: up to half a minute on a loaded machine
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.http.close()
        self.log.close()


def processes_of(uid: int) -> list[psutil.Process]:
    return [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == uid]


async def start_server(hub: Hub, name: str) -> float:
    start = time.monotonic()
    await hub.api("POST", f"/users/{name}/server", {})
    while True:
        model = await hub.api("GET", f"/users/{name}")
        server = (model.get("servers") or {}).get("")
        if server and server.get("ready"):
            return time.monotonic() - start
        assert time.monotonic() - start < 240, f"{name}'s server not ready in 240 s: {hub.log_tail()}"
        await asyncio.sleep(0.5)


class Closed(ConnectionError):
    """The kernel's websocket closed, or its kernel restarted or died, before the cell's reply."""


class Kernel:
    """A kernel's websocket as JupyterLab keeps it: when it closes (a ping not answered in time on a
    loaded machine), connect again and run the cell again; the reconnections are counted."""

    def __init__(self, hub: Hub, name: str, kernel_id: str):
        self.url = hub.url.replace("http", "ws", 1) + f"/user/{quote(name)}/api/kernels/{kernel_id}/channels"
        self.ws, self.reconnects = None, 0

    async def connect(self):
        self.ws = await websocket_connect(HTTPRequest(self.url, headers={"Authorization": f"token {TOKEN}"},
                                                      connect_timeout=WS_TIMEOUT_S, request_timeout=WS_TIMEOUT_S))
        return self

    async def run(self, code: str) -> list[dict]:
        for attempt in range(4):
            try:
                return await run_cell(self.ws, uuid.uuid4().hex, code)
            except Closed:
                if attempt == 3:
                    raise
                self.reconnects += 1
                await self.connect()

    def close(self):
        if self.ws is not None:
            self.ws.close()


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
        if raw is None:
            raise Closed("the kernel websocket closed")
        msg = json.loads(raw)
        kind = msg["header"]["msg_type"]
        if kind == "status" and msg["content"]["execution_state"] in ("restarting", "dead"):
            raise Closed(f"the kernel is {msg['content']['execution_state']}")   # its cell is gone: JupyterLab says so
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
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


# Run in student A's kernel: what A can do to B's home, the hub's state and processes, and A's limits.
PROBE = """
import json, os, resource
from ipykernel.connect import get_connection_file
connection = get_connection_file()
def attempt(f):
    try:
        f()
        return "allowed"
    except Exception as e:
        return type(e).__name__
other, state = {other!r}, {state!r}
print(json.dumps({{
    "uid": os.getuid(), "euid": os.geteuid(), "cwd": os.getcwd(), "env": dict(os.environ),
    "as_limit": resource.getrlimit(resource.RLIMIT_AS),
    "write_own": attempt(lambda: open(os.path.expanduser("~/mine.txt"), "w").write("x")),
    "list_other": attempt(lambda: os.listdir(other)),
    "read_other": attempt(lambda: open(other + "/work/s01_loop.ipynb").read()),
    "write_other": attempt(lambda: open(other + "/planted.txt", "w").write("x")),
    "list_state": attempt(lambda: os.listdir(state)),
    "read_cookie_secret": attempt(lambda: open(state + "/jupyterhub_cookie_secret", "rb").read()),
    "read_database": attempt(lambda: open(state + "/jupyterhub.sqlite", "rb").read()),
    "read_hub_environ": attempt(lambda: open("/proc/{hub_pid}/environ", "rb").read()),
    "read_other_server_environ": attempt(lambda: open("/proc/{other_pid}/environ", "rb").read()),
    "allocate_past_limit": attempt(lambda: bytearray({big})),
    "kernel_pid": os.getpid(),
    "connection": {{k: v for k, v in json.load(open(connection)).items() if k != "key"}},
    "sockets": [__import__("stat").S_ISSOCK(os.stat(f"{{json.load(open(connection))['ip']}}-{{n}}").st_mode) for n in range(1, 6)],
    "connection_folder": [os.stat(os.path.dirname(connection)).st_uid, os.stat(os.path.dirname(connection)).st_mode & 0o777],
}}))
"""


WS_TIMEOUT_S = 120


async def run_student_notebook(hub: Hub, name: str, other: str) -> dict:
    """Open ~/work/s06_compact.ipynb through the user's server, run it in a new kernel there, then the probe."""
    nb = (await hub.api("GET", f"/api/contents/work/{LESSON}.ipynb", user=name))["content"]
    session = await hub.api("POST", "/api/sessions", {"path": f"work/{LESSON}.ipynb", "type": "notebook",
                                                      "name": f"{LESSON}.ipynb", "kernel": {"name": "python3"}},
                            user=name)
    # Kernels start at once on two cores: the proxy may answer late, so wait as long as a student would
    # (tornado's 20 s default timed out at a load of 3.7 on 2026-12-02).
    kernel = await Kernel(hub, name, session["kernel"]["id"]).connect()
    start, checks, errors = time.monotonic(), [], []
    try:
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            outputs = await kernel.run(cell["source"])
            tags = cell["metadata"].get("tags", [])
            if "check" in tags:
                checks.append(first_line(outputs))
            elif any(o["output_type"] == "error" for o in outputs):
                errors.append(f"{cell['id']}: {first_line(outputs)}")
        seconds = time.monotonic() - start
        peak = await kernel.run("import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
        other_uid = pwd.getpwnam(other).pw_uid
        other_pid = min(p.pid for p in processes_of(other_uid))
        probe = await kernel.run(PROBE.format(other=str(hub.homes / other), state=str(hub.state),
                                              hub_pid=hub.proc.pid, other_pid=other_pid, big=MEM_LIMIT + 1))
        line = first_line(probe)
        listening = sorted(c.laddr.port for c in psutil.Process(json.loads(line)["kernel_pid"]).net_connections("inet")
                           if c.status == psutil.CONN_LISTEN) if line.startswith("{") else None
    finally:
        kernel.close()
    uid = pwd.getpwnam(name).pw_uid
    server_mb = sum(p.memory_info().rss for p in processes_of(uid) if "ipykernel" not in " ".join(p.cmdline()))
    await hub.api("DELETE", f"/api/sessions/{session['id']}", user=name)
    return {"user": name, "seconds": seconds, "kernel_peak_mb": int(first_line(peak)) / 1024,
            "reconnects": kernel.reconnects, "kernel_listens_on": listening,
            "server_mb": server_mb / 2**20, "checks": checks, "errors": errors,
            "probe": json.loads(first_line(probe)) if first_line(probe).startswith("{") else first_line(probe)}


async def browser_start(hub: Hub, name: str, assets: list[str]) -> dict:
    """One student as a browser: the login form, the spawn, JupyterLab's page and files (BROWSER_CONNECTIONS at
    a time); every response's status, and the seconds from the login to the last file."""
    import httpx

    start, statuses = time.monotonic(), []
    limits = httpx.Limits(max_connections=BROWSER_CONNECTIONS)
    async with httpx.AsyncClient(base_url=hub.url, follow_redirects=True, timeout=300, limits=limits) as web:
        page = await web.get("/hub/login")
        statuses.append(page.status_code)
        login = await web.post("/hub/login", data={"username": name, "password": SECRETS["WORKSHOP_PASSWORD"],
                                                   "_xsrf": web.cookies.get("_xsrf", "")})
        statuses += [r.status_code for r in login.history] + [login.status_code]
        # the spawn-pending page follows the spawn on an event stream (one request held open until the server
        # is ready): thirty of them at once are what filled the proxy's 10 slots
        progress = f"/hub/api/users/{name}/server/progress?_xsrf={web.cookies.get('_xsrf', '')}"
        async with web.stream("GET", progress, headers={"Accept": "text/event-stream"}) as events:
            statuses.append(events.status_code)
            async for line in events.aiter_lines():
                if line.startswith("data:") and json.loads(line[5:]).get("ready"):
                    break
        while True:   # the stream ends with the server ready (or failed): the page then goes on
            model = await hub.api("GET", f"/users/{name}")
            if ((model.get("servers") or {}).get("") or {}).get("ready"):
                break
            assert time.monotonic() - start < 300, f"{name}'s server not ready in 300 s: {hub.log_tail()}"
            await asyncio.sleep(1)
        ready = time.monotonic() - start
        lab = await web.get(f"/user/{name}/lab/tree/work/s01_loop.ipynb")
        statuses += [r.status_code for r in lab.history] + [lab.status_code]
        urls = [f"/user/{name}/static/lab/{a}" for a in assets] + [
            f"/user/{name}/{p}" for p in ("api/status", "api/kernelspecs", "api/sessions", "api/contents/work",
                                          "api/contents/work/s01_loop.ipynb", "lab/api/settings", "lab/api/themes",
                                          "lab/api/translations", "api/me")]
        responses = await asyncio.gather(*(web.get(u) for u in urls), return_exceptions=True)
        statuses += [r.status_code if isinstance(r, httpx.Response) else 599 for r in responses]
    return {"user": name, "ready": ready, "loaded": time.monotonic() - start, "statuses": statuses,
            "failed": [s for s in statuses if s >= 500]}


def lab_assets() -> list[str]:
    """JupyterLab's static files a first visit loads: the biggest STATIC_FILES of its bundle."""
    static = HUB_BIN.parent / "share" / "jupyter" / "lab" / "static"
    files = sorted(static.glob("*.js"), key=lambda p: -p.stat().st_size)
    return [p.name for p in files[:STATIC_FILES]]


CHECK_S01 = """from lessonkit.exercises.s01_loop import exercise
def assistant_message(response):
    return {"role": "assistant", "content": []}
result = exercise.check(assistant_message)
print(len(result.passed), len(result.passed) + len(result.failures))
"""


async def run_check(hub: Hub, name: str) -> tuple[str, int, int]:
    """s01's check on a wrong answer in a kernel of the student's server (it records, and reports to the room);
    a kernel the server lost (its websocket closed, then 404) is started again, as a student would. Returns
    the check's line, the reconnections and the kernels started again."""
    reconnects = 0
    for lost in range(3):
        session = await hub.api("POST", "/api/sessions", {"path": "work/check.ipynb", "type": "notebook",
                                                          "name": "check.ipynb", "kernel": {"name": "python3"}},
                                user=name)
        kernel = Kernel(hub, name, session["kernel"]["id"])
        try:
            await kernel.connect()
            line = first_line(await kernel.run(CHECK_S01))
        except asyncio.TimeoutError:
            state = await hub.api("GET", f"/api/kernels/{session['kernel']['id']}", user=name)
            raise AssertionError(f"{name}: the kernel sent nothing for 300 s while it ran s01's check (the kernel: "
                                 f"{state}); the hub's log ends: {hub.log_tail()}") from None
        except (Closed, HTTPClientError) as exc:
            if isinstance(exc, HTTPClientError) and exc.code != 404:
                raise
            print(f"\n{name}: kernel {session['kernel']['id']} lost ({exc}); a new one")
            continue
        finally:
            kernel.close()
            reconnects += kernel.reconnects
        await hub.api("DELETE", f"/api/sessions/{session['id']}", user=name)
        return line, reconnects, lost
    raise AssertionError(f"{name}: three kernels lost in a row: {hub.log_tail()}")


async def room(hub: Hub, users: list[str], absent: list[str]):
    """The room starts at once as browsers; s06 in some kernels at once; s01's check in every one; the figures."""
    await hub.wait_up()
    await hub.api("POST", "/users", {"usernames": absent}, ok=(201,))   # on the roster, never log in
    assets = lab_assets()
    start = time.monotonic()
    starts = await asyncio.gather(*(browser_start(hub, u, assets) for u in users))
    start_wall = time.monotonic() - start
    print(f"\n{len(users)} students started at once in {start_wall:.0f} s: "
          f"{sum(len(s['statuses']) for s in starts)} requests, {sum(len(s['failed']) for s in starts)} failed (5xx)")
    servers = {u: sorted({p.info["uids"].real for p in psutil.process_iter(["uids", "environ"])
                          if (p.info["environ"] or {}).get("JUPYTERHUB_USER") == u}) for u in users}
    logins = {"root with the room password": await hub.login("root", SECRETS["WORKSHOP_PASSWORD"]),
              "instructor with the room password": await hub.login(ADMIN, SECRETS["WORKSHOP_PASSWORD"]),
              "student with a wrong password": await hub.login(users[0], "not-the-password"),
              "student with the room password": await hub.login(users[0], SECRETS["WORKSHOP_PASSWORD"]),
              "instructor with the admin password": await hub.login(ADMIN, SECRETS["WORKSHOP_ADMIN_PASSWORD"])}
    instructor = await hub.api("GET", f"/users/{ADMIN}")
    start = time.monotonic()
    some = users[:NOTEBOOK_USERS]
    runs = await asyncio.gather(*(run_student_notebook(hub, u, users[(i + 1) % len(users)])
                                  for i, u in enumerate(some)))
    wall = time.monotonic() - start
    checked = dict(zip(users, await asyncio.gather(*(run_check(hub, u) for u in users))))
    checks = {u: line for u, (line, _n, _lost) in checked.items()}
    reconnects = sum(n for _line, n, _lost in checked.values()) + sum(r["reconnects"] for r in runs)
    lost = sum(n for _line, _n, n in checked.values())
    secrets = {**SECRETS, "cookie secret": (hub.state / "jupyterhub_cookie_secret").read_bytes().hex()}
    tree = psutil.Process(hub.proc.pid)
    proxy_env = [p.environ() for p in tree.children(recursive=True) if "hubproxy" in " ".join(p.cmdline())]
    secrets["CONFIGPROXY_AUTH_TOKEN"] = proxy_env[0]["CONFIGPROXY_AUTH_TOKEN"]
    everything = {p.pid: p for u in users for p in processes_of(pwd.getpwnam(u).pw_uid)}
    everything.update((p.pid, p) for p in [tree, *tree.children(recursive=True)])
    total_mb = sum(p.memory_info().rss for p in everything.values()) / 2**20
    room_view = await the_room_view(hub, users, absent)
    saved = await reset_as_root_then_save(hub, users[-1])
    return {"starts": list(starts), "start_wall": start_wall, "servers": servers, "logins": logins,
            "instructor": instructor, "runs": list(runs), "wall": wall, "total_mb": total_mb, "secrets": secrets,
            "checks": checks, "room": room_view, "saved": saved, "reconnects": reconnects, "lost": lost}


async def the_room_view(hub: Hub, users: list[str], absent: list[str]) -> dict:
    """The room service, as the instructor (a token of theirs) and as a student."""
    import httpx

    mine = await hub.api("POST", f"/users/{ADMIN}/tokens", {"note": "the room"}, ok=(200, 201))
    base = hub.url + "/services/lessons-room/"
    student = next(p.environ()["JUPYTERHUB_API_TOKEN"] for p in processes_of(pwd.getpwnam(users[0]).pw_uid)
                   if "JUPYTERHUB_API_TOKEN" in p.environ())
    async with httpx.AsyncClient(timeout=60) as web:
        instructor = {"Authorization": f"token {mine['token']}"}
        out = {"page": await web.get(base + "?only=s01", headers=instructor),
               "csv": await web.get(base + "room.csv?only=s01", headers=instructor),
               "feedback": await web.get(base + f"feedback/{users[0]}.html", headers=instructor),
               "student's page": await web.get(base, headers={"Authorization": f"token {student}"}),
               "student's own feedback": await web.get(base + f"feedback/{users[0]}.html",
                                                       headers={"Authorization": f"token {student}"}),
               "another's feedback": await web.get(base + f"feedback/{users[1]}.html",
                                                   headers={"Authorization": f"token {student}"}),
               "another's records": await web.post(base + f"records?user={users[1]}", headers={
                   "Authorization": f"token {student}"}, json={"lesson": "s01_loop", "exercise": "assistant_message",
                                                               "passed": 6, "total": 6}),
               "no token": await web.post(base + "records", json={"lesson": "s01_loop"})}
    return out


async def reset_as_root_then_save(hub: Hub, name: str) -> int:
    """The guide's `reset s01 --home HOME` as root, then the student's own server saves the notebook."""
    home = hub.homes / name
    run = subprocess.run([sys.executable, "-m", "lessonkit.workshop", "reset", "s01", "--home", str(home)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    nb = await hub.api("GET", "/api/contents/work/s01_loop.ipynb", user=name)
    request = HTTPRequest(hub.url + f"/user/{quote(name)}/api/contents/work/s01_loop.ipynb", method="PUT",
                          headers={"Authorization": f"token {TOKEN}"},
                          body=json.dumps({"type": "notebook", "format": "json", "content": nb["content"]}))
    return (await hub.http.fetch(request, raise_error=False)).code


def test_a_room_starts_at_once_each_student_their_own_user_and_the_room_view_on_the_hub(sandbox):
    users, absent = room_names(), [f"noshow{RUN}-1", f"noshow{RUN}-2"]
    not_taken([*users, *absent, ADMIN])
    hub = Hub(sandbox)
    stop_s = None
    try:
        loop = asyncio.new_event_loop()
        try:
            got = loop.run_until_complete(room(hub, users, absent))
        finally:
            loop.close()
    finally:
        began = time.monotonic()
        hub.stop()
        stop_s = time.monotonic() - began
    time.sleep(1)
    accounts = {u: pwd.getpwnam(u) for u in users}
    assert [p.pid for a in accounts.values() for p in processes_of(a.pw_uid)] == [], "a process outlived the hub"
    assert stop_s < 30, f"the hub took {stop_s:.0f} s to stop"

    # The whole room started together, as browsers: not one 5xx, every server ready.
    failed = {s["user"]: s["failed"] for s in got["starts"] if s["failed"]}
    assert failed == {}, f"{len(failed)} of {len(users)} students got errors: {failed}"
    # Accounts and homes: one Unix user each, a 0700 home it owns; the hub's state 0700, its files 0600.
    for name, account in accounts.items():
        home = Path(account.pw_dir)
        assert home == sandbox / "homes" / name and account.pw_uid >= 1000
        assert (home.stat().st_uid, stat.S_IMODE(home.stat().st_mode)) == (account.pw_uid, 0o700)
        assert got["servers"][name] == [account.pw_uid], f"{name}'s server ran as uids {got['servers'][name]}"
        notebook = home / "work" / f"{LESSON}.ipynb"
        assert notebook.is_file() and notebook.stat().st_uid == account.pw_uid
    assert stat.S_IMODE((sandbox / "state").stat().st_mode) == 0o700
    for name in ("jupyterhub.sqlite", "jupyterhub_cookie_secret"):
        assert stat.S_IMODE((sandbox / "state" / name).stat().st_mode) == 0o600, name

    # The login page: no Unix account the hub did not make, the instructor only with the admin password.
    assert got["logins"] == {"root with the room password": 403, "instructor with the room password": 403,
                             "student with a wrong password": 403, "student with the room password": 302,
                             "instructor with the admin password": 302}
    assert got["instructor"]["admin"] is True

    lesson = json.loads((ROOT / "lessons" / f"{LESSON}.ipynb").read_text(encoding="utf-8"))
    expected = [first_line(c["outputs"]) for c in lesson["cells"] if "check" in c["metadata"].get("tags", [])]
    tokens = set()
    for run in got["runs"]:
        name, probe = run["user"], run["probe"]
        assert run["errors"] == [], f"{name}: {run['errors']}"
        assert run["checks"] == expected and all(line.startswith("✗") for line in expected)
        assert isinstance(probe, dict), f"{name}'s probe: {probe}"
        assert (probe["uid"], probe["euid"]) == (accounts[name].pw_uid,) * 2
        assert probe["cwd"] == accounts[name].pw_dir + "/work"
        # Student A against B's home, the hub's state and other processes: all refused by the kernel.
        refused = {k: v for k, v in probe.items() if k.startswith(("list_", "read_", "write_other"))}
        assert refused == dict.fromkeys(refused, "PermissionError"), f"{name}: {refused}"
        assert probe["write_own"] == "allowed"
        # The kernel on Unix sockets in the student's own 0700 folder, on no TCP port: kernels drawing ports at
        # once could draw the same one (CI, 2026-12-07: one never started, and its check waited 300 s).
        assert probe["connection"]["transport"] == "ipc" and probe["sockets"] == [True] * 5, (name, probe)
        assert probe["connection_folder"] == [accounts[name].pw_uid, 0o700]
        assert probe["connection"]["ip"].startswith(f"{sandbox / 'kernels'}/{accounts[name].pw_uid}/kernel-")
        # ipykernel's own IOPub pipe for subprocesses' output binds a port itself (zmq's bind_to_random_port: no
        # race); no channel a client connects to is on TCP
        assert len(run["kernel_listens_on"]) <= 1, (name, run["kernel_listens_on"])
        assert probe["as_limit"] == [MEM_LIMIT, MEM_LIMIT] and probe["allocate_past_limit"] == "MemoryError"
        # No hub secret in the student's environment; the only token is the student's own server token.
        env = probe["env"]
        leaked = [k for k, v in got["secrets"].items() if any(v in value for value in env.values())]
        assert leaked == [] and not [k for k in env if k.startswith(("WORKSHOP_", "CONFIGPROXY", "ANTHROPIC"))]
        assert env["JUPYTERHUB_USER"] == name and env["HOME"] == accounts[name].pw_dir
        assert env["LESSONS_REPLAY_QUIET"] == "1" and env["LESSONS_ROOM_URL"].endswith("/services/lessons-room/")
        tokens.add(env["JUPYTERHUB_API_TOKEN"])
    assert len(tokens) == len(got["runs"])

    # The room view on the hub: every student, no-shows "not logged in", the instructor not a student.
    from lessonkit.exercises.s01_loop import exercise  # the starter fails every case s01 has
    cases = len(exercise.cases())
    assert set(got["checks"].values()) == {f"0 {cases}"}, got["checks"]
    view = got["room"]
    assert (view["page"].status_code, view["csv"].status_code, view["feedback"].status_code) == (200, 200, 200)
    import csv
    import io

    table = {r["student"]: r for r in csv.DictReader(io.StringIO(view["csv"].text))}
    assert set(table) == set(users) | set(absent), sorted(set(table) ^ (set(users) | set(absent)))
    assert {n: r["state"] for n, r in table.items() if n in absent} == dict.fromkeys(absent, "not logged in")
    assert {r["state"] for n, r in table.items() if n in users} == {"trying"}
    assert all((r["passed"], r["total"], r["max_points"]) == ("0", str(cases), "10.0") for n, r in table.items() if n in users)
    assert "student(s)" in view["page"].text and users[0] in view["page"].text and ADMIN not in table
    assert (view["student's page"].status_code, view["student's own feedback"].status_code,
            view["another's feedback"].status_code, view["another's records"].status_code,
            view["no token"].status_code) == (403, 200, 403, 403, 403)
    assert got["saved"] == 200, "after a reset as root, the student's own server must be able to save"
    report(got, stop_s)


def report(got: dict, stop_s: float):
    runs, starts = got["runs"], got["starts"]
    seconds = sorted(r["seconds"] for r in runs)
    ready = sorted(s["ready"] for s in starts)
    loaded = sorted(s["loaded"] for s in starts)
    n = len(starts)
    lines = [f"# Hub on loopback: {n} students, each a Unix user, start at once; {len(runs)} run "
             f"work/{LESSON}.ipynb at once",
             f"machine: {os.cpu_count()} CPUs, {psutil.virtual_memory().total / 2**30:.0f} GiB; "
             f"load average (1 min) at the end: {os.getloadavg()[0]:.1f}",
             f"{n} logins at once (browsers: {BROWSER_CONNECTIONS} connections each, {STATIC_FILES} of JupyterLab's "
             f"files): {sum(len(s['statuses']) for s in starts)} requests, "
             f"{sum(len(s['failed']) for s in starts)} failed (5xx); all {n} in {got['start_wall']:.0f} s",
             f"login to server ready: median {ready[n // 2]:.1f} s, max {ready[-1]:.1f} s; "
             f"to JupyterLab loaded: median {loaded[n // 2]:.1f} s, max {loaded[-1]:.1f} s",
             f"notebook run, {len(runs)} users at once: wall {got['wall']:.1f} s; per user median "
             f"{seconds[len(seconds) // 2]:.1f} s, max {seconds[-1]:.1f} s",
             f"memory per user: kernel peak median {sorted(r['kernel_peak_mb'] for r in runs)[len(runs) // 2]:.0f} MiB, "
             f"server {sorted(r['server_mb'] for r in runs)[len(runs) // 2]:.0f} MiB; "
             f"hub + proxy + services + the {n} servers: {got['total_mb']:.0f} MiB",
             f"every student's s01 check at once: kernel websockets reconnected {got['reconnects']} time(s), "
             f"{got['lost']} kernel(s) lost by their server and started again",
             f"the hub stopped (Ctrl-C: SIGTERM) in {stop_s:.1f} s, with {n} servers",
             "", "| user | run s | kernel peak MiB | server MiB |", "|---|---:|---:|---:|"]
    lines += [f"| {r['user']} | {r['seconds']:.1f} | {r['kernel_peak_mb']:.0f} | {r['server_mb']:.0f} |" for r in runs]
    path = ROOT / "artifacts" / "hub" / "report.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n" + "\n".join(lines))


def test_the_idle_culler_stops_an_untouched_server(sandbox):
    hub = Hub(sandbox, WORKSHOP_CULL_TIMEOUT="10")

    async def idle():
        await hub.wait_up()
        await hub.api("POST", "/users", {"usernames": [IDLE]}, ok=(201,))
        await start_server(hub, IDLE)
        start = time.monotonic()
        while (await hub.api("GET", f"/users/{IDLE}")).get("servers"):
            assert time.monotonic() - start < 120, f"not culled in 120 s: {hub.log_tail()}"
            await asyncio.sleep(1)
        return time.monotonic() - start

    try:
        loop = asyncio.new_event_loop()
        try:
            seconds = loop.run_until_complete(idle())
        finally:
            loop.close()
        time.sleep(1)
        assert processes_of(pwd.getpwnam(IDLE).pw_uid) == [], "the culled server's process is still running"
        assert f"Culling server {IDLE} (inactive for" in Path(hub.log.name).read_text(errors="replace"), \
            "stopped, but not by the culler"
    finally:
        hub.stop()
    print(f"\nidle culler: a server idle for WORKSHOP_CULL_TIMEOUT=10 s stopped {seconds:.0f} s after it was ready")


@pytest.mark.parametrize("extra, reason", [
    ({"WORKSHOP_HUB_IP": "0.0.0.0", "WORKSHOP_PASSWORD": ""}, "WORKSHOP_HUB_IP=0.0.0.0 is not loopback and no "
                                                              "WORKSHOP_PASSWORD is set"),
    ({"WORKSHOP_PASSWORD": "short"}, "WORKSHOP_PASSWORD has 5 characters: use 8 or more"),
    ({"WORKSHOP_ADMIN_PASSWORD": "x" * 31}, "WORKSHOP_ADMIN_PASSWORD has 31 characters: use 32 or more"),
    ({"WORKSHOP_KERNELS": "/tmp/" + "k" * 60}, f"WORKSHOP_KERNELS=/tmp/{'k' * 60} is too long for a kernel's "
                                                "socket path (107 bytes at most): use a folder of 46 characters"),
], ids=["open-on-the-network", "short-password", "short-admin-password", "kernel-folder-too-long"])
def test_the_hub_refuses_to_start_saying_why_in_one_line(sandbox, extra, reason):
    env = hub_env(sandbox, WORKSHOP_HUB_PORT=str(free_port_block()), **extra)
    run = subprocess.run([str(HUB_BIN / "jupyterhub"), "-f", str(CONFIG)], cwd=sandbox, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith(f"workshop hub: {reason}"), run.stderr[-1500:]
    assert not (sandbox / "state" / "jupyterhub.sqlite").exists()


def test_a_kernel_folder_another_user_made_first_is_refused(sandbox):
    """A student who makes WORKSHOP_KERNELS before the hub would own every student's kernel folder in it."""
    planted = sandbox / "kernels"
    planted.mkdir()
    os.chown(planted, 65534, 65534)
    env = hub_env(sandbox, WORKSHOP_HUB_PORT=str(free_port_block()))
    run = subprocess.run([str(HUB_BIN / "jupyterhub"), "-f", str(CONFIG)], cwd=sandbox, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert run.stderr.strip().splitlines()[-1] == (f"workshop hub: WORKSHOP_KERNELS={planted} is owned by uid 65534, "
                                                   "not root: remove it or choose another"), run.stderr[-1500:]


def test_the_images_start_command_writes_work_as_uid_1000_in_a_fresh_home(hub_allowed):
    """workshop/start-user, the image's ENTRYPOINT, as z2jh runs it: uid 1000, HOME the (empty) home volume."""
    top = Path(tempfile.mkdtemp(prefix="lessons-image-"))
    try:
        top.chmod(0o711)
        home = top / "jovyan"
        home.mkdir()
        os.chown(home, 1000, 1000)
        command = ["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups", str(ROOT / "workshop" / "start-user"),
                   "python", "-c", "import os; print(os.getuid(), os.getcwd())"]
        env = {"HOME": str(home), "PATH": f"{HUB_BIN}:/usr/bin:/bin", "LANG": "C.UTF-8"}
        first = subprocess.run(command, env=env, cwd="/", capture_output=True, text=True, timeout=300)
        assert first.returncode == 0, first.stderr[-1500:]
        assert first.stdout.strip().splitlines()[-1] == f"1000 {home}"
        notebooks = sorted(p.name for p in (home / "work").glob("*.ipynb"))
        assert notebooks == sorted(p.name for p in (ROOT / "lessons").glob("*.ipynb"))
        assert {p.stat().st_uid for p in (home / "work").rglob("*")} == {1000}
        mine = home / "work" / "s01_loop.ipynb"
        mine.write_text(mine.read_text() + " ")
        again = subprocess.run(command, env=env, cwd="/", capture_output=True, text=True, timeout=300)
        assert again.returncode == 0 and mine.read_text().endswith(" "), "a restart must keep the student's work"
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_a_python_other_users_cannot_run_is_refused_saying_so(sandbox):
    """A pyenv Python under /root (0700) is the usual case: the students' servers could not start."""
    try:
        unreachable = subprocess.run([sys.executable, "-c", "1"], user=65534, group=65534, extra_groups=[],
                                     cwd="/", capture_output=True).returncode != 0
    except OSError:
        unreachable = True
    if not unreachable or not (Path(sys.executable).parent / "jupyterhub").exists():
        pytest.skip(f"{sys.executable} is runnable by other users here (or has no jupyterhub): nothing to refuse")
    env = hub_env(sandbox, WORKSHOP_HUB_PORT=str(free_port_block()))
    run = subprocess.run([str(Path(sys.executable).parent / "jupyterhub"), "-f", str(CONFIG)], cwd=sandbox, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert run.stderr.strip().splitlines()[-1].startswith(f"workshop hub: other users cannot run {sys.executable}")


def guide_hub_commands() -> list[str]:
    """The `make hub` lines of workshop/README.md's hub section, as written."""
    text = (ROOT / "workshop" / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## The room on one machine"):text.index("## A bigger room")]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("#")[0].strip() for line in block.splitlines() if " make hub" in f" {line.split('#')[0]}"]


def kit_copy(top: Path) -> Path:
    """The kit's committed files in `top/kit` (mtimes kept), its .hub/venv the one make test-hub built."""
    copy = top / "kit"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, (f.decode() for f in files)):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy / name)
    (copy / ".hub").mkdir(mode=0o755)
    (copy / ".hub" / "venv").symlink_to(HUB_BIN.parent)
    stamp = (HUB_BIN.parent / ".installed").stat().st_mtime
    os.utime(copy / "pyproject.toml", (stamp - 60, stamp - 60))   # make must not rebuild the shared venv
    return copy


@pytest.mark.parametrize("command", guide_hub_commands())
def test_the_guides_hub_commands_run_as_written(sandbox, command):
    """Each `make hub` line of the guide, in a copy of the kit, on a free port: the hub answers where it says."""
    *assignments, make, target = command.split()
    assert (make, target) == ("make", "hub") and all("=" in a for a in assignments), command
    copy, port = kit_copy(sandbox), free_port_block()
    env = {**os.environ, **dict(a.split("=", 1) for a in assignments), "WORKSHOP_HUB_PORT": str(port)}
    for name in ("WORKSHOP_PASSWORD", "WORKSHOP_ADMIN_PASSWORD", "WORKSHOP_HUB_IP", "WORKSHOP_STATE"):
        env.pop(name, None) if f"{name}=" not in command else None
    log = (sandbox / "make-hub.log").open("w")
    proc = subprocess.Popen(["make", "hub"], cwd=copy, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        import urllib.request
        start = time.monotonic()
        while True:
            assert proc.poll() is None, (sandbox / "make-hub.log").read_text()[-2000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/hub/login", timeout=5) as page:
                    assert page.status == 200
                break
            except OSError:
                assert time.monotonic() - start < 120, (sandbox / "make-hub.log").read_text()[-2000:]
                time.sleep(0.5)
        listening = {c.laddr.ip for c in psutil.net_connections("tcp") if c.laddr.port == port and c.status == "LISTEN"}
        assert listening == {env.get("WORKSHOP_HUB_IP", "127.0.0.1")}
        assert stat.S_IMODE((copy / ".hub" / "state").stat().st_mode) == 0o700
        assert (copy / ".hub" / "state" / "jupyterhub.sqlite").is_file()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(90)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
