"""Route the real `anthropic` SDK to the offline model, in-process.

The SDK sends every request through its HTTP library's client; giving it a client
with that library's own `MockTransport` makes the SDK build real requests and parse
real responses (pydantic objects, real exception classes) with no socket at all.
anthropic >= 1.0 uses `httpx2`, older releases `httpx`: we use whichever the
installed SDK is built on.

Example: client = offline_client(OfflineModel()); client.messages.create(...) -> Message
"""

from __future__ import annotations

import importlib
import weakref

OFFLINE_BASE_URL = "http://offline.lessons.invalid"
OFFLINE_API_KEY = "sk-offline-no-key-needed"
_MODELS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def http_library():
    """The HTTP module (httpx2 or httpx) the installed anthropic SDK is built on."""
    import anthropic

    for cls in anthropic.DefaultHttpxClient.__mro__:
        root = cls.__module__.split(".")[0]
        if root in ("httpx2", "httpx"):
            return importlib.import_module(root)
    raise RuntimeError("cannot tell which HTTP library the anthropic SDK uses")


def offline_client(model, *, max_retries: int = 2, timeout: float = 60.0):
    """An `anthropic.Anthropic` client whose requests the offline `model` answers."""
    import anthropic

    from .http import handle

    lib = http_library()

    def answer(request):
        status, headers, body = handle(model, request.method, request.url.path,
                                       dict(request.headers), request.read())
        return lib.Response(status, headers=headers, content=body)

    http_client = lib.Client(transport=lib.MockTransport(answer), base_url=OFFLINE_BASE_URL)
    client = anthropic.Anthropic(api_key=OFFLINE_API_KEY, base_url=OFFLINE_BASE_URL,
                                 http_client=http_client, max_retries=max_retries, timeout=timeout)
    _MODELS[client] = model
    return client


def model_of(client):
    """The OfflineModel behind a client made by the kit, or None for a real-API client."""
    try:
        return _MODELS.get(client)
    except TypeError:
        return None
