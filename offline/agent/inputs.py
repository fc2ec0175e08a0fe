"""A tool's input built from its input_schema, each string taken from the request's words.

    input_schema ──> build(schema, the request's newest user words) ──> an object that satisfies it
        name/title  a quoted phrase or a capitalised name      city/place  a name after in/at/from
        path/file   a path (in backticks first)                command     the text in backticks
        a count     the request's numbers, in order            query/text  the whole request

An input built from a schema satisfies it: every required property (and the
optional ones the request's words fill), the right JSON types, an `enum` member
(the one the request names, if any), nested objects and arrays (minItems), number
bounds, maxLength, and `$ref`s into `$defs`. Strings come from the request where a
property's name says what it is: a quoted phrase or a capitalised name for
name/title/city-like fields, a number for counts, a path for path/file, a command
in backticks for command, the whole request for query/text/content-like fields.

forced.py builds a call with it when `tool_choice` forces one; values.py reads the same
property kinds (`_kind`, `_phrase`) to find each field's value or refuse.

Example: build({"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}},
               "What's the weather in Paris?") -> {"city": "Paris"}

Not modeled: `pattern`, `format` beyond email/date/uri, `if`/`then`, `not`,
`uniqueItems` for non-string items, schemas that no value satisfies.
"""

from __future__ import annotations

import re

from ..conversation.reading import block_text

MAX_DEPTH = 8  # nested schemas deeper than this get their simplest value
WORD = re.compile(r"[a-z0-9]+")
QUOTED = re.compile(r"[\"“'‘`]([^\"”'’`\n]{1,80})[\"”'’`]")
NAMED = re.compile(r"\b(?:named|called|titled|name is|title is)\s+([\w][\w .'-]{0,60}?)"
                   r"(?=[,.;:!?]|\s+(?:and|with|that|who|in|at|for)\b|$)", re.IGNORECASE)
PLACE = re.compile(r"\b(?:in|at|for|to|from|near)\s+((?:[A-Z][\w'-]*)(?:\s+[A-Z][\w'-]*)*)")
CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)*)")
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
PATHLIKE = re.compile(r"(?<![\w/])((?:[\w.-]+/)*[\w-]+\.[A-Za-z0-9]{1,8}|(?:[\w.-]+/)+[\w.-]*)(?![\w/])")
BACKTICKS = re.compile(r"`([^`\n]+)`")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
URL = re.compile(r"https?://\S+")
DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
KINDS = {  # a property name's words -> what to take from the request
    "place": ("city", "location", "place", "country", "region", "town", "destination", "origin", "address"),
    "name": ("name", "title", "person", "author", "user", "username", "label", "character", "company",
             "product", "topic", "subject", "entity", "who"),
    "path": ("path", "file", "filename", "filepath", "dir", "directory", "folder"),
    "command": ("command", "cmd", "script", "shell"),
    "whole": ("query", "question", "text", "message", "content", "prompt", "input", "request",
              "description", "summary", "answer", "reason", "body", "note", "comment", "instruction"),
}


def request_text(body: dict) -> str:
    """The newest user words in the request (tool results skipped). Example: [user "hi"] -> hi"""
    for msg in reversed(body.get("messages") or []):
        if msg.get("role") == "user":
            text = block_text(msg.get("content"), results=False).strip()
            if text:
                return text
    return ""


def _words(text: str) -> set[str]:
    return set(WORD.findall(re.sub(r"([a-z])([A-Z])", r"\1 \2", text or "").lower().replace("_", " ")))


def complete(args: dict, schema: dict, text: str) -> dict:
    """`args` with every required property the schema names and `args` lacks, built from `text`."""
    missing = [p for p in schema.get("required") or [] if p not in args]
    if not missing:
        return args
    built = build(dict(schema, required=missing), text, root=schema)
    return dict(args, **{p: built[p] for p in missing if p in built})


def build(schema: dict, text: str, *, root: dict | None = None) -> dict:
    """An object satisfying `schema` (an input_schema), its strings taken from `text` where it can."""
    value = _value(schema, "", text, root or schema, 0, _Numbers(text))
    return value if isinstance(value, dict) else {}


class _Numbers:
    """The numbers in the request, handed out in order to the numeric fields that ask."""

    def __init__(self, text: str):
        self.left = [float(n) for n in NUMBER.findall(text)]

    def take(self) -> float | None:
        return self.left.pop(0) if self.left else None


def _resolve(schema: dict, root: dict) -> dict:
    """Follow `$ref` (#/$defs/X, #/definitions/X) and merge a one-item allOf."""
    for _ in range(MAX_DEPTH):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target = root
            for part in ref[2:].split("/"):
                target = target.get(part, {}) if isinstance(target, dict) else {}
            schema = dict(target, **{k: v for k, v in schema.items() if k != "$ref"})
            continue
        if isinstance(schema.get("allOf"), list) and schema["allOf"]:
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                merged.update(part if isinstance(part, dict) else {})
            schema = merged
            continue
        break
    return schema


def _type_of(schema: dict) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind:
        return kind
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return "string"


def _value(schema, name: str, text: str, root: dict, depth: int, numbers: _Numbers):
    schema = _resolve(schema if isinstance(schema, dict) else {}, root)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        lowered = text.lower()
        return next((v for v in schema["enum"] if isinstance(v, str) and v.lower() in lowered), schema["enum"][0])
    for key in ("anyOf", "oneOf"):
        alternatives = [o for o in schema.get(key) or [] if isinstance(o, dict)]
        options = [o for o in alternatives if o.get("type") != "null"] or alternatives
        if options:
            return _value(dict(options[0], **{k: v for k, v in schema.items() if k != key}),
                          name, text, root, depth, numbers)
    kind = _type_of(schema)
    if kind == "object":
        return _object(schema, text, root, depth, numbers)
    if kind == "array":
        return _array(schema, name, text, root, depth, numbers)
    if kind in ("integer", "number"):
        return _number(schema, kind, numbers)
    if kind == "boolean":
        return schema.get("default", False) if isinstance(schema.get("default"), bool) else False
    if kind == "null":
        return None
    return _string(schema, name, text)


def _object(schema: dict, text: str, root: dict, depth: int, numbers: _Numbers) -> dict:
    props = schema.get("properties") or {}
    required = [p for p in schema.get("required") or [] if isinstance(p, str)]
    out = {}
    if depth >= MAX_DEPTH:
        return {p: None for p in required}
    for prop, sub in props.items():
        if prop in required or (depth == 0 and _from_text(prop, sub, text)):
            out[prop] = _value(sub, prop, text, root, depth + 1, numbers)
    for prop in required:  # required but not described: any string satisfies no schema better
        out.setdefault(prop, _string({}, prop, text))
    return out


def _from_text(prop: str, sub, text: str) -> bool:
    """True if an optional property's value is plainly in the request (then it is filled in)."""
    sub = sub if isinstance(sub, dict) else {}
    if isinstance(sub.get("enum"), list):
        return any(isinstance(v, str) and v.lower() in text.lower() for v in sub["enum"])
    return _type_of(sub) == "string" and _kind(prop) in ("place", "name", "path", "command") \
        and _phrase(_kind(prop), text) is not None


def _array(schema: dict, name: str, text: str, root: dict, depth: int, numbers: _Numbers) -> list:
    items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
    low = schema.get("minItems", 1) if isinstance(schema.get("minItems"), int) else 1
    high = schema.get("maxItems") if isinstance(schema.get("maxItems"), int) else None
    n = max(low, 1) if high is None else min(max(low, 1), high)
    if depth >= MAX_DEPTH:
        n = low
    values = [_value(items, name, text, root, depth + 1, numbers) for _ in range(n)]
    if schema.get("uniqueItems") and all(isinstance(v, str) for v in values):
        values = [v if k == 0 else f"{v} {k + 1}" for k, v in enumerate(values)]
    return values


def _number(schema: dict, kind: str, numbers: _Numbers):
    value = numbers.take()
    if value is None:
        value = schema.get("default") if isinstance(schema.get("default"), (int, float)) else 0
    low, high = schema.get("minimum"), schema.get("maximum")
    step = 1 if kind == "integer" else 0.5
    if isinstance(schema.get("exclusiveMinimum"), (int, float)):
        low = schema["exclusiveMinimum"] + step
    if isinstance(schema.get("exclusiveMaximum"), (int, float)):
        high = schema["exclusiveMaximum"] - step
    if isinstance(low, (int, float)) and value < low:
        value = low
    if isinstance(high, (int, float)) and value > high:
        value = high
    return int(value) if kind == "integer" else float(value)


def _kind(prop: str) -> str:
    words = _words(prop)
    for kind, names in KINDS.items():
        if words & set(names):
            return kind
    return "whole"


def _phrase(kind: str, text: str) -> str | None:
    """The part of the request a property of this kind asks for, or None."""
    if kind == "command":
        m = BACKTICKS.search(text)
        return m.group(1) if m else None
    if kind == "path":
        m = BACKTICKS.search(text)
        if m and PATHLIKE.fullmatch(m.group(1)):
            return m.group(1)
        m = PATHLIKE.search(text)
        return m.group(1) if m else None
    if kind == "place":
        m = PLACE.search(text) or CAPITALISED.search(text)
        return m.group(1) if m else None
    if kind == "name":
        m = QUOTED.search(text) or NAMED.search(text) or CAPITALISED.search(text)
        return m.group(1).strip() if m else None
    return None


def _string(schema: dict, name: str, text: str) -> str:
    fmt = schema.get("format")
    found = {"email": EMAIL, "uri": URL, "url": URL, "date": DATE}.get(fmt)
    fallback = {"email": "user@example.com", "uri": "https://example.com", "url": "https://example.com",
                "date": "2025-01-01", "date-time": "2025-01-01T00:00:00Z"}.get(fmt)
    if fallback:
        m = found.search(text) if found else None
        return m.group(0) if m else fallback
    kind = _kind(name)
    value = _phrase(kind, text) if kind != "whole" else None
    if value is None:
        default = schema.get("default")
        value = default if isinstance(default, str) else (" ".join(text.split()) or name or "value")
    high = schema.get("maxLength")
    if isinstance(high, int) and high >= 0:
        value = value[:high]
    low = schema.get("minLength")
    if isinstance(low, int) and len(value) < low:
        value = value + "." * (low - len(value))
    return value
