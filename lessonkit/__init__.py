"""lessonkit: what the lessons stand on.

    make_client()      an anthropic.Anthropic client (offline model unless told otherwise)
    model_id()         the model name to send (MODEL_ID or the kit's default)
    backend_name()     'offline' or 'anthropic' (LESSONS_BACKEND)
    window_of(client)  the context window a client made here enforces (None: the model's own)
    lessonkit.offline  the offline model, its mock transport and its HTTP server
    lessonkit.tokens   the one token counter

Importing lessonkit reads no environment, makes no client and scans no file.

Example: from lessonkit import make_client, model_id
         make_client().messages.create(model=model_id(), max_tokens=100, messages=[...])

Not modeled: clients for other providers' SDKs (use ANTHROPIC_BASE_URL for compatible ones).
"""

from .backends.client import ConfigError, backend_name, make_client, model_id
from .backends.window import window_of

__all__ = ["ConfigError", "backend_name", "make_client", "model_id", "window_of"]
