"""Structured output served from the user's words: forced `tool_choice` and `output_config.format`.

    tool_choice {"type": "tool"/"any"} and no call of the policy's own  ─┐
    output_config {"format": {"type": "json_schema", "schema": ...}}    ─┤
    output_format {...} (beta structured-outputs-2025-11-13 / -12-15)   ─┴─> values.fill(schema, the user's words)
          all required fields found  ->  a tool_use with them / a text block of JSON, stop_reason as usual
          a required field not found ->  stop_reason "refusal", a text naming the field (never a made-up value)

The request's text is its newest user words; "summary"/"answer" fields take the model's own
answer in words (what it would say without the schema).

Example: output_config={"format": {"type": "json_schema", "schema": {"type": "object", "properties":
           {"age": {"type": "integer"}}, "required": ["age"]}}}, "She is forty-two"
  -> content [{"type": "text", "text": "{\\"age\\": 42}"}], stop_reason "end_turn"
         the same with "She is old" -> stop_reason "refusal", 'I can't fill the required field "age": ...'

Not modeled: output_config's other fields (effort), streaming the JSON in pieces.
"""

from __future__ import annotations

import json

from lessonkit.i18n import tr

from ..conversation.language import request_language
from .inputs import request_text
from .policy import Reply
from .values import Missing, fill


def refusal(field: str, text: str) -> Reply:
    """The honest answer when a required field is not in the user's words."""
    return Reply(tr('I can\'t fill the required field "{field}": the request does not give it, and I will not '
                    "make a value up. Say it in the request and ask again.", language=request_language(text),
                    field=field), refused=True)


def values_or_refusal(schema: dict, text: str, said: str = "") -> dict | Reply:
    """The values `schema` asks for from `text`, or the refusal naming the first missing field."""
    try:
        return fill(schema, text, said)
    except Missing as missing:
        return refusal(missing.field, text)


def json_schema(body: dict) -> dict | None:
    """The schema of `output_config.format` (or the structured-outputs beta's `output_format`), if any."""
    fmt = (body.get("output_config") or {}).get("format") if isinstance(body.get("output_config"), dict) else None
    fmt = fmt if fmt is not None else body.get("output_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema" and isinstance(fmt.get("schema"), dict):
        return fmt["schema"]
    return None


def apply(reply: Reply, body: dict) -> Reply:
    """The reply with `output_config.format` honoured: its final text becomes the JSON (or a refusal)."""
    schema = json_schema(body)
    if schema is None or reply.calls or reply.refused:
        return reply
    found = values_or_refusal(schema, request_text(body), reply.text)
    return found if isinstance(found, Reply) else Reply(json.dumps(found, ensure_ascii=False))
