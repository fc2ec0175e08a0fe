"""The API's error shape: an HTTP status, an error type, a message (validate.py and params.py raise it).

Example: invalid("max_tokens: Field required").body("req_1")
  -> {"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: Field required"},
      "request_id": "req_1"}
"""

from __future__ import annotations


class ApiError(Exception):
    """An error the API answers with: HTTP status, error type and message."""

    def __init__(self, status: int, type: str, message: str, headers: dict | None = None,
                 details: dict | None = None):
        super().__init__(message)
        self.status, self.type, self.message = status, type, message
        self.headers = headers or {}
        self.details = details  # the API's `error.details` (threads' error_code), when it sends one

    def body(self, request_id: str) -> dict:
        error = {"type": self.type, "message": self.message}
        if self.details is not None:
            error["details"] = self.details
        return {"type": "error", "error": error, "request_id": request_id}


def invalid(message: str) -> ApiError:
    return ApiError(400, "invalid_request_error", message)


def check_fields(obj: dict, allowed: set, where: str) -> None:
    for key, value in obj.items():
        # SDK response objects sent back as-is carry optional fields set to None.
        if key not in allowed and value is not None:
            raise invalid(f"{where}{key}: Extra inputs are not permitted")
