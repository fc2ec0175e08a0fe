"""The model names the offline model answers to, and what each one allows (the API's per-model rules).

    "claude-sonnet-4-5" ──> alias of claude-sonnet-4-5-20250929 ──> max_tokens <= 64,000,
                                                                    thinking "enabled" (not "adaptive")
    "not-a-real-model"  ──> 404 not_found_error "model: not-a-real-model"
    5                   ──> 400 "model: Input should be a valid string" (validate.py)

The names are the documented ids and aliases of current and recent Claude models
(the installed SDK's `Model` literal, plus the 4.x ids it dropped), and the kit's
own names: "offline" (the tests') and "arena-replay" (arena/replay.py).
`GET /v1/models` lists them (newest first) in the API's shape; aliases answer
`GET /v1/models/{alias}` with the model they point to.

Thinking, per model (docs: build-with-claude/thinking-troubleshooting): Claude 4.7
and later reject `"enabled"` (manual budget); 4.5 and earlier reject `"adaptive"`;
Fable 5, Mythos 5 and Mythos Preview reject `"disabled"`; "offline" takes all three.

Example: check_model({"model": "claude-opus-4-1", "max_tokens": 40_000, ...})
  -> ApiError(400, "max_tokens: 40000 > 32000, which is the maximum allowed number of output tokens
              for claude-opus-4-1-20250805")

Not modeled: release dates the ids do not carry (those models report the epoch,
as the API does for an unknown date), context windows per model (the offline
model's own `context_window` applies to all), per-model sampling rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ApiError, invalid

FORCED_GONE = ("tool_choice: forced tool use (`{kind}`) is not supported on {model}. Use `auto` and ask for the "
               "tool in the prompt, or output_config.format for structured output.")  # wording inferred
NO_PREFILL = ("This model does not support assistant message prefill. The conversation must end with a user "
              "message.")
EPOCH = "1970-01-01T00:00:00Z"  # the API's created_at when the release date is unknown
ENABLED_GONE = ('"thinking.type.{kind}" is not supported for this model. Use "thinking.type.adaptive" '
                'and "output_config.effort" to control thinking behavior.')


@dataclass(frozen=True)
class ModelInfo:
    """One model: its id, its aliases, its name, its output ceiling, the thinking types it refuses."""
    id: str
    display_name: str
    max_tokens: int
    refuses: tuple = ()  # thinking types answered with a 400
    aliases: tuple = ()
    created_at: str = EPOCH
    lifecycle: str = "active"
    prefill: bool = True  # a request may end on an assistant message (Claude 4.6 and later: a 400)
    tool_prompt: bool = True  # with tools, the API adds its tool-use system prompt (TOOL_PROMPT); not the kit's
    forced_tools: bool = True  # tool_choice "any" / "tool" (Sonnet 5.5: a 400)

    def as_json(self) -> dict:
        """The API's model object. Example: {"type": "model", "id": "offline", "display_name": ...}"""
        return {"type": "model", "id": self.id, "display_name": self.display_name, "created_at": self.created_at,
                "max_tokens": self.max_tokens, "lifecycle": self.lifecycle}


THINKING_TYPES = ("enabled", "disabled", "adaptive", "between_tools")
_ADAPTIVE_ONLY = ("enabled", "disabled", "between_tools")  # Fable 5, Mythos 5: adaptive thinking, always on
_NO_MANUAL = ("enabled", "between_tools")                  # Claude 4.7 and later: adaptive, may be disabled
_MANUAL_ONLY = ("adaptive", "between_tools")               # Claude 4.5 and earlier: extended (manual) thinking
_BETWEEN_TOOLS = ("enabled", "disabled")                   # Sonnet 5.5: adaptive, or thinking between tools only

MODELS = (  # newest first, as GET /v1/models lists them
    ModelInfo("claude-fable-5-2", "Claude Fable 5.2", 128_000, _ADAPTIVE_ONLY, prefill=False),
    ModelInfo("claude-mythos-5-2", "Claude Mythos 5.2", 128_000, _ADAPTIVE_ONLY, prefill=False),
    ModelInfo("claude-haiku-5-5", "Claude Haiku 5.5", 128_000, _NO_MANUAL, prefill=False),
    ModelInfo("claude-sonnet-5-5", "Claude Sonnet 5.5", 128_000, _BETWEEN_TOOLS, prefill=False, forced_tools=False),
    ModelInfo("claude-opus-5-5", "Claude Opus 5.5", 128_000, _NO_MANUAL, prefill=False),
    ModelInfo("claude-fable-5-1", "Claude Fable 5.1", 128_000, _ADAPTIVE_ONLY, prefill=False),
    ModelInfo("claude-mythos-5-1", "Claude Mythos 5.1", 128_000, _ADAPTIVE_ONLY, prefill=False),
    ModelInfo("claude-sonnet-5", "Claude Sonnet 5", 128_000, _NO_MANUAL, prefill=False),
    ModelInfo("claude-fable-5", "Claude Fable 5", 128_000, _ADAPTIVE_ONLY, prefill=False),
    ModelInfo("claude-mythos-5", "Claude Mythos 5", 128_000, _ADAPTIVE_ONLY, prefill=False),
    ModelInfo("claude-opus-5", "Claude Opus 5", 128_000, _NO_MANUAL, prefill=False),
    ModelInfo("claude-opus-4-8", "Claude Opus 4.8", 128_000, _NO_MANUAL, prefill=False),
    ModelInfo("claude-opus-4-7", "Claude Opus 4.7", 128_000, _NO_MANUAL, prefill=False),
    ModelInfo("claude-mythos-preview", "Claude Mythos Preview", 128_000, ("disabled", "between_tools"),
              prefill=False),
    ModelInfo("claude-opus-4-6", "Claude Opus 4.6", 128_000, ("between_tools",), prefill=False),
    ModelInfo("claude-sonnet-4-6", "Claude Sonnet 4.6", 128_000, ("between_tools",), prefill=False),
    ModelInfo("claude-opus-4-5-20251101", "Claude Opus 4.5", 64_000, _MANUAL_ONLY, ("claude-opus-4-5",),
              "2025-11-01T00:00:00Z"),
    ModelInfo("claude-haiku-4-5-20251001", "Claude Haiku 4.5", 64_000, _MANUAL_ONLY, ("claude-haiku-4-5",),
              "2025-10-01T00:00:00Z"),
    ModelInfo("claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", 64_000, _MANUAL_ONLY, ("claude-sonnet-4-5",),
              "2025-09-29T00:00:00Z"),
    ModelInfo("claude-opus-4-1-20250805", "Claude Opus 4.1", 32_000, _MANUAL_ONLY, ("claude-opus-4-1",),
              "2025-08-05T00:00:00Z", "deprecated"),
    # the kit's own: every thinking type, prefill, and no hidden tool-use system prompt (its counts are the kit's)
    ModelInfo("offline", "Agent Lessons offline model", 128_000, tool_prompt=False),
    ModelInfo("arena-replay", "Agent Lessons arena replay", 128_000, tool_prompt=False),  # the arena's replays
)
BY_NAME = {name: info for info in MODELS for name in (info.id, *info.aliases)}
# The tool-use system prompt the API adds to a request with tools, in tokens, by tool_choice (tool use overview,
# "Pricing": 346 for auto / none, 313 for any / tool on the Claude 4 models; the 5.x models are taken as the same).
TOOL_PROMPT = {"auto": 346, "none": 346, "any": 313, "tool": 313}


def tool_prompt_tokens(body: dict) -> int:
    """The tokens of the API's tool-use system prompt for this request (0 without tools or on the kit's models).

    Example: {"model": "claude-sonnet-4-5", "tools": [...], "tool_choice": {"type": "any"}} -> 313
    """
    info = BY_NAME.get(body.get("model")) if isinstance(body.get("model"), str) else None
    if not body.get("tools") or info is None or not info.tool_prompt:
        return 0
    choice = body.get("tool_choice")
    kind = choice.get("type") if isinstance(choice, dict) else None
    return TOOL_PROMPT.get(kind if isinstance(kind, str) else "auto", TOOL_PROMPT["auto"])


def not_found(name) -> ApiError:
    """The API's 404 for a model name it does not know. Example: 'gpt-4' -> "model: gpt-4" """
    return ApiError(404, "not_found_error", f"model: {name}")


def lookup(name) -> ModelInfo:
    """The model a name (id or alias) stands for, or the API's 404."""
    info = BY_NAME.get(name) if isinstance(name, str) else None
    if info is None:
        raise not_found(name)
    return info


def _prefill(body: dict, info: ModelInfo, count_only: bool) -> None:
    if not count_only and not info.prefill and body["messages"][-1].get("role") == "assistant":
        raise invalid(NO_PREFILL)


def _max_tokens(body: dict, info: ModelInfo, count_only: bool) -> None:
    if not count_only and body["max_tokens"] > info.max_tokens:
        raise invalid(f"max_tokens: {body['max_tokens']} > {info.max_tokens}, which is the maximum allowed "
                      f"number of output tokens for {info.id}")


def _thinking_type(body: dict, info: ModelInfo, count_only: bool) -> None:
    kind = (body.get("thinking") or {}).get("type")
    if kind in info.refuses:
        if kind == "adaptive":
            allowed = sorted(k for k in THINKING_TYPES if k not in info.refuses)  # as the API lists them
            raise invalid(f"thinking: Input tag 'adaptive' found using 'type' does not match any of the "
                          f"expected tags: {', '.join(repr(k) for k in allowed)}")
        raise invalid(ENABLED_GONE.format(kind=kind))


def _forced_tool(body: dict, info: ModelInfo, count_only: bool) -> None:
    kind = (body.get("tool_choice") or {}).get("type")
    if not info.forced_tools and kind in ("any", "tool"):
        raise invalid(FORCED_GONE.format(kind=kind, model=info.id))


@dataclass(frozen=True)
class ModelRule:
    """A rule that depends on the model: what it checks (from the ModelInfo row), the page it comes from."""
    name: str
    check: object  # (body, info, count_only) -> None, or the API's 400
    doc: str


DOCS = "https://platform.claude.com/docs/en/"
MODEL_RULES = (
    ModelRule("no prefill (a final assistant message) on Claude 4.6 and later", _prefill,
              DOCS + "about-claude/models/migration-guide"),
    ModelRule("max_tokens at most the model's maximum output", _max_tokens, DOCS + "about-claude/models/overview"),
    ModelRule("the thinking types the model takes", _thinking_type,
              DOCS + "build-with-claude/extended-thinking"),
    ModelRule("no forced tool use (tool_choice any / tool) on Sonnet 5.5", _forced_tool,
              DOCS + "models/sonnet-5-5/whats-new-sonnet-5-5#forced-tool-use-is-not-supported"),
)  # and, for counting, the tool-use system prompt (TOOL_PROMPT: agents-and-tools/tool-use/overview#pricing)


def check_model(body: dict, *, count_only: bool = False) -> ModelInfo:
    """The per-model rules (MODEL_RULES, each from its page) of a request that validate.py found well formed."""
    info = lookup(body["model"])
    for rule in MODEL_RULES:
        rule.check(body, info, count_only)
    return info


def model_list(query: dict) -> dict:
    """GET /v1/models: a page of models, newest first.

    Example: {"limit": "2"} -> {"data": [2 models], "has_more": True, "first_id": ..., "last_id": ...}
    """
    limit = query.get("limit", "20")
    if not (isinstance(limit, str) and limit.isdigit() and 1 <= int(limit) <= 1000):
        raise invalid("limit: Input should be less than or equal to 1000 and greater than or equal to 1")
    ids = [info.id for info in MODELS]
    start, end = 0, len(ids)
    if query.get("after_id") is not None:
        start = ids.index(lookup(query["after_id"]).id) + 1
    if query.get("before_id") is not None:
        end = ids.index(lookup(query["before_id"]).id)
        if query.get("after_id") is None:
            start = max(0, end - int(limit))  # paging backwards: the `limit` models just before it
    page = [info.as_json() for info in MODELS[start:end][: int(limit)]]
    backward = query.get("before_id") is not None and query.get("after_id") is None
    more = start > 0 if backward else start + len(page) < end
    return {"data": page, "has_more": more,
            "first_id": page[0]["id"] if page else None, "last_id": page[-1]["id"] if page else None}
