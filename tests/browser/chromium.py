"""Find the system's Chromium, installing Debian's package if it is missing.

Never downloads a browser of its own (no `playwright install`): the browser
tests drive the OS package, launched with the flags this machine needs.

    find_chromium() -> "/usr/bin/chromium" | None
    ensure_chromium() -> (path, None) | (None, "why it cannot be installed")
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
APT_PACKAGE = "chromium"
APT_TIMEOUT = 900  # seconds: a first install on a slow mirror
# Headless on a closed network: no sandbox as root, no GPU, and no background
# connections (refused here, many at a time, and slow to fail).
LAUNCH_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)


def find_chromium() -> str | None:
    """The first runnable Chromium: the Debian paths, then PATH."""
    for path in CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _apt(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    # Wait for dpkg's lock rather than fail if another install is running.
    cmd = ["apt-get", "-o", "DPkg::Lock::Timeout=300", "-q", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=APT_TIMEOUT,
                          check=False)


def _tail(proc: subprocess.CompletedProcess) -> str:
    lines = (proc.stderr or proc.stdout or "").strip().splitlines()
    return lines[-1] if lines else f"exit code {proc.returncode}"


def install_chromium() -> str | None:
    """Install Debian's `chromium` with apt-get; returns None, or why it failed (one line)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return ("Chromium is not installed (no /usr/bin/chromium) and the tests do not run as root, "
                f"so `apt-get install {APT_PACKAGE}` cannot run: install the OS package '{APT_PACKAGE}'")
    if shutil.which("apt-get") is None:
        return ("Chromium is not installed (no /usr/bin/chromium) and there is no apt-get to install "
                f"the OS package '{APT_PACKAGE}'")
    try:
        proc = _apt("install", "-y", "--no-install-recommends", APT_PACKAGE)
        if proc.returncode != 0:  # stale or missing package lists: refresh once, then retry
            update = _apt("update")
            if update.returncode != 0:
                return f"`apt-get update` failed while installing Chromium: {_tail(update)}"
            proc = _apt("install", "-y", "--no-install-recommends", APT_PACKAGE)
    except subprocess.TimeoutExpired:
        return f"`apt-get install {APT_PACKAGE}` did not finish in {APT_TIMEOUT} s"
    if proc.returncode != 0:
        return f"`apt-get install {APT_PACKAGE}` failed: {_tail(proc)}"
    return None


def ensure_chromium() -> tuple[str | None, str | None]:
    """(path, None) when Chromium is (now) installed, else (None, the reason)."""
    path = find_chromium()
    if path:
        return path, None
    # One installer at a time across pytest-xdist workers; the others wait, then find it.
    lock = Path(tempfile.gettempdir()) / "agent-lessons-chromium-install.lock"
    with open(lock, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        path = find_chromium()
        if path:
            return path, None
        why = install_chromium()
    if why:
        return None, why
    path = find_chromium()
    if path is None:
        return None, f"`apt-get install {APT_PACKAGE}` succeeded but no chromium binary is on PATH"
    return path, None
