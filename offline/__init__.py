"""offline: a deterministic stand-in for Claude behind the real `anthropic` SDK (README.md).

    SDK request ──> serve/ (in process, or HTTP on 127.0.0.1) ──> model.py
                      model.py: api/ checks the request as the real API would (its version, betas, model),
                                then answers a summary request (answers/summarize.py)
                                or an agent turn (agent/policy.py):
                      agent/     what to do next: the plan, its progress, the guard rails, tool_choice
                      grammar/   what the request asks, in English or Chinese
                      answers/   what it says, read back from what the tools really printed
                      conversation/  the request read as events, tools and a language

Example: from offline import OfflineModel, offline_client
         client = offline_client(OfflineModel(context_window=8_000))
         client.messages.create(model="offline", max_tokens=100, messages=[...]) -> Message

`python -m offline serve --port 8765` serves it on 127.0.0.1.

Not modeled: what a real model knows. It acts only on what the request shows.
"""

from .api.validate import ApiError
from .model import OfflineModel
from .serve.transport import model_of, offline_client

__all__ = ["ApiError", "OfflineModel", "model_of", "offline_client"]
