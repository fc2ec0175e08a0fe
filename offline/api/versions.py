"""The `anthropic-version` a request asks for, and the rules that version adds (a table keyed by version).

    anthropic-version: 2023-06-01   -> the rules every version shares (validate.py, blocks.py, params.py)
    anthropic-version: 2026-10-21   -> those, and RULES below: no temperature / top_p / top_k, no `document`
                                       block in an assistant message, no `citations` on a user text block
    anthropic-version: 1999-01-01   -> 400 invalid_request_error "anthropic-version: 1999-01-01 is not a valid
                                       version. Valid versions: 2023-01-01, 2023-06-01, 2026-10-21"
    (no header)                     -> DEFAULT_VERSION (offline only: the real API answers 400)

Each rule names the documentation page it comes from (docs/offline-api.md lists them); the
installed SDK's own version plays no part, so a client that pins 2023-06-01 is answered as the
API answers it, whatever SDK the server has.

Example: check_version_rules({"temperature": 0.5, ...}, "2026-10-21")
  -> ApiError(400, "invalid_request_error", "temperature: Extra inputs are not permitted. `temperature`, `top_p`
     and `top_k` were removed in anthropic-version 2026-10-21; ...")

Messages are inferred in the API's own style (the versioning page gives the behaviour, not
the wording); docs/offline-api.md marks them so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .errors import ApiError, invalid

VERSIONING_DOCS = "https://platform.claude.com/docs/en/api/versioning"
VERSIONS = ("2023-01-01", "2023-06-01", "2026-10-21")  # the documented versions, oldest first
DEFAULT_VERSION = "2023-06-01"  # a request with no header (offline accepts it; the API answers 400)
SAMPLING = ("temperature", "top_p", "top_k")


def request_version(headers: dict) -> str:
    """The request's `anthropic-version` (any header case), or the API's 400 for one it does not know."""
    value = next((v for k, v in headers.items() if k.lower() == "anthropic-version"), None)
    if value is None or value == "":
        return DEFAULT_VERSION
    value = value.strip()
    if value not in VERSIONS:
        raise ApiError(400, "invalid_request_error",
                       f"anthropic-version: {value} is not a valid version. Valid versions: {', '.join(VERSIONS)}")
    return value


def _no_sampling(body: dict) -> None:
    for name in SAMPLING:
        if body.get(name) is not None:  # even at its default value
            raise invalid(f"{name}: Extra inputs are not permitted. `temperature`, `top_p` and `top_k` were removed "
                          f"in anthropic-version 2026-10-21; see {VERSIONING_DOCS}")


def _blocks(body: dict):
    for i, msg in enumerate(body.get("messages") or []):
        content = msg.get("content") if isinstance(msg, dict) else None
        for j, block in enumerate(content if isinstance(content, list) else ()):
            if isinstance(block, dict):
                yield i, msg.get("role"), j, block


def _no_assistant_documents(body: dict) -> None:
    for i, role, j, block in _blocks(body):
        if role == "assistant" and block.get("type") == "document":
            raise invalid(f"messages.{i}.content.{j}: `document` blocks are not allowed in assistant messages "
                          "in anthropic-version 2026-10-21")


def _user_texts(body: dict):
    """(where, text block) for the text of user messages: directly, and inside search_result blocks (also those a
    tool_result carries), the places the 2026-10-21 citations rule names."""
    for i, role, j, block in _blocks(body):
        if role != "user":
            continue
        if block.get("type") == "text":
            yield f"messages.{i}.content.{j}.text", block
        inner = block.get("content") if block.get("type") == "tool_result" else None
        results = [(f"messages.{i}.content.{j}.content.{k}", b) for k, b in
                   enumerate(inner if isinstance(inner, list) else ()) if isinstance(b, dict)]
        for where, result in [(f"messages.{i}.content.{j}", block), *results]:
            texts = result.get("content") if result.get("type") == "search_result" else None
            for k, text in enumerate(texts if isinstance(texts, list) else ()):
                if isinstance(text, dict) and text.get("type") == "text":
                    yield f"{where}.search_result.content.{k}.text", text


def _no_user_citations(body: dict) -> None:
    for where, block in _user_texts(body):
        if block.get("citations"):
            raise invalid(f"{where}.citations: citations are not allowed on text blocks in user messages "
                          "in anthropic-version 2026-10-21")


@dataclass(frozen=True)
class Rule:
    """A rule some versions add: the versions it holds for, what it checks, the page it comes from.
    (It holds for Messages and token counting alike, and for each request of a batch.)"""
    name: str
    versions: tuple
    check: Callable[[dict], None]
    doc: str


RULES = (
    Rule("temperature, top_p and top_k are refused (even at their defaults)", ("2026-10-21",), _no_sampling,
         VERSIONING_DOCS),
    Rule("no `document` block in an assistant message", ("2026-10-21",), _no_assistant_documents, VERSIONING_DOCS),
    Rule("no non-empty `citations` on a user text block, directly or inside a search_result block",
         ("2026-10-21",), _no_user_citations, VERSIONING_DOCS),
)


def check_version_rules(body: dict, version: str) -> None:
    """Raise the first 400 the version's own rules give for the request. Example: see the module docstring."""
    for rule in RULES:
        if version in rule.versions:
            rule.check(body)


@dataclass(frozen=True)
class Api:
    """What a request's headers ask for: its API version and its betas (validate.py reads the body under them)."""
    version: str = DEFAULT_VERSION
    betas: frozenset = frozenset()

    @classmethod
    def from_headers(cls, headers: dict) -> Api:
        """Example: {"anthropic-version": "2026-10-21"} -> Api("2026-10-21", frozenset())"""
        from .betas import request_betas

        return cls(request_version(headers), request_betas(headers))
