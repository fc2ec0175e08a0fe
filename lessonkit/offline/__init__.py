"""The offline model: a deterministic stand-in for Claude behind the real SDK.

    from lessonkit.offline import OfflineModel, offline_client
    client = offline_client(OfflineModel(context_window=8_000))

`python -m lessonkit.offline serve --port 8765` serves it on 127.0.0.1.
"""

from .model import OfflineModel
from .transport import model_of, offline_client
from .validate import ApiError

__all__ = ["ApiError", "OfflineModel", "model_of", "offline_client"]
