"""lessonkit: what the lessons stand on.

    make_client()      an anthropic.Anthropic client (offline model unless told otherwise)
    model_id()         the model name to send (MODEL_ID or the kit's default)
    backend_name()     'offline' or 'anthropic' (LESSONS_BACKEND)
    window_of(client)  the context window a client made here enforces (None: the model's own)
    offline  the offline model, its mock transport and its HTTP server
    lessonkit.tokens   the one token counter

Importing lessonkit reads no environment, makes no client and scans no file.

Example: from lessonkit import make_client, model_id
         make_client().messages.create(model=model_id(), max_tokens=100, messages=[...])

Not modeled: clients for other providers' SDKs (use ANTHROPIC_BASE_URL for compatible ones).
"""

__all__ = ["ConfigError", "backend_name", "make_client", "model_id", "window_of"]

_HOME = {"ConfigError": "client", "backend_name": "client", "make_client": "client", "model_id": "client",
         "window_of": "window"}  # name -> lessonkit.backends.<module> it lives in


def __getattr__(name: str):
    """The factory's names, imported when first asked for: `import lessonkit.base.arguments` (a
    stage's argument checks) then costs no backend, SDK or offline model."""
    if name not in _HOME:
        raise AttributeError(f"module 'lessonkit' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".backends.{_HOME[name]}", __name__), name)
    globals()[name] = value  # once: the next lookup is an ordinary one
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
