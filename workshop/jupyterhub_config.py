"""JupyterHub for a workshop room: every user gets the kit's student notebooks in ~/work.

    jupyterhub -f workshop/jupyterhub_config.py            (or: make hub)

    browser ──> proxy (configurable-http-proxy, 127.0.0.1:WORKSHOP_HUB_PORT) ──> hub
                                                                            └─> one jupyter server per user
                                                                                (SimpleLocalProcessSpawner,
                                                                                 home WORKSHOP_HOMES/<user>)
Settings (environment):
    WORKSHOP_HUB_IP          where the proxy listens (default 127.0.0.1: this machine only)
    WORKSHOP_HUB_PORT        the proxy's public port (default 8000)
    WORKSHOP_HUB_API_PORT    the hub's own port (default: public + 1); the proxy's API: public + 2
    WORKSHOP_HOMES           the folder holding every user's home (default ./homes)
    WORKSHOP_STATE           where the hub keeps its database, cookie secret and pid file (default .)
    WORKSHOP_AUTHENTICATOR   "dummy" (default: any name, the password WORKSHOP_PASSWORD if set) or any
                             JupyterHub authenticator entry point ("firstuseauthenticator", "github", ...)
    WORKSHOP_ADMIN_TOKEN     if set, a service "workshop-admin" with this token may create users and
                             start servers through the REST API (the hub test uses it)

The dummy authenticator is for a loopback test or a room on a trusted network only: anyone who can
reach the hub can log in. Each user's server is started with the kit's Python (this file's
interpreter), so every user runs the same lessonkit; before a server starts, `student` writes the
missing student notebooks into the user's ~/work (never overwriting a student's work).
"""

import os
import sys
from pathlib import Path

from lessonkit.workshop.student import write_students

c = get_config()  # noqa: F821 - JupyterHub's config loader provides it

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
env = os.environ.get
port = int(env("WORKSHOP_HUB_PORT", "8000"))
state = Path(env("WORKSHOP_STATE", ".")).resolve()
homes = Path(env("WORKSHOP_HOMES", "homes")).resolve()

# Network: everything on loopback unless WORKSHOP_HUB_IP says otherwise.
c.JupyterHub.bind_url = f"http://{env('WORKSHOP_HUB_IP', '127.0.0.1')}:{port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(env("WORKSHOP_HUB_API_PORT", str(port + 1)))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{port + 2}"
c.ConfigurableHTTPProxy.command = [str(BIN / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.should_start = True
c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(state / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True     # stopping the hub stops every user's server
c.JupyterHub.cleanup_proxy = True

# Users: a local process per user, each in its own home under WORKSHOP_HOMES.
c.JupyterHub.spawner_class = "simple"   # jupyterhub.spawner.SimpleLocalProcessSpawner
c.SimpleLocalProcessSpawner.home_dir_template = str(homes / "{username}")
c.Spawner.cmd = [str(BIN / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab/tree/work/s01_loop.ipynb"
c.Spawner.args = ["--allow-root"] if os.geteuid() == 0 else []
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.Spawner.environment = {"LESSONS_BACKEND": env("LESSONS_BACKEND", "offline")}
for name in ("LESSONS_CASSETTE", "LESSONS_REPLAY"):
    if env(name):
        c.Spawner.environment[name] = env(name)


def give_student_notebooks(spawner):
    """Before a server starts: the user's home, and the student notebooks missing from ~/work."""
    home = Path(spawner.home_dir_template.format(username=spawner.user.name))
    home.mkdir(parents=True, exist_ok=True)
    write_students(REPO / "lessons", home / "work")


c.Spawner.pre_spawn_hook = give_student_notebooks

# Who may log in.
c.JupyterHub.authenticator_class = env("WORKSHOP_AUTHENTICATOR", "dummy")
if env("WORKSHOP_PASSWORD"):
    c.DummyAuthenticator.password = env("WORKSHOP_PASSWORD")
c.Authenticator.allow_all = True

# The REST API for the test (or an instructor's script): a service with admin scopes.
if env("WORKSHOP_ADMIN_TOKEN"):
    c.JupyterHub.services = [{"name": "workshop-admin", "api_token": env("WORKSHOP_ADMIN_TOKEN")}]
    c.JupyterHub.load_roles = [{"name": "workshop-admin", "services": ["workshop-admin"],
                                "scopes": ["admin:users", "admin:servers", "access:servers", "read:users"]}]
