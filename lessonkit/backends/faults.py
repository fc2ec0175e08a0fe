"""Injected faults on any backend that takes them: the in-process offline model, or the served one.

Motto: a lesson that breaks the API on purpose asks first whether it can.

    inject_fault(client, 529)
      offline backend ──> model_of(client).inject_fault(529)
      anthropic       ──> POST {base_url}/v1/offline/faults {"status": 529, "count": 1}
                          (the kit's served offline model answers it; a real API does not:
                          FaultsUnsupported, one line, and nothing was sent to the model)

Example: if can_inject(client): inject_fault(client, 529, count=3)
         else: print("this endpoint takes no injected faults: ...")

Not modeled: faults of a real API (ask a real one nicely and it still will not fail on cue).
"""

from __future__ import annotations

import json

from offline.serve.transport import http_library, model_of

CONTROL_PATH = "v1/offline/faults"
TIMEOUT_S = 5.0


class FaultsUnsupported(RuntimeError):
    """The endpoint behind the client takes no injected faults."""


def _control(client, payload: dict) -> dict:
    """POST the kit's fault-control endpoint next to the client's base URL; its JSON answer."""
    lib = http_library()
    url = str(client.base_url).rstrip("/") + "/" + CONTROL_PATH
    try:
        answer = lib.post(url, content=json.dumps(payload).encode(), timeout=TIMEOUT_S,
                          headers={"content-type": "application/json"})
    except lib.TransportError as exc:
        raise FaultsUnsupported(f"{url}: no answer ({exc}): faults are injected only into the kit's "
                                "offline model") from None
    if answer.status_code != 200:
        raise FaultsUnsupported(f"{url} answered {answer.status_code}: this endpoint takes no injected faults "
                                "(only the kit's offline model does, in-process or served)")
    return answer.json()


def can_inject(client) -> bool:
    """Does the endpoint behind `client` take injected faults? (It clears any pending ones.)"""
    model = model_of(client)
    if model is not None:
        return True
    try:
        _control(client, {"clear": True})
    except FaultsUnsupported:
        return False
    return True


def inject_fault(client, status: int | None = None, *, count: int = 1, delay: float = 0.0) -> None:
    """The next `count` requests through `client` fail with `status` (429/500/529/...) or wait `delay` s.

    Raises FaultsUnsupported when the endpoint is not the kit's offline model.
    """
    model = model_of(client)
    if model is not None:
        model.inject_fault(status, count=count, delay=delay)
        return
    payload = {"count": count, "delay": delay}
    if status is not None:
        payload["status"] = status
    _control(client, payload)
