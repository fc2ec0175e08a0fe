"""Parity suite: the real SDK, LangChain (langchain-anthropic) and pydantic-ai against the served model (issue 32).

The offline model is served on 127.0.0.1 (real HTTP, server.py), and each client is used as
its users use it: a plain chat, a stream, a tool round-trip and structured output. The
frameworks are installed by the `dev` extra (pyproject.toml); each test is one or two
short requests, so the suite runs in seconds.
"""

from __future__ import annotations

import anthropic
import pytest
from pydantic import BaseModel

from offline import OfflineModel
from offline.serve.server import serve_in_thread

MODEL = "claude-sonnet-4-5"
KEY = "any-key"


class Pet(BaseModel):
    name: str
    age: int


@pytest.fixture(scope="module")
def url():
    server = serve_in_thread(OfflineModel(tool_prompt=True))
    host, port = server.server_address
    yield f"http://{host}:{port}"
    server.shutdown()
    server.server_close()


# ---------------------------------------------------------------- the real SDK

def test_sdk_chat_stream_tools_parse_and_batches(url):
    client = anthropic.Anthropic(base_url=url, api_key=KEY, max_retries=0)
    hi = [{"role": "user", "content": "What is a token?"}]
    assert client.messages.create(model=MODEL, max_tokens=200, messages=hi).content[0].text
    with client.messages.stream(model=MODEL, max_tokens=200, messages=hi) as stream:
        assert "".join(stream.text_stream)
    parsed = client.messages.parse(model=MODEL, max_tokens=300, output_format=Pet,
                                   messages=[{"role": "user", "content": "Our dog Rex is 7"}])
    assert parsed.parsed_output == Pet(name="Rex", age=7)
    batch = client.messages.batches.create(requests=[{"custom_id": "a", "params": {
        "model": MODEL, "max_tokens": 100, "messages": hi}}])
    assert [r.result.type for r in client.messages.batches.results(batch.id)] == ["succeeded"]


def test_sdk_tool_runner_over_http(url):
    from anthropic import beta_tool

    @beta_tool
    def bash(command: str) -> str:
        """Run a shell command.

        Args:
            command: the command line
        """
        return "hi\n"

    client = anthropic.Anthropic(base_url=url, api_key=KEY, max_retries=0)
    final = client.beta.messages.tool_runner(model=MODEL, max_tokens=500, tools=[bash],
                                             messages=[{"role": "user", "content": "Run `echo hi`"}]).until_done()
    assert final.stop_reason == "end_turn" and "hi" in final.content[-1].text


def test_sdk_pinned_to_2023_06_01_may_send_temperature(url):
    client = anthropic.Anthropic(base_url=url, api_key=KEY, max_retries=0,
                                 default_headers={"anthropic-version": "2023-06-01"})
    r = client.messages.create(model=MODEL, max_tokens=100, messages=[{"role": "user", "content": "hi"}],
                               extra_body={"temperature": 0.2})
    assert r.content


# ---------------------------------------------------------------- LangChain

def chat(url, **kw):
    from langchain_anthropic import ChatAnthropic

    return ChatAnthropic(model=MODEL, base_url=url, api_key=KEY, max_retries=0, max_tokens=400, **kw)


def test_langchain_chat_and_stream(url):
    assert chat(url).invoke("What is a token?").content
    assert "".join(chunk.text() if callable(getattr(chunk, "text", None)) else str(chunk.content)
                   for chunk in chat(url).stream("What is a token?"))


def test_langchain_tool_round_trip(url):
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_core.tools import tool

    @tool
    def bash(command: str) -> str:
        """Run a shell command."""
        return "hi"

    model = chat(url).bind_tools([bash])
    messages = [HumanMessage("Run `echo hi`")]
    first = model.invoke(messages)
    assert first.tool_calls and first.tool_calls[0]["args"] == {"command": "echo hi"}
    messages += [first, ToolMessage("hi", tool_call_id=first.tool_calls[0]["id"])]
    assert "hi" in model.invoke(messages).text


def test_langchain_structured_output(url):
    assert chat(url).with_structured_output(Pet).invoke("Our cat Mochi is 12") == Pet(name="Mochi", age=12)


# ---------------------------------------------------------------- pydantic-ai

def agent(url, **kw):
    from pydantic_ai import Agent
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    provider = AnthropicProvider(anthropic_client=anthropic.AsyncAnthropic(base_url=url, api_key=KEY, max_retries=0))
    return Agent(AnthropicModel(MODEL, provider=provider), **kw)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_pydantic_ai_chat(url):
    assert agent(url).run_sync("What is a token?").output


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_pydantic_ai_tool_round_trip(url):
    bot = agent(url)
    ran = []

    @bot.tool_plain
    def bash(command: str) -> str:
        """Run a shell command."""
        ran.append(command)
        return "hi"

    result = bot.run_sync("Run `echo hi`")
    assert ran == ["echo hi"] and "hi" in result.output


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_pydantic_ai_structured_output(url):
    assert agent(url, output_type=Pet).run_sync("Our dog Rex is 7").output == Pet(name="Rex", age=7)
