"""The recommended pipeline's summary layer measures in the bill's tokens (issue 25, item 3).

A session whose first message carries a large stand-in for files the log does not hold (as the
Claude Code logs' first requests do): clearing cannot remove it, a summary can, but only if the
compactor weighs the stand-in at its real size.
"""

from __future__ import annotations

from arena.bills.accounting import UNRECORDED_TEXT, BlockMemo
from arena.bills.prices import SONNET
from arena.replay import replay
from arena.sessions.session import session_from
from arena.strategies.counted import CountedCompactor, stand_ins, summary_pays
from arena.strategies.recommended import SAFETY, Recommended
from offline import OfflineModel, offline_client

WINDOW = 20_000
ATTACHED = 14_000     # tokens attached to the first request: 70 % of the window, as 70K of 200K is 35 %


def attached_session(turns: int = 14, lines: int = 120, attached: int = ATTACHED) -> list:
    """A task with `attached` tokens of files beside it, then `turns` reads of `lines` lines each."""
    messages = [{"role": "user", "content": [{"type": "text", "text": "Fix the failing tests in src/app.py"},
                                             {"type": "text", "text": UNRECORDED_TEXT.format(n=attached)}]}]
    for k in range(turns):
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": f"Reading module {k}"},
            {"type": "tool_use", "id": f"toolu_{k:03d}", "name": "Read", "input": {"file_path": f"src/m{k}.py"}}]})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k:03d}",
                                                      "content": "".join(f"def f{k}_{i}(): return {i}\n"
                                                                         for i in range(lines))}]})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    return messages


def test_the_counted_compactor_cuts_after_a_stand_in_that_s08s_estimate_reads_as_one_line():
    """Bug: s08's characters / 3 weighed the stand-in at a dozen tokens, kept everything after the first
    message verbatim (it fit 50 % of the window) and found no cut: the summary never dropped it."""
    from s08_compact4 import CompactionConfig, ContextCompactor

    memo, history = BlockMemo(), attached_session(turns=6)[:-1]
    client = offline_client(OfflineModel(10 ** 9), max_retries=0)
    config = CompactionConfig(context_window=WINDOW)
    assert ContextCompactor(client, config).summarize(list(history)) is None
    counted = CountedCompactor(client, config, count=memo.message_tokens)
    view = list(history)
    event = counted.summarize(view)
    assert event is not None and event.tokens_before - event.tokens_after > 0.9 * ATTACHED
    assert stand_ins(history) and not stand_ins(view) and view[0]["content"][0]["text"].startswith("[Summary]")


def test_a_forced_clearing_that_cannot_get_under_the_line_is_followed_by_a_summary(tmp_path):
    session = session_from("attached", attached_session())
    result = replay(session, Recommended, window=WINDOW, memo=BlockMemo(), workdir=tmp_path)
    layers = [layer for _, layer in result.compactions]
    assert "summarize" in layers and "reactive" not in layers
    first = next(t for t, layer in result.compactions if layer == "summarize")
    assert max(result.turn_tokens[first:]) < SAFETY * WINDOW and max(result.turn_tokens) < WINDOW
    assert not stand_ins(result.final_request)


def test_a_session_that_clearing_keeps_under_the_line_is_never_summarised(tmp_path):
    session = session_from("small", attached_session(turns=14, lines=20))
    result = replay(session, Recommended, window=WINDOW, memo=BlockMemo(), workdir=tmp_path)
    assert "summarize" not in [layer for _, layer in result.compactions]


def test_at_a_forced_clearing_a_summary_comes_when_it_pays_over_the_expected_remaining_requests(tmp_path):
    """Clearing alone can get the request under the line, but the attached files stay in every later
    request: a summary that drops them costs one call and one write now and saves reading them again.
    Without the attachment the same session has nothing a summary would fold away."""
    def session(attached):
        messages = attached_session(turns=40, lines=60)
        messages[0] = {"role": "user", "content": [messages[0]["content"][0]] + (
            [{"type": "text", "text": UNRECORDED_TEXT.format(n=attached)}] if attached else [])}
        return session_from(f"s{attached}", messages)

    window = 60_000
    big = replay(session(42_000), Recommended, window=window, memo=BlockMemo(), workdir=tmp_path / "a")
    first, layer = big.compactions[0]
    assert layer == "clear,summarize" and max(big.turn_tokens[first:]) < SAFETY * window / 2
    assert not stand_ins(big.final_request) and not stand_ins(big.final_request[:1])
    plain = replay(session(0), Recommended, window=window, memo=BlockMemo(), workdir=tmp_path / "b")
    assert plain.compactions and all("summarize" not in layer for _, layer in plain.compactions)


def test_the_summarys_sums_weigh_the_call_and_the_write_now_against_the_reads_saved_later():
    t, tail, old, new = 107_000, 50_000, 72_000, 37_000        # a Claude Code log's numbers, rounded
    assert summary_pays(t, tail, old, new, 14, SONNET, 2_048)           # $0.29 later against $0.18 now
    assert not summary_pays(t, tail, old, new, 3, SONNET, 2_048)        # $0.06 later: keep the cleared view
    assert not summary_pays(t, tail, 0, t, 10 ** 6, SONNET, 2_048)      # no safe cut: nothing to fold


def test_after_a_summary_the_newest_keep_results_stay_verbatim_and_nothing_older(tmp_path):
    """a6eeada, kept under the fair billing: after its summary the pipeline keeps what its clearing keeps,
    the turns from the one holding the oldest of the newest KEEP (3) results, not s08's newest half."""
    from arena.strategies.recommended import KEEP

    session = session_from("attached", attached_session(turns=30, lines=40, attached=12_000))
    seen = {}
    result = replay(session, Recommended, window=WINDOW, memo=BlockMemo(), workdir=tmp_path,
                    probe=lambda t, messages: seen.setdefault(t, list(messages)) and None)
    first = next(t for t, layer in result.compactions if "summarize" in layer)
    history = session.messages[:session.turns[first]]
    results = [b for m in history if m["role"] == "user" for b in m["content"] if b.get("type") == "tool_result"]
    sent = [b for m in seen[first] if isinstance(m["content"], list) for b in m["content"]
            if b.get("type") == "tool_result"]
    assert [b["tool_use_id"] for b in sent] == [b["tool_use_id"] for b in results[-KEEP:]]
    assert [b["content"] for b in sent] == [b["content"] for b in results[-KEEP:]]      # verbatim
    assert len(results) > 2 * KEEP           # s08's newest half would have kept older ones (placeholders)
