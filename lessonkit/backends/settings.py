"""The backends' settings: the environment over the repo's .env, checked into one-line errors.

Read when a client is made, never at import. The client factory (client.py) and the cassette
backend (cassette.py) both use them, so neither imports the other for them.

Example: settings({"MODEL_ID": "x"}) -> {"MODEL_ID": "x"};  check_url("localhost:8765") -> ConfigError
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse

DEFAULT_BASE_URL = "https://api.anthropic.com"
REPO_ROOT = Path(__file__).resolve().parents[2]


class ConfigError(ValueError):
    """A setting that cannot work, named in a one-line message."""


def settings(env=None) -> dict:
    """The effective settings: `env` if given, else os.environ over the repo's .env file."""
    if env is not None:
        return dict(env)
    merged = {}
    dotenv = REPO_ROOT / ".env"
    if dotenv.is_file():
        from dotenv import dotenv_values

        try:
            values = dotenv_values(dotenv)
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{dotenv}: cannot read it: {exc}") from None
        merged.update({k: v for k, v in values.items() if v is not None})
    merged.update(os.environ)
    return merged


def check_url(url: str) -> None:
    """Raise ConfigError unless `url` is an absolute http(s) URL. Example: 'localhost:8765' -> error"""
    problem = None
    try:
        parts = urlparse(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        problem = str(exc)
    else:
        if parts.scheme not in ("http", "https"):
            problem = "it must start with http:// or https://"
        elif not parts.hostname:
            problem = "it has no host name"
        elif any(c.isspace() for c in url):
            problem = "it contains spaces"
    if problem:
        raise ConfigError(f"ANTHROPIC_BASE_URL={url!r} is not a valid http(s) URL: {problem}")
