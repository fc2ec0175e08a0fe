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


def tag(obj: dict, tags, where: str, field: str = "type") -> str:
    """The tag of a tagged union (a block's `type`, a source's ...), or the API's 400 naming the tags it takes.

    A tag of the wrong JSON type ([], {}, 5) is refused the same way, never looked up (a list is unhashable).
    Example: tag({"type": "pdf"}, ("text", "image"), "messages.0.content.0")
      -> ApiError(400, "messages.0.content.0: Input tag 'pdf' found using 'type' does not match any of the
         expected tags: 'text', 'image'")
    """
    kind = obj.get(field) if isinstance(obj, dict) else None
    if not isinstance(kind, str) or kind not in tags:
        raise invalid(f"{where}: Input tag '{kind}' found using '{field}' does not match any of the expected tags: "
                      + ", ".join(repr(t) for t in tags))
    return kind


def check_str(obj: dict, key: str, where: str, *, required: bool = False) -> None:
    """obj[key] is a string (or absent / null when not required). Example: {"title": 5} -> "...title: Input should
    be a valid string" """
    value = obj.get(key)
    if value is None and not required:
        return
    if value is None:
        raise invalid(f"{where}.{key}: Field required")
    if not isinstance(value, str):
        raise invalid(f"{where}.{key}: Input should be a valid string")
