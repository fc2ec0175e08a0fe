"""The roster is the room: who the students are, from the hub's user list or the guide's list of names.

    --hub URL (token: JUPYTERHUB_API_TOKEN or WORKSHOP_HUB_TOKEN)   GET URL/hub/api/users: every user
                                                                    who is not an admin is a student
    --roster FILE                                                   one name a line (# comments)
    --homes DIR (default WORKSHOP_HOMES, else ./homes)              where each student's home is: DIR/<name>

A student with no home, or a home with no work/ yet, is "not logged in" (a no-show is on the page).
The instructor and the admins are never students; nor is the kit's own work/ (`make student`).

Example: students(names=["ada", "bob"], homes=Path("homes")) -> [Home("homes/ada"), Missing("homes/bob")]
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
from pathlib import Path, PosixPath

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")
PAGE = 200


class Home(PosixPath):
    """A student's home from the roster (it may not exist yet: then `missing`)."""

    rostered = True

    @property
    def missing(self) -> bool:
        from ..base import safe_files as files

        return not files.is_folder(self / "work", home=self)


def read_names(path: Path) -> list[str]:
    """Names from a list file: one a line, blank lines and # comments skipped; a bad name is an error."""
    out = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        if not NAME.match(name) or name in (".", ".."):
            raise ValueError(f"{path}:{n}: {name!r} is not a user name")
        if name not in out:
            out.append(name)
    return out


def hub_names(url: str, token: str | None = None, *, timeout: float = 30) -> list[str]:
    """The hub's users who are not admins, through its REST API (paged), in the hub's order."""
    token = token or os.environ.get("WORKSHOP_HUB_TOKEN") or os.environ.get("JUPYTERHUB_API_TOKEN")
    if not token:
        raise ValueError("--hub needs a token: set WORKSHOP_HUB_TOKEN (a token with read:users, e.g. the "
                         "instructor's from the hub's token page)")
    names, offset = [], 0
    while True:
        request = urllib.request.Request(
            f"{url.rstrip('/')}/hub/api/users?offset={offset}&limit={PAGE}",
            headers={"Authorization": f"token {token}", "Accept": "application/jupyterhub-pagination+json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:   # noqa: S310 - the instructor's hub
                body = json.loads(response.read(16 << 20))
        except OSError as exc:
            raise ValueError(f"the hub's user list at {url}: {exc}") from None
        items = body.get("items", []) if isinstance(body, dict) else body
        for user in items:
            if isinstance(user, dict) and isinstance(user.get("name"), str) and not user.get("admin") \
                    and user.get("kind", "user") == "user" and NAME.match(user["name"]):
                names.append(user["name"])
        following = (body.get("_pagination") or {}).get("next") if isinstance(body, dict) else None
        if not following or not items:
            return names
        offset = int(following.get("offset", offset + len(items)))


def staff() -> set[str]:
    """The instructor and the admins named to this machine's hub (WORKSHOP_ADMIN, comma-separated)."""
    return {n.strip() for n in os.environ.get("WORKSHOP_ADMIN", "instructor").split(",") if n.strip()}


def students(names, homes: Path | None = None) -> list[Home]:
    """A Home per name (the staff left out), each homes/<name>, in the roster's order."""
    homes = Path(homes or os.environ.get("WORKSHOP_HOMES") or "homes")
    return [Home(homes / name) for name in names if name not in staff()]
