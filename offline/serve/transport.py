"""Route the real `anthropic` SDK to the offline model, in-process.

The SDK sends every request through its HTTP library's client; giving it a client
with that library's own `MockTransport` makes the SDK build real requests and parse
real responses (pydantic objects, real exception classes, real retries) with no
socket at all. anthropic >= 1.0 is built on `httpx2`, older releases on `httpx`:
http_library() finds out which, from the SDK's own client class.

    SDK ──> httpx2.Client ──> OfflineTransport(MockTransport) ──> http.handle ──> OfflineModel

An injected delay longer than the request's timeout ends in the library's
ReadTimeout after `timeout` seconds, which the SDK raises as APITimeoutError.

Example: client = offline_client(OfflineModel()); client.messages.create(...) -> Message

Not modeled: connection errors (there is no connection), HTTP/2, proxies.
"""

from __future__ import annotations

import importlib

OFFLINE_BASE_URL = "http://offline.lessons.invalid"
OFFLINE_API_KEY = "sk-offline-no-key-needed"
LIBRARIES = ("httpx2", "httpx")


def library_of(client_class) -> str | None:
    """The HTTP library a client class is built on. Example: anthropic.DefaultHttpxClient -> 'httpx2'"""
    for cls in getattr(client_class, "__mro__", ()):
        root = (getattr(cls, "__module__", "") or "").split(".")[0]
        if root in LIBRARIES:
            return root
    return None


def http_library():
    """The HTTP module (httpx2 or httpx) the installed anthropic SDK is built on.

    Asked in order: the SDK's DefaultHttpxClient class, the module its base client
    imports, then whichever library is installed.
    """
    import anthropic

    name = library_of(getattr(anthropic, "DefaultHttpxClient", None))
    if name is None:
        base = importlib.import_module("anthropic._base_client")
        name = next((lib for lib in LIBRARIES if getattr(base, lib, None) is not None), None)
    for candidate in ([name] if name else []) + list(LIBRARIES):
        try:
            return importlib.import_module(candidate)
        except ImportError:
            continue
    raise RuntimeError("the anthropic SDK needs httpx2 or httpx, and neither can be imported")


def _timeout_of(request) -> float | None:
    """The read timeout the SDK set on this request (None = wait forever)."""
    timeout = (getattr(request, "extensions", None) or {}).get("timeout") or {}
    value = timeout.get("read") if isinstance(timeout, dict) else None
    return float(value) if value is not None else None


def make_transport(model, lib=None):
    """A MockTransport of `lib` (default: the SDK's HTTP library) answered by the offline `model`."""
    from ..model import ClientTimeout
    from .http import handle

    lib = lib or http_library()

    class OfflineTransport(lib.MockTransport):
        """The library's MockTransport, holding the model (see model_of)."""

        def __init__(self):
            super().__init__(self.answer)
            self.model = model

        def answer(self, request):
            try:
                target = request.url.raw_path.decode("ascii")  # the path and its query (?limit=...)
                status, headers, body = handle(model, request.method, target, dict(request.headers),
                                               request.read(), timeout=_timeout_of(request))
            except ClientTimeout as exc:
                raise lib.ReadTimeout(str(exc), request=request) from None
            return lib.Response(status, headers=headers, content=body)  # bytes, or SSE events one by one

    return OfflineTransport()


def offline_client(model, *, max_retries: int = 2, timeout: float = 60.0):
    """An `anthropic.Anthropic` client whose requests the offline `model` answers."""
    import anthropic

    lib = http_library()
    http_client = lib.Client(transport=make_transport(model, lib), base_url=OFFLINE_BASE_URL)
    return anthropic.Anthropic(api_key=OFFLINE_API_KEY, base_url=OFFLINE_BASE_URL,
                               http_client=http_client, max_retries=max_retries, timeout=timeout)


def model_of(client):
    """The OfflineModel behind a client made by the kit (also after .with_options), else None."""
    transport = getattr(getattr(client, "_client", None), "_transport", None)
    return getattr(transport, "model", None)
