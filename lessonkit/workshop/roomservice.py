"""The room on a hub: a JupyterHub service the students' checks report to, serving the room's page and gradebook.

On Zero to JupyterHub each home is a volume mounted in its student's pod only, so nothing can read the
records in the homes. Instead each check also sends its record here, with the student's own hub token
(the server's JUPYTERHUB_API_TOKEN): the hub says whose token it is, so a student can only ever add to
their own records. The page, the CSV and the feedback pages are the same as `progress` makes from homes
on one machine (progress.py, page.py), computed from these records and the hub's user list.

    kernel: exercise.check(fn) ── records.record() ── POST {LESSONS_ROOM_URL}records  (Authorization: token T)
                                                            │ the hub: T is user ada's
    this service (hub-managed on one machine; a sidecar of the hub pod on z2jh)
      <state>/<name>/work/.progress/<lesson>.jsonl  ← the record, checked and rewritten (the service's time)
      GET  /services/lessons-room/               the room's page (admins: the instructor)   ┐ the hub's login
      GET  /services/lessons-room/room.csv       the gradebook                               │ (OAuth), or
      GET  /services/lessons-room/rows.json      the rows (progress --room URL)               │ a token
      GET  /services/lessons-room/feedback/ada.html   ada's feedback page (ada, or an admin)   ┘
      the roster: the hub's users who are not admins; a user who never logged in is "not logged in"

    python -m lessonkit.workshop room-service        (the hub starts it: workshop/jupyterhub_config.py)

Settings: JUPYTERHUB_SERVICE_URL (where to listen), JUPYTERHUB_SERVICE_PREFIX, JUPYTERHUB_API_URL and
JUPYTERHUB_API_TOKEN (the hub gives them), LESSONS_ROOM_STATE (the records' folder, default ./room).

Example: POST records {"lesson": "s01_loop", "exercise": "assistant_message", "passed": 2, "total": 6, ...}
  with ada's token -> 204; GET room.csv with the instructor's token -> "student,lesson,...\\nada,s01_loop,..."
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

NAME = "lessons-room"
MAX_BODY = 64 << 10            # one POST: a few records
MAX_STUDENT_BYTES = 8 << 20    # one student's records file: past this, further records are refused
TOKEN_CACHE_S = 60
USERS_CACHE_S = 5


class Store:
    """Each student's records laid out as a home is (<folder>/<name>/work/.progress/<lesson>.jsonl), so
    the room view reads them exactly as it reads homes."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def progress(self, name: str) -> Path:
        from ..exercises import records

        return self.folder / name / "work" / records.FOLDER

    def add(self, name: str, item: dict, *, now: float | None = None) -> None:
        """Keep one record of `name`'s, rebuilt from known fields only (the time is this service's).
        Raises ValueError naming what is wrong with it."""
        from ..exercises import records
        from ..i18n import LANGS
        from .progress import exercises

        if not isinstance(item, dict):
            raise ValueError("a record is a JSON object")
        lesson, exercise = item.get("lesson"), item.get("exercise")
        known = exercises()
        if lesson not in known or exercise not in known[lesson]:
            raise ValueError(f"no exercise {str(exercise)[:40]!r} in lesson {str(lesson)[:40]!r}")
        now = time.time() if now is None else now
        if item.get("reset"):
            line = {"lesson": lesson, "exercise": exercise, "reset": True, "t": round(now, 1)}
        else:
            line = {"lesson": lesson, "exercise": exercise, "passed": _count(item.get("passed")),
                    "total": _count(item.get("total")), "first": str(item.get("first", ""))[:records.MAX_TEXT],
                    "error": str(item.get("error", ""))[:records.MAX_TEXT], "attempt": _count(item.get("attempt")),
                    "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)), "t": round(now, 1),
                    "lang": item.get("lang") if item.get("lang") in LANGS else "en"}
            if item.get("reference") is True:
                line["reference"] = True
        folder = self.progress(name)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{lesson}.jsonl"
        if path.exists() and path.stat().st_size > MAX_STUDENT_BYTES:
            raise ValueError(f"{name}'s records of {lesson} are full ({MAX_STUDENT_BYTES >> 20} MB)")
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")

    def seen(self, name: str) -> None:
        """A student who logged in: their row is "not started" until a record comes, not "not logged in"."""
        (self.folder / name / "work").mkdir(parents=True, exist_ok=True)

    def rows(self, users: list[dict], only=(), *, now: float | None = None):
        """The room's rows: every student of the hub (users who are not admins), in the hub's order."""
        from .progress import rows
        from .roster import NAME as USER
        from .roster import Home

        homes = []
        for user in users:
            name = user.get("name")
            if not isinstance(name, str) or not USER.match(name) or user.get("admin") or \
                    user.get("kind", "user") != "user":
                continue
            if user.get("last_activity") or user.get("servers"):
                self.seen(name)
            homes.append(Home(self.folder / name))
        from dataclasses import replace

        from .progress import with_points

        return [replace(r, home="") for r in with_points(rows(homes, only, now=now, notebooks=False))]


def _count(value) -> int:
    try:
        return max(0, min(int(value), 10_000))
    except (TypeError, ValueError):
        return 0


def app(store: Store, prefix: str):
    """The service's tornado application (see the module's docstring)."""
    from dataclasses import asdict

    from jupyterhub.services.auth import HubAuth, HubOAuthCallbackHandler, HubOAuthenticated
    from jupyterhub.utils import url_path_join
    from tornado import web
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest

    from . import page
    from .progress import csv_text

    api = os.environ.get("JUPYTERHUB_API_URL", "http://127.0.0.1:8081/hub/api").rstrip("/")
    own_token = os.environ.get("JUPYTERHUB_API_TOKEN", "")
    identify = HubAuth(access_scopes=set(), cache_max_age=TOKEN_CACHE_S)   # any user's token: whose is it?
    client = AsyncHTTPClient()
    cache: dict = {"t": 0.0, "users": []}

    async def hub(path: str):
        response = await client.fetch(HTTPRequest(f"{api}{path}", headers={
            "Authorization": f"token {own_token}", "Accept": "application/jupyterhub-pagination+json"}))
        return json.loads(response.body)

    async def users() -> list[dict]:
        """The hub's users (paged), remembered for a few seconds."""
        if time.monotonic() - cache["t"] < USERS_CACHE_S:
            return cache["users"]
        found, offset = [], 0
        while True:
            body = await hub(f"/users?offset={offset}&limit=200")
            items = body.get("items", []) if isinstance(body, dict) else body
            found += [u for u in items if isinstance(u, dict)]
            following = (body.get("_pagination") or {}).get("next") if isinstance(body, dict) else None
            if not following or not items:
                break
            offset = int(following.get("offset", offset + len(items)))
        cache.update(t=time.monotonic(), users=found)
        return found

    async def is_admin(name: str) -> bool:
        return any(u.get("name") == name and u.get("admin") for u in await users())

    class Records(web.RequestHandler):
        async def post(self):
            token = (self.request.headers.get("Authorization") or "").split(" ", 1)[-1].strip()
            user = await identify.user_for_token(token, sync=False) if token else None
            if not user or user.get("kind", "user") != "user" or not isinstance(user.get("name"), str):
                raise web.HTTPError(403, "a user's hub token is needed")
            name = user["name"]
            other = self.get_query_argument("user", name)
            if other != name:
                if not await is_admin(name):
                    raise web.HTTPError(403, "only an admin may add another user's records")
                name = other
            if len(self.request.body) > MAX_BODY:
                raise web.HTTPError(413, f"at most {MAX_BODY >> 10} KB at once")
            try:
                body = json.loads(self.request.body or b"null")
                for item in body if isinstance(body, list) else [body]:
                    store.add(name, item)
            except ValueError as exc:
                raise web.HTTPError(400, str(exc)[:200]) from None
            self.set_status(204)

    class Room(HubOAuthenticated, web.RequestHandler):
        async def rows(self, need_admin: bool = True):
            user = self.current_user
            if need_admin and not await is_admin(user["name"]):
                raise web.HTTPError(403, "the room is the instructor's")
            only = [s for s in self.get_query_argument("only", "").split(",") if s]
            return store.rows(await users(), only)

        @web.authenticated
        async def get(self, what: str | None = ""):
            if not what:
                self.set_header("Content-Type", "text/html; charset=utf-8")
                self.finish(page.html(await self.rows(), links="feedback/"))
            elif what == "room.csv":
                self.set_header("Content-Type", "text/csv; charset=utf-8")
                self.set_header("Content-Disposition", "attachment; filename=room.csv")
                self.finish(csv_text(await self.rows()))
            elif what == "rows.json":
                self.set_header("Content-Type", "application/json")
                self.finish(json.dumps([asdict(r) for r in await self.rows()]))
            else:
                raise web.HTTPError(404)

    class Feedback(Room):
        @web.authenticated
        async def get(self, name: str):
            me = self.current_user["name"]
            if name != me and not await is_admin(me):
                raise web.HTTPError(403, "a student sees their own feedback only")
            table = [r for r in await self.rows(need_admin=False) if r.student == name]
            if not table:
                raise web.HTTPError(404, f"no student {name!r}")
            lang = next((_lang(store, name, r.lesson) for r in table if _lang(store, name, r.lesson)), "en")
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(page.feedback_page(name, table, language=lang))

    return web.Application([
        (url_path_join(prefix, "records"), Records),
        (url_path_join(prefix, "oauth_callback"), HubOAuthCallbackHandler),
        (url_path_join(prefix, r"feedback/([^/]+)\.html"), Feedback),
        (url_path_join(prefix, r"(room\.csv|rows\.json)?"), Room),
        (prefix.rstrip("/"), web.RedirectHandler, {"url": prefix}),
    ], cookie_secret=os.urandom(32), login_url=url_path_join(prefix, "oauth_callback"))


def _lang(store: Store, name: str, lesson: str) -> str:
    from ..exercises import records

    items = records.read(store.progress(name) / f"{lesson}.jsonl")
    return str(items[-1].get("lang", "")) if items else ""


def main() -> int:
    """Run the service where JupyterHub says (JUPYTERHUB_SERVICE_URL), until stopped."""
    import asyncio
    from urllib.parse import urlparse

    url = urlparse(os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:10101"))
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", f"/services/{NAME}/")
    store = Store(Path(os.environ.get("LESSONS_ROOM_STATE", "room")))

    async def serve():
        application = app(store, prefix)
        application.listen(url.port or 80, url.hostname or "127.0.0.1", xheaders=True)
        await asyncio.Event().wait()
    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    return 0


def fetch_rows(url: str, only=(), token: str | None = None, *, timeout: float = 30):
    """The room's rows from the service at `url` (progress --room URL), with the instructor's token
    (WORKSHOP_HUB_TOKEN). Example: fetch_rows("http://127.0.0.1:8000/services/lessons-room/") -> [Row, ...]"""
    import urllib.request

    from .progress import Row

    token = token or os.environ.get("WORKSHOP_HUB_TOKEN") or os.environ.get("JUPYTERHUB_API_TOKEN")
    if not token:
        raise ValueError("--room needs a token: set WORKSHOP_HUB_TOKEN (the instructor's, from the hub's token page)")
    only = ",".join(s for s in only if s)
    request = urllib.request.Request(f"{url.rstrip('/')}/rows.json?only={only}",
                                     headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:   # noqa: S310 - the instructor's hub
            data = json.loads(response.read(64 << 20))
    except (OSError, ValueError) as exc:
        raise ValueError(f"the room service at {url}: {exc}") from None
    fields = set(Row.__dataclass_fields__)
    return [Row(**{k: v for k, v in item.items() if k in fields}) for item in data if isinstance(item, dict)]
