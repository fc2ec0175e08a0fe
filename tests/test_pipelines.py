"""Every compaction layer and every stage's pipeline, on the same varied histories.

For each drawn history (parallel calls, list-content results, errors, CJK, long and
tiny results) and each of: snip, reactive, the s08 compactor, emergency truncation
(micro and auto alone are in test_s06_compact.py), and the whole pipelines of s06 (budget -> micro -> auto),
s07 (budget -> snip -> micro -> auto) and s08 (budget -> snip -> micro -> compactor):

  * the output is a history the API accepts;
  * its tokens (lessonkit.tokens; for s08 also the compactor's own estimate) never grow;
  * nothing is lost: every original message is still in the context, unchanged, or in
    the transcript the layer names, and everything the next request will carry is on disk.
"""

from __future__ import annotations

import copy
import re

import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from strategies import assert_api_valid, histories

from lessonkit.tokens import count_messages
from offline import OfflineModel, offline_client
from s06_compact import Agent as S06Agent
from s06_compact import read_transcript
from s07_reactive import Agent as S07Agent
from s07_reactive import ReactiveCompactError, reactive_compact, snip_compact
from s08_compact4 import Agent as S08Agent
from s08_compact4 import CompactionConfig, ContextCompactor, TokenEstimator

# Small sizes, so that every layer fires on some of the drawn histories.
BUDGET = {"persist_threshold": 3_000, "preview_chars": 500}
SNIP = {"snip_max_messages": 10, "snip_keep_head": 3}


@pytest.fixture(scope="module")
def shared_client():
    """One offline client for every example (making one costs more than running the layers)."""
    return offline_client(OfflineModel(), max_retries=0)


def check(name: str, before: list, after: list, on_disk: list = ()) -> None:
    """Valid, no bigger, and every original message in the context or on disk."""
    try:
        assert_api_valid(after)
    except AssertionError as exc:
        raise AssertionError(f"{name}: the API would reject the output: {exc}") from None
    assert count_messages(after) <= count_messages(before), f"{name}: tokens grew"
    for message in before:
        assert message in after or message in on_disk, f"{name}: lost {str(message)[:100]}"


def run_pipeline(name, agent_class, root, client, before, **options):
    """One stage's `prepare` on a copy of the history; check it and its transcript."""
    messages = copy.deepcopy(before)
    (root / name).mkdir()
    agent = agent_class(client, workspace=root / name, transcript_dir="t", results_dir="r", **BUDGET, **options)
    logged, log = set(), agent.log  # which message dicts went to the transcript
    agent.log = lambda message: (logged.add(id(message)), log(message))
    events = []
    agent.on_event = lambda kind, data: events.append(data["layer"]) if kind == "compact" else None
    agent.prepare(messages)
    event(f"{name}: {' '.join(events) or 'no change'}")
    on_disk = read_transcript(agent.transcript.path)
    assert on_disk[:len(before)] == before, f"{name}: the transcript does not start with the history, whole"
    check(name, before, messages, on_disk)
    for message in messages:  # the next request carries no message that was not written to disk first
        assert id(message) in logged, f"{name}: not on disk: {str(message)[:100]}"  # (budget/micro then
    return messages, agent                                                          # edit results in place)


# examples: the profile's (conftest.py: 50 in make test, 200 in make test-slow)
@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@given(h=histories(min_turns=1, max_turns=12, end_with_answer=False),
       scale=st.sampled_from((0.6, 1.0, 1.5, 4.0)))
def test_every_layer_and_every_pipeline(tmp_path_factory, shared_client, h, scale):
    before = copy.deepcopy(h)
    root = tmp_path_factory.mktemp("run")
    estimate = TokenEstimator.estimate(before)

    # ---- the layers, alone ----------------------------------------------------------------
    # (micro and auto alone: tests/test_s06_compact.py; here they run inside the pipelines.)
    # snip and the s08 layers keep nothing themselves: what they drop is in the caller's
    # transcript (`before` stands for it here; the pipelines below check the real one).
    out = snip_compact(copy.deepcopy(h), 8, 3)
    check("snip", before, out, before)
    event(f"snip: {'fired' if len(out) < len(h) else 'no change'}")
    try:
        out = reactive_compact(h, client=shared_client, model="offline", transcript_dir=root / "reactive", keep_tail=3)
    except ReactiveCompactError as exc:  # nothing before the tail, or a summary no smaller: said in one line
        assert "\n" not in str(exc)
        event("reactive: gave up")
    else:
        event("reactive: fired")
        check("reactive", before, out, read_transcript(next((root / "reactive").glob("*"))))
    assert h == before, "a layer that returns a new list changed its argument"
    window = max(100, int(estimate / scale))
    for layer in ("compact", "emergency_truncate"):
        messages = copy.deepcopy(h)
        compactor = ContextCompactor(shared_client, CompactionConfig(context_window=window), model="offline")
        fired = getattr(compactor, layer)(messages)
        event(f"s08 {layer}: {fired.layer.value if fired else 'no change'}")
        check(f"s08 {layer}", before, messages, before)
        assert TokenEstimator.estimate(messages) <= estimate, f"s08 {layer}: the estimate grew"

    # ---- the pipelines, as each stage's agent runs them before a request -------------------------
    run_pipeline("s06", S06Agent, root, shared_client, before, threshold=1_500, keep_recent=2)
    run_pipeline("s07", S07Agent, root, shared_client, before, threshold=1_500, keep_recent=2, **SNIP)
    messages, _ = run_pipeline("s08", S08Agent, root, shared_client, before, keep_recent=2,
                                   compaction=CompactionConfig(context_window=max(100, window // 3)), **SNIP)
    assert messages[-1]["role"] == "user"  # the next request asks the model for a new turn


# ---------------------------------------------------------------- issue 9: malformed histories

MALFORMED = [
    ([{"role": "user", "content": "a"}, None], "message 1 is a NoneType, not a dict"),
    ([{"role": "user", "content": 7}], "message 0 (user): content is int"),
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t",
      "name": "bash", "input": 5}]}], "message 1 (assistant), block 0 (tool_use): 'input' is a int"),
    ([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [7]}]}],
     "message 0 (user), block 0 (tool_result): content block 0 is a int"),
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t",
      "name": "bash", "input": {"command": {1, 2}}}]}], "message 1 (assistant): a set is not JSON"),
]


def layer_calls(tmp_path, client):
    """Every compaction layer's public entry point, as a function of a history."""
    from s05_budget import tool_result_budget
    from s06_compact import auto_compact, compact_history, micro_compact, micro_plan

    compactor = ContextCompactor(client, CompactionConfig(context_window=1_000), model="offline")
    return {
        "budget": lambda h: tool_result_budget(h, directory=tmp_path / "r"),
        "micro_plan": lambda h: micro_plan(h),
        "micro": lambda h: micro_compact(h),
        "auto": lambda h: auto_compact(h, client=client, model="offline", threshold=0, transcript_dir=tmp_path),
        "compact_history": lambda h: compact_history(h, client=client, model="offline", transcript_dir=tmp_path),
        "snip": lambda h: snip_compact(h, 2, 1),
        "reactive": lambda h: reactive_compact(h, client=client, model="offline", transcript_dir=tmp_path),
        "s08 compact": compactor.compact,
        "s08 summarize": compactor.summarize,
        "s08 emergency_truncate": compactor.emergency_truncate,
        "s08 ask": lambda h: S08Agent(client, workspace=tmp_path).ask("hi", h),
    }


@pytest.mark.parametrize("history, problem", MALFORMED, ids=["none", "int", "input", "result-block", "set"])
def test_malformed_histories_get_one_value_error_at_every_layer(tmp_path, shared_client, history, problem):
    """Before: AttributeError, TypeError or RecursionError from inside a layer (or a set written as
    the string "{1, 2}"); now one ValueError naming the message and the problem, nothing changed."""
    for name, call in layer_calls(tmp_path, shared_client).items():
        messages = copy.deepcopy(history)
        with pytest.raises(ValueError, match=re.escape(problem)):
            call(messages)
        assert repr(messages) == repr(history), f"{name} changed a history it refused"
