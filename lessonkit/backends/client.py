"""The client factory: one `anthropic.Anthropic`, offline by default, real API on request.

    LESSONS_BACKEND=offline    (default) the offline model, in-process, no key, no network
    LESSONS_BACKEND=anthropic  the real API: ANTHROPIC_API_KEY, optional ANTHROPIC_BASE_URL
                               (any Anthropic-compatible endpoint) and MODEL_ID

    LESSONS_CONTEXT_WINDOW     the lesson's window in tokens: the offline model's (default 200,000);
                               on anthropic the client refuses a larger request before sending it
                               (window.py; LESSONS_WINDOW_COUNT=endpoint counts with count_tokens)
    LESSONS_BACKEND=record|replay with LESSONS_CASSETTE=file: record once, replay offline
                               (lessonkit/backends/cassette.py)

Settings come from the environment, then from a `.env` file in the repo root
(the environment wins); pass `env={...}` to use exactly that mapping instead
(tests do). They are read when a client is made, never at import. A bad setting
is a one-line `ConfigError` naming the variable, raised here, not a traceback
deep inside the first request.

Example: make_client(context_window=8_000).messages.create(...) -> Message (offline)
         make_client(env={"LESSONS_BACKEND": "anthropic"})
           -> ConfigError: ANTHROPIC_API_KEY is not set: LESSONS_BACKEND=anthropic needs a key ...

Not modeled: other credentials (ANTHROPIC_AUTH_TOKEN, cloud providers' SDK clients).
"""

from __future__ import annotations

from .settings import DEFAULT_BASE_URL, REPO_ROOT, ConfigError, check_url, settings

__all__ = ["DEFAULT_BASE_URL", "REPO_ROOT", "ConfigError", "backend_name", "check_url", "make_client",
           "model_id", "settings"]
BACKENDS = ("offline", "anthropic", "record", "replay")
DEFAULT_MODEL = "claude-sonnet-5-5"
DEFAULT_CONTEXT_WINDOW = 200_000


def backend_name(env=None) -> str:
    """'offline' or 'anthropic', from LESSONS_BACKEND. Example: {} -> 'offline'"""
    value = (settings(env).get("LESSONS_BACKEND") or "offline").strip().lower()
    if value not in BACKENDS:
        raise ConfigError(f"LESSONS_BACKEND={value!r} is not a backend: use 'offline' (the default), "
                          "'anthropic', 'record' or 'replay'")
    return value


def model_id(env=None) -> str:
    """The model name to send: MODEL_ID, or the kit's default."""
    return (settings(env).get("MODEL_ID") or "").strip() or DEFAULT_MODEL


def make_client(backend: str | None = None, *, context_window: int | None = None, scenarios=None,
                model=None, max_retries: int = 2, env=None):
    """An `anthropic.Anthropic` client for the chosen backend.

    Offline options: `context_window` (tokens; default 200,000), `scenarios` (extra
    scripted scenarios), or a ready `model` (an OfflineModel, to share its cache or
    inject faults). Example: make_client(context_window=8_000)
    """
    conf = settings(env)
    name = backend.strip().lower() if backend else backend_name(conf)
    if name not in BACKENDS:
        raise ConfigError(f"backend={name!r} is not a backend: use one of {', '.join(BACKENDS)}")
    if not isinstance(max_retries, int) or max_retries < 0:
        raise ConfigError(f"max_retries={max_retries!r} must be a whole number >= 0")
    if name in ("offline", "record", "replay"):
        from offline import OfflineModel, offline_client

        if model is None:
            window = context_window if context_window is not None else _int(conf, "LESSONS_CONTEXT_WINDOW")
            try:
                # the lessons' counts: tools as their JSON, without the API's tool-use system prompt
                model = OfflineModel(DEFAULT_CONTEXT_WINDOW if window is None else window, scenarios=scenarios)
            except ValueError as exc:
                raise ConfigError(f"context_window={window!r}: {exc}") from None
        if name != "offline":  # record / replay: lessonkit/backends/cassette.py; the model answers misses
            from .cassette import cassette_client

            return cassette_client(name, conf, model, max_retries=max_retries)
        return offline_client(model, max_retries=max_retries)
    key = (conf.get("ANTHROPIC_API_KEY") or "").strip()
    if not key:
        raise ConfigError("ANTHROPIC_API_KEY is not set: LESSONS_BACKEND=anthropic needs a key "
                          "(or unset LESSONS_BACKEND to use the offline model)")
    base_url = (conf.get("ANTHROPIC_BASE_URL") or "").strip() or DEFAULT_BASE_URL
    check_url(base_url)
    from .errors import LessonsAnthropic  # connection, 401 and 404 errors in one actionable line
    from .window import window_http_client  # the lesson window, enforced before sending

    window = context_window if context_window is not None else _int(conf, "LESSONS_CONTEXT_WINDOW")
    try:
        http_client = None if window is None else window_http_client(
            window, count_with=(conf.get("LESSONS_WINDOW_COUNT") or "kit").strip().lower())
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return LessonsAnthropic(api_key=key, base_url=base_url, max_retries=max_retries, http_client=http_client)


def _int(conf: dict, name: str) -> int | None:
    raw = (conf.get(name) or "").strip()
    if not raw:
        return None
    try:
        value = int(raw.replace("_", ""))
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a whole number of tokens") from None
    if value < 1:
        raise ConfigError(f"{name}={raw!r} must be a positive number of tokens")
    return value
