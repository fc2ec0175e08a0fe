"""The real SDK's helpers, LangChain and pydantic-ai against the served model over real HTTP, with tools and
prompts of their own (not the lessons'): what a CI job pointing its agent code at the offline model runs.

The model is served on 127.0.0.1 (server.py) under the API's rules and counts (not the lessons' counts); each client is used as its users use it. Every check is a request shape a client really
sends: messages.create / stream / parse, the beta tool_runner, batches, count_tokens, a 429 and
the SDK's retry, thinking sent back in a tool loop, LangChain's bind_tools / stream /
with_structured_output, pydantic-ai's tools and output types (these two under `-m slow`: importing
the frameworks takes seconds; test_offline_api_frameworks.py runs one of each in the fast suite).
"""

from __future__ import annotations

import base64
import io
import json
import urllib.request

import anthropic
import pytest
from pydantic import BaseModel

from offline import OfflineModel
from offline.serve.server import serve_in_thread

MODEL = "claude-sonnet-5-5"  # the kit's default: adaptive thinking only, no prefill
OLDER = "claude-sonnet-4-5"  # manual thinking with budget_tokens
KEY = "ci-key"
SHELL = {"name": "shell", "description": "Execute a shell command line and return its stdout",
         "input_schema": {"type": "object", "properties": {"cmd": {"type": "string", "description": "command line"}},
                          "required": ["cmd"]}}
READ_FILE = {"name": "read_file", "description": "Read a UTF-8 text file",
             "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}


class Booking(BaseModel):
    city: str
    nights: int


class Reading(BaseModel):
    sensor: str
    celsius: float


@pytest.fixture(scope="module")
def served():
    model = OfflineModel(tool_prompt=True)  # what `python -m offline serve` serves
    server = serve_in_thread(model)
    host, port = server.server_address
    yield f"http://{host}:{port}", model
    server.shutdown()
    server.server_close()


@pytest.fixture
def url(served):
    return served[0]


def sdk(url, **kw) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=url, api_key=KEY, max_retries=kw.pop("max_retries", 0), **kw)


def png(width: int, height: int) -> str:
    from PIL import Image

    out = io.BytesIO()
    Image.new("1", (width, height)).save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


# ---------------------------------------------------------------- the SDK

def test_create_then_answer_the_tool_call(url):
    client = sdk(url)
    ask = [{"role": "user", "content": "Print the current directory"}]
    first = client.messages.create(model=MODEL, max_tokens=300, tools=[SHELL], messages=ask)
    use = next(b for b in first.content if b.type == "tool_use")
    assert first.stop_reason == "tool_use" and use.name == "shell" and use.input == {"cmd": "pwd"}
    final = client.messages.create(model=MODEL, max_tokens=300, tools=[SHELL], messages=[
        *ask, {"role": "assistant", "content": first.content},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "/srv/app"}]}])
    assert final.stop_reason == "end_turn" and "/srv/app" in final.content[-1].text
    assert final.usage.service_tier == "standard" and final.usage.cache_creation is not None


def test_stream_accumulates_a_tool_call_and_its_json(url):
    with sdk(url).messages.stream(model=MODEL, max_tokens=300, tools=[READ_FILE],
                                  messages=[{"role": "user", "content": "Show me what is in todo.md"}]) as stream:
        events = [event.type for event in stream]
        message = stream.get_final_message()
    assert events[0] == "message_start" and events[-1] == "message_stop" and "input_json" in events
    assert [b.input for b in message.content if b.type == "tool_use"] == [{"path": "todo.md"}]


@pytest.mark.parametrize("words, shape, expected", [
    ("Please book a room in Oslo for two nights", Booking, Booking(city="Oslo", nights=2)),
    ("Sensor kitchen-2 reads 21.5 degrees Celsius", Reading, Reading(sensor="kitchen-2", celsius=21.5)),
])
def test_parse_fills_the_users_own_model(url, words, shape, expected):
    parsed = sdk(url).messages.parse(model=MODEL, max_tokens=300, output_format=shape,
                                     messages=[{"role": "user", "content": words}])
    assert parsed.parsed_output == expected


def test_tool_runner_runs_two_tools_of_its_own(url):
    from anthropic import beta_tool

    ran = []

    @beta_tool
    def shell(cmd: str) -> str:
        """Execute a shell command line and return its stdout.

        Args:
            cmd: the command line
        """
        ran.append(cmd)
        return "2026-12-07T03:00:00Z\n"

    final = sdk(url).beta.messages.tool_runner(model=MODEL, max_tokens=500, tools=[shell],
                                               messages=[{"role": "user", "content": "Run `date -u`"}]).until_done()
    assert ran == ["date -u"] and final.stop_reason == "end_turn" and "2026-12-07" in final.content[-1].text


def test_batches_create_retrieve_list_results_and_cancel(url):
    client = sdk(url)
    batch = client.messages.batches.create(requests=[
        {"custom_id": "ok-1", "params": {"model": MODEL, "max_tokens": 100,
                                         "messages": [{"role": "user", "content": "List the files here"}]}},
        {"custom_id": "temp-1", "params": {"model": MODEL, "max_tokens": 100, "temperature": 0.3,
                                           "messages": [{"role": "user", "content": "hi"}]}}])
    assert batch.processing_status == "ended" and batch.request_counts.errored == 1
    assert client.messages.batches.retrieve(batch.id).id == batch.id
    assert batch.id in [b.id for b in client.messages.batches.list()]
    results = {r.custom_id: r.result for r in client.messages.batches.results(batch.id)}
    assert results["ok-1"].type == "succeeded"
    assert results["temp-1"].type == "errored" and "temperature" in results["temp-1"].error.error.message
    assert client.messages.batches.cancel(batch.id).processing_status == "ended"
    with pytest.raises(anthropic.NotFoundError):
        client.messages.batches.retrieve("msgbatch_missing")


def test_count_tokens_adds_the_documented_image_and_tool_prompt(url):
    client = sdk(url)
    ask = [{"role": "user", "content": "What is in the picture?"}]
    plain = client.messages.count_tokens(model=MODEL, messages=ask).input_tokens
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png(600, 300)}}
    with_image = client.messages.count_tokens(model=MODEL, messages=[
        {"role": "user", "content": [image, {"type": "text", "text": "What is in the picture?"}]}]).input_tokens
    assert abs((with_image - plain) - 600 * 300 / 750) <= 0.1 * 240
    with_tool = client.messages.count_tokens(model=MODEL, messages=ask, tools=[SHELL]).input_tokens
    assert 346 <= with_tool - plain <= 346 * 1.1 + 60  # the tool-use system prompt, and the definition


def test_the_sdk_retries_a_429_and_reads_its_headers(served):
    url, model = served
    model.inject_fault(429)
    raw = sdk(url, max_retries=2).messages.with_raw_response.create(
        model=MODEL, max_tokens=50, messages=[{"role": "user", "content": "List the files here"}])
    assert raw.retries_taken == 1 and raw.headers["anthropic-ratelimit-requests-limit"]
    model.inject_fault(429)
    with pytest.raises(anthropic.RateLimitError) as err:
        sdk(url).messages.create(model=MODEL, max_tokens=50, messages=[{"role": "user", "content": "hi"}])
    headers = err.value.response.headers
    assert headers["retry-after"] and headers["anthropic-ratelimit-tokens-remaining"] == "0"


def test_thinking_is_sent_back_in_a_tool_loop(url):
    client = sdk(url, default_headers={"anthropic-beta": "interleaved-thinking-2025-05-14"})
    thinking = {"type": "enabled", "budget_tokens": 4000}  # over max_tokens: the interleaved beta allows it
    ask = [{"role": "user", "content": "Run `uname -a`"}]
    first = client.messages.create(model=OLDER, max_tokens=2000, thinking=thinking, tools=[SHELL], messages=ask)
    assert [b.type for b in first.content][0] == "thinking"
    use = next(b for b in first.content if b.type == "tool_use")
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "Linux ci 6.1"}]}
    final = client.messages.create(model=OLDER, max_tokens=2000, thinking=thinking, tools=[SHELL],
                                   messages=[*ask, {"role": "assistant", "content": first.content}, result])
    assert "Linux ci 6.1" in final.content[-1].text
    dropped = [b for b in first.content if b.type != "thinking"]  # the thinking left out: the API's 400
    with pytest.raises(anthropic.BadRequestError, match="Expected `thinking` or `redacted_thinking`"):
        client.messages.create(model=OLDER, max_tokens=2000, thinking=thinking, tools=[SHELL],
                               messages=[*ask, {"role": "assistant", "content": dropped}, result])


def test_what_the_2026_10_21_sdk_must_not_send_is_refused(url):
    client = sdk(url)
    with pytest.raises(anthropic.BadRequestError, match="top_k"):
        client.messages.create(model=MODEL, max_tokens=50, messages=[{"role": "user", "content": "hi"}],
                               extra_body={"top_k": 5})
    with pytest.raises(anthropic.BadRequestError, match="prefill"):
        client.messages.create(model=MODEL, max_tokens=50, messages=[
            {"role": "user", "content": "Name a colour"}, {"role": "assistant", "content": "The colour is"}])
    older = sdk(url, default_headers={"anthropic-version": "2023-06-01"})
    assert older.messages.create(model=OLDER, max_tokens=50, extra_body={"top_k": 5}, messages=[
        {"role": "user", "content": "Name a colour"}, {"role": "assistant", "content": "The colour is"}]).content


def test_a_streamed_answer_from_a_document_carries_its_citation(url):
    notes = {"type": "document", "title": "Runbook", "citations": {"enabled": True},
             "source": {"type": "text", "media_type": "text/plain",
                        "data": "Restart the worker with systemctl. Rotate the keys every quarter."}}
    with sdk(url).messages.stream(model=MODEL, max_tokens=300, messages=[{"role": "user", "content": [
            notes, {"type": "text", "text": "How often do we rotate the keys?"}]}]) as stream:
        message = stream.get_final_message()
    cited = [c for b in message.content if b.type == "text" for c in (b.citations or [])]
    assert [(c.type, c.cited_text, c.document_title) for c in cited] == [
        ("char_location", "Rotate the keys every quarter.", "Runbook")]


def test_files_are_the_documented_404(url):
    request = urllib.request.Request(f"{url}/v1/files", headers={"x-api-key": KEY, "anthropic-version": "2023-06-01"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=10)
    assert err.value.code == 404 and json.loads(err.value.read())["error"]["type"] == "not_found_error"


# ---------------------------------------------------------------- LangChain

def chat(url, **kw):
    from langchain_anthropic import ChatAnthropic

    return ChatAnthropic(**{"model": MODEL, **kw}, base_url=url, api_key=KEY, max_retries=0, max_tokens=400)


@pytest.mark.slow  # the framework's import alone takes seconds; its fast twin: test_offline_api_frameworks.py
def test_langchain_tool_call_and_its_answer(url):
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_core.tools import tool

    @tool
    def read_file(path: str) -> str:
        """Read a UTF-8 text file."""
        return "buy milk"

    model = chat(url).bind_tools([read_file])
    messages = [HumanMessage("Show me what is in todo.md")]
    first = model.invoke(messages)
    assert [c["args"] for c in first.tool_calls] == [{"path": "todo.md"}]
    messages += [first, ToolMessage("buy milk", tool_call_id=first.tool_calls[0]["id"])]
    assert "buy milk" in model.invoke(messages).text


@pytest.mark.slow  # the framework's import alone takes seconds; its fast twin: test_offline_api_frameworks.py
def test_langchain_streams_tool_call_chunks(url):
    from langchain_core.tools import tool

    @tool
    def shell(cmd: str) -> str:
        """Execute a shell command line."""
        return ""

    gathered = None
    for chunk in chat(url).bind_tools([shell]).stream("Run `date -u`"):
        gathered = chunk if gathered is None else gathered + chunk
    assert [c["args"] for c in gathered.tool_calls] == [{"cmd": "date -u"}]


@pytest.mark.slow  # the framework's import alone takes seconds; its fast twin: test_offline_api_frameworks.py
def test_langchain_structured_output_of_its_own(url):
    """On Sonnet 5.5 (no forced tool use) LangChain asks for output_config.format; on Sonnet 4.5 it forces a tool."""
    booked = chat(url).with_structured_output(Booking, method="json_schema").invoke("Book 3 nights in Lisbon")
    assert booked == Booking(city="Lisbon", nights=3)
    forced = chat(url, model=OLDER).with_structured_output(Reading).invoke("Sensor porch reads -2.5 degrees Celsius")
    assert forced == Reading(sensor="porch", celsius=-2.5)


# ---------------------------------------------------------------- pydantic-ai

def agent(url, **kw):
    from pydantic_ai import Agent
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    provider = AnthropicProvider(anthropic_client=anthropic.AsyncAnthropic(base_url=url, api_key=KEY, max_retries=0))
    return Agent(AnthropicModel(MODEL, provider=provider), **kw)


@pytest.mark.slow  # the framework's import alone takes seconds; its fast twin: test_offline_api_frameworks.py
def test_pydantic_ai_runs_a_tool_of_its_own(url):
    bot = agent(url)
    seen = []

    @bot.tool_plain
    def read_file(path: str) -> str:
        """Read a UTF-8 text file."""
        seen.append(path)
        return "deploy on friday"

    assert "deploy on friday" in bot.run_sync("Show me what is in notes/plan.md").output
    assert seen == ["notes/plan.md"]


@pytest.mark.slow  # the framework's import alone takes seconds; its fast twin: test_offline_api_frameworks.py
def test_pydantic_ai_output_type_of_its_own(url):
    assert agent(url, output_type=Reading).run_sync("Sensor attic reads 4.5 degrees Celsius").output == \
        Reading(sensor="attic", celsius=4.5)
