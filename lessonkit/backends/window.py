"""A lesson's context window on any backend: a request over N tokens never leaves the process.

Motto: `make_client(context_window=N)` means the same thing offline and online.

    SDK ──> httpx2.Client ──> WindowTransport ──────────── fits ──────────> the real transport ──> endpoint
                                 │ count the request: lessonkit.tokens (what the offline model
                                 │ counts), or the endpoint's count_tokens where it answers
                                 ├─ over N: answer HTTP 400 "prompt is too long: N tokens > M maximum"
                                 │          here (anthropic.BadRequestError, as the offline model says it)
                                 └─ max_tokens > the room left: sent with max_tokens = the room left

The offline model has the window built in; for LESSONS_BACKEND=anthropic the
client factory puts this transport in front of the real one, so stages and
lessons cannot tell the two apart: the same 400, raised by the SDK's own path.
A request that fits is sent as it was built, byte for byte; only `max_tokens`
is ever changed (the offline model also lets an answer use only the room left).

Example: t = WindowTransport(httpx2.HTTPTransport(), 3_000)
         a 3,400-token POST /v1/messages -> 400 {"error": {"message": "prompt is too long:
         3400 tokens > 3000 maximum"}}, and the endpoint sees nothing

With count_with="endpoint" against the served offline model, an injected fault answers
the count request first (the kit's counter is then used for that request).

Not modeled: the real model's own window (a larger N than the model's is the model's
business), counting images and documents the way the API does (the kit's counter
charges a flat 1,600 tokens an image).
"""

from __future__ import annotations

import json

from .. import tokens

COUNTED_FIELDS = ("model", "messages", "system", "tools", "tool_choice", "thinking")
NOT_ANSWERED = (404, 405, 501)  # the endpoint has no count_tokens: stop asking it


def too_long_body(sent: int, window: int) -> dict:
    """The API's error body for a prompt over the window (the offline model's words)."""
    return {"type": "error", "error": {"type": "invalid_request_error",
                                       "message": f"prompt is too long: {sent} tokens > {window} maximum"},
            "request_id": "req_lesson_window"}


def window_transport(inner, window: int, *, count_with: str = "kit", lib=None):
    """`inner` (an httpx2/httpx transport) behind a window of `window` tokens.

    count_with: "kit" (default) counts with lessonkit.tokens, as the offline model and the
    stages' own estimates do; "endpoint" asks POST .../v1/messages/count_tokens first (one
    more request each time; where it does not answer, the kit's counter is used).
    """
    if not isinstance(window, int) or isinstance(window, bool) or window < 1:
        raise ValueError(f"context_window={window!r} must be a whole number of tokens >= 1")
    if count_with not in ("endpoint", "kit"):
        raise ValueError(f"count_with={count_with!r} (LESSONS_WINDOW_COUNT): use 'kit' or 'endpoint'")
    if lib is None:
        from offline.serve.transport import http_library

        lib = http_library()

    class WindowTransport(lib.BaseTransport):
        """The lesson window in front of a real transport (see the module docstring)."""

        def __init__(self):
            self.inner, self.window, self.count_with = inner, window, count_with
            self.counted_by = None  # "endpoint" or "kit": who counted the last request

        def handle_request(self, request):
            path = request.url.path.rstrip("/")
            if request.method != "POST" or not path.endswith("/v1/messages"):
                return self.inner.handle_request(request)
            try:
                body = json.loads(request.read())
            except ValueError:
                return self.inner.handle_request(request)  # the endpoint says what is wrong with it
            if not isinstance(body, dict):
                return self.inner.handle_request(request)
            sent = self.count(request, body)
            if sent > self.window:
                return lib.Response(400, headers={"content-type": "application/json",
                                                  "request-id": "req_lesson_window"},
                                    content=json.dumps(too_long_body(sent, self.window)).encode(),
                                    request=request)
            room = max(1, self.window - sent)
            asked = body.get("max_tokens")
            if isinstance(asked, int) and not isinstance(asked, bool) and asked > room:
                request = self._with(request, dict(body, max_tokens=room))
            return self.inner.handle_request(request)

        def count(self, request, body: dict) -> int:
            """Input tokens of the request: the endpoint's count where it answers, else the kit's."""
            if self.count_with == "endpoint":
                counted = self._ask_endpoint(request, body)
                if counted is not None:
                    self.counted_by = "endpoint"
                    return counted
            self.counted_by = "kit"
            return tokens.count_request(body)

        def _ask_endpoint(self, request, body: dict) -> int | None:
            query = {k: body[k] for k in COUNTED_FIELDS if k in body}
            headers = {k: v for k, v in request.headers.items()
                       if k.lower() not in ("content-length", "idempotency-key", "x-stainless-retry-count")}
            ask = lib.Request("POST", request.url.copy_with(path=request.url.path.rstrip("/") + "/count_tokens"),
                              headers=headers, content=json.dumps(query).encode(), extensions=request.extensions)
            try:
                answer = self.inner.handle_request(ask)
                answer.read()
            except lib.TransportError:
                return None  # the request itself will say what is wrong with the connection
            try:
                if answer.status_code in NOT_ANSWERED:
                    self.count_with = "kit"
                    return None
                value = answer.json().get("input_tokens") if answer.status_code == 200 else None
            except (ValueError, AttributeError):
                self.count_with = "kit"  # not an Anthropic-style answer: do not ask again
                return None
            finally:
                answer.close()
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        def _with(self, request, body: dict):
            headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
            return lib.Request(request.method, request.url, headers=headers,
                               content=json.dumps(body).encode(), extensions=request.extensions)

        def close(self):
            self.inner.close()

    return WindowTransport()


def window_of(client) -> int | None:
    """The context window a kit client enforces (offline model or window transport), else None.

    Example: window_of(make_client(context_window=3_000)) -> 3000 on every backend
    """
    transport = getattr(getattr(client, "_client", None), "_transport", None)
    model = getattr(transport, "model", None)
    if model is not None:
        return getattr(model, "context_window", None)
    return getattr(transport, "window", None)


def window_http_client(window: int, *, count_with: str = "kit"):
    """The SDK's default HTTP client with its transport behind the lesson window.

    Example: anthropic.Anthropic(http_client=window_http_client(3_000), ...)
    """
    import anthropic

    from offline.serve.transport import http_library

    lib = http_library()
    inner = lib.HTTPTransport(limits=anthropic.DEFAULT_CONNECTION_LIMITS)
    return anthropic.DefaultHttpxClient(transport=window_transport(inner, window, count_with=count_with, lib=lib))
