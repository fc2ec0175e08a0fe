"""A student's files read as what they are: below their home, never through a link, regular files only.

The room view and verify read students' homes (as root on a hub). Every folder below the home is
opened with O_NOFOLLOW|O_DIRECTORY from the one above it, so a link anywhere (work/ itself, the
notebook, .progress/) is refused instead of followed into another home or /dev; the file with
O_NOFOLLOW|O_NONBLOCK, so a FIFO cannot block; then fstat must say a regular file, and only up to
a size limit is read. A file with a second name (a hard link) is not read either: it may be
someone else's file. A path the caller says is in a home must be below it (never `..`, never outside).

    read_text(home/work/s01_loop.ipynb, limit, home=home)   the text, or OSError saying why
    read_tail(path, limit, home=home)                       the last `limit` bytes (a records file)
    kind(path, home=home)                                   ("file" | "dir" | "other", mtime), or None
    entries(folder, home=home)                              {name: ("file" | "dir" | "other", mtime)}, links
                                                            "other"; at most MAX_ENTRIES of them

Example: (home/work/s01_loop.ipynb) a symlink to /etc/shadow -> OSError("... is a link, not read")
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

MAX_TEXT = 50 << 20
MAX_ENTRIES = 10_000    # a folder listing stops here (a home filled with a million files stays quick)


def _parts(path: Path, home) -> tuple[Path, list[str]]:
    """(where to start, the components below it): below the home when the path is in it."""
    path = Path(os.path.abspath(path))
    if home is not None:
        top = Path(os.path.abspath(home))
        try:
            rest = path.relative_to(top)
        except ValueError:
            raise OSError(errno.EACCES, f"{path}: not below the home {top}") from None
        return top, [p for p in rest.parts if p not in ("", ".")]
    return path.parent, [path.name]


@contextlib.contextmanager
def _folder(top: Path, parts: list[str]):
    """An fd of the folder top/parts..., each component opened without following a link."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts:
            if part == "..":
                raise OSError(errno.EACCES, f"{part}: not below the home")
            try:
                new = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise OSError(exc.errno, f"{part} is a link or not a folder, not followed") from None
                raise
            os.close(fd)
            fd = new
        yield fd
    finally:
        os.close(fd)


def _open_file(path, home):
    top, parts = _parts(Path(path), home)
    if not parts:
        raise OSError(errno.EISDIR, f"{path}: a folder")
    with _folder(top, parts[:-1]) as folder:
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise OSError(exc.errno, f"{Path(path).name} is a link, not read") from None
            raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, f"{Path(path).name} is not a regular file, not read")
    if info.st_nlink > 1:
        os.close(fd)
        raise OSError(errno.EMLINK, f"{Path(path).name} has {info.st_nlink} names (a hard link), not read")
    return fd, info


def read_bytes(path, limit: int = MAX_TEXT, *, home=None) -> bytes:
    """The whole file; OSError when it is over `limit` bytes, a link, not regular, or outside the home."""
    fd, info = _open_file(path, home)
    try:
        if info.st_size > limit:
            raise OSError(errno.EFBIG, f"{Path(path).name}: over {limit >> 20} MB")
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise OSError(errno.EFBIG, f"{Path(path).name}: over {limit >> 20} MB")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path, limit: int = MAX_TEXT, *, home=None) -> str:
    return read_bytes(path, limit, home=home).decode("utf-8")


def read_tail(path, limit: int, *, home=None) -> bytes:
    """The last `limit` bytes of a regular file (all of it when smaller)."""
    fd, info = _open_file(path, home)
    try:
        os.lseek(fd, max(0, info.st_size - limit), os.SEEK_SET)
        chunks, left = [], limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def entries(folder, *, home=None) -> dict[str, tuple[str, float]]:
    """{name: (kind, mtime)} of a folder's entries, kind "file", "dir" or "other" (a link is "other")."""
    top, parts = _parts(Path(folder), home)
    if home is None:
        top, parts = Path(os.path.abspath(folder)), []
    out = {}
    with _folder(top, parts) as fd, os.scandir(fd) as listing:
        for entry in listing:
            if len(out) >= MAX_ENTRIES:
                break
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            out[entry.name] = (_kind(info), info.st_mtime)
    return out


def _kind(info) -> str:
    return "file" if stat.S_ISREG(info.st_mode) else "dir" if stat.S_ISDIR(info.st_mode) else "other"


def kind(path, *, home=None) -> tuple[str, float] | None:
    """What `path` is, without following a link on the way or at its end: ("file" | "dir" | "other", mtime),
    or None when it is not there (or not reachable from the home without a link). One lookup, no listing."""
    try:
        top, parts = _parts(Path(path), home)
        if not parts:
            return ("dir", os.stat(top).st_mtime) if os.path.isdir(top) else None
        with _folder(top, parts[:-1]) as fd:
            info = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
    except OSError:
        return None
    return _kind(info), info.st_mtime


def is_folder(folder, *, home=None) -> bool:
    try:
        entries(folder, home=home)
        return True
    except OSError:
        return False
