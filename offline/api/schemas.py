"""JSON Schemas in a request, checked as the API checks them: tools' `input_schema` and structured outputs.

    tools[k].input_schema      must be valid JSON Schema (draft 2020-12: the `jsonschema` library's metaschema
                               check) of type object   -> "tools.0.custom.input_schema: JSON schema is invalid. ..."
    output_config.format.schema, output_format.schema, and a `strict` tool's input_schema
                               every object must say additionalProperties: false
                               -> "output_config.format.schema: For 'object' type, 'additionalProperties' must be
                                   explicitly set to false"

The library is `jsonschema` (its Draft202012Validator.check_schema), not a hand-written
metaschema walk. Deep schemas are walked without recursion (a stack), so a schema
nested hundreds of levels deep is a 400, never a RecursionError.

Example: check_input_schema({"type": "object", "properties": {"a": {"type": "strnig"}}}, "tools.0.custom")
  -> ApiError(400, "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 ...")
"""

from __future__ import annotations

from .errors import invalid

TOOL_DOCS = "https://docs.claude.com/en/docs/tool-use"
INVALID_SCHEMA = ("{where}.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 "
                  "(https://json-schema.org/draft/2020-12). Learn more about tool use at " + TOOL_DOCS + ".")
SUBSCHEMA_KEYS = ("properties", "$defs", "definitions", "patternProperties")  # name -> schema maps
SUBSCHEMA_ONE = ("items", "additionalItems", "contains", "not", "if", "then", "else", "additionalProperties")
SUBSCHEMA_LIST = ("anyOf", "allOf", "oneOf", "prefixItems")


def check_input_schema(schema: dict, where: str) -> None:
    """A tool's input_schema must be valid draft 2020-12 JSON Schema."""
    from jsonschema import Draft202012Validator, SchemaError  # late: only requests with tools pay for the import

    try:
        Draft202012Validator.check_schema(schema)
    except (SchemaError, RecursionError):
        raise invalid(INVALID_SCHEMA.format(where=where)) from None


def subschemas(schema):
    """Every schema object inside `schema` (itself included), without recursion."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield node
        for key in SUBSCHEMA_KEYS:
            if isinstance(node.get(key), dict):
                stack.extend(node[key].values())
        for key in SUBSCHEMA_ONE:
            if isinstance(node.get(key), dict):
                stack.append(node[key])
        for key in SUBSCHEMA_LIST:
            if isinstance(node.get(key), list):
                stack.extend(node[key])


def _is_object(node: dict) -> bool:
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or \
        (kind is None and "properties" in node)


def check_strict_schema(schema, where: str) -> None:
    """A structured-output schema: a JSON object whose every object schema sets additionalProperties: false."""
    if not isinstance(schema, dict):
        raise invalid(f"{where}: Input should be a valid dictionary")
    for node in subschemas(schema):
        if _is_object(node) and node.get("additionalProperties") is not False:
            raise invalid(f"{where}: For 'object' type, 'additionalProperties' must be explicitly set to false")


def check_output_format(fmt, where: str) -> None:
    """`output_config.format` or the beta's `output_format`: {"type": "json_schema", "schema": {...}}."""
    if fmt is None:
        return
    if not isinstance(fmt, dict):
        raise invalid(f"{where}: Input should be a valid dictionary")
    if fmt.get("type") != "json_schema":
        raise invalid(f"{where}: Input tag '{fmt.get('type')}' found using 'type' does not match any of the "
                      "expected tags: 'json_schema'")
    if "schema" not in fmt:
        raise invalid(f"{where}.schema: Field required")
    check_strict_schema(fmt["schema"], f"{where}.schema")


def closed(schema: dict) -> dict:
    """A copy of `schema` with every object schema closed (additionalProperties: false), as structured outputs
    require and the SDK's parse() sends.

    Example: {"type": "object"} -> {"type": "object", "additionalProperties": False}
    """
    import copy

    out = copy.deepcopy(schema)
    for node in subschemas(out):
        if _is_object(node) and "additionalProperties" not in node:
            node["additionalProperties"] = False
    return out
