"""The `anthropic-beta` header: a beta the API does not know is its 400, offline as online.

    anthropic-beta: prompt-caching-2024-07-31, context-1m-2025-08-07   -> accepted (and ignored)
    anthropic-beta: not-a-beta                                         -> 400 invalid_request_error
        "Unexpected value(s) `not-a-beta` for the `anthropic-beta` header. Please consult our
         documentation at docs.anthropic.com or try again without the header."

The known names are the installed SDK's own list (`anthropic.types.AnthropicBetaParam`,
read on first use) plus the older names it no longer lists, so a newer SDK brings
its new betas with it.

Example: check_betas({"anthropic-beta": "files-api-2025-04-14"}) -> None

Not modeled: what a beta changes (the offline model answers the same with or without it).
"""

from __future__ import annotations

import typing
from functools import lru_cache

from .errors import invalid

OLDER_BETAS = (  # names the API still accepts that recent SDKs no longer list
    "max-tokens-3-5-sonnet-2024-07-15", "prompt-caching-2024-07-31", "message-batches-2024-09-24",
    "pdfs-2024-09-25", "token-counting-2024-11-01", "token-efficient-tools-2025-02-19",
    "output-128k-2025-02-19", "files-api-2025-04-14", "extended-cache-ttl-2025-04-11",
    "fine-grained-tool-streaming-2025-05-14", "search-results-2025-06-09", "web-fetch-2025-09-10",
    "skills-2025-10-02", "code-execution-2025-08-25", "advanced-tool-use-2025-11-20", "effort-2025-11-24",
)


@lru_cache(maxsize=1)
def known_betas() -> frozenset:
    """Every beta name the offline API accepts: the SDK's list and OLDER_BETAS."""
    names = set(OLDER_BETAS)
    try:
        from anthropic.types import AnthropicBetaParam
    except ImportError:  # an SDK without betas: only the names above
        return frozenset(names)
    for arg in typing.get_args(AnthropicBetaParam):
        names.update(a for a in typing.get_args(arg) if isinstance(a, str))
    return frozenset(names)


def check_betas(headers: dict) -> None:
    """Raise the API's 400 if an `anthropic-beta` header names an unknown beta (any header case)."""
    value = next((v for k, v in headers.items() if k.lower() == "anthropic-beta"), None)
    if not value:
        return
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in known_betas()]
    if unknown:
        raise invalid(f"Unexpected value(s) `{', '.join(unknown)}` for the `anthropic-beta` header. "
                      "Please consult our documentation at docs.anthropic.com or try again without the header.")
