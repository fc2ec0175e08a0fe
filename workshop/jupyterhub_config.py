"""JupyterHub for a workshop room on one machine: every student a Unix user of their own.

    sudo make hub            (or, as root: jupyterhub -f workshop/jupyterhub_config.py from the hub's venv)

    browser ──> proxy (configurable-http-proxy, WORKSHOP_HUB_IP:WORKSHOP_HUB_PORT) ──> hub (127.0.0.1, root)
                   │  (lessonkit.workshop.hubproxy: up to        │                   ├─> idle culler (a service)
                   │   WORKSHOP_PROXY_CLIENTS requests at once)  │                   └─> room service (lessons-room,
                   │                                             │                       as nobody, :port+3)
                   └──────────────> one server per student, run as that student's Unix user in their home
                                    WORKSHOP_HOMES/<name> (0700); its checks report to the room service

Settings (environment):
    WORKSHOP_HUB_IP          where the proxy listens (default 127.0.0.1: this machine only)
    WORKSHOP_HUB_PORT        the proxy's public port (default 8000); the hub: +1, the proxy's API: +2
    WORKSHOP_HOMES           the folder of the students' homes (default ./homes); a login may only use a
                             Unix account whose home is in it, so `root` or your own account is refused
    WORKSHOP_STATE           the hub's database, cookie secret and pid file (default ./state; made 0700)
    WORKSHOP_KERNELS         where each student's kernels listen: <folder>/<uid>, the student's own 0700 folder
                             of Unix sockets (default /run/lessons-kernels). Kernels on TCP ports took their ports
                             at once from the same pool, so two students' kernels could draw the same port; the
                             second never started and its notebook waited forever. A socket path must fit the
                             107 bytes Unix allows: a longer folder is refused at start
    WORKSHOP_ROOM_STATE      the room service's records (default: room/ beside the state folder; nobody's, 0700)
    WORKSHOP_PASSWORD        the students' shared password (8+ characters). Unset: any name logs in with any
                             password, which is allowed on a loopback address only
    WORKSHOP_USERS           names allowed to log in, comma-separated (default: any name)
    WORKSHOP_ADMIN           the instructor's name (default instructor), an admin named here, never the first
                             to log in: it logs in only with WORKSHOP_ADMIN_PASSWORD (32+ characters)
    WORKSHOP_CULL_TIMEOUT    seconds idle before jupyterhub-idle-culler stops a server (default 3600)
    WORKSHOP_MEM_LIMIT       address space of each student process, server and kernels (default 2G;
                             a kernel going past it gets MemoryError). CPU is not limited by this spawner
    WORKSHOP_ADMIN_TOKEN     if set, a service "workshop-admin" with this token may create users and start
                             servers through the REST API (the hub test uses it)
    WORKSHOP_PROXY_CLIENTS   requests the proxy forwards at once (default 1000; its library's own default, 10,
                             turned a room starting together into 503s)
    WORKSHOP_PROXY_TIMEOUT   seconds a server may take to answer through the proxy (default 600; the library's
                             20 cut kernels' websockets off while a room's kernels started)
    WORKSHOP_STOP_S          seconds the hub waits for a server or service to stop at each of SIGINT, SIGTERM
                             (default 3), so Ctrl-C stops the hub in seconds
    LESSONS_BACKEND, LESSONS_CASSETTE, LESSONS_REPLAY   passed on to every student's server (LESSONS_REPLAY_QUIET
                             too, default 1: a cassette miss is not printed in a student's notebook)

A student's environment is built here, not inherited: PATH, LANG, the LESSONS_* settings and the
variables JupyterHub gives every server (its own API token); nothing else of the hub's environment
(ANTHROPIC_API_KEY, WORKSHOP_*) reaches it. Servers run this file's Python, so it and the kit must be
readable by every user: the hub refuses to start, saying so, when they are not.
"""

import ipaddress
import os
import pwd
import resource
import socket
import subprocess
import sys
from pathlib import Path

from jupyterhub.auth import LocalAuthenticator
from jupyterhub.authenticators.shared import SharedPasswordAuthenticator
from jupyterhub.spawner import LocalProcessSpawner

c = get_config()  # noqa: F821 - JupyterHub's config loader provides it

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
env = os.environ.get
port = int(env("WORKSHOP_HUB_PORT", "8000"))
ip = env("WORKSHOP_HUB_IP", "127.0.0.1")
state = Path(env("WORKSHOP_STATE", "state")).resolve()
homes = Path(env("WORKSHOP_HOMES", "homes")).resolve()
kernels = Path(env("WORKSHOP_KERNELS", "/run/lessons-kernels")).resolve()
SOCKET_MAX = 107   # bytes of a Unix socket's path (sun_path is 108 with its NUL)
KERNEL_SOCKET = "/4294967295/kernel-00000000-0000-0000-0000-000000000000-ipc-5"   # the longest uid and name
password = env("WORKSHOP_PASSWORD") or None
admin = env("WORKSHOP_ADMIN", "instructor")


def refuse(reason: str):
    """Stop before anything starts, with one line on stderr (a SystemExit here would leave JupyterHub's
    event loop running, so the process ends at once: nothing has started yet)."""
    print(f"workshop hub: {reason}", file=sys.stderr, flush=True)
    os._exit(2)


def is_loopback(host: str) -> bool:
    """127.0.0.1, ::1 or localhost: only this machine can connect. Example: '0.0.0.0' -> False."""
    try:
        return all(ipaddress.ip_address(a[4][0]).is_loopback for a in socket.getaddrinfo(host, None))
    except (OSError, ValueError):
        return False


# Refusals: an open door on the network, a hub that cannot switch users, a kit the users cannot run.
if password is None and not is_loopback(ip):
    refuse(f"WORKSHOP_HUB_IP={ip} is not loopback and no WORKSHOP_PASSWORD is set: anyone who reaches it "
           "could log in as anyone; set WORKSHOP_PASSWORD (and WORKSHOP_ADMIN_PASSWORD) or use 127.0.0.1")
if password is not None and len(password) < 8:
    refuse(f"WORKSHOP_PASSWORD has {len(password)} characters: use 8 or more")
if env("WORKSHOP_ADMIN_PASSWORD") and len(env("WORKSHOP_ADMIN_PASSWORD")) < 32:
    refuse(f"WORKSHOP_ADMIN_PASSWORD has {len(env('WORKSHOP_ADMIN_PASSWORD'))} characters: use 32 or more")
if os.geteuid() != 0:
    refuse("run it as root: each student's server runs as the student's own Unix user, which only root can start")
try:   # as nobody: can another user run this Python and import the kit?
    probe = subprocess.run([sys.executable, "-c", "import lessonkit.workshop, jupyterhub"], user=65534, group=65534,
                           extra_groups=[], cwd="/", capture_output=True, env={"PATH": "/usr/bin:/bin"}).returncode
except OSError:
    probe = 1
if probe:
    refuse(f"other users cannot run {sys.executable} with the kit ({REPO}); make hub builds .hub/venv from a "
           "Python every user can read (HUB_PYTHON, default /usr/bin/python3), in a folder they can reach")
if len(os.fsencode(f"{kernels}{KERNEL_SOCKET}")) > SOCKET_MAX:
    refuse(f"WORKSHOP_KERNELS={kernels} is too long for a kernel's socket path ({SOCKET_MAX} bytes at most): "
           f"use a folder of {SOCKET_MAX - len(KERNEL_SOCKET)} characters or fewer")
for folder, mode in ((state, 0o700), (homes, 0o711)):
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(mode)
kernels.mkdir(parents=True, exist_ok=True)
if kernels.lstat().st_uid != 0:   # a folder someone else made first: they could enter every kernel folder
    refuse(f"WORKSHOP_KERNELS={kernels} is owned by uid {kernels.lstat().st_uid}, not root: "
           "remove it or choose another")
kernels.chmod(0o711)

# Network: the proxy where WORKSHOP_HUB_IP says, the hub and the proxy's API on loopback.
c.JupyterHub.bind_url = f"http://{ip}:{port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(env("WORKSHOP_HUB_API_PORT", str(port + 1)))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{port + 2}"
c.ConfigurableHTTPProxy.command = [sys.executable, "-m", "lessonkit.workshop.hubproxy"]   # no queue of 10
c.ConfigurableHTTPProxy.should_start = True
# The hub's state, readable by root only: a 0700 folder, a 0600 database (SQLite's journal copies it).
db = state / "jupyterhub.sqlite"
db.touch(mode=0o600)
db.chmod(0o600)
c.JupyterHub.db_url = f"sqlite:///{db}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")   # JupyterHub writes it 0600
c.JupyterHub.pid_file = str(state / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True     # stopping the hub stops every user's server
c.JupyterHub.cleanup_proxy = True


def own_account(name: str):
    """The Unix account `name` if this hub made it (home in WORKSHOP_HOMES), else None."""
    try:
        account = pwd.getpwnam(name)
    except KeyError:
        return None
    return account if Path(account.pw_dir).parent == homes and account.pw_uid >= 1000 else None


class WorkshopAuthenticator(LocalAuthenticator, SharedPasswordAuthenticator):
    """JupyterHub's shared-password login, creating a Unix user with a private home on first login."""

    async def authenticate(self, handler, data):
        name = self.normalize_username(data["username"])
        try:
            pwd.getpwnam(name)
            if own_account(name) is None:
                self.log.warning("refused %r: a Unix account this hub did not create", name)
                return None
        except KeyError:
            pass
        if password is None and name not in self.admin_users:   # the loopback-only open room
            return {"name": name, "admin": False}
        return await super().authenticate(handler, data)

    def system_user_exists(self, user):
        if super().system_user_exists(user) and own_account(user.name) is None:
            raise ValueError(f"{user.name!r} is a Unix account this hub did not create")
        return super().system_user_exists(user)

    def add_system_user(self, user):
        super().add_system_user(user)
        os.chmod(homes / user.name, 0o700)


def make_kernel_folder(account) -> Path:
    """The student's kernels' folder, made afresh at each start: <WORKSHOP_KERNELS>/<uid>, theirs, 0700 (nothing
    of an earlier server, or of an earlier user with the same uid, is left in it).
    Example: uid 1001 -> /run/lessons-kernels/1001, drwx------ 1001:1001, empty"""
    import shutil

    folder = kernels / str(account.pw_uid)
    if folder.is_dir() and not folder.is_symlink():
        shutil.rmtree(folder)   # never follows a link inside it
    elif folder.is_symlink() or folder.exists():
        folder.unlink()
    folder.mkdir(mode=0o700)
    os.chown(folder, account.pw_uid, account.pw_gid)
    return folder


class WorkshopSpawner(LocalProcessSpawner):
    """A local process as the student, with its address space capped by mem_limit (RLIMIT_AS), and its kernels
    on Unix sockets in a folder of the student's own (WORKSHOP_KERNELS), never on TCP ports."""

    def student(self):
        account = own_account(self.user.name)
        if account is None:
            raise ValueError(f"{self.user.name!r} is not a student account of this hub")
        return account

    async def start(self):
        make_kernel_folder(self.student())
        return await super().start()

    def get_env(self):
        env = super().get_env()
        env["JUPYTER_RUNTIME_DIR"] = str(kernels / str(self.student().pw_uid))   # connection files, kernel sockets
        return env

    def make_preexec_fn(self, name):
        self.student()   # only an account this hub made
        switch_user, limit = super().make_preexec_fn(name), self.mem_limit

        def preexec():
            if limit:   # set while still root: the student cannot raise it again
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            switch_user()
        return preexec


c.JupyterHub.authenticator_class = WorkshopAuthenticator
c.WorkshopAuthenticator.create_system_users = True
c.WorkshopAuthenticator.add_user_cmd = ["useradd", "--create-home", "--home-dir", f"{homes}/USERNAME",
                                        "--shell", "/bin/bash", "--user-group"]
c.Authenticator.username_pattern = r"^[a-z][a-z0-9_-]{0,30}$"
c.Authenticator.admin_users = {admin}
if env("WORKSHOP_ADMIN_PASSWORD"):
    c.SharedPasswordAuthenticator.admin_password = env("WORKSHOP_ADMIN_PASSWORD")
if password:
    c.SharedPasswordAuthenticator.user_password = password
if env("WORKSHOP_USERS"):
    c.Authenticator.allowed_users = {u.strip() for u in env("WORKSHOP_USERS").split(",") if u.strip()}
else:
    c.Authenticator.allow_all = True

c.JupyterHub.spawner_class = WorkshopSpawner
c.Spawner.cmd = [str(REPO / "workshop" / "start-user"), str(BIN / "jupyterhub-singleuser")]
c.Spawner.args = ["--KernelManager.transport=ipc"]   # kernels on Unix sockets in JUPYTER_RUNTIME_DIR
c.Spawner.default_url = "/lab/tree/work/s01_loop.ipynb"
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.Spawner.mem_limit = env("WORKSHOP_MEM_LIMIT", "2G")
c.Spawner.env_keep = ["LANG", "LC_ALL"]
room_port = int(env("WORKSHOP_ROOM_PORT", str(port + 3)))
c.Spawner.environment = {"PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin",
                         "LESSONS_BACKEND": env("LESSONS_BACKEND", "offline"),
                         "LESSONS_REPLAY_QUIET": env("LESSONS_REPLAY_QUIET", "1"),
                         # each check's record also goes to the room service, with the server's own token
                         "LESSONS_ROOM_URL": f"http://127.0.0.1:{room_port}/services/lessons-room/"}
for name in ("LESSONS_CASSETTE", "LESSONS_REPLAY"):
    if env(name):
        c.Spawner.environment[name] = env(name)
stop_s = int(env("WORKSHOP_STOP_S", "3"))   # each of SIGINT, SIGTERM, SIGKILL waits this long (default 10, 5, 5)
c.LocalProcessSpawner.interrupt_timeout = c.LocalProcessSpawner.term_timeout = stop_s
c.LocalProcessSpawner.kill_timeout = stop_s

# Services: the idle culler and the room service always; the REST API for the test (or an instructor's script)
# on request. The room service runs as nobody, its records in WORKSHOP_ROOM_STATE (nobody's, 0700).
timeout = int(env("WORKSHOP_CULL_TIMEOUT", "3600"))
room_state = Path(env("WORKSHOP_ROOM_STATE", str(state.parent / "room"))).resolve()
room_state.mkdir(mode=0o700, parents=True, exist_ok=True)
os.chown(room_state, 65534, 65534)
room_state.chmod(0o700)
c.JupyterHub.services = [
    {"name": "idle-culler", "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={timeout}",
                                        f"--cull-every={max(5, timeout // 4)}"]},
    {"name": "lessons-room", "url": f"http://127.0.0.1:{room_port}", "user": pwd.getpwuid(65534).pw_name,
     "command": [sys.executable, "-m", "lessonkit.workshop", "room-service"], "cwd": str(room_state),
     "environment": {"LESSONS_ROOM_STATE": str(room_state), "PATH": "/usr/bin:/bin"}, "oauth_no_confirm": True},
]
c.JupyterHub.load_roles = [
    {"name": "idle-culler", "services": ["idle-culler"],
     "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]},
    {"name": "lessons-room", "services": ["lessons-room"], "scopes": ["list:users", "read:users"]},
    # every user may open the room service: it shows a student their own feedback page, the room to admins
    {"name": "user", "scopes": ["self", "access:services!service=lessons-room"]},
]
# a server's own token (JUPYTERHUB_API_TOKEN, in its kernels): JupyterHub's `server` role, and the room service,
# so a check can report its record and a notebook can show its student's own feedback
c.Spawner.server_token_scopes = ["users:activity!user", "access:servers!server",
                                 "access:services!service=lessons-room"]
if env("WORKSHOP_ADMIN_TOKEN"):
    c.JupyterHub.services.append({"name": "workshop-admin", "api_token": env("WORKSHOP_ADMIN_TOKEN")})
    c.JupyterHub.load_roles.append({"name": "workshop-admin", "services": ["workshop-admin"], "scopes": [
        "admin:users", "admin:servers", "access:servers", "read:users", "tokens"]})
