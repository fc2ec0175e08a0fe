"""Structured output: the values come from the user's words, or the answer is an honest refusal (issue 22, rule 5).

Through the real anthropic SDK (forced tool_choice, output_config.format) and as raw Messages-API JSON
(OfflineModel.create). The schemas and texts are variants of the review's cases, not its own.
"""

from __future__ import annotations

import json
from typing import Literal

import pydantic
import pytest

from offline import OfflineModel, offline_client
from offline.agent.values import Missing, fill
from offline.grammar.numbers import numbers, zh_number


def strict(kind) -> dict:
    """The model's JSON schema as structured outputs take it: every object closed (additionalProperties: false),
    as the SDK's parse() sends it; the API refuses an open object (test_offline_versions)."""
    def close(node):
        if isinstance(node, dict):
            if node.get("type") == "object" or "properties" in node:
                node["additionalProperties"] = False
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)
        return node
    return close(kind.model_json_schema())


class Pet(pydantic.BaseModel):
    name: str
    age: int


class Pets(pydantic.BaseModel):
    pets: list[Pet]


class Town(pydantic.BaseModel):
    name: str
    country: str


class Review(pydantic.BaseModel):
    verdict: Literal["positive", "negative", "neutral"]


class Mood(pydantic.BaseModel):
    mood: Literal["positive", "negative"]


class Order(pydantic.BaseModel):
    customer: str
    quantity: int
    express: bool
    price: float


CASES = [  # (model, text, the values it must get)
    (Pet, "Rex is 7", {"name": "Rex", "age": 7}),
    (Pet, "Our cat Mochi turned twelve last week", {"name": "Mochi", "age": 12}),
    (Pets, "Bella, 3, and then Max, 11.", {"pets": [{"name": "Bella", "age": 3}, {"name": "Max", "age": 11}]}),
    (Town, "Last summer we lived in Porto, Portugal", {"name": "Porto", "country": "Portugal"}),
    (Review, "Worst purchase ever, I regret it and hate the noise", {"verdict": "negative"}),
    (Review, "This is a wonderful little gadget", {"verdict": "positive"}),
    (Review, "The box is blue", {"verdict": "neutral"}),
    (Order, "Customer Chen wants 3 boxes by express delivery at 19.99 each",
     {"customer": "Chen", "quantity": 3, "express": True, "price": 19.99}),
    (Order, "Customer Ines ordered twenty-one mugs, not express, price 4.5",
     {"customer": "Ines", "quantity": 21, "express": False, "price": 4.5}),
]
MISSING = [  # (model, text, the field the refusal must name)
    (Pet, "Rex is a good dog", "age"),
    (Town, "Portugal is sunny", "name"),
    (Mood, "The box is blue", "mood"),  # no sentiment and no neutral member: never a guess
    (Order, "Customer Ana wants some mugs", "quantity"),
]


def forced(client, kind, text):
    tool = {"name": kind.__name__, "description": "Extract it", "input_schema": kind.model_json_schema()}
    return client.messages.create(model="offline", max_tokens=500, messages=[{"role": "user", "content": text}],
                                  tools=[tool], tool_choice={"type": "tool", "name": kind.__name__})


@pytest.mark.parametrize("kind, text, values", CASES)
def test_a_forced_tool_gets_the_users_values(client, kind, text, values):
    r = forced(client, kind, text)
    assert r.stop_reason == "tool_use"
    assert kind.model_validate(r.content[0].input).model_dump() == values


@pytest.mark.parametrize("kind, text, values", CASES)
def test_output_config_json_schema_is_served_the_same_way(client, kind, text, values):
    r = client.messages.create(model="offline", max_tokens=500, messages=[{"role": "user", "content": text}],
                               extra_body={"output_config": {"format": {"type": "json_schema",
                                                                        "schema": strict(kind)}}})
    assert r.stop_reason == "end_turn" and [b.type for b in r.content] == ["text"]
    assert kind.model_validate_json(r.content[0].text).model_dump() == values


@pytest.mark.parametrize("kind, text, field", MISSING)
def test_a_required_field_not_in_the_text_is_a_refusal_naming_it(client, kind, text, field):
    r = forced(client, kind, text)
    assert r.stop_reason == "refusal" and [b.type for b in r.content] == ["text"]
    assert f'"{field}"' in r.content[0].text


@pytest.mark.parametrize("kind, text, field", MISSING)
def test_raw_json_requests_get_the_same_refusal(kind, text, field):
    body = {"model": "offline", "max_tokens": 300, "messages": [{"role": "user", "content": text}],
            "output_config": {"format": {"type": "json_schema", "schema": strict(kind)}}}
    answer = OfflineModel().create(json.loads(json.dumps(body)))
    assert answer["stop_reason"] == "refusal" and f'"{field}"' in answer["content"][0]["text"]


def test_raw_json_gets_the_values_as_json_text():
    body = {"model": "offline", "max_tokens": 300, "messages": [{"role": "user", "content": "Rex is 7"}],
            "output_config": {"format": {"type": "json_schema", "schema": strict(Pet)}}}
    answer = OfflineModel().create(body)
    assert answer["stop_reason"] == "end_turn" and json.loads(answer["content"][0]["text"]) == {"name": "Rex", "age": 7}


def test_an_agent_turn_with_a_tool_call_is_not_replaced_by_json(client):
    bash = {"name": "bash", "description": "run", "input_schema": {"type": "object", "properties": {
        "command": {"type": "string"}}, "required": ["command"]}}
    r = client.messages.create(model="offline", max_tokens=500, tools=[bash],
                               messages=[{"role": "user", "content": "Run `echo hi`"}],
                               extra_body={"output_config": {"format": {"type": "json_schema",
                                                                        "schema": strict(Pet)}}})
    assert r.stop_reason == "tool_use"


@pytest.mark.parametrize("text, value", [("forty-two", 42), ("one hundred and five", 105), ("3 dozen", 3),
                                         ("四十二", 42), ("一百零五", 105), ("两万三千", 23000), ("1,250", 1250),
                                         ("2.5 million", 2_500_000), ("seventeen", 17)])
def test_numbers_in_digits_and_words(text, value):
    assert numbers(text)[0][1] == value


def test_a_chinese_single_digit_is_a_number_only_with_a_measure_word():
    assert numbers("一共有三个") == [(3, 3.0)] and numbers("张三") == [] and zh_number("九十九") == 99


def test_a_number_out_of_the_schemas_bounds_is_refused_not_clamped():
    schema = {"type": "object", "properties": {"age": {"type": "integer", "minimum": 0, "maximum": 150}},
              "required": ["age"]}
    with pytest.raises(Missing):
        fill(schema, "It is 400 years old")
    assert fill(schema, "It is 40 years old") == {"age": 40}


def test_a_list_of_enum_members_keeps_every_one_named():
    schema = {"type": "object", "properties": {"labels": {"type": "array", "items": {
        "enum": ["bug", "docs", "ui", "perf"]}}}, "required": ["labels"]}
    assert fill(schema, "A perf problem in the ui") == {"labels": ["perf", "ui"]}
    with pytest.raises(Missing):
        fill(schema, "nothing to see")


def test_an_output_tool_summary_is_the_models_own_answer(client):
    """pydantic-ai's output tool after a tool call: a "summary" field holds what the model would say."""
    final = {"name": "final_result", "description": "The final response", "input_schema": {
        "type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}}
    r = client.messages.create(model="offline", max_tokens=500, tools=[final], tool_choice={"type": "any"},
                               messages=[{"role": "user", "content": "What is a context window?"}])
    assert r.stop_reason == "tool_use" and "context window" in r.content[0].input["summary"]


def test_the_sdk_sees_a_refusal_stop_reason_it_knows():
    client = offline_client(OfflineModel(), max_retries=0)
    r = forced(client, Pet, "no numbers here")
    assert r.stop_reason == "refusal"
