"""The simulated prompt cache: PromptCache semantics, and usage figures through the SDK."""

from __future__ import annotations

import anthropic
import pytest

from lessonkit import tokens
from offline.api.cache import PromptCache, segments

EPHEMERAL = {"type": "ephemeral"}
BIG = "lorem ipsum dolor sit amet " * 200  # about 1,100 tokens: over the 1,024 minimum


def request(*texts, marks=(-1,), system=None, model="offline"):
    """One user message whose text blocks are `texts`; cache_control on the blocks at `marks`."""
    blocks = [{"type": "text", "text": t} for t in texts]
    for i in marks:
        blocks[i]["cache_control"] = EPHEMERAL
    body = {"model": model, "messages": [{"role": "user", "content": blocks}]}
    if system:
        body["system"] = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
    return body


def usage(cache, body, **kw):
    u = cache.account(body, **kw)
    assert sum(u.values()) == tokens.count_request(body)  # the three figures always add up
    return u


def test_written_then_read():
    cache, body = PromptCache(), request(BIG)
    total = tokens.count_request(body)
    assert usage(cache, body) == {"input_tokens": 0, "cache_creation_input_tokens": total,
                                  "cache_read_input_tokens": 0}
    assert usage(cache, body) == {"input_tokens": 0, "cache_creation_input_tokens": 0,
                                  "cache_read_input_tokens": total}


def test_what_follows_the_last_breakpoint_is_never_cached():
    cache = PromptCache()
    body = request(BIG, "and a question", marks=(0,))
    first = usage(cache, body)
    assert first["input_tokens"] == tokens.count_block({"type": "text", "text": "and a question"})
    assert usage(cache, body)["cache_read_input_tokens"] == first["cache_creation_input_tokens"]


def test_prefixes_under_the_minimum_are_not_cached():
    cache = PromptCache()
    body = request("short prompt")
    assert usage(cache, body)["cache_creation_input_tokens"] == 0
    assert usage(cache, body)["cache_read_input_tokens"] == 0
    small = PromptCache(min_tokens=1)
    usage(small, body)
    assert usage(small, body)["cache_read_input_tokens"] == tokens.count_request(body)


@pytest.mark.parametrize("added, hit", [(19, True), (20, True), (21, False)])
def test_a_breakpoint_looks_back_20_blocks_for_an_earlier_write(added, hit):
    cache = PromptCache()
    usage(cache, request(BIG))
    grown = request(BIG, *[f"block {i}" for i in range(added)])
    read = usage(cache, grown)["cache_read_input_tokens"]
    assert read == (tokens.count_request(request(BIG)) if hit else 0)


def test_rewriting_an_early_message_invalidates_every_later_prefix():
    cache = PromptCache()
    history = request(BIG, "turn 1", "turn 2", "turn 3", system=BIG)
    system_tokens = tokens.count_system(history["system"])
    usage(cache, history)
    assert usage(cache, history)["cache_read_input_tokens"] == tokens.count_request(history)
    compacted = request("[Compacted] summary", "turn 3", system=BIG)  # same system, new messages
    u = usage(cache, compacted)
    assert u["cache_read_input_tokens"] == system_tokens  # only the unchanged system is read
    assert u["cache_creation_input_tokens"] == tokens.count_request(compacted) - system_tokens


def test_the_key_ignores_cache_control_and_includes_the_model():
    cache = PromptCache()
    usage(cache, request(BIG, "x", marks=(-1,)))
    moved = request(BIG, "x", marks=(0, -1))  # a marker added: same content, same prefix
    assert usage(cache, moved)["cache_read_input_tokens"] == tokens.count_request(moved)
    assert usage(cache, request(BIG, "x", model="other"))["cache_read_input_tokens"] == 0
    assert tokens.count_request(request(BIG, "x", marks=(0, -1))) == tokens.count_request(request(BIG, "x", marks=()))


def test_segments_add_up_to_the_counter_for_every_part_of_a_request():
    body = {"model": "offline", "system": "sys", "tools": [{"name": "t", "input_schema": {}, "cache_control": EPHEMERAL}],
            "messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": [{"type": "text", "text": "a"},
                                                           {"type": "tool_use", "id": "u", "name": "t", "input": {"x": 1}}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "u",
                                                       "content": [{"type": "text", "text": "r", "cache_control": EPHEMERAL}]}]}]}
    segs = segments(body)
    assert sum(n for n, _, _ in segs) == tokens.count_request(body)
    assert [marked for _, _, marked in segs] == [True, False, False, False, False, True]


def test_write_false_and_lru_eviction():
    cache = PromptCache(max_entries=2)
    usage(cache, request(BIG, "a"), write=False)
    assert len(cache) == 0
    for name in "abc":
        usage(cache, request(BIG, name))
    assert len(cache) == 2 and usage(cache, request(BIG, "a"))["cache_read_input_tokens"] == 0
    with pytest.raises(ValueError):
        PromptCache(min_tokens=-1)


# ------------------------------------------------------------------ through the SDK

def test_usage_across_a_growing_conversation_and_a_compaction(client):
    """A breakpoint on the last block: each turn reads the last turn's prefix and writes the new part."""
    system = [{"type": "text", "text": BIG, "cache_control": EPHEMERAL}]
    messages = [{"role": "user", "content": "Tell me about the agent loop"}]
    seen = []
    for turn in range(3):
        body = [dict(m) for m in messages]
        body[-1] = {"role": body[-1]["role"], "content": [{"type": "text", "text": body[-1]["content"],
                                                            "cache_control": EPHEMERAL}]}
        r = client.messages.create(model="offline", max_tokens=200, system=system, messages=body)
        counted = client.messages.count_tokens(model="offline", system=system, messages=body).input_tokens
        u = r.usage
        assert u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens == counted
        seen.append((u.cache_read_input_tokens, u.cache_creation_input_tokens, counted))
        messages += [{"role": "assistant", "content": r.content[0].text}, {"role": "user", "content": f"and {turn}?"}]
    first, second, third = seen
    assert first[0] == 0 and first[1] == first[2]  # nothing to read yet: everything written
    assert second[0] == first[2] and second[0] + second[1] == second[2]  # read turn 1, write the new part
    assert third[0] == second[2]
    compacted = [{"role": "user", "content": [{"type": "text", "text": "[Compacted] the summary",
                                               "cache_control": EPHEMERAL}]}]
    u = client.messages.create(model="offline", max_tokens=200, system=system, messages=compacted).usage
    assert u.cache_read_input_tokens == tokens.count_system(system)  # the rewrite lost all but the system


def test_more_than_four_breakpoints_is_a_400(client):
    blocks = [{"type": "text", "text": f"b{i}", "cache_control": EPHEMERAL} for i in range(5)]
    with pytest.raises(anthropic.BadRequestError, match="A maximum of 4 blocks with cache_control"):
        client.messages.create(model="offline", max_tokens=10, messages=[{"role": "user", "content": blocks}])
