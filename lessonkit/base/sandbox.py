"""The OS sandbox: what a bash command may touch, enforced by the kernel, whatever the parser thought.

    bash -c command ──> fork ──> in the child, before exec (preexec):
                                   1. unshare: a user namespace (no privilege left, even for root:
                                      no clock, hostname or kernel modules), a private mount namespace,
                                      IPC namespace and network namespace (only a loopback that is down)
                                   2. every mount read-only (no chmod, chown, touch -d or xattr anywhere),
                                      but bind mounts of the folders the command may write:
                                        read-only commands  -> a private temp dir
                                        approved commands   -> the workspace too
                                      and the agent's record folders (s05's results, s06's
                                      transcripts) read-only again, inside the workspace
                                   3. Landlock: read and run anything; write only to those folders and
                                      /dev/null; no TCP bind/connect (ABI >= 4), no signals out (ABI >= 6)
                                 ──> exec bash: a write elsewhere fails with "Permission denied"
                                     or "Read-only file system", and nothing changes

Landlock (Linux >= 5.13) needs no privilege and no package: three system calls, called here
through ctypes. It covers creating, writing, deleting and renaming files, not their metadata
(mode, owner, times): the read-only mounts cover those. The ruleset is built in the parent, so
the child only calls unshare, mount, prctl and landlock_restrict_self. Nothing is assumed:
`probe()` runs a real confined command that tries to write, chmod and touch, and the sandbox
counts as there only if all of it failed and nothing changed.

Example: confine(Policy(writable=(tmp,)))  -> a preexec function for subprocess.Popen
         probe() -> Probe(ok=True, why='Landlock ABI 7, user, mount, IPC and network namespaces')

Not modeled: reading. A confined command reads anything the user can (your ~/.ssh too); its
output goes to the model. Unix sockets named by a path (Landlock ABI < 9 does not cover them),
and what an approved command does to the workspace (that is what the user said yes to). Linux
only: elsewhere (macOS, Windows) there is no sandbox and every command asks.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

__all__ = ["Policy", "Probe", "confine", "landlock_abi", "probe"]

MIN_ABI = 3  # Landlock ABI 3 (Linux 6.2) also handles truncate(2); before it a file could be emptied

# Landlock's constants (linux/landlock.h) and the system calls' numbers (the same on every arch).
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
FS = {  # right: the first ABI that has it
    "EXECUTE": (1 << 0, 1), "WRITE_FILE": (1 << 1, 1), "READ_FILE": (1 << 2, 1), "READ_DIR": (1 << 3, 1),
    "REMOVE_DIR": (1 << 4, 1), "REMOVE_FILE": (1 << 5, 1), "MAKE_CHAR": (1 << 6, 1), "MAKE_DIR": (1 << 7, 1),
    "MAKE_REG": (1 << 8, 1), "MAKE_SOCK": (1 << 9, 1), "MAKE_FIFO": (1 << 10, 1), "MAKE_BLOCK": (1 << 11, 1),
    "MAKE_SYM": (1 << 12, 1), "REFER": (1 << 13, 2), "TRUNCATE": (1 << 14, 3), "IOCTL_DEV": (1 << 15, 5),
}
FILE_RIGHTS = ("EXECUTE", "WRITE_FILE", "READ_FILE", "TRUNCATE", "IOCTL_DEV")  # what a rule on a file may grant
READ_RIGHTS = ("EXECUTE", "READ_FILE", "READ_DIR")
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1          # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6
PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWNET = 0x00020000, 0x08000000, 0x10000000, 0x40000000
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
SYS_MOUNT_SETATTR, AT_FDCWD, AT_RECURSIVE, MOUNT_ATTR_RDONLY = 442, -100, 0x8000, 0x1  # Linux 5.12+, every arch
WRITABLE_FILES = ("/dev/null",)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64), ("propagation", ctypes.c_uint64),
                ("userns_fd", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@cache
def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
    libc.unshare.argtypes = [ctypes.c_int]
    return libc


def _fail(what: str) -> OSError:
    err = ctypes.get_errno()
    return OSError(err, f"{what}: {os.strerror(err)}")


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 where there is none (not Linux, an old kernel, switched off).

    Example: landlock_abi() -> 7 (Linux 6.15+), 0 on macOS
    """
    if os.uname().sysname != "Linux":
        return 0
    try:
        abi = _libc().syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0),
                              ctypes.c_uint32(CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(int(abi), 0)


def _rights(abi: int, names=None) -> int:
    return sum(bit for name, (bit, since) in FS.items() if since <= abi and (names is None or name in names))


@dataclass(frozen=True)
class Policy:
    """What one command may do. writable: folders (and their contents) it may change; read_only:
    folders under those that stay read-only (the agent's record); network: may it connect?"""
    writable: tuple = ()
    read_only: tuple = ()
    network: bool = False


def _ruleset(policy: Policy, abi: int) -> int:
    """A Landlock ruleset fd: read and run everywhere, write only where `policy` says."""
    libc = _libc()
    attr = _RulesetAttr(_rights(abi), (NET_BIND_TCP | NET_CONNECT_TCP) if abi >= 4 and not policy.network else 0,
                        (SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24  # the struct grew with the ABI: send what it knows
    fd = libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        raise _fail("landlock_create_ruleset")
    try:
        rules = [("/", _rights(abi, READ_RIGHTS))]
        rules += [(str(p), _rights(abi)) for p in policy.writable]  # every right, beneath these folders
        rules += [(p, _rights(abi, FILE_RIGHTS)) for p in WRITABLE_FILES if os.path.exists(p)]
        for path, access in rules:
            pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneath(access, pfd)
                if libc.syscall(SYS_ADD_RULE, fd, RULE_PATH_BENEATH, ctypes.byref(rule), 0) < 0:
                    raise _fail(f"landlock_add_rule {path}")
            finally:
                os.close(pfd)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read_only(libc, path: bytes, read_only: bool, recursive: bool) -> None:
    """Make the mount at `path` (and those under it, if `recursive`) read-only, or writable again."""
    attr = _MountAttr(MOUNT_ATTR_RDONLY if read_only else 0, 0 if read_only else MOUNT_ATTR_RDONLY, 0, 0)
    if libc.syscall(SYS_MOUNT_SETATTR, ctypes.c_int(AT_FDCWD), ctypes.c_char_p(path),
                    ctypes.c_uint(AT_RECURSIVE if recursive else 0), ctypes.byref(attr),
                    ctypes.c_size_t(ctypes.sizeof(attr))) != 0:
        raise _fail(f"mount_setattr {path.decode()}")


def confine(policy: Policy, *, abi: int | None = None):
    """A preexec function for subprocess.Popen that confines the child to `policy`, and a close()
    for the parent (call it after Popen). The work that can fail slowly is done here, in the parent.

    Example: preexec, close = confine(Policy(writable=(tmp,)))
             subprocess.Popen(["bash", "-c", "touch x"], preexec_fn=preexec); close()  -> bash: x: Permission denied
    """
    if not isinstance(policy, Policy):
        raise ValueError(f"confine() needs a Policy, not {type(policy).__name__}")
    abi = landlock_abi() if abi is None else abi
    if not isinstance(abi, int) or isinstance(abi, bool):
        raise ValueError(f"abi must be an int, not {type(abi).__name__}")
    if abi < MIN_ABI:
        raise OSError(f"Landlock ABI {abi} is too old (>= {MIN_ABI} needed)")
    fd = _ruleset(policy, abi)
    libc, uid, gid = _libc(), os.geteuid(), os.getegid()
    writable = [str(p).encode() for p in policy.writable if os.path.isdir(p)]
    writable = [p for p in writable if not os.statvfs(p).f_flag & os.ST_RDONLY]  # a read-only one stays so
    records = [str(p).encode() for p in policy.read_only if os.path.isdir(p)]
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | (0 if policy.network else CLONE_NEWNET)

    def preexec():  # runs in the child, between fork and exec: only system calls, nothing to import
        if libc.unshare(flags) != 0:
            raise _fail("unshare")
        # in the new user namespace, be the same user (files keep their owner), with no privilege outside it
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w", encoding="ascii") as f:
                f.write(text)
        if libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:  # nothing below leaks out
            raise _fail("mount --make-rprivate /")
        for path in writable + records:  # each its own mount, so it can differ from what holds it
            if libc.mount(path, path, None, MS_BIND | MS_REC, None) != 0:
                raise _fail(f"bind mount of {path.decode()}")
        _read_only(libc, b"/", True, recursive=True)      # every file's bytes and metadata: read-only
        for path in writable:
            _read_only(libc, path, False, recursive=False)  # but what this command may write
        for path in records:
            _read_only(libc, path, True, recursive=True)    # and never the agent's record
        os.chdir(os.getcwd())  # the working folder, again: through the new mounts, not the old one
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise _fail("prctl(PR_SET_NO_NEW_PRIVS)")
        if libc.syscall(SYS_RESTRICT_SELF, fd, 0) != 0:  # from here on, for bash and all it starts
            raise _fail("landlock_restrict_self")

    return preexec, lambda: os.close(fd)


@dataclass(frozen=True)
class Probe:
    """ok: a confined command really could not write; why: what was found, in one line."""
    ok: bool
    why: str


@cache
def probe() -> Probe:
    """Is the sandbox really there? Run a confined `bash` that tries to write, chmod and touch outside
    what it was granted and into a read-only record folder, and writes where it may; then look.

    Example: probe() -> Probe(ok=True, why='Landlock ABI 7, user, mount, IPC and network namespaces')
             (in a container without Landlock) -> Probe(ok=False, why='the kernel has no Landlock (ABI 0)')
    """
    abi = landlock_abi()
    if abi < MIN_ABI:
        return Probe(False, f"the kernel has no Landlock (ABI {abi})" if abi == 0 else
                     f"the kernel's Landlock is ABI {abi}, {MIN_ABI} or newer is needed")
    with tempfile.TemporaryDirectory(prefix="s03-probe-") as folder:
        target, meta, record, granted = (Path(folder, n) for n in ("written", "meta", "record", "granted"))
        record.mkdir()
        granted.mkdir()
        meta.write_text("m", encoding="utf-8")
        before = meta.stat()
        try:
            preexec, close = confine(Policy(writable=(record, granted), read_only=(record,)), abi=abi)
        except OSError as exc:
            return Probe(False, f"Landlock refused the rules ({exc})")
        try:
            done = subprocess.run(["bash", "-c", "echo x > written; chmod 600 meta; touch -d @0 meta; echo y > "
                                   "record/x; echo z > granted/z; cat /proc/self/uid_map; exit 0"], cwd=folder,
                                  preexec_fn=preexec, capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            return Probe(False, f"a confined command could not start ({exc.__class__.__name__}: "
                         f"namespaces or Landlock are forbidden here)")
        finally:
            close()
        after = meta.stat()
        if done.returncode != 0 or target.exists() or (record / "x").exists() or (
                (after.st_mode, after.st_mtime_ns) != (before.st_mode, before.st_mtime_ns)):
            return Probe(False, "a confined command could still write: the sandbox is not enforced here")
        if not (granted / "z").exists():
            return Probe(False, "a confined command could not write where it was allowed to")
        if done.stdout.split() == [b"0", b"0", b"4294967295"]:  # the first user namespace's own map: no new one
            return Probe(False, "a confined command kept its privileges: there is no user namespace here")
    return Probe(True, f"Landlock ABI {abi}, user, mount, IPC and network namespaces")
