"""The grading processes' view of the machine: a private mount namespace that holds only what they need.

    enter(folder, keep=[...], write=[...], proc=True)      as root, in the calling process:

      unshare(CLONE_NEWNS), every mount made private (nothing propagates back to the machine)
      folder ── a small tmpfs, the new root ──┬─ keep:  the system's programs and libraries, the Python,
                                             │         the kit's copy ............ bound read-only, nosuid
                                             ├─ write: the run's own folders ...... bound read-write, nosuid
                                             ├─ /tmp   an empty tmpfs of its own
                                             ├─ /dev   null, zero, random, urandom only
                                             └─ /proc  this process's PID namespace (when proc)
      chroot(folder): every other file of the machine is gone (the kit's checkout with the reference
      solutions and lessons, other copies of the kit, homes, /tmp, /run, the hub's state)

The judge enters one (so a link a child plants in a case's folder leads nowhere outside it, and the
kit copy it runs is read-only even to root); the grading child enters its own after importing what it
needs, then drops to its uid. Each child also runs in new PID, network, IPC and UTS namespaces
(`unshare`, child.py): it sees and can signal only its own processes, reaches no network, and every
process it starts dies with it.

Example: enter(Path("/tmp/x/jail"), keep=[Path("/usr"), Path(sys.prefix)], write=[Path("/tmp/x/run")])
  -> os.listdir("/") == ["dev", "proc", "tmp", "usr", ...]; open("/etc/shadow") raises FileNotFoundError
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_NO_NEW_PRIVS = 38
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")   # programs and shared libraries
ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime")   # what the loader and the C library read
ETC_MAX = 4 << 20   # copied, not bound: `useradd` replaces files of /etc, and a bound file would go stale
DEVICES = ("null", "zero", "random", "urandom")
TMP_SIZE = "64m"     # the jail's own /tmp


class JailError(OSError):
    """The mount namespace could not be made (not root, or no CAP_SYS_ADMIN in a container)."""


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    return libc


def _call(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise JailError(err, f"{what}: {os.strerror(err)}")


def _mount(libc, source, target, fstype, flags, data=None) -> None:
    enc = (lambda s: None if s is None else os.fsencode(str(s)))
    _call(libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)), f"mount {source} on {target}")


def python_paths() -> list[Path]:
    """The Python this process runs: its prefixes and every folder on sys.path (site-packages)."""
    found = [Path(sys.base_prefix), Path(sys.prefix), Path(sys.executable).parent]
    found += [Path(p) for p in sys.path if p and os.path.isdir(p)]
    return found


def _minimal(paths) -> list[Path]:
    """Real paths, each once, without one that lies inside another."""
    real = sorted({Path(os.path.realpath(p)) for p in paths if os.path.lexists(p)}, key=lambda p: len(p.parts))
    out: list[Path] = []
    for p in real:
        if not any(p == q or q in p.parents for q in out):
            out.append(p)
    return out


def _bind(libc, root: Path, path: Path, *, writable: bool) -> None:
    target = root / path.relative_to("/")
    if path.is_dir():
        target.mkdir(parents=True, exist_ok=True)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch(exist_ok=True)
    _mount(libc, path, target, None, MS_BIND | MS_REC)
    flags = MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | (0 if writable else MS_RDONLY)
    _mount(libc, None, target, None, flags)


def enter(folder: Path, *, keep=(), write=(), hide=(), proc: bool = True) -> None:
    """Make `folder` this process's whole filesystem (see the module's docstring). `hide`: folders inside
    what is kept that must look empty (another copy of the kit in site-packages). Raises JailError."""
    if os.geteuid() != 0:
        raise JailError(1, "a jail needs root")
    libc = _libc()
    _call(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)           # nothing done here reaches the machine
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    _mount(libc, "tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=0755")
    old = os.umask(0o022)
    try:
        for link in SYSTEM:   # a merged /usr: /bin -> usr/bin stays a link
            if os.path.islink(link):
                (root / link[1:]).symlink_to(os.readlink(link))
        keep_real = _minimal([p for p in SYSTEM if not os.path.islink(p)] + list(keep))
        (root / "etc").mkdir()
        for name in ETC:
            _copy(Path(name), root / name[1:])
        write_real = _minimal(write)
        (root / "tmp").mkdir()
        _mount(libc, "tmpfs", root / "tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={TMP_SIZE},mode=1777")
        for path in sorted(keep_real, key=lambda p: len(p.parts)):
            if not any(w == path or path in w.parents for w in write_real):
                _bind(libc, root, path, writable=False)
        for path in sorted(write_real, key=lambda p: len(p.parts)):
            _bind(libc, root, path, writable=True)
        for path in hide:
            target = root / Path(os.path.realpath(path)).relative_to("/")
            if target.is_dir():
                _mount(libc, "tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "size=4k,mode=0555")
        dev = root / "dev"
        dev.mkdir()
        _mount(libc, "tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=4k,mode=0755")
        for name in DEVICES:
            (dev / name).touch()
            _mount(libc, f"/dev/{name}", dev / name, None, MS_BIND)
        (root / "proc").mkdir()
        if proc:
            _mount(libc, "proc", root / "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    finally:
        os.umask(old)
    cwd = os.getcwd()
    os.chroot(root)
    os.chdir(cwd if os.path.isdir(cwd) else "/")


def _copy(source: Path, target: Path) -> None:
    """A small regular file copied in (a link followed: /etc/localtime), or nothing."""
    try:
        with open(source, "rb") as data:
            body = data.read(ETC_MAX + 1)
    except OSError:
        return
    if len(body) <= ETC_MAX:
        target.write_bytes(body)
        target.chmod(0o644)


def no_new_privileges() -> None:
    """No setuid program can raise this process's rights again (prctl PR_SET_NO_NEW_PRIVS)."""
    _call(_libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")


def kit_copies(paths) -> list[Path]:
    """Folders in `paths` (site-packages) holding an installed copy of the kit's packages, to hide."""
    import re

    stage = re.compile(r"^(s\d\d_\w+|lessonkit)$")
    out = []
    for folder in paths:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        out += [Path(folder) / n for n in names if stage.match(n) and os.path.isdir(Path(folder) / n)]
    return out
