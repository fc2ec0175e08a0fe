"""`tool_choice` for the offline model: the policy's answer, made to obey the request.

The policy (policy.py) answers as if `tool_choice` were "auto". This module then
applies what the request asked for, the way the API does:

    auto   the policy's answer as it is
    none   no tool call (the policy is asked again with no tools)
    any    at least one call, and no text before it: the policy's calls if it made
           some, else one call to the offered tool whose name and description best
           match the request (a call already made with the same input comes last,
           an output-like name such as final_result breaks a tie), with an input
           built from its input_schema (inputs.py)
    tool   calls to the named tool only, and no text: the policy's own calls to it,
           else one call built from the tool's input_schema

`disable_parallel_tool_use` keeps one call: the first one the conversation has not
made already, and drops the step counter "(k/N)" from the text, since the step is
not done (so a plan that reads two files in one turn reads them one per turn).

A forced call the policy did not make takes each value from the user's words
(values.py), or is an honest refusal, stop_reason "refusal", naming the field the
words do not give (structured.py): never a made-up value. `build` (inputs.py) ranks the
tools for `any` and completes a call of the policy's own that lacks a property.

Example: tools=[{"name": "get_weather", "input_schema": {"type": "object", "required": ["city"],
                 "properties": {"city": {"type": "string"}}}}],
         tool_choice={"type": "any"}, "What's the weather in Paris?"
  -> tool_use get_weather {"city": "Paris"}

Not modeled: the schema features inputs.py does not build (see its docstring).
"""

from __future__ import annotations

import json

from ..conversation.reading import STEP
from . import structured
from .inputs import _words, build, complete, request_text
from .policy import Reply

OUTPUT_WORDS = {"final", "result", "output", "answer", "respond", "response", "structured", "submit", "extract"}


def apply(reply: Reply, body: dict, redo) -> Reply:
    """The reply as `body["tool_choice"]` allows it. `redo(body)` asks the policy again (for "none")."""
    choice = body.get("tool_choice") or {"type": "auto"}
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    kind = choice.get("type", "auto")
    if kind == "auto" and not reply.calls:
        return reply  # nothing to choose: the reply as the policy gave it (its text blocks kept)
    if kind == "none":
        return reply if not reply.calls else redo(dict(body, tools=[], tool_choice=None))
    calls = list(reply.calls)
    if kind == "tool":
        calls = [c for c in calls if c[0] == choice["name"]]
    if kind in ("tool", "any") and not calls:  # a call built from the schema: the user's values, or a refusal
        tool = next(t for t in tools if t["name"] == choice["name"]) if kind == "tool" else \
            next(t for t in tools if t["name"] == best_call(tools, body)[0])
        found = structured.values_or_refusal(tool.get("input_schema") or {}, request_text(body), reply.text)
        if isinstance(found, Reply):
            return found
        calls = [(tool["name"], found)]
    if kind in ("any", "tool"):  # a forced call carries every required property
        by_name = {t["name"]: t for t in tools}
        calls = [(name, complete(args, (by_name.get(name) or {}).get("input_schema") or {}, request_text(body)))
                 for name, args in calls]
    text = "" if kind in ("any", "tool") else reply.text
    if choice.get("disable_parallel_tool_use") and len(calls) > 1:
        calls = [first_new(calls, body.get("messages") or [])]
        text = STEP.sub("", text).replace(" .", ".").strip()  # the step is not done after this one call
    return Reply(text, calls)


def best_call(tools: list, body: dict) -> tuple[str, dict]:
    """The call to make when one must be made and the policy made none.

    Ranked by: not made already with the same input (so a structured-output loop ends),
    words shared with the request (name and description), an output-like name
    (final_result, answer, ...), then the order offered.
    Example: [get_weather, final_result], "weather in Rome" -> get_weather {"city": "Rome"};
             once that call is in the history -> final_result {...}
    """
    text, made = request_text(body), _made(body.get("messages") or [])
    asked = _words(text)
    ranked = []
    for k, tool in enumerate(tools):
        args = build(tool.get("input_schema") or {}, text)
        shared = len(asked & (_words(tool["name"]) | _words(tool.get("description", ""))))
        ranked.append(((_key(tool["name"], args) not in made, shared, bool(_words(tool["name"]) & OUTPUT_WORDS), -k),
                       (tool["name"], args)))
    return max(ranked, key=lambda r: r[0])[1]


def _key(name: str, args: dict) -> tuple[str, str]:
    return name, json.dumps(args, sort_keys=True)


def _made(messages: list) -> set:
    """(name, input) of every tool_use in the conversation."""
    return {_key(b.get("name"), b.get("input")) for m in messages
            if m.get("role") == "assistant" and isinstance(m.get("content"), list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"}


def first_new(calls: list, messages: list) -> tuple[str, dict]:
    """The first call the conversation has not made already (the first call if all were made)."""
    made = _made(messages)
    return next((c for c in calls if _key(*c) not in made), calls[0])
