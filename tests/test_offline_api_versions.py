"""The offline API answers by the `anthropic-version` and `anthropic-beta` the client sends (issue 32).

Each 400 is checked against the real API's shape, {"type": "error", "error": {"type":
"invalid_request_error", "message": ...}}, and each request the real API accepts is
answered. Raw requests go through `http.handle` (what the mock transport and the served
mode both call); the SDK's own helpers (tool_runner, parse) run on the kit's offline client.
"""

from __future__ import annotations

import base64
import io
import json

import anthropic
import pytest

from offline import OfflineModel
from offline.api.betas import BETAS
from offline.api.versions import RULES, VERSIONS
from offline.serve.http import handle

NEW, OLD = {"anthropic-version": "2026-10-21"}, {"anthropic-version": "2023-06-01"}
HI = [{"role": "user", "content": "What is a token?"}]
BASH = {"name": "bash", "description": "Run a command",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}
USE = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "bash",
                                         "input": {"command": "ls"}}]}
RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py"}]}
THINK = {"type": "enabled", "budget_tokens": 1024}


def raw(body, headers=None, path="/v1/messages", method="POST", model=None):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    status, out_headers, out = handle(model or OfflineModel(), method, path, headers or {}, data)
    out = out if isinstance(out, bytes) else b"".join(out)
    return status, out_headers, (json.loads(out) if out_headers.get("content-type") == "application/json" else out)


def request(**fields) -> dict:
    return {"model": "offline", "max_tokens": 300, "messages": HI, **fields}


def refused(answer, message: str) -> None:
    """The real API's 400: its JSON shape, its error type, and the message."""
    status, _, body = answer
    assert status == 400, body
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error", body
    assert message in body["error"]["message"], body["error"]["message"]


def answered(answer) -> dict:
    status, _, body = answer
    assert status == 200, body
    return body


# ---------------------------------------------------------------- versions

@pytest.mark.parametrize("version", ["1999-01-01", "2024-01-01", "latest", "2026-10-22"])
def test_an_unknown_version_is_the_apis_400(version):
    refused(raw(request(), {"anthropic-version": version}), f"anthropic-version: {version} is not a valid version")


@pytest.mark.parametrize("version", VERSIONS)
def test_every_documented_version_is_answered(version):
    answered(raw(request(), {"anthropic-version": version}))


@pytest.mark.parametrize("field, value", [("temperature", 1), ("temperature", 0.2), ("top_p", 0.9), ("top_p", 1),
                                          ("top_k", 0), ("top_k", 40)])
def test_2026_10_21_refuses_sampling_parameters_even_at_their_defaults(field, value):
    refused(raw(request(**{field: value}), NEW), f"{field}: Extra inputs are not permitted")
    answered(raw(request(**{field: value}), OLD))  # the older version takes them


def test_the_installed_sdk_sends_2026_10_21_and_gets_its_400(client):
    with pytest.raises(anthropic.BadRequestError, match="temperature"):
        client.messages.create(model="offline", max_tokens=50, messages=HI, extra_body={"temperature": 0.3})
    assert client.messages.create(model="offline", max_tokens=50, messages=HI,
                                  extra_body={"temperature": 0.3}, extra_headers=OLD).content


def test_2026_10_21_refuses_a_document_in_an_assistant_message():
    doc = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}}
    body = request(messages=[{"role": "user", "content": "Summarize"}, {"role": "assistant", "content": [doc]},
                             {"role": "user", "content": "Go on"}])
    refused(raw(body, NEW), "messages.1.content.0: `document` blocks are not allowed in assistant messages")
    answered(raw(body, OLD))


def test_2026_10_21_refuses_citations_on_a_user_text_block():
    cited = {"type": "text", "text": "It says so.", "citations": [
        {"type": "char_location", "cited_text": "so", "document_index": 0, "start_char_index": 0,
         "end_char_index": 2}]}
    refused(raw(request(messages=[{"role": "user", "content": [cited]}]), NEW),
            "messages.0.content.0.text.citations: citations are not allowed on text blocks in user messages")
    empty = dict(cited, citations=[])
    answered(raw(request(messages=[{"role": "user", "content": [empty]}]), NEW))


def test_each_version_rule_names_its_documentation_page():
    assert RULES and all(rule.doc.startswith("https://") and rule.versions for rule in RULES)


# ---------------------------------------------------------------- betas

def test_the_beta_table_has_a_name_what_it_enables_and_a_date_for_each():
    for beta in BETAS:
        assert beta.enables and beta.since[:2] == "20" and beta.since[4] == "-", beta


@pytest.mark.parametrize("beta", ["structured-outputs-2025-12-15", "structured-outputs-2025-11-13",
                                  "token-efficient-tools-2025-02-19", "context-management-2025-06-27",
                                  "claude-code-20250219", "fine-grained-tool-streaming-2025-05-14",
                                  "interleaved-thinking-2025-05-14", "prompt-caching-2024-07-31"])
def test_betas_the_frameworks_send_are_accepted(beta):
    answered(raw(request(), {"anthropic-beta": beta}))


def test_an_unknown_beta_is_still_the_apis_400():
    refused(raw(request(), {"anthropic-beta": "structured-outputs-2031-01-01"}),
            "Unexpected value(s) `structured-outputs-2031-01-01` for the `anthropic-beta` header")


SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
          "required": ["name", "age"], "additionalProperties": False}


@pytest.mark.parametrize("beta", ["structured-outputs-2025-11-13", "structured-outputs-2025-12-15"])
def test_output_format_with_its_beta_is_served_as_json(beta):
    body = request(messages=[{"role": "user", "content": "Rex is 7"}],
                   output_format={"type": "json_schema", "schema": SCHEMA})
    message = answered(raw(body, {"anthropic-beta": beta}))
    assert json.loads(message["content"][0]["text"]) == {"name": "Rex", "age": 7}
    refused(raw(body), "output_format: Extra inputs are not permitted")  # no beta: the field does not exist


def test_the_sdks_parse_is_answered(client):
    from pydantic import BaseModel

    class Pet(BaseModel):
        name: str
        age: int

    parsed = client.messages.parse(model="offline", max_tokens=300, output_format=Pet,
                                   messages=[{"role": "user", "content": "Our dog Rex is 7"}])
    assert parsed.parsed_output == Pet(name="Rex", age=7)


# ---------------------------------------------------------------- threads (the SDK's tool_runner)

def test_the_sdks_tool_runner_with_its_default_thread_is_answered(client, model):
    from anthropic import beta_tool

    ran = []

    @beta_tool
    def bash(command: str) -> str:
        """Run a shell command.

        Args:
            command: the command line
        """
        ran.append(command)
        return "hi\n"

    runner = client.beta.messages.tool_runner(model="offline", max_tokens=500, tools=[bash],
                                              messages=[{"role": "user", "content": "Run `echo hi`"}])
    final = runner.until_done()
    assert ran == ["echo hi"]
    assert final.stop_reason == "end_turn" and "hi" in final.content[-1].text
    assert len(model.threads._held) >= 2  # created, then continued: the model held the conversation


def test_a_continue_from_an_unknown_reply_is_thread_not_found():
    body = request(thread={"type": "continue", "previous_message_id": "msg_gone"})
    status, _, answer = raw(body, {"anthropic-beta": "message-threads-2026-08-12"})
    assert status == 404 and answer["error"]["type"] == "not_found_error"
    assert answer["error"]["details"] == {"error_code": "thread_not_found"}


def test_a_thread_continues_from_the_held_history():
    model, beta = OfflineModel(), {"anthropic-beta": "message-threads-2026-08-12"}
    first = answered(raw(request(tools=[BASH], messages=[{"role": "user", "content": "Run `ls`"}],
                                 thread={"type": "create"}), beta, model=model))
    use = first["content"][-1]
    assert use["type"] == "tool_use"
    turn = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "a.py"}]}]
    second = answered(raw(request(messages=turn,  # no tools: a continue takes the thread's
                                  thread={"type": "continue", "previous_message_id": first["id"]}), beta, model=model))
    assert second["stop_reason"] == "end_turn"
    # the same turn without the thread is an orphan tool_result: the history really came from the model
    refused(raw(request(tools=[BASH], messages=turn)), "unexpected `tool_use_id`")


def test_thread_without_its_beta_is_an_extra_input():
    refused(raw(request(thread={"type": "create"})), "thread: Extra inputs are not permitted")


# ---------------------------------------------------------------- blocks the API accepts

def test_a_search_result_in_a_tool_result_is_accepted():
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
        {"type": "search_result", "source": "https://example.org/a", "title": "A",
         "content": [{"type": "text", "text": "Tokens are pieces of words."}], "citations": {"enabled": True}}]}
    answered(raw(request(tools=[BASH], messages=[HI[0], USE, {"role": "user", "content": [result]}])))


# ---------------------------------------------------------------- what the API refuses

def test_a_thinking_tool_loop_whose_turn_dropped_its_thinking_is_refused():
    body = request(max_tokens=4000, thinking=THINK, tools=[BASH], messages=[HI[0], USE, RESULT])
    refused(raw(body), "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. "
                       "When `thinking` is enabled, a final `assistant` message must start with a thinking block")
    text_first = {"role": "assistant", "content": [{"type": "text", "text": "Listing."}, USE["content"][0]]}
    refused(raw(dict(body, messages=[HI[0], text_first, RESULT])), "but found `text`")
    answered(raw(dict(body, thinking={"type": "disabled"})))  # without thinking the same loop is fine


@pytest.mark.parametrize("bad_id", ["toolu 1", "toolu.1", "tööl_1", "toolu_1!", "call:1"])
def test_a_tool_use_id_outside_the_pattern_is_refused(bad_id):
    use = {"role": "assistant", "content": [dict(USE["content"][0], id=bad_id)]}
    result = {"role": "user", "content": [dict(RESULT["content"][0], tool_use_id=bad_id)]}
    refused(raw(request(tools=[BASH], messages=[HI[0], use, result])),
            "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'")


def marked(system_ttl, message_ttl, kind="ephemeral"):
    system = [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral", "ttl": system_ttl}}]
    mark = {"type": kind} if message_ttl is None else {"type": kind, "ttl": message_ttl}
    return request(system=system, messages=[{"role": "user", "content": [
        {"type": "text", "text": "What is a token?", "cache_control": mark}]}])


@pytest.mark.parametrize("body, message", [
    (marked("5m", None, kind="persistent"), "messages.0.content.0.text.cache_control: Input tag 'persistent'"),
    (marked("5m", "10m"), "messages.0.content.0.text.cache_control.ephemeral.ttl: Input should be '5m' or '1h'"),
    (marked("2h", "5m"), "system.0.text.cache_control.ephemeral.ttl: Input should be '5m' or '1h'"),
    (marked("5m", "1h"), "a cache_control block with ttl='1h' cannot come after a cache_control block with ttl='5m'"),
])
def test_cache_control_the_api_refuses(body, message):
    refused(raw(body), message)


def test_a_1h_breakpoint_before_a_5m_one_is_accepted_and_reported_by_ttl():
    usage = answered(raw(marked("1h", "5m")))["usage"]
    assert set(usage["cache_creation"]) == {"ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"}
    assert usage["service_tier"] == "standard"


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"a": {"type": "strnig"}}},
    {"type": "object", "required": "a"},
    {"type": "object", "properties": {"a": {"minLength": -1}}},
    {"type": "object", "properties": []},
])
def test_an_input_schema_that_is_not_json_schema_is_refused(schema):
    tool = dict(BASH, input_schema=schema)
    refused(raw(request(tools=[tool])), "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON "
                                        "Schema draft 2020-12")


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"a": {"type": "string"}}},
    {"type": "object", "properties": {"a": {"type": "object", "properties": {}}}, "additionalProperties": False},
    {"type": "object", "$defs": {"P": {"type": "object", "properties": {"x": {"type": "integer"}}}},
     "properties": {"p": {"$ref": "#/$defs/P"}}, "additionalProperties": False},
])
def test_a_structured_output_schema_must_close_every_object(schema):
    refused(raw(request(output_config={"format": {"type": "json_schema", "schema": schema}})),
            "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def document(source, **extra):
    return request(messages=[{"role": "user", "content": [{"type": "document", "source": source, **extra},
                                                          {"type": "text", "text": "Summarize it"}]}])


PDF = b"%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n(Hello) Tj\n%%EOF"


@pytest.mark.parametrize("body, message", [
    (document({"type": "base64", "media_type": "application/pdf", "data": b64(b"GIF89a not a pdf")}),
     "messages.0.content.0.document.source.base64.data: The PDF specified was not valid."),
    (document({"type": "base64", "media_type": "application/msword", "data": b64(PDF)}),
     "messages.0.content.0.document.source.base64.media_type: Input should be 'application/pdf'"),
    (document({"type": "text", "media_type": "text/html", "data": "<p>hi</p>"}),
     "messages.0.content.0.document.source.text.media_type: Input should be 'text/plain'"),
    (document({"type": "text", "media_type": "text/plain", "data": "notes"}, citations={"enabled": "yes"}),
     "messages.0.content.0.document.citations.enabled: Input should be a valid boolean"),
])
def test_documents_the_api_refuses(body, message):
    refused(raw(body), message)


def test_a_real_pdf_and_a_text_document_are_accepted():
    answered(raw(document({"type": "base64", "media_type": "application/pdf", "data": b64(PDF)})))
    answered(raw(document({"type": "text", "media_type": "text/plain", "data": "notes"},
                          citations={"enabled": True})))


def png(width: int, height: int, pad: int = 0) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height)).save(out, format="PNG")
    return out.getvalue() + b"\x00" * pad


def with_image(raw_bytes: bytes):
    return request(messages=[{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(raw_bytes)}},
        {"type": "text", "text": "What is this?"}]}])


def test_images_over_the_limits_are_refused():
    refused(raw(with_image(png(10, 10, pad=6 * 1024 * 1024))),
            "messages.0.content.0.image.source.base64: image exceeds 5 MB maximum")
    refused(raw(with_image(png(8_100, 10))), "At least one of the image dimensions exceed max allowed size: 8000 pixels")


def nested(depth: int):
    value = "x"
    for _ in range(depth):
        value = [value]
    return value


def deep_request(depth: int) -> bytes:
    use = {"role": "assistant", "content": [dict(USE["content"][0], input={"a": "DEEP"})]}
    body = json.dumps(request(tools=[BASH], messages=[HI[0], use, RESULT]))
    return body.replace('"DEEP"', "[" * depth + '"x"' + "]" * depth).encode()


@pytest.mark.parametrize("depth", [900, 1_200, 5_000, 100_000])
def test_json_nested_hundreds_deep_is_a_400_not_a_500(depth):
    status, _, answer = raw(deep_request(depth))
    assert status == 400 and answer["error"]["type"] == "invalid_request_error", answer
    assert "nests deeper than" in answer["error"]["message"]


def test_json_nested_within_the_limit_is_answered():
    answered(raw(deep_request(100)))


def test_a_deep_tool_input_is_a_400_not_a_500():
    use = {"role": "assistant", "content": [dict(USE["content"][0], input={"a": nested(900)})]}
    status, _, answer = raw(request(tools=[BASH], messages=[HI[0], use, RESULT]))
    assert status == 400, answer


# ---------------------------------------------------------------- token counts

def counted(body, headers=None) -> int:
    return answered(raw(body, headers, path="/v1/messages/count_tokens"))["input_tokens"]


@pytest.mark.parametrize("width, height", [(400, 400), (1000, 1000), (200, 800), (3000, 1000)])
def test_an_image_counts_as_the_vision_formula(width, height):
    base = counted({"model": "offline", "messages": [{"role": "user", "content": "What is this?"}]})
    with_img = counted({"model": "offline", "messages": with_image(png(width, height))["messages"]})
    scale = min(1.0, 1568 / max(width, height))
    expected = (width * scale) * (height * scale) / 750
    assert abs((with_img - base) - expected) <= 0.1 * expected + 5, (with_img - base, expected)


def test_a_pdf_counts_per_page():
    pages = b"%PDF-1.4\n" + b"".join(b"%d 0 obj << /Type /Page >> endobj\n" % k for k in range(3))
    one = counted({"model": "offline", "messages": document(
        {"type": "base64", "media_type": "application/pdf", "data": b64(PDF)})["messages"]})
    three = counted({"model": "offline", "messages": document(
        {"type": "base64", "media_type": "application/pdf", "data": b64(pages)})["messages"]})
    assert 1500 <= three - one <= 2 * 3000  # two more pages: 1,500-3,000 tokens each (pdf-support)


# ---------------------------------------------------------------- usage, rate limits, batches, context editing

def test_a_429_carries_the_apis_rate_limit_headers():
    model = OfflineModel()
    model.inject_fault(429)
    status, headers, _ = raw(request(), model=model)
    assert status == 429 and headers["retry-after"].isdigit()
    for kind in ("requests", "tokens", "input-tokens", "output-tokens"):
        assert {f"anthropic-ratelimit-{kind}-{part}" for part in ("limit", "remaining", "reset")} <= set(headers)
    assert headers["anthropic-ratelimit-requests-remaining"] == "0"


def test_message_batches_are_answered_by_the_same_model(client):
    batch = client.messages.batches.create(requests=[
        {"custom_id": "a", "params": {"model": "offline", "max_tokens": 100, "messages": HI}},
        {"custom_id": "b", "params": {"model": "offline", "max_tokens": 100, "messages": []}}])
    assert batch.processing_status == "ended"
    assert (batch.request_counts.succeeded, batch.request_counts.errored) == (1, 1)
    assert client.messages.batches.retrieve(batch.id).id == batch.id
    results = {r.custom_id: r.result for r in client.messages.batches.results(batch.id)}
    assert results["a"].type == "succeeded" and results["a"].message.content
    assert results["b"].type == "errored" and "at least one message" in results["b"].error.error.message
    with pytest.raises(anthropic.NotFoundError):
        client.messages.batches.retrieve("msgbatch_missing")


def test_context_management_clears_old_tool_results_and_says_so():
    uses = [{"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{k}", "name": "bash",
                                               "input": {"command": f"cat f{k}"}}]} for k in range(4)]
    results = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k}",
                                             "content": "line\n" * 400}]} for k in range(4)]
    history = [HI[0]] + [m for pair in zip(uses, results) for m in pair]
    edit = {"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 2},
            "keep": {"type": "tool_uses", "value": 1}}
    body = request(tools=[BASH], messages=history, context_management={"edits": [edit]})
    beta = {"anthropic-beta": "context-management-2025-06-27"}
    message = answered(raw(body, beta))
    applied = message["context_management"]["applied_edits"]
    assert applied[0]["type"] == "clear_tool_uses_20250919" and applied[0]["cleared_tool_uses"] == 3
    assert applied[0]["cleared_input_tokens"] > 0
    plain = answered(raw(dict(body, context_management=None), beta))
    assert message["usage"]["input_tokens"] < plain["usage"]["input_tokens"]  # applied, not ignored
    refused(raw(body), "context_management: Extra inputs are not permitted")  # no beta


def test_context_management_edits_it_cannot_apply_are_refused_not_ignored():
    beta = {"anthropic-beta": "context-management-2025-06-27"}
    refused(raw(request(context_management={"edits": [{"type": "compact_20260112"}]}), beta),
            "context_management.edits.0: the offline model applies only")


def test_mcp_servers_are_refused_not_ignored():
    servers = [{"type": "url", "url": "https://example.org/mcp", "name": "ex"}]
    refused(raw(request(mcp_servers=servers), {"anthropic-beta": "mcp-client-2025-04-04"}),
            "mcp_servers: the offline model makes no network connections")
    refused(raw(request(mcp_servers=servers)), "mcp_servers: Extra inputs are not permitted")


def test_a_batch_request_is_read_under_the_batchs_version():
    body = {"requests": [{"custom_id": "t", "params": request(temperature=0.5)}]}
    model = OfflineModel()
    new = answered(raw(body, NEW, path="/v1/messages/batches", model=model))
    old = answered(raw(body, OLD, path="/v1/messages/batches", model=model))
    assert (new["request_counts"]["errored"], old["request_counts"]["succeeded"]) == (1, 1)
    status, _, lines = raw(b"", NEW, path=f"/v1/messages/batches/{new['id']}/results", method="GET", model=model)
    error = json.loads(lines.splitlines()[0])["result"]["error"]
    assert status == 200 and error["error"]["type"] == "invalid_request_error" and "temperature" in error["error"]["message"]


def test_count_tokens_refuses_an_unknown_version_too():
    refused(raw({"model": "offline", "messages": HI}, {"anthropic-version": "2023-13-01"},
                path="/v1/messages/count_tokens"), "anthropic-version: 2023-13-01 is not a valid version")
