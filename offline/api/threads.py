"""Message threads (beta message-threads-2026-08-12): the model holds a conversation, the client sends each new turn.

    turn 1: thread {"type": "create"}, the whole history          -> answer msg_A; the model keeps history + msg_A
    turn 2: thread {"type": "continue", "previous_message_id": "msg_A"}, only the new messages (no system, tools)
            -> read as history + msg_A + the new messages, with the thread's system and tools
                                                                  -> answer msg_B, kept under msg_B
    continue from an id the model does not hold                   -> 404 not_found_error, details
            {"error_code": "thread_not_found"} (the SDK then replays the full history under a new thread)

This is what the installed SDK's `tool_runner` sends by default (lib/threads/_thread_state.py:
"create" first, then "continue" with only the turn's new messages).

Example: store.expand({"thread": {"type": "continue", "previous_message_id": "msg_x"}, "messages": [...]})
  -> ApiError(404, "not_found_error", "thread: No usable Thread state was found for previous_message_id msg_x. ...")

Not modeled: thread_already_continued / thread_continue_in_flight (a thread may be continued
from any of its replies), expiry (the newest MAX_THREADS replies are kept).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from .errors import ApiError

MAX_THREADS = 2_000
CREATE_ONLY = ("system", "tools")  # held from the `create` turn; a `continue` leaves them out (the SDK's)


class ThreadStore:
    """The histories the model holds, by the id of the reply that ends them."""

    def __init__(self, max_entries: int = MAX_THREADS):
        self.max_entries = max_entries
        self._held: OrderedDict[str, tuple] = OrderedDict()  # reply id -> (messages, {system, tools})
        self._lock = threading.Lock()

    def expand(self, body):
        """The request with a `continue` thread's held history put before its new messages."""
        thread = body.get("thread") if isinstance(body, dict) else None
        if not isinstance(thread, dict) or thread.get("type") != "continue" \
                or not isinstance(body.get("messages"), list):
            return body
        previous = thread.get("previous_message_id")
        with self._lock:
            held = self._held.get(previous) if isinstance(previous, str) else None
        if held is None:
            raise ApiError(404, "not_found_error",
                           f"thread: No usable Thread state was found for previous_message_id {previous}. Replay the "
                           'full conversation with thread: {"type": "create"} to start a new Thread.',
                           details={"error_code": "thread_not_found"})
        messages, fields = held
        kept = {k: v for k, v in fields.items() if body.get(k) is None}  # system and tools are the thread's
        return dict(body, **kept, messages=messages + body["messages"])

    def keep(self, body: dict, message: dict) -> None:
        """Hold the request's history and the reply, under the reply's id (for a request with a thread)."""
        if not isinstance(body.get("thread"), dict):
            return
        history = list(body["messages"]) + [{"role": "assistant", "content": message["content"]}]
        fields = {k: body[k] for k in CREATE_ONLY if body.get(k) is not None}
        with self._lock:
            self._held[message["id"]] = (history, fields)
            while len(self._held) > self.max_entries:
                self._held.popitem(last=False)
