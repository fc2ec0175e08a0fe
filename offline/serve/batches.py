"""Message Batches served from the same model: each request answered at once, the batch `ended` when created.

    POST /v1/messages/batches {"requests": [{"custom_id": "a", "params": {...}}, ...]}
         -> {"type": "message_batch", "id": "msgbatch_01…", "processing_status": "ended",
             "request_counts": {"succeeded": 1, "errored": 0, ...}, "results_url": ".../results", ...}
    GET  /v1/messages/batches                     a page of batches, newest first
    GET  /v1/messages/batches/{id}                the batch, or 404 not_found_error
    GET  /v1/messages/batches/{id}/results        JSON Lines: {"custom_id", "result": {"type": "succeeded",
                                                  "message": ...} or {"type": "errored", "error": {...}}}
    POST /v1/messages/batches/{id}/cancel         the batch (already ended: nothing to cancel)
    DELETE /v1/messages/batches/{id}              {"id", "type": "message_batch_deleted"}

Each request is checked and answered as POST /v1/messages would be (an invalid one is
`errored` with the same error; docs: build-with-claude/batch-processing). Streaming is
refused in a batch, as on the API.

Example: create(model, {"requests": [{"custom_id": "x", "params": {...}}]}, api)["request_counts"]["succeeded"] -> 1
"""

from __future__ import annotations

import json
import re
import time

from ..api.errors import ApiError, invalid

CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_REQUESTS = 100_000


def _now(offset: float = 0) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + offset))


def _held(model) -> dict:
    return model.batches  # id -> (batch object, results lines)


def create(model, payload, api, base_url: str = "") -> dict:
    """POST /v1/messages/batches: answer every request now; the batch is `ended`."""
    from ..model import unique_id

    if not isinstance(payload, dict) or set(payload) - {"requests"}:
        raise invalid("requests: Field required" if not isinstance(payload, dict) or "requests" not in payload
                      else f"{sorted(set(payload) - {'requests'})[0]}: Extra inputs are not permitted")
    requests = payload.get("requests")
    if not isinstance(requests, list) or not requests:
        raise invalid("requests: List should have at least 1 item after validation")
    if len(requests) > MAX_REQUESTS:
        raise invalid(f"requests: List should have at most {MAX_REQUESTS} items after validation")
    ids, lines = set(), []
    for k, item in enumerate(requests):
        if not isinstance(item, dict) or not isinstance(item.get("params"), dict):
            raise invalid(f"requests.{k}.params: Field required")
        custom_id = item.get("custom_id")
        if not isinstance(custom_id, str) or not CUSTOM_ID.match(custom_id):
            raise invalid(f"requests.{k}.custom_id: String should match pattern '{CUSTOM_ID.pattern}'")
        if custom_id in ids:
            raise invalid(f"requests: custom_id values must be unique within a batch: {custom_id}")
        ids.add(custom_id)
        if item["params"].get("stream"):
            raise invalid(f"requests.{k}.params.stream: streaming is not supported in a batch")
        try:
            message = model.create(item["params"], api=api)
            result = {"type": "succeeded", "message": message}
        except ApiError as err:
            error = {"type": "error", "error": {"type": err.type, "message": err.message}}
            result = {"type": "errored", "error": error}
        lines.append({"custom_id": custom_id, "result": result})
    batch_id = unique_id("msgbatch")
    succeeded = sum(1 for line in lines if line["result"]["type"] == "succeeded")
    batch = {"id": batch_id, "type": "message_batch", "processing_status": "ended",
             "request_counts": {"processing": 0, "succeeded": succeeded, "errored": len(lines) - succeeded,
                                "canceled": 0, "expired": 0},
             "created_at": _now(), "ended_at": _now(), "expires_at": _now(24 * 3600),
             "cancel_initiated_at": None, "archived_at": None,
             "results_url": f"{base_url}/v1/messages/batches/{batch_id}/results"}
    _held(model)[batch_id] = (batch, lines)
    return batch


def lookup(model, batch_id: str) -> tuple[dict, list]:
    """The batch and its results, or the API's 404."""
    held = _held(model).get(batch_id)
    if held is None:
        raise ApiError(404, "not_found_error", f"No batch found with id {batch_id}")
    return held


def results(model, batch_id: str) -> bytes:
    """The batch's results as JSON Lines."""
    _, lines = lookup(model, batch_id)
    return b"".join(json.dumps(line, ensure_ascii=False).encode() + b"\n" for line in lines)


def listing(model) -> dict:
    """GET /v1/messages/batches: every batch, newest first."""
    data = [batch for batch, _ in reversed(list(_held(model).values()))]
    return {"data": data, "has_more": False, "first_id": data[0]["id"] if data else None,
            "last_id": data[-1]["id"] if data else None}


def delete(model, batch_id: str) -> dict:
    lookup(model, batch_id)
    del _held(model)[batch_id]
    return {"id": batch_id, "type": "message_batch_deleted"}
