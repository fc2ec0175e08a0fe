"""The request's parameters, checked as the Messages API checks them (validate.py checks the messages).

    temperature, top_p   numbers in 0..1             "temperature: range: 0..1"
    top_k                an integer >= 0
    stop_sequences       a list of strings (a string is not split into characters: it is refused)
    metadata             only `user_id`, a string of at most 256 characters
    tool_choice          auto / any / tool (a name among the tools) / none, and only with tools
    thinking             enabled with budget_tokens >= 1024 and < max_tokens (or above it with the
                         interleaved-thinking beta), temperature 1, and no forced tool; or disabled /
                         adaptive; `display` "summarized" or "omitted"
    service_tier         "auto" or "standard_only";  speed  "standard" or "fast"
    diagnostics          {"previous_message_id": a message id or null}

Example: check_sampling({"temperature": 1.5}) -> ApiError(400, "invalid_request_error", "temperature: range: 0..1")

Per-model rules (max_tokens ceilings, the thinking types a model refuses) are models.py's.

Not modeled: per-model sampling rules (temperature with top_p, Sonnet 5's default-only sampling).
"""

from __future__ import annotations

from .errors import check_fields, check_str, invalid, tag

TOOL_CHOICE_FIELDS = {"auto": {"type", "disable_parallel_tool_use"}, "any": {"type", "disable_parallel_tool_use"},
                      "tool": {"type", "name", "disable_parallel_tool_use"}, "none": {"type"}}
THINKING_FIELDS = {"enabled": {"type", "budget_tokens", "display"}, "adaptive": {"type", "display"},
                   "disabled": {"type"}, "between_tools": {"type"}}  # which a model takes: models.py
DISPLAYS = ("summarized", "omitted")
INTERLEAVED = "interleaved-thinking-2025-05-14"  # the beta that lets budget_tokens exceed max_tokens
CHOICES = {"service_tier": ("auto", "standard_only"), "speed": ("standard", "fast")}
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
    kind = tag(choice, tuple(TOOL_CHOICE_FIELDS), "tool_choice")
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


def check_thinking(body: dict, *, count_only: bool, betas=frozenset()) -> None:
    """thinking: a budget of at least 1024 tokens, below max_tokens, with temperature 1 and no forced tool.

    With the interleaved-thinking beta the budget is the whole turn's, across tool calls, and may exceed
    max_tokens (extended thinking: "Interleaved thinking").
    """
    thinking = body.get("thinking")
    if thinking is None:
        return
    if not isinstance(thinking, dict):
        raise invalid("thinking: Input should be a valid dictionary")
    kind = tag(thinking, tuple(THINKING_FIELDS), "thinking")
    check_fields(thinking, THINKING_FIELDS[kind], f"thinking.{kind}.")
    display = thinking.get("display")
    if display is not None and (not isinstance(display, str) or display not in DISPLAYS):
        raise invalid(f"thinking.{kind}.display: Input should be 'summarized' or 'omitted'")
    if kind != "enabled":
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
    if budget >= body["max_tokens"] and INTERLEAVED not in betas:
        raise invalid("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
                      f"documentation at {THINKING_DOCS}#max-tokens-and-context-window-size")
    if body.get("temperature") is not None and body["temperature"] != 1:
        raise invalid("`temperature` may only be set to 1 when thinking is enabled. Please consult our "
                      f"documentation at {THINKING_DOCS}#important-considerations-when-using-extended-thinking")
    if (body.get("tool_choice") or {}).get("type") in ("any", "tool"):
        raise invalid("Thinking may not be enabled when tool_choice forces tool use.")


def check_options(body: dict) -> None:
    """service_tier, speed, inference_geo and diagnostics. Example: {"service_tier": "priority"} -> invalid"""
    for name, allowed in CHOICES.items():
        value = body.get(name)
        if value is not None and (not isinstance(value, str) or value not in allowed):
            raise invalid(f"{name}: Input should be " + " or ".join(repr(a) for a in allowed))
    if body.get("inference_geo") is not None and not isinstance(body["inference_geo"], str):
        raise invalid("inference_geo: Input should be a valid string")
    diagnostics = body.get("diagnostics")
    if diagnostics is not None:
        if not isinstance(diagnostics, dict):
            raise invalid("diagnostics: Input should be a valid dictionary")
        check_fields(diagnostics, {"previous_message_id"}, "diagnostics.")
        check_str(diagnostics, "previous_message_id", "diagnostics")
