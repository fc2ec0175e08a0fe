"""The `anthropic-beta` header, read against a table of betas of the kit's own (name, what it enables, since when).

    anthropic-beta: prompt-caching-2024-07-31, context-1m-2025-08-07   -> accepted
    anthropic-beta: structured-outputs-2025-11-13                      -> the request may carry `output_format`
    anthropic-beta: context-management-2025-06-27                      -> ... `context_management` (applied)
    anthropic-beta: message-threads-2026-08-12                         -> ... `thread` (held by the model)
    anthropic-beta: not-a-beta                                         -> 400 invalid_request_error
        "Unsupported beta header: not-a-beta. Unexpected value(s) `not-a-beta` for the `anthropic-beta` header.
         Please consult our documentation at docs.anthropic.com or try again without the header."

The table (BETAS) is the API's documented betas, whatever SDK is installed beside the
server: an older SDK's `beta.messages.parse` adds structured-outputs-2025-12-15, LiteLLM
sends structured-outputs-2025-11-13 with `output_format`, the OpenAI Agents SDK and
smolagents (through LiteLLM) the same, Claude Code sends its own list (claude-code-20250219,
interleaved thinking, fine-grained tool streaming, context management ...).
A field a beta enables (`fields`) is refused without the beta, as on the API
("thread: Extra inputs are not permitted").

Example: request_betas({"anthropic-beta": "files-api-2025-04-14"}) -> frozenset({"files-api-2025-04-14"})
         beta_fields(frozenset({"message-threads-2026-08-12"})) -> {"thread"}
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import invalid

DOCS = "https://platform.claude.com/docs/en/"
BETAS_DOCS = DOCS + "api/beta-headers"
MCP_DOCS = DOCS + "agents-and-tools/mcp-connector"
COMPACTION_DOCS = DOCS + "build-with-claude/compaction"


@dataclass(frozen=True)
class Beta:
    """One beta: its header name, what it enables, the request fields it allows, when it came."""
    name: str
    enables: str
    fields: tuple = ()
    doc: str = BETAS_DOCS  # the page that documents it (the beta headers page, or the feature's own)

    @property
    def since(self) -> str:
        """The date in the name. Example: Beta("pdfs-2024-09-25", ...).since -> "2024-09-25" """
        match = re.search(r"(\d{4})-?(\d{2})-?(\d{2})$", self.name)
        return "-".join(match.groups()) if match else ""


BETAS = (
    Beta("claude-code-20250219", "Claude Code's own requests (sent by the CLI and the Agent SDK)"),
    Beta("oauth-2025-04-20", "OAuth tokens in place of an API key (Claude Code signed in with a subscription)"),
    Beta("computer-use-2024-10-22", "the computer-use tools of Claude 3.5"),
    Beta("computer-use-2025-01-24", "computer_20250124 and its bash / text editor tools"),
    Beta("computer-use-2025-11-24", "computer_20251124"),
    Beta("max-tokens-3-5-sonnet-2024-07-15", "8,192 output tokens on Claude 3.5 Sonnet"),
    Beta("prompt-caching-2024-07-31", "cache_control (generally available since; accepted and a no-op)"),
    Beta("message-batches-2024-09-24", "POST /v1/messages/batches (generally available since)"),
    Beta("pdfs-2024-09-25", "`document` blocks with PDFs (generally available since)"),
    Beta("token-counting-2024-11-01", "POST /v1/messages/count_tokens (generally available since)"),
    Beta("token-efficient-tools-2025-02-19", "tool calls in fewer output tokens (Claude 3.7; a no-op offline)"),
    Beta("output-128k-2025-02-19", "128,000 output tokens on Claude 3.7 Sonnet"),
    Beta("files-api-2025-04-14", "`file` sources in image and document blocks (the Files API)"),
    Beta("extended-cache-ttl-2025-04-11", "cache_control ttl \"1h\" (generally available since)"),
    Beta("mcp-client-2025-04-04", "remote MCP servers", ("mcp_servers",), MCP_DOCS),
    Beta("mcp-client-2025-11-20", "remote MCP servers, mcp_toolset tools", ("mcp_servers",), MCP_DOCS),
    Beta("mcp-client-2026-09-15", "remote MCP servers (the 2026-09 shape)", ("mcp_servers",), MCP_DOCS),
    Beta("dev-full-thinking-2025-05-14", "thinking shown in full, not summarized"),
    Beta("interleaved-thinking-2025-05-14", "thinking between tool calls (Claude 4); budget_tokens may exceed "
         "max_tokens (params.check_thinking)",
         doc=DOCS + "build-with-claude/extended-thinking#interleaved-thinking"),
    Beta("fine-grained-tool-streaming-2025-05-14", "tool inputs streamed without buffering"),
    Beta("code-execution-2025-05-22", "the code_execution_20250522 server tool"),
    Beta("code-execution-2025-08-25", "the code_execution_20250825 server tool"),
    Beta("search-results-2025-06-09", "`search_result` blocks (generally available since)"),
    Beta("context-management-2025-06-27", "context editing: clear_tool_uses / clear_thinking edits",
         ("context_management",), DOCS + "build-with-claude/context-editing"),
    Beta("context-1m-2025-08-07", "a 1M-token context window on the models that take it"),
    Beta("model-context-window-exceeded-2025-08-26", "stop_reason model_context_window_exceeded"),
    Beta("web-fetch-2025-09-10", "the web_fetch server tool"),
    Beta("skills-2025-10-02", "Agent Skills in a container"),
    Beta("structured-outputs-2025-11-13", "`output_format` (JSON outputs) and `strict` tools",
         ("output_format",), DOCS + "build-with-claude/structured-outputs"),
    Beta("structured-outputs-2025-12-15", "`output_format` and `strict` tools (what older SDKs' parse() send)",
         ("output_format",), DOCS + "build-with-claude/structured-outputs"),
    Beta("advanced-tool-use-2025-11-20", "tool search, deferred tools, input examples"),
    Beta("effort-2025-11-24", "output_config.effort (generally available since)"),
    Beta("compact-2026-01-12", "server-side compaction (`compaction`)", ("compaction",), COMPACTION_DOCS),
    Beta("compact-2026-09-04", "server-side compaction (the 2026-09 shape)", ("compaction",), COMPACTION_DOCS),
    Beta("fast-mode-2026-02-01", "speed \"fast\""),
    Beta("advisor-tool-2026-03-01", "the advisor tool"),
    Beta("task-budgets-2026-03-13", "task budgets"),
    Beta("output-300k-2026-03-24", "300,000 output tokens on the models that take it"),
    Beta("cache-diagnosis-2026-04-07", "cache diagnostics in the response"),
    Beta("thinking-token-count-2026-05-13", "thinking tokens reported apart in usage"),
    Beta("server-side-fallback-2026-06-01", "server-side model fallbacks", ("fallbacks",)),
    Beta("server-side-fallback-2026-07-01", "server-side model fallbacks", ("fallbacks",)),
    Beta("fallback-credit-2026-06-01", "fallback credit tokens", ("fallback_credit_token",)),
    Beta("fallback-credit-2026-07-01", "fallback credit tokens", ("fallback_credit_token",)),
    Beta("mid-conversation-tool-changes-2026-07-01", "tools added or removed mid-conversation"),
    Beta("mid-conversation-output-config-2026-07-01", "output_config changed mid-conversation"),
    Beta("agent-memory-2026-07-22", "the memory tool's server side"),
    Beta("thinking-binding-controls-2026-08-01", "thinking binding controls"),
    Beta("message-threads-2026-08-12", "`thread`: the server holds a conversation (the SDK's tool_runner)",
         ("thread",)),
    Beta("thinking-display-updates-2026-08-18", "thinking display updates"),
    Beta("mid-conversation-system-clear-at-2026-08-21", "system blocks cleared mid-conversation"),
    Beta("inline-tools-2026-09-15", "inline tools"),
    Beta("experimental-claude-tag-2026-10-21", "an experimental tag"),
    # Betas of the platform around the Messages API (accepted on a Messages request; nothing to do offline)
    Beta("user-profiles-2026-03-24", "requests attributed to a user profile (anthropic-user-profile-id)"),
    Beta("user-profiles-2026-08-18", "user profiles (the 2026-08 shape)"),
    Beta("user-profiles-2026-09-04", "user profiles (the 2026-09 shape)"),
    Beta("user-profiles-billing-2026-10-01", "billing by user profile"),
    Beta("managed-agents-2026-04-01", "Claude Managed Agents"),
    Beta("dreaming-2026-04-21", "managed agents' background memory consolidation"),
    Beta("mcp-tunnels-2026-06-22", "MCP servers reached through a tunnel"),
    Beta("ce-plugins-2026-09-01", "Claude Enterprise plugins"),
    Beta("ce-user-management-2026-07-13", "Claude Enterprise user management"),
    Beta("ce-claude-code-managed-settings-2026-10-06", "Claude Code managed settings for Claude Enterprise"),
    Beta("spend-limit-reads-2026-09-26", "reading spend limits (Admin API)"),
    Beta("telemetry-destinations-2026-08-11", "telemetry destinations (Admin API)"),
    Beta("webhooks-2026-10-07", "webhooks"),
    Beta("admin-user-sign-out-2026-10-08", "signing a user out (Admin API)"),
    Beta("analytics-usage-cost-2026-08-24", "usage and cost analytics"),
    Beta("efs-2026-10-01", "file systems for containers"),
    Beta("google-managed-data-controls-2026-09-01", "data controls on Claude Models on Google Cloud"),
)
BY_NAME = {beta.name: beta for beta in BETAS}
BETA_FIELDS = {field for beta in BETAS for field in beta.fields}  # request fields only a beta allows


def known_betas() -> frozenset:
    """Every beta name the offline API accepts (the table's)."""
    return frozenset(BY_NAME)


def request_betas(headers: dict) -> frozenset:
    """The betas an `anthropic-beta` header names (any header case), or the API's 400 for one it does not know."""
    value = next((v for k, v in headers.items() if k.lower() == "anthropic-beta"), None)
    names = [name.strip() for name in (value or "").split(",") if name.strip()]
    unknown = [name for name in names if name not in BY_NAME]
    if unknown:
        # The beta headers page's example reads "Unsupported beta header: <name>"; the API's answer goes on as below.
        raise invalid(f"Unsupported beta header: {', '.join(unknown)}. Unexpected value(s) `{', '.join(unknown)}` "
                      "for the `anthropic-beta` header. Please consult our documentation at docs.anthropic.com or "
                      "try again without the header.")
    return frozenset(names)


def check_betas(headers: dict) -> None:
    """Raise the API's 400 if an `anthropic-beta` header names an unknown beta."""
    request_betas(headers)


def beta_fields(betas) -> set:
    """The request fields the given betas allow. Example: {"context-management-2025-06-27"} -> {"context_management"}"""
    return {field for name in betas for field in BY_NAME[name].fields}
