"""Errors a student can act on: a failed connection, a refused key, an unknown model, each in one line.

Motto: say what was tried, where the setting came from, and what to change.

    client.messages.create ──> SDK ──> APIConnectionError  "Connection error."
                                   ──> AuthenticationError "Error code: 401 - {...}"
                                   ──> NotFoundError       "Error code: 404 - {...}"
                                              │
    LessonsAnthropic.request catches these three and raises a subclass of the same SDK
    class (so `except anthropic.NotFoundError` still works), chained `from` the SDK's own:

      EndpointUnreachable  cannot connect to http://127.0.0.1:9 (ANTHROPIC_BASE_URL): Connection refused
      KeyRefused           the key in ANTHROPIC_API_KEY was refused by https://api.anthropic.com (401 ...)
      ModelNotFound        model 'claude-x' was not found at http://...: set MODEL_ID to a model it serves

The key itself is never printed. Timeouts, 400s (the lesson window's "prompt is too
long" among them), 429 and 5xx keep the SDK's own class and message.

Example: make_client(env={"LESSONS_BACKEND": "anthropic", "ANTHROPIC_API_KEY": "x",
                          "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}).messages.create(...)
  -> EndpointUnreachable: cannot connect to http://127.0.0.1:9 (from ANTHROPIC_BASE_URL): ...

Not modeled: other credentials (ANTHROPIC_AUTH_TOKEN), 403 permission errors, async clients.
"""

from __future__ import annotations

import anthropic

DEFAULT_BASE_URL = "https://api.anthropic.com"


class EndpointUnreachable(anthropic.APIConnectionError):
    """The endpoint could not be reached: the URL tried and where it came from."""


class KeyRefused(anthropic.AuthenticationError):
    """HTTP 401: the key in ANTHROPIC_API_KEY was refused (the key is not shown)."""


class ModelNotFound(anthropic.NotFoundError):
    """HTTP 404: the model (MODEL_ID) or the path (ANTHROPIC_BASE_URL) is not there."""


def url_source(base_url: str) -> str:
    """Where a base URL came from, in the words of the settings. Example: the default -> 'the default URL'"""
    if base_url.rstrip("/") == DEFAULT_BASE_URL:
        return "the default URL; set ANTHROPIC_BASE_URL for another endpoint"
    return "from ANTHROPIC_BASE_URL"


def api_message(error) -> str:
    """The endpoint's own error message, on one line. Example: 404 body -> 'model: claude-x'"""
    body = getattr(error, "body", None)
    inner = body.get("error") if isinstance(body, dict) else None
    message = inner.get("message") if isinstance(inner, dict) else None
    text = str(message or (body if isinstance(body, str) else "") or getattr(error, "message", "") or error)
    return " ".join(text.split())[:200]


def cause_text(error) -> str:
    """The lowest-level reason in a connection error's chain. Example: '[Errno 111] Connection refused'"""
    reason, current = "", error.__cause__ or error.__context__
    while current is not None:
        reason = str(current) or type(current).__name__
        current = current.__cause__ or current.__context__
    return " ".join(reason.split())[:200] or "no answer"


def friendly(error, base_url: str, model: str | None):
    """The one-line kit error for an SDK error, or None to keep the SDK's own."""
    url = str(base_url).rstrip("/")
    if isinstance(error, anthropic.APITimeoutError):
        return None
    if isinstance(error, anthropic.APIConnectionError):
        return EndpointUnreachable(
            message=f"cannot connect to {url} ({url_source(url)}): {cause_text(error)}. "
                    "Is the endpoint running, and is the URL right?", request=error.request)
    if isinstance(error, anthropic.AuthenticationError):
        return KeyRefused(f"the key in ANTHROPIC_API_KEY was refused by {url} (401: {api_message(error)}): "
                          "check the key, or unset LESSONS_BACKEND to use the offline model",
                          response=error.response, body=error.body)
    if isinstance(error, anthropic.NotFoundError):
        said = api_message(error)
        if model and "model" in said.lower():
            text = (f"model {model!r} was not found at {url} (404: {said}): set MODEL_ID to a model "
                    "this endpoint serves")
        else:
            hint = ": it should not end in /v1" if url.endswith("/v1") else ""
            text = (f"{error.response.request.url} was not found (404: {said}): check ANTHROPIC_BASE_URL "
                    f"({url}){hint}")
        return ModelNotFound(text, response=error.response, body=error.body)
    return None


class LessonsAnthropic(anthropic.Anthropic):
    """anthropic.Anthropic whose connection, 401 and 404 errors say what to change (see above)."""

    def request(self, cast_to, options, *args, **kwargs):
        try:
            return super().request(cast_to, options, *args, **kwargs)
        except (anthropic.APIConnectionError, anthropic.AuthenticationError, anthropic.NotFoundError) as exc:
            if isinstance(exc, (EndpointUnreachable, KeyRefused, ModelNotFound)):
                raise
            data = getattr(options, "json_data", None)
            model = data.get("model") if isinstance(data, dict) else None
            better = friendly(exc, str(self.base_url), model)
            if better is None:
                raise
            raise better from exc
