"""s01 · The agent loop: one model, one tool, one while loop.

Motto: an agent is a loop that runs tools until the model stops asking for them.

    ask(prompt) ──> messages ──> client.messages.create ──> assistant turn ──┐
                       ^                                                     │
                       │                            stop_reason == "tool_use"?
                       │                               no: return its text ──┘
                       └── one user message <── run every tool_use block (yes)
                           with all the tool_results

New in s01: everything: the loop, the `bash` tool (bash.py), a history of plain
JSON dicts in the Messages-API shape.
Builds on: the `anthropic` SDK, `lessonkit.make_client()`, and lessonkit/base/
(the checks every stage needs but none teaches).
Not modeled: streaming, parallel tool execution, permissions (s03), hooks (s04),
a context that ever fills up (s05-s08).
The seeds: each stage follows one of three published designs of a coding agent, its seed,
and keeps its names and numbers where they work (a comment marks each line that fixes one):
  * "Building an AI coding agent from scratch: the main loop, context compaction and hook
    design" (Chinese), the loop-and-hooks seed: s01-s05, s07;
  * "Context Compact: three layers of compaction for an endless session" (Chinese, and an
    Italian lesson of the same), the three-layer seed: s06;
  * "Context Compact: four-layer context compaction" (Chinese, Kotlin code), the four-layer seed: s08.
"""

from __future__ import annotations

from pathlib import Path

# The stage's idea is below; these are the checks every entry point makes of what it is given.
from lessonkit.base.arguments import check_client, check_path, check_type, short_repr
from lessonkit.base.history_shape import check_history, check_message

from .bash import BASH_TOOL, ToolError, bash

SYSTEM = ("You are a coding agent working in the folder {workspace}. Use your tools to act; "
          "when the task is done, answer briefly.")
MAX_TOKENS = 4096
MAX_TURNS = 50
INTERRUPTED = "interrupted by the user"  # the result of each call a Ctrl-C left without one


def to_dict(block) -> dict:
    """An SDK content block as a plain dict. Example: TextBlock(text='hi') -> {'type': 'text', 'text': 'hi'}"""
    if isinstance(block, dict):
        return block
    if not callable(getattr(block, "model_dump", None)):
        raise ValueError(f"a content block must be a dict or an SDK block, got {short_repr(block)}")
    data = block.model_dump(mode="json", exclude_none=True, exclude={"parsed_output"})
    return {"type": data.pop("type"), **data}  # "type" first: easier to read when printed


def assistant_message(response) -> dict:
    """The assistant turn to append, as a plain dict.

    Example: a response [TextBlock('hi')], stop_reason 'end_turn' -> {'role': 'assistant', 'content': [text 'hi']}
    """
    if not isinstance(getattr(response, "content", None), list) or not hasattr(response, "stop_reason"):
        raise ValueError(f"response must be a Message (with content and stop_reason), got {short_repr(response)}")
    blocks = [to_dict(b) for b in response.content]  # plain dicts: a history is data to save, print, compact
    if response.stop_reason != "tool_use":  # cut off mid-call: that call never runs, so it must not stay unanswered
        blocks = [b for b in blocks if b.get("type") != "tool_use"]
    return {"role": "assistant", "content": blocks or [{"type": "text", "text": "(no text)"}]}  # the API refuses []


def tool_result(call: dict, content, *, is_error: bool = False) -> dict:
    """The tool_result block answering `call` (empty content reads "(no output)").

    Example: ({'id': 't1', ...}, 'ok') -> {'type': 'tool_result', 'tool_use_id': 't1', 'content': 'ok'}
    """
    if not isinstance(call, dict) or not isinstance(call.get("id"), str):
        raise ValueError(f"call must be a tool_use block (a dict with a str 'id'), got {short_repr(call)}")
    if content is not None:
        check_type(content, (str, list), "content")
    result = {"type": "tool_result", "tool_use_id": call["id"], "content": content or "(no output)"}
    if is_error:
        result["is_error"] = True  # the model reads a failure as a result, and can try something else
    return result


def final_text(message: dict) -> str:
    """The text of an assistant message. Example: {'content': [{'type': 'text', 'text': 'ok'}]} -> 'ok'"""
    check_message(message)
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in content if b.get("type") == "text")


class Agent:
    """The s01 agent. Later stages subclass it and override one method each."""

    @property
    def tools(self) -> list[dict]:
        """The tools the model is offered."""
        return [BASH_TOOL]  # a new list each time: nothing shared between agents

    def __init__(self, client, *, model: str | None = None, workspace=".", system: str | None = None,
                 max_tokens: int = MAX_TOKENS, max_turns: int = MAX_TURNS, on_event=None):
        check_client(client)
        for name, value in (("max_tokens", max_tokens), ("max_turns", max_turns)):
            check_type(value, int, name)
        if max_tokens < 1 or max_turns < 1:
            raise ValueError("max_tokens and max_turns must be >= 1")
        check_path(workspace, "workspace")
        from lessonkit import model_id

        self.client = client
        self.model = model or model_id()
        self.workspace = Path(workspace).resolve()
        if not self.workspace.is_dir():
            raise ValueError(f"workspace {str(workspace)!r} is not a directory")
        self.system = (system or SYSTEM).replace("{workspace}", self.workspace.name)
        self.max_tokens, self.max_turns = max_tokens, max_turns
        self.on_event = on_event  # an observer (a lesson's recorder, the REPL): sees, never changes

    # ---- the pieces later stages override -----------------------------------
    def emit(self, kind: str, **data) -> None:
        """Report what happens (requests, responses, tools) to an observer, if any."""
        if self.on_event is not None:
            self.on_event(kind, data)

    def append(self, messages: list, message: dict) -> None:
        """Add a message to the history (s06 also writes it to the transcript)."""
        messages.append(message)

    def call_model(self, messages: list):
        """One API request with the whole history."""
        self.emit("request", messages=messages, tools=self.tools)
        response = self.client.messages.create(model=self.model, system=self.system, messages=messages,
                                               tools=self.tools, max_tokens=self.max_tokens)
        self.emit("response", response=response)
        return response

    def execute(self, name: str, tool_input: dict) -> str:
        """Run one tool and return its output; raise ToolError for a failure."""
        if name != "bash":  # the one tool; s02 turns this `if` into a lookup in a map
            raise ToolError(f"unknown tool {name!r}: the only tool is bash")
        return bash(tool_input.get("command", ""), cwd=self.workspace)

    def run_tool(self, block: dict) -> dict:
        """A tool_use block -> its tool_result block (errors become is_error results)."""
        # No event here: the loop reports what the most derived run_tool returned (later stages wrap it).
        try:
            return tool_result(block, self.execute(block["name"], block.get("input") or {}))
        except ToolError as exc:
            return tool_result(block, str(exc), is_error=True)
        except Exception as exc:  # noqa: BLE001 -- a bug in a tool must not kill the loop
            return tool_result(block, f"{type(exc).__name__}: {exc}", is_error=True)

    # ---- the loop ------------------------------------------------------------
    def loop(self, messages: list) -> str:
        """Run until the model stops asking for tools; return its last text."""
        for _ in range(self.max_turns):
            response = self.call_model(messages)  # 1. send the whole history, every time
            turn = assistant_message(response)
            self.append(messages, turn)           # 2. the model's turn joins the history
            if response.stop_reason != "tool_use":
                return final_text(turn)           # 3. no tool asked for: that is the answer
            calls, results = [b for b in turn["content"] if b.get("type") == "tool_use"], []
            try:
                for call in calls:                # 4. run every call the turn made, in order
                    results.append(self.run_tool(call))
                    self.emit("tool", call=call, result=results[-1])
            except BaseException as exc:  # Ctrl-C: answer every call still open, then let it go on up
                why = INTERRUPTED if isinstance(exc, KeyboardInterrupt) else f"interrupted ({type(exc).__name__})"
                results += [tool_result(c, why, is_error=True) for c in calls[len(results):]]
                self.append(messages, {"role": "user", "content": results})  # the next ask() can go on
                raise
            self.append(messages, {"role": "user", "content": results})  # 5. all results in ONE user message
        return f"(stopped after {self.max_turns} turn{'' if self.max_turns == 1 else 's'} without a final answer)"

    def ask(self, prompt: str, messages: list | None = None) -> str:
        """Add a user prompt to the history and run the loop. Example: ask('Run `ls`') -> 'Done...'"""
        messages = [] if messages is None else messages
        if not isinstance(prompt, str):
            raise TypeError(f"the prompt must be a str, got {type(prompt).__name__}")
        check_history(messages)  # a malformed history: one ValueError naming the message, not a crash later
        if messages and messages[-1].get("role") == "user":
            # The last turn ended early (max_turns, an API error): say it in the same user turn,
            # after its tool results, so the roles still alternate.
            last = messages[-1]
            before = last["content"] if isinstance(last["content"], list) else \
                [{"type": "text", "text": last["content"]}]
            last["content"] = before + [{"type": "text", "text": prompt}]
        else:
            self.append(messages, {"role": "user", "content": prompt})
        return self.loop(messages)


def agent_loop(messages: list, *, client, **options) -> str:
    """The s01 loop as one function: run `messages` (ending with a user turn) to the end."""
    check_history(messages)
    return Agent(client, **options).loop(messages)
