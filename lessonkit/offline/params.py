"""The request's parameters, checked as the Messages API checks them (validate.py checks the messages).

    temperature, top_p   numbers in 0..1             "temperature: range: 0..1"
    top_k                an integer >= 0
    stop_sequences       a list of strings (a string is not split into characters: it is refused)
    metadata             only `user_id`, a string of at most 256 characters
    tool_choice          auto / any / tool (a name among the tools) / none, and only with tools
    thinking             enabled with budget_tokens >= 1024 and < max_tokens, temperature 1,
                         and no forced tool; or disabled / adaptive

Example: check_sampling({"temperature": 1.5}) -> ApiError(400, "invalid_request_error", "temperature: range: 0..1")

Per-model rules (max_tokens ceilings, the thinking types a model refuses) are models.py's.

Not modeled: per-model sampling rules (temperature with top_p, Sonnet 5's default-only sampling).
"""

from __future__ import annotations

from .errors import check_fields, invalid

TOOL_CHOICE_FIELDS = {"auto": {"type", "disable_parallel_tool_use"}, "any": {"type", "disable_parallel_tool_use"},
                      "tool": {"type", "name", "disable_parallel_tool_use"}, "none": {"type"}}
MIN_THINKING_BUDGET = 1024
THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_sampling(body: dict) -> None:
    """temperature, top_p, top_k, stop_sequences, metadata. Example: temperature 1.5 -> temperature: range: 0..1"""
    for name in ("temperature", "top_p"):
        value = body.get(name)
        if value is not None and not _number(value):
            raise invalid(f"{name}: Input should be a valid number")
        if value is not None and not 0 <= value <= 1:
            raise invalid(f"{name}: range: 0..1")
    top_k = body.get("top_k")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int)):
        raise invalid("top_k: Input should be a valid integer")
    if top_k is not None and top_k < 0:
        raise invalid("top_k: Input should be greater than or equal to 0")
    stops = body.get("stop_sequences")
    if stops is not None and not isinstance(stops, list):
        raise invalid("stop_sequences: Input should be a valid list")
    for k, stop in enumerate(stops or []):
        if not isinstance(stop, str):
            raise invalid(f"stop_sequences.{k}: Input should be a valid string")
    metadata = body.get("metadata")
    if metadata is not None:
        if not isinstance(metadata, dict):
            raise invalid("metadata: Input should be a valid dictionary")
        check_fields(metadata, {"user_id"}, "metadata.")
        user_id = metadata.get("user_id")
        if user_id is not None and not isinstance(user_id, str):
            raise invalid("metadata.user_id: Input should be a valid string")
        if user_id is not None and len(user_id) > 256:
            raise invalid("metadata.user_id: String should have at most 256 characters")


def check_tool_choice(body: dict) -> None:
    """tool_choice: a known type, its own fields, and a tool that is offered. Example: {"type": "tool", "name": "x"}"""
    choice = body.get("tool_choice")
    if choice is None:
        return
    if not isinstance(choice, dict):
        raise invalid("tool_choice: Input should be a valid dictionary")
    kind = choice.get("type")
    if kind not in TOOL_CHOICE_FIELDS:
        raise invalid(f"tool_choice: Input tag '{kind}' found using 'type' does not match any of the "
                      f"expected tags: {', '.join(repr(k) for k in TOOL_CHOICE_FIELDS)}")
    check_fields(choice, TOOL_CHOICE_FIELDS[kind], f"tool_choice.{kind}.")
    flag = choice.get("disable_parallel_tool_use")
    if flag is not None and not isinstance(flag, bool):
        raise invalid(f"tool_choice.{kind}.disable_parallel_tool_use: Input should be a valid boolean")
    if kind == "tool" and not isinstance(choice.get("name"), str):
        raise invalid("tool_choice.tool.name: Field required")
    tools = body.get("tools") or []
    if not tools:
        raise invalid("tool_choice may only be specified while providing tools.")
    if kind == "tool" and choice["name"] not in {t.get("name") for t in tools}:
        raise invalid(f"tool_choice.name: Tool '{choice['name']}' not found in provided tools")


def check_thinking(body: dict, *, count_only: bool) -> None:
    """thinking: a budget of at least 1024 tokens, below max_tokens, with temperature 1 and no forced tool."""
    thinking = body.get("thinking")
    if thinking is None:
        return
    if not isinstance(thinking, dict) or thinking.get("type") not in ("enabled", "disabled", "adaptive"):
        kind = thinking.get("type") if isinstance(thinking, dict) else None
        raise invalid(f"thinking: Input tag '{kind}' found using 'type' does not match any of the "
                      "expected tags: 'enabled', 'disabled', 'adaptive'")
    if thinking["type"] != "enabled":
        return
    budget = thinking.get("budget_tokens")
    if budget is None:
        raise invalid("thinking.enabled.budget_tokens: Field required")
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise invalid("thinking.enabled.budget_tokens: Input should be a valid integer")
    if budget < MIN_THINKING_BUDGET:
        raise invalid(f"thinking.enabled.budget_tokens: Input should be greater than or equal to {MIN_THINKING_BUDGET}")
    if count_only:
        return
    if budget >= body["max_tokens"]:
        raise invalid("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
                      f"documentation at {THINKING_DOCS}#max-tokens-and-context-window-size")
    if body.get("temperature") is not None and body["temperature"] != 1:
        raise invalid("`temperature` may only be set to 1 when thinking is enabled. Please consult our "
                      f"documentation at {THINKING_DOCS}#important-considerations-when-using-extended-thinking")
    if (body.get("tool_choice") or {}).get("type") in ("any", "tool"):
        raise invalid("Thinking may not be enabled when tool_choice forces tool use.")
