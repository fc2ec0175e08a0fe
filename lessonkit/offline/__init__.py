"""The offline model: a deterministic stand-in for Claude behind the real `anthropic` SDK.

    SDK request ──> transport.py (in-process) or server.py (HTTP, 127.0.0.1) ──> http.py
                ──> model.py: faults, validate.py (+ blocks.py, params.py, errors.py), context window,
                    then summarize.py + sections.py (a summary request) or policy.py (an agent turn),
                    forced.py (tool_choice) + inputs.py (an input from a schema),
                    structured.py + values.py (right values or a refusal), cache.py (usage)

    policy.py  <- plan.py (the plan for a task), polite.py, refs.py, guard.py (the guard rails:
                  docs/offline-model.md), grammar.py (+ grammar_clause.py and the other grammar_*.py),
                  report.py (+ report_files.py, output.py), progress.py, discover.py, roles.py,
                  scenarios.py (+ scenarios/*.json), answers.py,
                  reading.py (+ pasted.py: a conversation in a prompt, calls.py: a call and its result)

Example: from lessonkit.offline import OfflineModel, offline_client
         client = offline_client(OfflineModel(context_window=8_000))
         client.messages.create(model="offline", max_tokens=100, messages=[...]) -> Message

`python -m lessonkit.offline serve --port 8765` serves it on 127.0.0.1.

Not modeled: what a real model knows. It acts only on what the request shows.
"""

from .model import OfflineModel
from .transport import model_of, offline_client
from .validate import ApiError

__all__ = ["ApiError", "OfflineModel", "model_of", "offline_client"]
