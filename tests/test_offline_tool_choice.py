"""`tool_choice` through the real SDK: auto, any, tool, none, disable_parallel_tool_use.

Forced calls must satisfy the tool's input_schema (checked with jsonschema, and with
pydantic the way structured-output libraries check them), built from the request's words.
"""

from __future__ import annotations

from typing import Literal

import jsonschema
import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from offline.agent import inputs

BASH = {"name": "bash", "description": "run a command",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}
READ = {"name": "read_file", "description": "read a file",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}
WEATHER = {"name": "get_weather", "description": "Get the current weather for a city",
           "input_schema": {"type": "object", "required": ["city"], "properties": {
               "city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}}}


def ask(client, prompt, **kw):
    messages = kw.pop("messages", None) or [{"role": "user", "content": prompt}]
    return client.messages.create(model="offline", max_tokens=500, messages=messages, **kw)


def calls(r):
    return [(b.name, b.input) for b in r.content if b.type == "tool_use"]


def test_tool_forces_the_named_tool_with_the_requests_words(client):
    r = ask(client, "What's the weather in Paris, in fahrenheit?", tools=[BASH, WEATHER],
            tool_choice={"type": "tool", "name": "get_weather"})
    assert r.stop_reason == "tool_use" and [b.type for b in r.content] == ["tool_use"]  # no text: forced
    assert calls(r) == [("get_weather", {"city": "Paris", "unit": "fahrenheit"})]


def test_tool_forces_a_tool_the_policy_would_not_call(client):
    """"Run `echo hi`" makes the policy call bash; forced to read_file, only read_file is called."""
    r = ask(client, "Run `echo hi` on notes.txt", tools=[BASH, READ], tool_choice={"type": "tool", "name": "read_file"})
    assert calls(r) == [("read_file", {"path": "notes.txt"})]


def test_tool_keeps_the_policys_own_call_to_that_tool(client):
    auto = ask(client, "Run `echo hi`", tools=[BASH, WEATHER])
    forced_ = ask(client, "Run `echo hi`", tools=[BASH, WEATHER], tool_choice={"type": "tool", "name": "bash"})
    assert calls(auto) == calls(forced_) == [("bash", {"command": "echo hi"})]
    assert auto.content[0].type == "text" and forced_.content[0].type == "tool_use"


def test_any_picks_the_tool_that_matches_the_request_when_the_policy_makes_no_call(client):
    auto = ask(client, "What's the weather in Rome?", tools=[BASH, WEATHER])
    assert auto.stop_reason == "end_turn"  # in words: no tool intent the policy knows
    r = ask(client, "What's the weather in Rome?", tools=[BASH, WEATHER], tool_choice={"type": "any"})
    assert r.stop_reason == "tool_use" and calls(r) == [("get_weather", {"city": "Rome"})]


def test_none_never_calls_a_tool_and_auto_is_the_default(client):
    r = ask(client, "Run `echo hi`", tools=[BASH], tool_choice={"type": "none"})
    assert r.stop_reason == "end_turn" and all(b.type == "text" for b in r.content)
    auto = ask(client, "Run `echo hi`", tools=[BASH], tool_choice={"type": "auto"})
    assert auto.model_dump(exclude={"id"}) == ask(client, "Run `echo hi`", tools=[BASH]).model_dump(exclude={"id"})


def test_disable_parallel_tool_use_makes_one_call_per_turn_and_still_finishes(client, tmp_path):
    prompt = "Read a.py and b.py"
    both = ask(client, prompt, tools=[READ])
    assert [c[1]["path"] for c in calls(both)] == ["a.py", "b.py"]  # the policy reads both at once
    history, seen = [{"role": "user", "content": prompt}], []
    for _ in range(4):
        r = ask(client, None, messages=history, tools=[READ],
                tool_choice={"type": "auto", "disable_parallel_tool_use": True})
        history.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in r.content]})
        if r.stop_reason != "tool_use":
            break
        assert len(calls(r)) == 1
        seen += [c[1]["path"] for c in calls(r)]
        history.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": b.id, "content": "x = 1"}
                                                    for b in r.content if b.type == "tool_use"]})
    assert seen == ["a.py", "b.py"] and r.stop_reason == "end_turn"


def test_any_with_one_call_only(client):
    r = ask(client, "Read a.py and b.py", tools=[READ], tool_choice={"type": "any", "disable_parallel_tool_use": True})
    assert calls(r) == [("read_file", {"path": "a.py"})]


# ------------------------------------------------------------------ structured output, as libraries force it

class Address(pydantic.BaseModel):
    street: str
    zip_code: int = pydantic.Field(ge=1000, le=99999)


class Person(pydantic.BaseModel):
    name: str
    age: int = pydantic.Field(ge=0)
    role: Literal["admin", "editor", "viewer"]
    tags: list[str] = pydantic.Field(min_length=2)
    address: Address
    nickname: str | None
    active: bool


def test_a_forced_structured_output_tool_validates_as_the_librarys_model(client):
    """pydantic-ai's output tools and LangChain's with_structured_output force a tool made from a model."""
    tool = {"name": "final_result", "description": "The structured answer",
            "input_schema": Person.model_json_schema()}
    r = ask(client, 'Extract the person: "Ada Lovelace", 36 years old, an active editor tagged math and poetry, '
                    "nickname: Ada, living at street Ockham with zip code 12345.",
            tools=[tool], tool_choice={"type": "tool", "name": "final_result"})
    person = Person.model_validate(r.content[0].input)
    assert (person.name, person.age, person.role, person.active) == ("Ada Lovelace", 36, "editor", True)


def test_a_forced_structured_output_tool_refuses_a_field_the_text_does_not_give(client):
    """Values the request does not give are never made up: stop_reason "refusal", naming the field."""
    tool = {"name": "final_result", "description": "The structured answer",
            "input_schema": Person.model_json_schema()}
    r = ask(client, 'Extract the person: "Ada Lovelace", 36 years old, an editor.',
            tools=[tool], tool_choice={"type": "tool", "name": "final_result"})
    assert r.stop_reason == "refusal" and '"tags"' in r.content[0].text


def test_a_forced_any_loop_calls_the_tool_then_the_output_tool_and_ends(client):
    """pydantic-ai forces `any` with its output tool beside the function tools: call, then answer."""
    final = {"name": "final_result", "description": "The final response which ends this conversation",
             "input_schema": {"type": "object", "properties": {"summary": {"type": "string"}},
                              "required": ["summary"]}}
    history = [{"role": "user", "content": "What's the weather in Rome?"}]
    names = []
    for _ in range(3):
        r = ask(client, None, messages=history, tools=[WEATHER, final], tool_choice={"type": "any"})
        names += [name for name, _ in calls(r)]
        if names[-1] == "final_result":
            break
        history += [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in r.content]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": r.content[0].id,
                                                  "content": "sunny, 21 C"}]}]
    assert names == ["get_weather", "final_result"]


# ------------------------------------------------------------------ any schema, a valid input

LEAF = st.one_of(
    st.builds(lambda n, x: {"type": "string", **({"maxLength": x} if n else {})}, st.booleans(), st.integers(1, 20)),
    st.builds(lambda lo: {"type": "string", "minLength": lo}, st.integers(0, 30)),
    st.builds(lambda lo, span: {"type": "integer", "minimum": lo, "maximum": lo + span},
              st.integers(-50, 50), st.integers(0, 10)),
    st.builds(lambda lo: {"type": "number", "exclusiveMinimum": lo}, st.integers(-5, 5)),
    st.just({"type": "boolean"}), st.just({"type": "null"}),
    st.lists(st.sampled_from(["red", "green", "blue", 1, 2]), min_size=1, max_size=4, unique=True).map(
        lambda vs: {"enum": vs}),
    st.sampled_from([{"type": "string", "format": f} for f in ("email", "date", "uri", "date-time")]),
    st.just({"type": ["string", "null"]}), st.just({"const": "fixed"}),
)
NAMES = st.sampled_from(["name", "city", "path", "command", "query", "count", "x", "tags", "title", "unit"])


def _schemas(children):
    objects = st.dictionaries(NAMES, children, max_size=4).flatmap(lambda props: st.builds(
        lambda req: {"type": "object", "properties": props, "required": req},
        st.lists(st.sampled_from(sorted(props)), unique=True) if props else st.just([])))
    arrays = st.builds(lambda items, lo: {"type": "array", "items": items, "minItems": lo}, children, st.integers(0, 3))
    return st.one_of(objects, arrays, st.builds(lambda a, b: {"anyOf": [a, b]}, children, children))


SCHEMAS = st.recursive(LEAF, _schemas, max_leaves=12)
TEXTS = st.sampled_from(["", "What's the weather in New York?", 'Make a user named "Bo" aged 7',
                         "Run `ls -la` in src/app.py", "42 and 7 and -3", "ünïcödé 中文 text"])


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@settings(deadline=None)
@given(props=st.dictionaries(NAMES, SCHEMAS, max_size=5), data=st.data(), text=TEXTS)
def test_any_input_schema_gets_an_input_that_satisfies_it(props, data, text):
    required = data.draw(st.lists(st.sampled_from(sorted(props)), unique=True) if props else st.just([]))
    schema = {"type": "object", "properties": props, "required": required}
    built = inputs.build(schema, text)
    jsonschema.validate(built, schema, format_checker=jsonschema.FormatChecker())


def test_refs_into_defs_are_followed():
    schema = {"type": "object", "$defs": {"P": {"type": "object", "properties": {"n": {"type": "integer"}},
                                                "required": ["n"]}},
              "properties": {"p": {"$ref": "#/$defs/P"}, "ps": {"type": "array", "items": {"$ref": "#/$defs/P"}}},
              "required": ["p", "ps"]}
    built = inputs.build(schema, "give me 5")
    jsonschema.validate(built, schema)
    assert built["p"] == {"n": 5}


@pytest.mark.parametrize("text, expected", [
    ("What's the weather in San Francisco?", {"city": "San Francisco"}),
    ('Add a book titled "Dune" by Frank Herbert', {"title": "Dune"}),
    ("Create a user called Maria with age 31", {"name": "Maria", "age": 31}),
    ("Open the file docs/guide.md please", {"path": "docs/guide.md"}),
    ("Please run `pytest -q` now", {"command": "pytest -q"}),
])
def test_strings_come_from_the_requests_words(text, expected):
    props = {k: {"type": "integer" if isinstance(v, int) else "string"} for k, v in expected.items()}
    built = inputs.build({"type": "object", "properties": props, "required": list(props)}, text)
    assert built == expected
