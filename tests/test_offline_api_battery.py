"""A battery of request shapes, class by class, each answered as the documented API answers it.

Each case is one request through `http.handle` (what the SDK's mock transport and the served
model both call) and what the API's documentation says it gets: the status, the error's
`type`, and the words of its message (or, for a request the API takes, what the answer
holds). Each names the page it comes from. The cases are other shapes of the classes the
parity suite covers (test_offline_api_versions.py, test_offline_api_parity.py), not the same
requests again.

    class           what it asks
    versions        each documented anthropic-version, what each forbids and allows, where it applies
    betas           the betas the API lists, an unknown one, several in one header, beta-gated fields
    blocks          each block type where it may and may not stand
    tools           tool_use / tool_result pairing and ids, tool_choice variants
    thinking        dropped and redacted thinking in tool loops, budgets, display
    cache           cache_control types, TTLs and their order, breakpoints, top-level cache_control
    schemas         input_schema validity, strict schemas for structured outputs
    media           documents (PDF, text, content), images (types, sizes, counts)
    limits          deep nesting, huge bodies, message counts, max_tokens
    tokens          token counting of images, PDFs and tools against the documented formulas
    fields          usage, service_tier, metadata, stop_sequences, prefill per model, system
    endpoints       batches, files, rate-limit headers, context management, MCP servers
"""

from __future__ import annotations

import base64
import io
import json

import pytest

from offline import OfflineModel
from offline.serve.http import handle

NEW, OLD = {"anthropic-version": "2026-10-21"}, {"anthropic-version": "2023-06-01"}
DOCS = "https://platform.claude.com/docs/en/"
VERSIONING = DOCS + "api/versioning"
BETAS = DOCS + "api/beta-headers"
MESSAGES = DOCS + "api/messages"
TOOL_USE = DOCS + "agents-and-tools/tool-use/implement-tool-use"
THINKING = DOCS + "build-with-claude/extended-thinking"
CACHING = DOCS + "build-with-claude/prompt-caching"
STRUCTURED = DOCS + "build-with-claude/structured-outputs"
VISION = DOCS + "build-with-claude/vision"
PDF = DOCS + "build-with-claude/pdf-support"
CITATIONS = DOCS + "build-with-claude/citations"
COUNTING = DOCS + "build-with-claude/token-counting"
RATE_LIMITS = DOCS + "api/rate-limits"
BATCHES = DOCS + "build-with-claude/batch-processing"
ERRORS = DOCS + "api/errors"
MIGRATION_46 = DOCS + "about-claude/models/migration-guide"
SERVICE_TIERS = DOCS + "api/service-tiers"
SONNET_55 = DOCS + "models/sonnet-5-5/whats-new-sonnet-5-5"

CALC = {"name": "calc", "description": "Evaluate an arithmetic expression",
        "input_schema": {"type": "object", "properties": {"expr": {"type": "string"}}, "required": ["expr"]}}
WEATHER = {"name": "weather", "description": "Today's weather in a city",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}


def png(width: int, height: int) -> str:
    """A real PNG of that size, base64 (1-bit, so even a large one is a few hundred bytes)."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("1", (width, height)).save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


def image(width=40, height=30, media_type="image/png", data=None) -> dict:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data or png(width, height)}}


def pdf(pages: int = 1, text: str = "Quarterly revenue rose 12 percent.") -> str:
    body = b"%PDF-1.4\n" + b"".join(b"%d 0 obj << /Type /Page >> endobj\n" % (k + 3) for k in range(pages))
    body += b"BT (" + text.encode() + b") Tj ET\n%%EOF\n"
    return base64.b64encode(body).decode()


def doc(source: dict, **extra) -> dict:
    return {"type": "document", "source": source, **extra}


TEXT_DOC = {"type": "text", "media_type": "text/plain", "data": "The library opens at nine. It closes at five."}
CITE = [{"type": "char_location", "cited_text": "opens at nine", "document_index": 0, "start_char_index": 12,
         "end_char_index": 25}]


def ask(text="How many moons has Mars?", **fields) -> dict:
    return {"model": "claude-sonnet-4-5", "max_tokens": 400, "messages": [{"role": "user", "content": text}],
            **fields}


def turns(*messages, **fields) -> dict:
    return {"model": "claude-sonnet-4-5", "max_tokens": 400, "messages": list(messages), **fields}


def user(*content):
    return {"role": "user", "content": list(content) if len(content) != 1 or not isinstance(content[0], str)
            else content[0]}


def assistant(*content):
    return {"role": "assistant", "content": list(content) if len(content) != 1 or not isinstance(content[0], str)
            else content[0]}


def use(id="toolu_a1", name="calc", **inp):
    return {"type": "tool_use", "id": id, "name": name, "input": inp or {"expr": "2+2"}}


def result(id="toolu_a1", content="4", **extra):
    return {"type": "tool_result", "tool_use_id": id, "content": content, **extra}


def text(words, **extra):
    return {"type": "text", "text": words, **extra}


def signed_thought(body: dict) -> dict:
    """A thinking block the offline model signed itself (what a client sends back unchanged)."""
    status, _, answer = send(dict(body, thinking={"type": "enabled", "budget_tokens": 1024}, max_tokens=3000))
    assert status == 200, answer
    return next(b for b in answer["content"] if b["type"] == "thinking")


def send(body, headers=None, path="/v1/messages", method="POST", model=None):
    """One request through http.handle: (status, headers, the JSON answer or the raw bytes)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    status, out_headers, out = handle(model or OfflineModel(tool_prompt=True), method, path, dict(headers or OLD), data)
    out = out if isinstance(out, bytes) else b"".join(out)
    if out_headers.get("content-type") == "application/json":
        return status, out_headers, json.loads(out)
    return status, out_headers, out


class Case:
    """One request and what the documentation says it gets."""

    def __init__(self, kind, name, doc, body=None, *, headers=None, path="/v1/messages", method="POST",
                 status=200, error=None, says=(), check=None):
        self.kind, self.name, self.doc = kind, name, doc
        self.body, self.headers, self.path, self.method = body, headers, path, method
        self.status, self.error, self.says, self.check = status, error, says, check

    @property
    def id(self):
        return f"{self.kind}-{self.name}"

    def run(self):
        body = self.body() if callable(self.body) else self.body
        status, headers, answer = send(body if body is not None else b"", self.headers, self.path, self.method)
        assert status == self.status, (status, answer)
        if status >= 400:
            assert answer["type"] == "error", answer
            assert answer["error"]["type"] == (self.error or "invalid_request_error"), answer
            message = answer["error"]["message"]
            assert "\n" not in message, message  # one line
            for words in ([self.says] if isinstance(self.says, str) else self.says):
                assert words in message, message
        if self.check:  # a check asserts inside, or returns what must be true
            outcome = self.check(answer, headers)
            assert outcome is None or bool(outcome), (self.id, answer)


def content_types(*kinds):
    def check(answer, _):
        assert [b["type"] for b in answer["content"]] == list(kinds), answer["content"]
    return check


def tokens_near(expected: int, base: dict, tolerance: float = 0.10):
    """count_tokens of the request, less the same request without the item, is within 10 % of the formula."""
    def check(answer, _):
        _, _, without = send(base, path="/v1/messages/count_tokens")
        added = answer["input_tokens"] - without["input_tokens"]
        assert abs(added - expected) <= tolerance * expected, (added, expected)
    return check


def json_answer(schema):
    def check(answer, _):
        from jsonschema import validate

        validate(json.loads(answer["content"][-1]["text"]), schema)
    return check


NAME_AGE = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name", "age"], "additionalProperties": False}
COUNT_BASE = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "Describe this."}]}
TOOLS_BASE = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "What is 6 times 7?"}]}


def _count(extra_blocks=(), **fields) -> dict:
    content = [*extra_blocks, text("Describe this.")]
    return dict(COUNT_BASE, messages=[{"role": "user", "content": content}], **fields)


CASES = [
    # ------------------------------------------------------------ versions (api/versioning, migration-2026-10-21)
    Case("versions", "2023-01-01-is-a-version", VERSIONING, ask(), headers={"anthropic-version": "2023-01-01"}),
    Case("versions", "a-made-up-date-is-400", VERSIONING, ask(), headers={"anthropic-version": "2025-06-01"},
         status=400, says="2025-06-01"),
    Case("versions", "top-p-on-count-tokens-2026", VERSIONING,
         dict(COUNT_BASE, top_p=0.9), headers=NEW, path="/v1/messages/count_tokens", status=400,
         says="top_p"),
    Case("versions", "top-k-at-zero-2026", VERSIONING, ask(top_k=0), headers=NEW, status=400, says="top_k"),
    Case("versions", "temperature-0-taken-2023", VERSIONING, ask(temperature=0.0)),
    Case("versions", "text-document-in-assistant-2026", VERSIONING,
         turns(user("Read it"), assistant(doc(TEXT_DOC)), user("And?")), headers=NEW, status=400,
         says="messages.1.content.0"),
    Case("versions", "pdf-document-in-assistant-2026", VERSIONING,
         turns(user("Read it"), assistant(text("Here:"), doc({"type": "base64", "media_type": "application/pdf",
                                                            "data": pdf()})), user("And?")),
         headers=NEW, status=400, says="messages.1.content.1"),
    Case("versions", "document-in-assistant-taken-2023", VERSIONING,
         turns(user("Read it"), assistant(doc(TEXT_DOC)), user("And?"))),
    Case("versions", "document-in-tool-result-taken-2026", VERSIONING,
         turns(user("Open the notes"), assistant(use()), user(result(content=[doc(TEXT_DOC)])), tools=[CALC]),
         headers=NEW),
    Case("versions", "citations-in-user-search-result-2026", VERSIONING,
         turns(user({"type": "search_result", "source": "https://lib.example/hours", "title": "Hours",
                     "content": [text("Open at nine.", citations=CITE)]}, text("When?"))),
         headers=NEW, status=400, says="citations"),
    Case("versions", "citations-on-assistant-text-taken-2026", VERSIONING,
         turns(user(doc(TEXT_DOC, citations={"enabled": True}), text("When?")),
               assistant(text("At nine.", citations=CITE)), user("Thanks")), headers=NEW),
    Case("versions", "empty-citations-on-user-text-taken-2026", VERSIONING,
         turns(user(text("When does it open?", citations=[]))), headers=NEW),

    # ------------------------------------------------------------ betas (api/beta-headers, the SDK's AnthropicBetaParam)
    Case("betas", "user-profiles-beta", BETAS, ask(), headers={**NEW, "anthropic-beta": "user-profiles-2026-03-24"}),
    Case("betas", "managed-agents-beta", BETAS, ask(), headers={**NEW, "anthropic-beta": "managed-agents-2026-04-01"}),
    Case("betas", "mcp-tunnels-beta", BETAS, ask(), headers={**NEW, "anthropic-beta": "mcp-tunnels-2026-06-22"}),
    Case("betas", "three-betas-one-header", BETAS, ask(),
         headers={**NEW, "anthropic-beta": "files-api-2025-04-14,context-1m-2025-08-07,effort-2025-11-24"}),
    Case("betas", "unknown-beta-among-known", BETAS, ask(),
         headers={**NEW, "anthropic-beta": "files-api-2025-04-14, tool-magic-2026-01-01"}, status=400,
         says="tool-magic-2026-01-01"),
    Case("betas", "unknown-beta-in-the-docs-words", BETAS, ask(), headers={**NEW, "anthropic-beta": "invalid-beta-name"},
         status=400, says="Unsupported beta header: invalid-beta-name"),
    Case("betas", "misspelt-beta-case", BETAS, ask(), headers={**NEW, "anthropic-beta": "Files-API-2025-04-14"},
         status=400, says="Files-API-2025-04-14"),
    Case("betas", "context-management-without-beta", BETAS,
         ask(context_management={"edits": [{"type": "clear_thinking_20251015"}]}), headers=NEW, status=400,
         says="context_management: Extra inputs are not permitted"),
    Case("betas", "interleaved-thinking-budget-over-max-tokens", THINKING + "#interleaved-thinking",
         ask(max_tokens=2000, thinking={"type": "enabled", "budget_tokens": 4000}),
         headers={**OLD, "anthropic-beta": "interleaved-thinking-2025-05-14"}),
    Case("betas", "budget-over-max-tokens-without-interleaved", THINKING,
         ask(max_tokens=2000, thinking={"type": "enabled", "budget_tokens": 4000}), status=400,
         says="max_tokens"),

    # ------------------------------------------------------------ blocks (api/messages: each block's place)
    Case("blocks", "tool-reference-in-tool-result", MESSAGES,
         turns(user("Find a tool"), assistant(use()), user(result(content=[{"type": "tool_reference",
                                                                            "tool_name": "calc"}])),
               tools=[CALC])),
    Case("blocks", "toolset-name-on-tool-result", MESSAGES,
         turns(user("Add"), assistant(use()), user(result(toolset_name="arith")), tools=[CALC])),
    Case("blocks", "is-error-must-be-boolean", MESSAGES,
         turns(user("Add"), assistant(use()), user(result(is_error="yes")), tools=[CALC]), status=400,
         says="is_error"),
    Case("blocks", "image-in-system-prompt", MESSAGES, ask(system=[image()]), status=400, says="system.0"),
    Case("blocks", "search-result-in-user-message", DOCS + "build-with-claude/search-results",
         turns(user({"type": "search_result", "source": "https://lib.example/hours", "title": "Hours",
                     "content": [text("Open at nine.")]}, text("When does it open?")))),
    Case("blocks", "thinking-block-type-must-be-known", MESSAGES,
         turns(user({"type": "reasoning", "text": "hmm"})), status=400, says="reasoning"),
    Case("blocks", "image-inside-search-result", DOCS + "build-with-claude/search-results",
         turns(user({"type": "search_result", "source": "s", "title": "t", "content": [image()]}, text("?"))),
         status=400, says="search_result"),
    Case("blocks", "document-in-tool-result-taken", PDF,
         turns(user("Fetch"), assistant(use()), user(result(content=[doc({"type": "base64",
                                                                         "media_type": "application/pdf",
                                                                         "data": pdf()})])), tools=[CALC])),

    # ------------------------------------------------------------ tools (tool use: pairing, ids, tool_choice)
    Case("tools", "tool-use-id-with-colon", TOOL_USE,
         turns(user("Add"), assistant(use(id="functions.calc:0")), user(result(id="functions.calc:0")),
               tools=[CALC]), status=400, says="String should match pattern"),
    Case("tools", "parallel-results-out-of-order", TOOL_USE,
         turns(user("Add twice"), assistant(use(id="toolu_x"), use(id="toolu_y")),
               user(result(id="toolu_y"), result(id="toolu_x")), tools=[CALC])),
    Case("tools", "result-answering-an-older-turn", TOOL_USE,
         turns(user("Add"), assistant(use(id="toolu_old")), user(result(id="toolu_old")),
               assistant(text("4.")), user(result(id="toolu_old")), tools=[CALC]), status=400,
         says="toolu_old"),
    Case("tools", "text-then-results", TOOL_USE,
         turns(user("Add"), assistant(use()), user(text("here:"), result()), tools=[CALC]), status=400,
         says="tool_result"),
    Case("tools", "choice-none-gives-no-tool-use", TOOL_USE,
         ask("What is 6 times 7? Use calc.", tools=[CALC], tool_choice={"type": "none"}),
         check=lambda a, _: [b for b in a["content"] if b["type"] == "tool_use"] == []),
    Case("tools", "choice-tool-names-the-tool", TOOL_USE,
         ask("Weather in Lyon please", tools=[CALC, WEATHER], tool_choice={"type": "tool", "name": "weather"}),
         check=lambda a, _: [b["name"] for b in a["content"] if b["type"] == "tool_use"] == ["weather"]),
    Case("tools", "choice-any-no-parallel", TOOL_USE,
         ask("Weather in Lyon and Oslo", tools=[WEATHER], tool_choice={"type": "any",
                                                                      "disable_parallel_tool_use": True}),
         check=lambda a, _: len([b for b in a["content"] if b["type"] == "tool_use"]) == 1),
    Case("tools", "choice-none-with-parallel-flag", TOOL_USE,
         ask(tools=[CALC], tool_choice={"type": "none", "disable_parallel_tool_use": True}), status=400,
         says="disable_parallel_tool_use"),
    Case("tools", "forced-any-on-sonnet-5-5", SONNET_55 + "#forced-tool-use-is-not-supported",
         ask(model="claude-sonnet-5-5", tools=[CALC], tool_choice={"type": "any"}), headers=NEW, status=400,
         says="tool_choice"),
    Case("tools", "forced-tool-on-sonnet-5", SONNET_55,
         ask("Weather in Lyon please", model="claude-sonnet-5", tools=[WEATHER],
             tool_choice={"type": "tool", "name": "weather"}),
         headers=NEW, check=lambda a, _: a["stop_reason"] == "tool_use"),
    Case("tools", "choice-tool-unknown-name", TOOL_USE,
         ask(tools=[CALC], tool_choice={"type": "tool", "name": "search"}), status=400, says="search"),

    # ------------------------------------------------------------ thinking (extended thinking, tool loops)
    Case("thinking", "redacted-thinking-starts-the-turn", THINKING,
         turns(user("Add"), assistant({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"}, use()),
               user(result()), tools=[CALC], thinking={"type": "enabled", "budget_tokens": 1024},
               max_tokens=3000)),
    Case("thinking", "dropped-thinking-with-text-first", THINKING,
         turns(user("Add"), assistant(text("Let me add."), use()), user(result()), tools=[CALC],
               thinking={"type": "enabled", "budget_tokens": 1024}, max_tokens=3000),
         status=400, says="Expected `thinking` or `redacted_thinking`, but found `text`"),
    Case("thinking", "adaptive-takes-no-budget", THINKING,
         ask(model="claude-opus-4-6", thinking={"type": "adaptive", "budget_tokens": 2048}), status=400,
         says="budget_tokens"),
    Case("thinking", "display-omitted-taken", THINKING,
         ask(max_tokens=3000, thinking={"type": "enabled", "budget_tokens": 1024, "display": "omitted"})),
    Case("thinking", "display-unknown-value", THINKING,
         ask(max_tokens=3000, thinking={"type": "enabled", "budget_tokens": 1024, "display": "full"}),
         status=400, says="display"),
    Case("thinking", "between-tools-on-sonnet-5-5", SONNET_55,
         ask(model="claude-sonnet-5-5", thinking={"type": "between_tools"}), headers=NEW),
    Case("thinking", "between-tools-on-opus-4-6", SONNET_55,
         ask(model="claude-opus-4-6", thinking={"type": "between_tools"}), status=400, says="between_tools"),
    Case("thinking", "disabled-on-sonnet-5-5", SONNET_55,
         ask(model="claude-sonnet-5-5", thinking={"type": "disabled"}), headers=NEW, status=400, says="disabled"),
    Case("thinking", "budget-not-integer", THINKING,
         ask(max_tokens=3000, thinking={"type": "enabled", "budget_tokens": 1500.5}), status=400,
         says="budget_tokens"),

    # ------------------------------------------------------------ cache (prompt caching)
    Case("cache", "ttl-in-seconds", CACHING,
         ask(system=[text("You are terse.", cache_control={"type": "ephemeral", "ttl": 300})]), status=400,
         says="ttl"),
    Case("cache", "1h-tool-5m-system-1h-message", CACHING,
         turns(user(text("Go", cache_control={"type": "ephemeral", "ttl": "1h"})),
               tools=[dict(CALC, cache_control={"type": "ephemeral", "ttl": "1h"})],
               system=[text("Be brief.", cache_control={"type": "ephemeral"})]), status=400, says="1h"),
    Case("cache", "1h-before-5m-taken", CACHING,
         turns(user(text("Go", cache_control={"type": "ephemeral"})),
               system=[text("Be brief.", cache_control={"type": "ephemeral", "ttl": "1h"})])),
    Case("cache", "five-breakpoints-in-tool-results", CACHING,
         turns(user("Add"), assistant(use(id="toolu_1"), use(id="toolu_2"), use(id="toolu_3")),
               user(*[result(id=f"toolu_{k}", cache_control={"type": "ephemeral"}) for k in (1, 2, 3)],
                    text("and", cache_control={"type": "ephemeral"})),
               tools=[dict(CALC, cache_control={"type": "ephemeral"})]), status=400, says="4"),
    Case("cache", "top-level-cache-control", CACHING, ask(cache_control={"type": "ephemeral"})),
    Case("cache", "top-level-cache-control-bad-type", CACHING, ask(cache_control={"type": "forever"}),
         status=400, says="cache_control"),

    # ------------------------------------------------------------ schemas (input_schema, structured outputs)
    Case("schemas", "input-schema-required-not-a-list", TOOL_USE,
         ask(tools=[dict(CALC, input_schema={"type": "object", "required": "expr"})]), status=400,
         says="input_schema"),
    Case("schemas", "input-schema-unknown-keyword-taken", TOOL_USE,
         ask(tools=[dict(CALC, input_schema={"type": "object", "x-ui": {"order": 1}})])),
    Case("schemas", "output-schema-nested-in-array", STRUCTURED,
         ask("List two pets", output_config={"format": {"type": "json_schema", "schema": {
             "type": "object", "additionalProperties": False, "required": ["pets"],
             "properties": {"pets": {"type": "array", "items": {"type": "object",
                                                                "properties": {"n": {"type": "string"}}}}}}}}),
         status=400, says="additionalProperties"),
    Case("schemas", "output-schema-in-defs", STRUCTURED,
         ask(output_config={"format": {"type": "json_schema", "schema": {
             "type": "object", "additionalProperties": False, "properties": {"p": {"$ref": "#/$defs/P"}},
             "$defs": {"P": {"type": "object", "properties": {"n": {"type": "string"}}}}}}}),
         status=400, says="additionalProperties"),
    Case("schemas", "strict-tool-open-object", STRUCTURED,
         ask(tools=[dict(CALC, strict=True)]), status=400, says="additionalProperties"),
    Case("schemas", "output-answer-matches-schema", STRUCTURED,
         ask("Our cat Mia is 3 years old.", output_config={"format": {"type": "json_schema", "schema": NAME_AGE}}),
         check=json_answer(NAME_AGE)),

    # ------------------------------------------------------------ media (documents, images)
    Case("media", "pdf-as-octet-stream", PDF,
         turns(user(doc({"type": "base64", "media_type": "application/octet-stream", "data": pdf()}),
                    text("Summarize"))), status=400, says="media_type"),
    Case("media", "text-source-as-html", CITATIONS,
         turns(user(doc({"type": "text", "media_type": "text/html", "data": "<p>hi</p>"}), text("?"))),
         status=400, says="media_type"),
    Case("media", "content-source-with-text-blocks", CITATIONS,
         turns(user(doc({"type": "content", "content": [text("Opens at nine.")]},
                        citations={"enabled": True}), text("When?")))),
    Case("media", "citations-enabled-as-number", CITATIONS,
         turns(user(doc(TEXT_DOC, citations={"enabled": 1}), text("When?"))), status=400, says="enabled"),
    Case("media", "pdf-over-100-pages", PDF,
         turns(user(doc({"type": "base64", "media_type": "application/pdf", "data": pdf(101)}), text("?"))),
         status=400, says="100"),
    Case("media", "gif-labelled-webp", VISION,
         turns(user(image(data=base64.b64encode(b"GIF89a" + b"\0" * 20).decode(), media_type="image/webp"),
                    text("?"))), status=400, says="image/gif"),
    Case("media", "image-media-type-svg", VISION,
         turns(user(image(media_type="image/svg+xml"), text("?"))), status=400, says="media_type"),
    Case("media", "many-images-over-2000px", VISION,
         lambda: turns(user(*[image(2100, 50) for _ in range(21)], text("Compare them"))), status=400,
         says="2000"),
    Case("media", "twenty-images-over-2000px-taken", VISION,
         lambda: turns(user(*[image(2100, 50) for _ in range(20)], text("Compare them")))),
    Case("media", "text-document-answer-cites-its-sentence", CITATIONS,
         turns(user(doc(TEXT_DOC, citations={"enabled": True}, title="Hours"), text("When does it close?"))),
         check=lambda a, _: _cites(a, "char_location", TEXT_DOC["data"])),
    Case("media", "pdf-answer-cites-its-page", CITATIONS,
         turns(user(doc({"type": "base64", "media_type": "application/pdf", "data": pdf()},
                        citations={"enabled": True}), text("How much did revenue rise?"))),
         check=lambda a, _: _cites(a, "page_location")),
    Case("media", "content-document-answer-cites-its-block", CITATIONS,
         turns(user(doc({"type": "content", "content": [text("Pool opens in May."), text("Gym opens at six.")]},
                        citations={"enabled": True}), text("When does the gym open?"))),
         check=lambda a, _: _cites(a, "content_block_location")["start_block_index"] == 1),
    Case("media", "chinese-document-answer-in-chinese", CITATIONS,
         turns(user(doc({"type": "text", "media_type": "text/plain", "data": "图书馆九点开门。周日休息。"},
                        title="开放时间", citations={"enabled": True}), text("图书馆几点开门？"))),
         check=lambda a, _: a["content"][0]["text"].startswith("摘自《开放时间》")
         and _cites(a, "char_location")["cited_text"] == "图书馆九点开门。"),
    Case("media", "no-citations-unless-enabled", CITATIONS,
         turns(user(doc(TEXT_DOC), text("When does it close?"))),
         check=lambda a, _: "closes at five" in "".join(b["text"] for b in a["content"])
         and not any(b.get("citations") for b in a["content"])),
    Case("media", "url-image-taken", VISION,
         turns(user({"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}},
                    text("What is it?")))),

    # ------------------------------------------------------------ limits (nesting, size, counts, max_tokens)
    Case("limits", "deep-input-schema", TOOL_USE,
         lambda: ask(tools=[dict(CALC, input_schema=_nested_schema(400))]), status=400),
    Case("limits", "deep-array-in-metadata", MESSAGES,
         ("[" * 5000 + "]" * 5000).join(['{"model":"claude-sonnet-4-5","max_tokens":5,"metadata":', ',"messages":'
                                         '[{"role":"user","content":"hi"}]}']).encode(), status=400),
    Case("limits", "over-32-mb", ERRORS, b"{" + b" " * (32 * 1024 * 1024) + b"}", status=413,
         error="request_too_large"),
    Case("limits", "max-tokens-zero-prewarms", CACHING + "#pre-warming-the-cache", ask(max_tokens=0),
         check=lambda a, _: a["content"] == [] and a["usage"]["output_tokens"] == 0),
    Case("limits", "max-tokens-negative", MESSAGES, ask(max_tokens=-1), status=400, says="max_tokens"),
    Case("limits", "over-100000-messages", MESSAGES,
         lambda: turns(*[user("hi") if k % 2 == 0 else assistant("ok") for k in range(100_001)]), status=400,
         says="100000"),

    # ------------------------------------------------------------ tokens (count_tokens against the formulas)
    Case("tokens", "image-2000-square", VISION, lambda: _count([image(2000, 2000)]),
         path="/v1/messages/count_tokens", check=tokens_near(1590, _count())),
    Case("tokens", "image-1000x500", VISION, lambda: _count([image(1000, 500)]),
         path="/v1/messages/count_tokens", check=tokens_near(667, _count())),
    Case("tokens", "image-4000x1000", VISION, lambda: _count([image(4000, 1000)]),
         path="/v1/messages/count_tokens", check=tokens_near(820, _count())),
    Case("tokens", "three-page-pdf", PDF,
         lambda: _count([doc({"type": "base64", "media_type": "application/pdf", "data": pdf(3)})]),
         path="/v1/messages/count_tokens", check=tokens_near(3 * 1600, _count(), 0.5)),
    Case("tokens", "one-tool-auto", DOCS + "agents-and-tools/tool-use/overview#pricing",
         dict(TOOLS_BASE, tools=[CALC]), path="/v1/messages/count_tokens",
         check=tokens_near(346 + 60, TOOLS_BASE)),

    # ------------------------------------------------------------ fields (usage, tiers, metadata, stops, prefill)
    Case("fields", "usage-has-tier-and-cache-split", MESSAGES, ask(),
         check=lambda a, _: {"service_tier", "cache_creation", "cache_read_input_tokens"} <= set(a["usage"])),
    Case("fields", "service-tier-standard-only", SERVICE_TIERS, ask(service_tier="standard_only")),
    Case("fields", "service-tier-priority-refused", SERVICE_TIERS, ask(service_tier="priority"), status=400,
         says="service_tier"),
    Case("fields", "metadata-user-id-number", MESSAGES, ask(metadata={"user_id": 42}), status=400,
         says="metadata.user_id"),
    Case("fields", "stop-sequence-list-of-numbers", MESSAGES, ask(stop_sequences=[1, 2]), status=400,
         says="stop_sequences.0"),
    Case("fields", "prefill-on-opus-4-6", MIGRATION_46,
         turns(user("Name a colour"), assistant("The colour is"), model="claude-opus-4-6"), status=400,
         says="prefill"),
    Case("fields", "prefill-on-sonnet-5-5", MIGRATION_46,
         turns(user("Name a colour"), assistant("The colour is"), model="claude-sonnet-5-5"), headers=NEW,
         status=400, says="prefill"),
    Case("fields", "prefill-on-sonnet-4-5-taken", MIGRATION_46,
         turns(user("Name a colour"), assistant("The colour is"), model="claude-sonnet-4-5")),
    Case("fields", "speed-unknown", MESSAGES, ask(speed="turbo"), status=400, says="speed"),
    Case("fields", "diagnostics-taken", MESSAGES, ask(diagnostics={"previous_message_id": None}), headers=NEW),

    # ------------------------------------------------------------ endpoints (batches, files, rate limits, ...)
    Case("endpoints", "batch-with-2026-temperature-errors", BATCHES,
         {"requests": [{"custom_id": "t1", "params": ask(temperature=0.2)}]}, headers=NEW,
         path="/v1/messages/batches", check=lambda a, _: a["request_counts"]["errored"] == 1),
    Case("endpoints", "batch-cancel-unknown", BATCHES, b"", path="/v1/messages/batches/msgbatch_nope/cancel",
         status=404, error="not_found_error"),
    Case("endpoints", "batch-without-requests", BATCHES, {"requests": []}, path="/v1/messages/batches",
         status=400, says="requests"),
    Case("endpoints", "files-list-404", DOCS + "build-with-claude/files", None, path="/v1/files", method="GET",
         status=404, error="not_found_error"),
    Case("endpoints", "ratelimit-headers-on-200", RATE_LIMITS, ask(),
         check=lambda a, h: {"anthropic-ratelimit-requests-limit", "anthropic-ratelimit-input-tokens-remaining",
                             "anthropic-ratelimit-output-tokens-reset"} <= set(h)),
    Case("endpoints", "models-list-limit-zero", MESSAGES, None, path="/v1/models?limit=0", method="GET",
         status=400, says="limit"),
    Case("endpoints", "context-management-unknown-edit", DOCS + "build-with-claude/context-editing",
         ask(context_management={"edits": [{"type": "clear_everything"}]}),
         headers={**OLD, "anthropic-beta": "context-management-2025-06-27"}, status=400, says="clear_everything"),
    Case("endpoints", "mcp-servers-without-beta", DOCS + "agents-and-tools/mcp-connector",
         ask(mcp_servers=[{"type": "url", "url": "https://mcp.example/sse", "name": "x"}]), status=400,
         says="mcp_servers"),
]


def _cites(answer: dict, kind: str, data: str | None = None) -> dict:
    """The answer's one citation, of `kind`, quoting the passage its text block holds (and `data` at its indices)."""
    cited = [b for b in answer["content"] if b.get("citations")]
    assert len(cited) == 1 and len(cited[0]["citations"]) == 1, answer["content"]
    citation = cited[0]["citations"][0]
    assert citation["type"] == kind and citation["document_index"] == 0, citation
    assert citation["cited_text"] == cited[0]["text"], citation
    if data is not None:
        assert data[citation["start_char_index"]:citation["end_char_index"]] == citation["cited_text"]
    return citation


def _nested_schema(depth: int) -> dict:
    schema = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_battery(case):
    case.run()


def test_the_battery_is_sixty_cases_or_more_in_every_class():
    kinds = {c.kind for c in CASES}
    assert len(CASES) >= 60 and len(kinds) >= 12
    assert len({c.id for c in CASES}) == len(CASES)  # each case its own name
    assert all(c.doc.startswith("https://platform.claude.com/docs/") for c in CASES)


def test_a_429_carries_the_rate_limit_headers_at_zero_and_retry_after():
    model = OfflineModel(tool_prompt=True)
    model.inject_fault(429)
    status, headers, answer = send(ask(), model=model)
    assert status == 429 and answer["error"]["type"] == "rate_limit_error"
    assert headers["anthropic-ratelimit-requests-remaining"] == "0" and int(headers["retry-after"]) >= 1


def test_a_batch_lives_through_create_retrieve_list_results_and_cancel():
    model = OfflineModel(tool_prompt=True)
    status, _, batch = send({"requests": [{"custom_id": "ok", "params": ask()},
                                          {"custom_id": "bad", "params": ask(max_tokens=-5)}]},
                            path="/v1/messages/batches", model=model)
    assert status == 200 and batch["request_counts"] == {"processing": 0, "succeeded": 1, "errored": 1,
                                                         "canceled": 0, "expired": 0}
    assert send(None, path=f"/v1/messages/batches/{batch['id']}", method="GET", model=model)[2]["id"] == batch["id"]
    assert [b["id"] for b in send(None, path="/v1/messages/batches", method="GET", model=model)[2]["data"]] == \
        [batch["id"]]
    lines = [json.loads(x) for x in send(None, path=f"/v1/messages/batches/{batch['id']}/results", method="GET",
                                         model=model)[2].splitlines()]
    assert {x["custom_id"]: x["result"]["type"] for x in lines} == {"ok": "succeeded", "bad": "errored"}
    assert send(b"", path=f"/v1/messages/batches/{batch['id']}/cancel", model=model)[2]["processing_status"] == \
        "ended"


# ---------------------------------------------------------------- the rule tables, keyed by version, beta and model

def test_every_beta_the_installed_sdk_names_is_in_the_kits_table():
    """The table is the kit's own, and it covers what the API lists (the SDK's AnthropicBetaParam)."""
    import typing

    from anthropic.types import AnthropicBetaParam

    from offline.api.betas import BY_NAME

    listed = next(a for a in typing.get_args(AnthropicBetaParam) if typing.get_origin(a) is typing.Literal)
    assert set(typing.get_args(listed)) <= set(BY_NAME)


def test_every_rule_names_its_page():
    from offline.api.betas import BETAS
    from offline.api.models import MODEL_RULES
    from offline.api.versions import RULES

    for rule in (*RULES, *MODEL_RULES, *BETAS):
        assert rule.doc.startswith("https://platform.claude.com/docs/en/"), rule


@pytest.mark.parametrize("info", __import__("offline.api.models", fromlist=["MODELS"]).MODELS,
                         ids=lambda m: m.id)
def test_each_models_rules_come_from_its_row(info):
    """Prefill, the output ceiling and the thinking types, for every model the API lists, from the model table."""
    prefill = turns(user("Name a colour"), assistant("The colour is"), model=info.id)
    status, _, answer = send(prefill)
    assert (status == 200) == info.prefill, answer
    status, _, answer = send(ask(model=info.id, max_tokens=info.max_tokens + 1))
    assert status == 400 and f"> {info.max_tokens}" in answer["error"]["message"]
    for kind in ("enabled", "adaptive", "disabled"):
        thinking = {"type": kind, "budget_tokens": 1024} if kind == "enabled" else {"type": kind}
        status, _, answer = send(ask(model=info.id, max_tokens=2000, thinking=thinking))
        assert (status == 400) == (kind in info.refuses), (kind, answer)
