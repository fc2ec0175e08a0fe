"""The API's own strategies: compact_20260112 (trigger, summary pass billed) and clear_tool_uses_20250919's options."""

from __future__ import annotations

import pytest

from arena.measures.metrics import extract_facts, row
from arena.replay import replay
from arena.sessions.session import session_from
from arena.strategies.api_side import ServerClearing, ServerCompaction
from arena.strategies.registry import strategies
from tests.strategies import assert_api_valid


def session(turns: int = 40, size: int = 300):
    m = [{"role": "user", "content": "Fix the failing tests in src/app.py please"}]
    for k in range(turns):
        name = "TodoWrite" if k % 7 == 0 else "bash"
        m.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{k:03d}", "name": name, "input": {"command": f"cat src/m{k}.py"}}]})
        m.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{k:03d}", "content": f"line {k} of m{k}\n" * size}]})
    m.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    return session_from("s", m)


def test_server_compaction_fires_past_its_trigger_bills_the_pass_and_continues_from_the_summary(tmp_path):
    s = session()
    result = replay(s, lambda: ServerCompaction(trigger=20_000, minimum=5_000), workdir=tmp_path)
    passes = [r for r in result.records if r.kind == "summary"]
    fired = [t for t, layer in result.compactions if layer == "compact"]
    assert fired and len(passes) == len(fired)
    for r in passes:                         # the pass: the whole request, then the summary as output
        assert r.tokens > 20_000 and r.output > 50 and r.cache_write == r.tokens   # a write, as logged
    after = [result.turn_tokens[t] for t in fired]
    assert all(n < 20_000 for n in after)    # the answer is sampled from the summary
    assert max(result.turn_tokens) <= 20_000 + 5_000
    assert_api_valid(result.final_request)
    assert result.final_request[0]["content"][0]["text"].startswith("This is a summary")
    assert row(result, extract_facts(s.messages)).invalid == 0


def test_the_trigger_has_the_apis_minimum_and_default():
    with pytest.raises(ValueError, match="below the API's minimum"):
        ServerCompaction(trigger=10_000)
    assert ServerCompaction().trigger == 150_000
    assert strategies(["api-compact"], window=20_000)["api-compact"]().trigger == 15_000


def test_clearing_leaves_excluded_tools_and_can_clear_the_calls_inputs(tmp_path):
    s = session()
    make = lambda: ServerClearing(trigger=10_000, keep=3, exclude_tools=["TodoWrite"],  # noqa: E731
                                  clear_tool_inputs=True)
    result = replay(s, make, workdir=tmp_path)
    final = result.final_request
    results = {b["tool_use_id"]: b["content"] for m in final if m["role"] == "user" and isinstance(m["content"], list)
               for b in m["content"] if b["type"] == "tool_result"}
    calls = {b["id"]: b for m in final if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"}
    todo = [i for i, c in calls.items() if c["name"] == "TodoWrite"]
    assert todo and all(results[i] != "[cleared]" for i in todo)                  # excluded: kept
    cleared = [i for i, text in results.items() if text == "[cleared]"]
    assert cleared and all(calls[i]["input"] == {} for i in cleared)            # inputs cleared too
    assert all(calls[i]["input"] for i in results if i not in cleared)
    only = lambda: ServerClearing(trigger=10_000, keep=3, clear_tool_inputs=["TodoWrite"])  # noqa: E731
    final = replay(s, only, workdir=tmp_path / "o").final_request
    emptied = {b["name"] for m in final if m["role"] == "assistant" for b in m["content"]
               if b["type"] == "tool_use" and b["input"] == {}}
    assert emptied == {"TodoWrite"}
