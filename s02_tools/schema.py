"""A tool's input checked against its JSON schema, so a bad call is an error the model can fix.

Example: check_input({"type": "object", "required": ["path"]}, {}) -> "'path' is required"
         check_input({"type": "object", "properties": {"limit": {"type": "integer"}}}, {"limit": "5"})
           -> "'limit' must be an integer, got string"
"""

from __future__ import annotations

# The subset of JSON Schema the kit's tools use: type, properties, required, additionalProperties: false,
# enum, minimum. Not modeled: $ref, oneOf, patterns, formats. A screenful the student reads, not a dependency.
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
}
JSON_NAMES = {dict: "object", str: "string", int: "integer", float: "number", bool: "boolean",
              list: "array", type(None): "null"}


def json_type(value) -> str:
    """The JSON name of a Python value's type. Example: json_type(3) -> 'integer'"""
    return JSON_NAMES.get(type(value), type(value).__name__)


def check_input(schema: dict, value, where: str = "") -> str | None:
    """None if `value` fits `schema`, else a one-line error naming the field."""
    problem = schema_problem(schema) if isinstance(where, str) else "where must be a str"
    if problem:  # a schema this checker does not understand is the caller's mistake, not the model's
        raise ValueError(problem)
    return _check_input(schema, value, where)


def _check_input(schema: dict, value, where: str = "") -> str | None:
    field = f"'{where}'" if where else "the input"
    kind = schema.get("type")
    if kind is not None and not TYPES[kind](value):
        return f"{field} must be {'an' if kind[0] in 'aeiou' else 'a'} {kind}, got {json_type(value)}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{field} must be one of {', '.join(repr(v) for v in schema['enum'])}, got {value!r}"
    if "minimum" in schema and TYPES["number"](value) and value < schema["minimum"]:
        return f"{field} must be >= {schema['minimum']}, got {value}"
    if kind == "object":  # each required field present, each known field checked (nested objects too)
        props = schema.get("properties") or {}
        for name in schema.get("required") or []:
            if name not in value:
                return f"'{where}.{name}' is required" if where else f"'{name}' is required"
        for name, item in value.items():
            path = f"{where}.{name}" if where else name
            if name in props:
                error = _check_input(props[name], item, path)
                if error:
                    return error
            elif schema.get("additionalProperties") is False:  # a field the schema does not name
                known = ", ".join(props) or "none"
                return f"unknown field '{path}' (the fields are: {known})"
    return None


def schema_problem(schema, where: str = "input_schema") -> str | None:
    """None if this checker understands `schema`, else what it does not understand."""
    if not isinstance(schema, dict):
        return f"{where} must be a dict, got {json_type(schema)}"
    kind = schema.get("type")
    if kind is not None and (not isinstance(kind, str) or kind not in TYPES):
        return f"{where}: type {json_type(kind) if not isinstance(kind, str) else repr(kind)} is not one of " \
               f"{', '.join(TYPES)}"
    props = schema.get("properties") or {}
    if not isinstance(props, dict):
        return f"{where}.properties must be an object, got {json_type(props)}"
    for name, item in props.items():
        problem = schema_problem(item, f"{where}.{name}")
        if problem:
            return problem
    return None
