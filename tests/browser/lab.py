"""A throwaway JupyterLab server on 127.0.0.1, for the browser tests.

    LabServer(root_dir, state_dir).start() -> .url("x.ipynb") -> ... -> .stop()

Runs the venv's `python -m jupyter lab` on a free port with a random token. Every
directory it could read user state from (config, data, runtime, IPython, lab
settings and workspaces) points into `state_dir`, so nothing of the user's leaks
in and nothing of the test leaks out; the kernel is the venv's own Python and
the lessons' offline backend. `stop()` shuts the kernels and the server down
and ends any process still holding this server's runtime dir.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

START_TIMEOUT = 90  # seconds until /api/status answers (slow, shared machines)
STOP_TIMEOUT = 15
# Lab settings a fresh user would otherwise meet: no news or update toasts, every
# cell in the DOM (no windowing), the default kernel without a dialog.
USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification": {"checkForUpdates": False, "fetchNews": "false"},
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none",
                                               "autoStartDefaultKernel": True},
}
# The notebooks run offline whatever the developer's shell says.
SCRUBBED_PREFIXES = ("ANTHROPIC_", "LESSONS_", "JUPYTER", "IPYTHON", "MODEL_ID")


def free_port() -> int:
    """A port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LabServer:
    def __init__(self, root_dir: Path, state_dir: Path):
        self.root_dir = Path(root_dir)
        self.state = Path(state_dir)
        self.token = secrets.token_hex(24)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = self.state / "jupyterlab.log"
        self.proc: subprocess.Popen | None = None

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> LabServer:
        dirs = {name: self.state / name for name in
                ("config", "data", "runtime", "ipython", "settings", "workspaces")}
        for path in dirs.values():
            path.mkdir(parents=True, exist_ok=True)
        for plugin, values in USER_SETTINGS.items():
            target = dirs["settings"] / f"{plugin}.jupyterlab-settings"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(values))
        env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED_PREFIXES)}
        env.update(
            JUPYTER_CONFIG_DIR=str(dirs["config"]), JUPYTER_DATA_DIR=str(dirs["data"]),
            JUPYTER_RUNTIME_DIR=str(dirs["runtime"]), IPYTHONDIR=str(dirs["ipython"]),
            JUPYTER_PREFER_ENV_PATH="1", JUPYTER_TOKEN=self.token,
            LESSONS_BACKEND="offline", PYDEVD_DISABLE_FILE_VALIDATION="1",
        )
        cmd = [
            sys.executable, "-m", "jupyter", "lab", "--no-browser",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0", f"--ServerApp.root_dir={self.root_dir}",
            "--ServerApp.allow_root=True",  # CI containers run as root; harmless otherwise
            f"--LabApp.user_settings_dir={dirs['settings']}",
            f"--LabApp.workspaces_dir={dirs['workspaces']}",
            "--LabApp.expose_app_in_browser=True",
            "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
        ]
        self._log = open(self.log_path, "w")  # noqa: SIM115 (the server's lifetime; closed by stop())
        # Its own session: stop() can signal the server without touching pytest.
        self.proc = subprocess.Popen(cmd, cwd=self.root_dir, env=env, stdin=subprocess.DEVNULL,
                                     stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with code {self.proc.returncode} before "
                                   f"answering /api/status:\n{self.log_tail()}")
            try:
                self.api("status")
                return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.2)
        raise RuntimeError(f"JupyterLab did not answer {self.base}/api/status within "
                           f"{START_TIMEOUT} s:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:  # the clean way: the server shuts its kernels down, then itself
                self.api("shutdown", method="POST")
                self.proc.wait(STOP_TIMEOUT)
            except (OSError, ValueError, subprocess.TimeoutExpired):  # URLError is an OSError
                self._signal(signal.SIGTERM)
                try:
                    self.proc.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self._signal(signal.SIGKILL)
                    self.proc.wait(STOP_TIMEOUT)
        self._end_orphans()
        self._log.close()
        self.proc = None

    def _signal(self, sig) -> None:
        try:
            os.kill(self.proc.pid, sig)
        except ProcessLookupError:
            pass

    def _end_orphans(self) -> None:
        """End kernels left behind: those whose command line names this server's runtime dir."""
        marker = str(self.state / "runtime").encode()
        for entry in Path("/proc").glob("[0-9]*"):
            try:
                if marker in (entry / "cmdline").read_bytes():
                    os.kill(int(entry.name), signal.SIGKILL)
            except (OSError, ValueError):
                continue

    # -- talking to it --------------------------------------------------------------------
    def api(self, path: str, method: str = "GET"):
        """JSON from /api/<path>, authenticated with the token."""
        req = urllib.request.Request(f"{self.base}/api/{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"},
                                     data=b"" if method == "POST" else None)
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def url(self, notebook: str) -> str:
        """The address a user would open for `notebook` (relative to the root dir)."""
        return f"{self.base}/lab/tree/{notebook}?token={self.token}"

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"
