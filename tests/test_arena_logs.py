"""The arena on Claude Code logs of every version: read, billed as the log says, request by request.

Every log here is written by the test, modelled on the format notes (../shared/formats): the line kinds of
1.0.x to 2.1.x, parallel calls under one message.id, inline sidechains and subagent files, several
compactions, a mid-session cache rewrite, a session as one JSON array, a Codex rollout. The usage of each
request is what a client would log for a history grown by arbitrary amounts (not the kit's counter): the
replay must reproduce it from what the log states, not from constants.
"""

from __future__ import annotations

import json
import random

import pytest

from arena.bill_check import check, distribution, request_table
from arena.bills.prices import MODELS, UnknownModel, for_model
from arena.run import run_arena
from arena.sessions.folders import load_trace, load_traces, subagent_line
from arena.sessions.readers import ReaderError, detect

PREFIX = 12_000          # the system prompt and tools: read from an earlier session's cache


def _line(kind, content, n, **extra):
    message = {"role": kind, "content": content, **extra.pop("m", {})}
    return {"type": kind, "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n else None, "sessionId": "s1",
            "version": extra.pop("version", "2.1.146"), "timestamp": f"2026-11-0{1 + n // 1000}T10:{(n // 60) % 60:02d}:"
            f"{n % 60:02d}Z", "message": message, **extra}


def _usage(size, read, out, hour=False):
    write = size - read - 3
    u = {"input_tokens": 3, "cache_creation_input_tokens": write, "cache_read_input_tokens": read,
         "output_tokens": out}
    if hour is not None:
        h = write if hour else 0
        u["cache_creation"] = {"ephemeral_5m_input_tokens": write - h, "ephemeral_1h_input_tokens": h}
    return u


def claude_log(path, *, seed=1, requests=30, parallel=(), rewrites=(), compactions=(), hour=False,
               model="claude-opus-4-7", sidechains=0, extra_lines=True, version="2.1.146", split=True,
               tool="Bash", restored=3_000):
    """A Claude Code session JSONL (see the module docstring). `parallel` {request: n calls under one id,
    tool_use and tool_result lines alternating, each copy with the full usage}; `rewrites` requests whose
    read falls to the system prompt (the cache was rewritten there); `compactions` requests after which
    Claude Code compacted (a compact_boundary with preTokens, the summary, the history restarting);
    `sidechains`: inline subagent conversations without agentId (1.0.7x); `tool` "Read" reads files (what
    Claude Code may re-attach after a compaction) instead of running Bash, 200 to 400 lines each;
    `restored`: about how much the request after a compaction holds besides the system prompt (with the
    summary). Returns the logged sizes."""
    rnd, lines, n = random.Random(seed), [], 0
    if extra_lines:
        lines += [{"type": "last-prompt", "lastPrompt": "tidy"}, {"type": "file-history-snapshot", "snapshot": {}},
                  {"type": "summary", "summary": "Tidying", "leafUuid": "u3"}]
    lines.append(_line("user", "Tidy the service module and run the tests", n, version=version))
    size, logged = PREFIX + 900, []
    for k in range(requests):
        calls = parallel.get(k, 1) if isinstance(parallel, dict) else 1
        read = PREFIX if k in rewrites else (PREFIX if not logged else logged[-1])
        if k and k - 1 in compactions:
            read = PREFIX
        u = _usage(size, read, 50 + rnd.randrange(400), hour)
        logged.append(size)
        mid = f"msg_{k}"
        outputs = []
        for c in range(calls):
            n += 1
            call = {"type": "tool_use", "id": f"t{k}_{c}", "name": tool, "input": {"command": f"cat part{k}_{c}.py"}
                    if tool == "Bash" else {"file_path": f"/src/part{k}_{c}.py"}}
            content = ([{"type": "text", "text": f"Step {k}."}] if c == 0 else []) + [call]
            lines.append(_line("assistant", content if split or c == 0 else [call], n, version=version,
                               m={"id": mid, "model": model, "usage": dict(u)}))
            n += 1
            lines_out = rnd.randrange(5, 60) if tool == "Bash" else rnd.randrange(200, 400)
            text = "\n".join(f"line {i} of part {k}/{c}: value = {rnd.random():.6f}" for i in range(lines_out))
            outputs.append(text)
            lines.append(_line("user", [{"type": "tool_result", "tool_use_id": f"t{k}_{c}", "content": text}], n,
                               version=version))
        grown = sum(len(t) for t in outputs) // 3 + 60 * calls + rnd.randrange(0, 300)
        if k in compactions:
            n += 1
            pre = size + grown
            lines.append({"type": "system", "subtype": "compact_boundary", "uuid": f"u{n}", "parentUuid": None,
                          "logicalParentUuid": f"u{n - 1}", "compactMetadata": {"trigger": "auto", "preTokens": pre}})
            n += 1
            lines.append(_line("user", f"This session is being continued from a previous conversation. Summary "
                               f"{k}: " + "the module was tidied; " * 80, n, isCompactSummary=True))
            size = PREFIX + restored + rnd.randrange(restored * 2 // 3)
        else:
            size += grown
    for s in range(sidechains):
        n += 1
        lines.append(_line("user", f"Sub task {s}: list the files", n, isSidechain=True, parentUuid=None))
        for j in range(3):
            n += 1
            lines.append(_line("assistant", [{"type": "text", "text": f"Sub {s} step {j}."}], n, isSidechain=True,
                               m={"id": f"sub{s}_{j}", "model": "claude-haiku-4-5",
                                  "usage": _usage(5_000 + 700 * j, 4_000 if j else 0, 30)}))
            n += 1
            lines.append(_line("user", f"go on {j}", n, isSidechain=True))
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return logged


def _replayed(session, strategy):
    _, (replayed,) = run_arena([session], [strategy], calibrate=True)
    return replayed


# -- reading ------------------------------------------------------------------------------------------------

def test_current_logs_with_last_prompt_snapshot_and_summary_lines_are_read_not_refused(tmp_path):
    """Bug: a 2.1.x log whose first line is 'last-prompt' was refused at line 1."""
    claude_log(tmp_path / "s1.jsonl", requests=6)
    assert detect(tmp_path / "s1.jsonl") == "claude-code"
    session = load_trace(tmp_path / "s1.jsonl")
    assert len(session.turns) == 6 and session.models[0] == "claude-opus-4-7"


@pytest.mark.parametrize("calls", [2, 13])
def test_parallel_calls_under_one_message_id_are_one_request_with_its_usage_once(tmp_path, calls):
    """Bug: tool_use and tool_result lines alternating under one message.id became one request per call,
    each billed with the full usage (38 requests instead of 24; the log's own bill $3.28 against $2.10)."""
    logged = claude_log(tmp_path / "s1.jsonl", requests=8, parallel={3: calls, 5: calls})
    session = load_trace(tmp_path / "s1.jsonl")
    assert len(session.turns) == 8 and len(session.usage) == 8
    at = session.turns[3]
    assert sum(1 for b in session.messages[at]["content"] if b["type"] == "tool_use") == calls
    assert sum(1 for b in session.messages[at + 1]["content"] if b["type"] == "tool_result") == calls
    sizes = [u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"]
             for u in session.usage]
    assert sizes == logged


def test_inline_sidechains_without_agent_id_are_each_a_session_of_their_own(tmp_path):
    """Bug: 1.0.7x inline sidechains (isSidechain, no agentId) were merged into one conversation."""
    claude_log(tmp_path / "s1.jsonl", requests=5, sidechains=3, version="1.0.70", extra_lines=False)
    session = load_trace(tmp_path / "s1.jsonl")
    assert len(session.subagents) == 3 and all(len(s.turns) == 3 for s in session.subagents)
    assert all("Sub task" in json.dumps(s.messages[0]) for s in session.subagents)


def test_file_mode_keeps_every_subagent_and_says_so(tmp_path):
    """Bug: with --traces FILE every subagent was silently dropped (270 of 320 requests)."""
    claude_log(tmp_path / "s1.jsonl", requests=5, sidechains=2)
    folder = tmp_path / "s1" / "subagents"
    folder.mkdir(parents=True)
    claude_log(folder / "agent-a1b2.jsonl", requests=4, seed=5, extra_lines=False)
    sessions, _ = load_traces(tmp_path / "s1.jsonl")
    assert [s.name for s in sessions][0] == "s1" and len(sessions) == 4
    assert all(s.parent == "s1" for s in sessions[1:])
    (line,) = subagent_line(sessions)
    assert "s1" in line and "3" in line and "total" in line


@pytest.mark.parametrize("with_file", [False, True])
def test_a_subagent_whose_file_is_missing_is_read_from_its_progress_copies(tmp_path, with_file):
    """Claude Code 2.1.3x copies each subagent message into the main file as a progress line; a log committed
    without its <session>/subagents folder still holds every subagent request there: billed once, as a session
    of its own (and never twice when the file is there)."""
    claude_log(tmp_path / "s1.jsonl", requests=5)
    sub = tmp_path / "sub.jsonl"
    claude_log(sub, requests=4, seed=8, extra_lines=False, model="claude-haiku-4-5")
    copies = [{"type": "progress", "uuid": f"p{k}", "toolUseID": "t2_0", "data": {
        "type": "agent_progress", "agentId": "a77f", "prompt": "look around", "message": line}}
        for k, line in enumerate(json.loads(x) for x in sub.read_text().splitlines())]
    copies += copies[-2:]                                              # a copy sent again
    lines = (tmp_path / "s1.jsonl").read_text().splitlines()
    lines[8:8] = [json.dumps(c) for c in copies]
    (tmp_path / "s1.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    sub.unlink()
    if with_file:
        folder = tmp_path / "s1" / "subagents"
        folder.mkdir(parents=True)
        (folder / "agent-a77f.jsonl").write_text("\n".join(json.dumps(c["data"]["message"]) for c in copies[:-2])
                                                 + "\n", encoding="utf-8")
    sessions, _ = load_traces(tmp_path / "s1.jsonl")
    assert len(sessions) == 2 and len(sessions[1].turns) == 4 and sessions[1].parent == "s1"
    assert set(sessions[1].models) == {"claude-haiku-4-5"} and len(sessions[0].turns) == 5
    assert abs(check(sessions[1]).error) < 0.03


def test_a_subagent_file_beside_its_session_is_read_once(tmp_path):
    claude_log(tmp_path / "s1.jsonl", requests=5)
    claude_log(tmp_path / "agent-9f.jsonl", requests=3, seed=3, extra_lines=False)   # sessionId s1
    sessions, skipped = load_traces(tmp_path)
    assert not skipped and [s.name for s in sessions] == ["s1", "s1+agent-9f"]


def test_a_session_saved_as_one_json_array_is_read(tmp_path):
    """Bug: chat.json (a Stop hook's copy of the session) was refused: 'messages.0.type: Extra inputs'."""
    claude_log(tmp_path / "s1.jsonl", requests=5)
    lines = [json.loads(x) for x in (tmp_path / "s1.jsonl").read_text().splitlines()]
    (tmp_path / "chat.json").write_text(json.dumps(lines), encoding="utf-8")
    assert detect(tmp_path / "chat.json") == "claude-code"
    session = load_trace(tmp_path / "chat.json")
    assert len(session.turns) == 5 and session.usage[0]["cache_read_input_tokens"] == PREFIX


def test_a_codex_rollout_is_read(tmp_path):
    """Bug: ~/.codex/sessions rollouts were refused (only codex exec --json was read)."""
    path = tmp_path / "rollout-2026-11-01T10-00-00-abc.jsonl"
    items = [{"type": "session_meta", "payload": {"id": "abc", "instructions": "Be brief.", "cli_version": "0.50"}},
             {"type": "turn_context", "payload": {"model": "gpt-5-codex"}},
             {"type": "response_item", "payload": {"type": "message", "role": "user",
                                                   "content": [{"type": "input_text", "text": "run the tests"}]}},
             {"type": "response_item", "payload": {"type": "reasoning", "summary": []}},
             {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "call_id": "c1",
                                                   "arguments": json.dumps({"command": ["pytest"]})}},
             {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1", "output":
                                                   json.dumps({"output": "1 failed", "metadata": {"exit_code": 1}})}},
             {"type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": {
                 "input_tokens": 9000, "cached_input_tokens": 4000, "output_tokens": 300}}}},
             {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                                   "content": [{"type": "output_text", "text": "One test fails."}]}}]
    path.write_text("\n".join(json.dumps(x) for x in items) + "\n", encoding="utf-8")
    assert detect(path) == "codex-rollout"
    session = load_trace(path)
    assert session.system == "Be brief." and session.logged["input_tokens"] == 9000
    result = session.messages[2]["content"][0]
    assert result["is_error"] and "[exit_code: 1]" in result["content"]


def test_a_reply_claude_code_made_up_itself_is_no_request(tmp_path):
    """Bug: an assistant line of model '<synthetic>' (Claude Code shows an API error as a message, usage all
    zeros) became a request of the replay: +125 % on a ten-request log."""
    path = tmp_path / "s1.jsonl"
    claude_log(path, requests=10, model="claude-sonnet-4-5")
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    at = [i for i, x in enumerate(lines) if x["type"] == "user" and isinstance(x["message"]["content"], list)][4]
    zero = dict.fromkeys(("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"), 0)
    lines[at + 1:at + 1] = [_line("assistant", [{"type": "text", "text": "API Error: 529 Overloaded"}], 900,
                                  isApiErrorMessage=True, m={"id": "x1", "model": "<synthetic>", "usage": zero}),
                            _line("user", "continue", 901)]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    session = load_trace(path)
    assert len(session.turns) == 10 and "<synthetic>" not in session.models
    assert not any("API Error" in json.dumps(m) for m in session.messages)
    assert abs(check(session).error) < 0.02


def test_a_last_line_cut_short_is_left_out_and_said(tmp_path):
    """A log copied while Claude Code still wrote it ends in half a line: the rest is read, the note says so."""
    path = tmp_path / "s1.jsonl"
    claude_log(path, requests=6)
    text = path.read_text()
    path.write_text(text + text.splitlines()[-2][:40], encoding="utf-8")    # no newline after it
    session = load_trace(path)
    assert len(session.turns) == 6 and any("cut short" in n for n in session.notes)


def test_a_branch_the_user_rewound_from_is_billed_apart_and_never_sent_again(tmp_path):
    """A user who goes back to an earlier message (a rewind) leaves a branch in the file: later requests do
    not send it. Read in file order, it stayed in every later request of the replay (+50 % and more on what
    followed); its own requests were made and are billed, as a session of its own."""
    long, short = tmp_path / "long.jsonl", tmp_path / "short.jsonl"
    sizes = claude_log(long, requests=10, seed=3, model="claude-sonnet-4-5", extra_lines=False)
    claude_log(short, requests=4, seed=3, model="claude-sonnet-4-5", extra_lines=False)
    kept = [json.loads(x) for x in short.read_text().splitlines()]
    left = [json.loads(x) for x in long.read_text().splitlines()][len(kept):]      # requests 4 to 9: abandoned
    cached = sizes[3] - 3
    lines = kept + left
    prompt = _line("user", "Forget that: only rename the module, nothing else", 500, m={})
    prompt["parentUuid"] = kept[-1]["uuid"]          # back to just after request 3's result
    lines.append(prompt)
    size = cached + 900
    for k in range(4):
        u = {"input_tokens": 3, "cache_read_input_tokens": cached, "cache_creation_input_tokens": size - cached - 3,
             "output_tokens": 120}
        lines.append(_line("assistant", [{"type": "tool_use", "id": f"n{k}", "name": "Bash",
                                          "input": {"command": f"git mv part{k}.py module{k}.py"}}], 501 + 2 * k,
                           m={"id": f"new{k}", "model": "claude-sonnet-4-5", "usage": u}))
        lines.append(_line("user", [{"type": "tool_result", "tool_use_id": f"n{k}", "content": "renamed " * 300}],
                           502 + 2 * k))
        cached, size = size, size + 700
    path = tmp_path / "s1.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    sessions, _ = load_traces(path)
    main, branch = sessions
    assert len(main.turns) == 8 and len(branch.turns) == 6 and branch.parent == "s1"
    assert not any("part9" in json.dumps(m) for m in main.messages)
    assert abs(check(main).error) < 0.03, request_table(check(main))


@pytest.mark.parametrize("text, where", [
    ('{"type": "last-prompt"}\n{"type": "queue-operation"}\n', "x.jsonl:1"),
    ('{"type": "user", "message": {"content": "hi"}}\n{"type": "assistant", oops\n', "x.jsonl:2"),
    ('{"type": "user", "message": {"content": "hi"}}\n{"no": "type"}\n', "x.jsonl:2"),
])
def test_a_file_it_cannot_read_gets_one_line_naming_the_file_the_line_and_what_it_expected(tmp_path, text, where):
    path = tmp_path / "x.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReaderError) as err:
        load_trace(path)
    message = str(err.value)
    assert message.startswith(where) and "expected" in message and "\n" not in message


# -- the replay of what was sent, request by request ---------------------------------------------------------

@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_mid_session_cache_rewrite_is_an_event_of_the_session(tmp_path, seed):
    """Bug: real logs rewrite the cache mid-session (requests that read only the system prompt and write
    the rest, with no pause); the replay never did: -25.5 % on such a log."""
    claude_log(tmp_path / "s1.jsonl", seed=seed, requests=40, rewrites={9, 17, 18, 31}, parallel={4: 3})
    session = load_trace(tmp_path / "s1.jsonl")
    found = check(session)
    assert abs(found.error) < 0.05, found.line()
    d = distribution(found)
    assert d["n"] == 40 and d["within5"] >= 38, request_table(found)
    for t in (9, 17, 18, 31):
        assert session.bill_model.events[t] == -1
    edited = [r for r in _replayed(session, "ctx-edit").records if r.kind == "turn"]
    assert all(edited[t].cache_read <= PREFIX + 1_100 for t in (9, 17, 31))   # the same loss, every strategy


@pytest.mark.parametrize("hour", [False, True])
def test_five_minute_and_one_hour_writes_are_billed_as_the_log_splits_them(tmp_path, hour):
    claude_log(tmp_path / "s1.jsonl", requests=12, hour=hour)
    session = load_trace(tmp_path / "s1.jsonl")
    found = check(session)
    assert abs(found.error) < 0.02
    split = [r.usage.get("cache_creation", {}).get("ephemeral_1h_input_tokens", 0)
             for r in _replayed(session, "none").records if r.kind == "turn"]
    assert (sum(split) > 0) is hour


def test_several_compactions_are_billed_on_the_compacted_history_as_the_log_says(tmp_path):
    """Bug: for `recorded` the second and later compaction calls were billed on the whole uncompacted
    history (266,611 tokens where the log's preTokens is 155,241), and priced as a cached read."""
    claude_log(tmp_path / "s1.jsonl", requests=45, compactions={14, 29}, model="claude-sonnet-4-5")
    session = load_trace(tmp_path / "s1.jsonl")
    assert [c["pre_tokens"] for c in session.compactions][0] > 0 and len(session.recorded) == 2
    found = check(session)
    assert abs(found.error) < 0.05, request_table(found)
    calls = [r for r in _replayed(session, "recorded").records if r.kind == "summary"]
    assert [r.tokens for r in calls] == [c["pre_tokens"] for c in session.compactions]
    assert all(r.cache_read == 0 and r.cache_write == r.tokens for r in calls)    # a write, not a read


def test_the_compaction_calls_own_usage_is_used_where_the_log_holds_it(tmp_path):
    claude_log(tmp_path / "s1.jsonl", requests=20, compactions={9})
    folder = tmp_path / "s1" / "subagents"
    folder.mkdir(parents=True)
    own = {"input_tokens": 10, "cache_creation_input_tokens": 51_234, "cache_read_input_tokens": 0,
           "output_tokens": 2_345}
    (folder / "agent-acompact-77.jsonl").write_text("\n".join(json.dumps(x) for x in [
        _line("user", "summarise", 0), _line("assistant", [{"type": "text", "text": "Summary."}], 1,
                                             m={"id": "c1", "model": "claude-opus-4-7", "usage": own})]) + "\n")
    sessions, _ = load_traces(tmp_path / "s1.jsonl")
    assert len(sessions) == 1                                 # the compaction call is not a subagent
    (call,) = [r for r in _replayed(sessions[0], "recorded").records if r.kind == "summary"]
    assert (call.uncached, call.cache_write, call.output) == (10, 51_234, 2_345)


@pytest.mark.parametrize("retry", [False, True])
def test_stream_json_compaction_is_the_model_usage_less_the_logged_requests(tmp_path, retry):
    """Bug: Claude Code's compaction call was priced as a cached read ($0.10); the result line's
    modelUsage less the logged requests is one cache write ($0.59). And with a retry (a request sent again,
    which the result line's usage leaves out and modelUsage counts once), modelUsage less the result line's
    usage held that request too: a 'compaction call' of 247K tokens, over the window, on a real log."""
    lines = [{"type": "system", "subtype": "init", "model": "claude-sonnet-4-5-20250929", "tools": ["Bash"]}]
    total = {"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 0}
    counted = {"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    size = 15_000
    for k in range(10):
        if retry and k == 3:                  # sent twice: the first counted by modelUsage only, the second by none
            first = _usage(size, size - 1_500, 1, None)
            lines.append({"type": "assistant", "parent_tool_use_id": None, "message": {
                "id": "again", "model": "claude-sonnet-4-5-20250929", "usage": first,
                "content": [{"type": "text", "text": "Running it."}]}})
            for key in counted:
                counted[key] += first[key]
        u = _usage(size, 12_000 if k == 0 else size - 1_500, 1, None)
        if retry and k == 3:                  # the second reads all the first left cached, as on the real log
            u = {"input_tokens": 0, "cache_creation_input_tokens": 0, "output_tokens": 1,
                 "cache_read_input_tokens": first["cache_read_input_tokens"] + first["cache_creation_input_tokens"]}
        if k == 6:
            lines.append({"type": "system", "subtype": "compact_boundary", "compact_metadata": {"pre_tokens": size}})
            lines.append({"type": "user", "parent_tool_use_id": None, "message": {"role": "user", "content":
                          "This session is being continued from a previous conversation. Summary: tests run."}})
            size = 16_000
            u = _usage(size, 12_000, 1, None)
        for key in total:
            total[key] += u[key]
        lines.append({"type": "assistant", "parent_tool_use_id": None, "message": {
            "id": f"m{k}", "model": "claude-sonnet-4-5-20250929", "usage": u,
            "content": [{"type": "tool_use", "id": f"t{k}", "name": "Bash", "input": {"command": f"ls {k}"}}]}})
        lines.append({"type": "user", "parent_tool_use_id": None, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{k}", "content": "x" * 4_000}]}})
        size += 1_500
    if retry:    # the second of the pair: in the log, in neither total
        u = lines[[i for i, x in enumerate(lines) if x.get("message", {}).get("id") == "m3"][0]]["message"]["usage"]
        for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
            total[key] -= u[key]
    lines.append({"type": "result", "total_cost_usd": 1.0, "usage": {**total, "output_tokens": 900}, "modelUsage": {
        "claude-sonnet-4-5-20250929": {
            "inputTokens": total["input_tokens"] + counted["input_tokens"] + 2, "outputTokens": 900 + 2_715,
            "cacheReadInputTokens": total["cache_read_input_tokens"] + counted["cache_read_input_tokens"],
            "cacheCreationInputTokens": total["cache_creation_input_tokens"] + counted["cache_creation_input_tokens"]
            + 147_322}}})
    (tmp_path / "run.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    session = load_trace(tmp_path / "run.jsonl")
    (call,) = [r for r in _replayed(session, "recorded").records if r.kind == "summary"]
    assert (call.cache_write, call.cache_read, call.output) == (147_322, 0, 2_715)
    assert call.cost() == pytest.approx((2 * 3 + 147_322 * 3.75 + 2_715 * 15) / 1e6)


@pytest.mark.slow   # over half a second on 2 cores: make test-slow runs it
def test_after_a_compaction_the_request_is_the_size_the_log_states_whatever_files_were_read(tmp_path):
    """Bug: after Claude Code's compaction `recorded` re-attached the newest files read (a model of what
    Claude Code attaches) even where the log's next request holds only the summary: 24.7K tokens too many
    on every later request, +20.4 % on a real 2.0.21 log. The log's size of that request wins."""
    claude_log(tmp_path / "s1.jsonl", seed=4, requests=40, compactions={12, 27}, tool="Read",
               model="claude-sonnet-4-5", restored=900)
    session = load_trace(tmp_path / "s1.jsonl")
    found = check(session)
    assert abs(found.error) < 0.02, request_table(found)
    after = [t for t in range(1, len(session.turns)) if t - 1 in (12, 27)]
    sizes = [r.tokens for r in _replayed(session, "recorded").records if r.kind == "turn"]
    for t in after:
        u = session.usage[t]
        logged = u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"]
        assert abs(sizes[t] - logged) <= 0.02 * logged


def _retry_log(path, *, stream=False):
    """Six requests; request 3 is sent twice on the same history (two message ids, no user line between:
    the first answer repeated by the second, as Claude Code logs a retry). Returns the logged usages."""
    usages, lines = [], [{"type": "user", "message": {"role": "user", "content": "Write the changelog"}}]
    if stream:
        lines.insert(0, {"type": "system", "subtype": "init", "model": "claude-sonnet-4-5-20250929", "tools": ["Bash"]})
    size = 20_000
    for k in range(6):
        tries = 2 if k == 3 else 1
        for attempt in range(tries):
            read = 12_000 if not usages else sum(usages[-1][x] for x in ("cache_read_input_tokens",
                                                                          "cache_creation_input_tokens"))
            u = {"input_tokens": 2, "cache_creation_input_tokens": size - read - 2, "cache_read_input_tokens": read,
                 "output_tokens": 700 if attempt else 40}
            usages.append(u)
            text = [{"type": "text", "text": f"Now the changelog part {k}."}]
            call = [{"type": "tool_use", "id": f"t{k}", "name": "Bash", "input": {"command": f"git log -{k}"}}]
            lines.append({"type": "assistant", "message": {"id": f"m{k}_{attempt}", "model": "claude-sonnet-4-5",
                                                           "usage": u, "content": text}})
            if attempt == tries - 1:
                lines.append({"type": "assistant", "message": {"id": f"m{k}_{attempt}", "model": "claude-sonnet-4-5",
                                                               "usage": u, "content": call}})
        lines.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{k}", "content": f"commit {k}\n" * (200 + 90 * k)}]}})
        size = sum(usages[-1][x] for x in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"))
        size += 1_000 + 300 * k
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return usages


def test_a_request_sent_again_on_the_same_history_is_billed_as_a_request_of_its_own(tmp_path):
    """Bug: two requests in a row with no user line between (a retry: the second repeats the first's text)
    were merged into one message, the second's usage dropped: 24 requests where the log has 25."""
    usages = _retry_log(tmp_path / "s1.jsonl")
    session = load_trace(tmp_path / "s1.jsonl")
    assert len(session.turns) == 6 and [len(r) for r in session.repeats] == [0, 0, 0, 1, 0, 0]
    assert sum(1 for b in session.messages[session.turns[3]]["content"] if b["type"] == "text") == 1
    found = check(session)
    assert found.requests == 7 and abs(found.error) < 0.02, request_table(found)
    from arena.bills.prices import SONNET
    assert found.logged == pytest.approx(sum(SONNET.cost(u) for u in usages))
    assert [r[0] for r in found.requests_compared] == ["1", "2", "3", "4", "4+1", "5", "6"]


def test_a_request_that_sent_its_newest_tokens_uncached_is_replayed_so_for_every_strategy(tmp_path):
    """Bug: a request the log shows sending its newest 13K tokens as uncached input (after its last
    breakpoint; the next request writes them) was replayed as a write of everything: -63 % on the next."""
    path = tmp_path / "s1.jsonl"
    claude_log(path, seed=6, requests=12, model="claude-sonnet-4-5", parallel={5: 12})
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    ids = list(dict.fromkeys(x["message"]["id"] for x in lines if x["type"] == "assistant"))
    uncached = {}
    for x in lines:
        if x["type"] == "assistant" and x["message"]["id"] in (ids[6], ids[7]):
            u = x["message"]["usage"]
            if x["message"]["id"] == ids[6]:     # its newest block (the tool result before it) not cached
                uncached = {"n": u["cache_creation_input_tokens"]}
                u["input_tokens"], u["cache_creation_input_tokens"] = uncached["n"], 0
            else:                                # so the next request reads less and writes it
                u["cache_read_input_tokens"] -= uncached["n"]
                u["cache_creation_input_tokens"] += uncached["n"]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    session = load_trace(path)
    found = check(session)
    assert session.bill_model.tails == {6: uncached["n"]}
    worst = max(abs(b / a - 1) for _, _, _, a, b in found.requests_compared[5:9])
    assert worst < 0.05, request_table(found)
    for strategy in ("none", "ctx-edit"):
        records = [r for r in _replayed(session, strategy).records if r.kind == "turn"]
        assert records[6].uncached >= 0.5 * uncached["n"] and records[7].cache_write >= 0.5 * uncached["n"]


def test_stream_json_subagents_bill_the_output_the_result_line_states(tmp_path):
    """Bug: a stream-json subagent's lines carry streaming placeholders (1, 2, ...) as output_tokens, so its
    log bill counted no output while the replay counted its replies: +20 % on every subagent of a real log.
    The result line's modelUsage less the main chain's usage is the subagents' output."""
    model, lines = "claude-sonnet-4-5-20250929", []
    lines.append({"type": "system", "subtype": "init", "model": model, "tools": ["Task", "Read"]})
    lines.append({"type": "assistant", "parent_tool_use_id": None, "message": {
        "id": "m0", "model": model, "usage": {"input_tokens": 3, "cache_creation_input_tokens": 9_000,
                                              "cache_read_input_tokens": 12_000, "output_tokens": 2},
        "content": [{"type": "tool_use", "id": "task1", "name": "Task", "input": {"prompt": "Read the tests"}}]}})
    sub_out, size = 0, 8_000
    for j in range(6):
        reply = "The test file checks the parser; " * (20 + 15 * j)
        lines.append({"type": "assistant", "parent_tool_use_id": "task1", "message": {
            "id": f"s{j}", "model": model, "usage": {"input_tokens": 3, "cache_creation_input_tokens": 1_500,
                                                     "cache_read_input_tokens": size - 1_500, "output_tokens": 1},
            "content": [{"type": "text", "text": reply},
                        {"type": "tool_use", "id": f"r{j}", "name": "Read", "input": {"file_path": f"t{j}.py"}}]}})
        lines.append({"type": "user", "parent_tool_use_id": "task1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"r{j}", "content": "def test(): pass\n" * 300}]}})
        sub_out += len(reply) // 4
        size += 1_500
    lines.append({"type": "user", "parent_tool_use_id": None, "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "task1", "content": "The tests check the parser."}]}})
    main = {"input_tokens": 3, "cache_creation_input_tokens": 9_000, "cache_read_input_tokens": 12_000,
            "output_tokens": 400}
    lines.append({"type": "result", "total_cost_usd": 1.0, "usage": main, "modelUsage": {model: {
        "inputTokens": 21, "outputTokens": 400 + sub_out, "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0}}})
    (tmp_path / "run.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    sessions, _ = load_traces(tmp_path / "run.jsonl")
    (sub,) = sessions[1:]
    assert sub.logged["output_tokens"] == sub_out
    found = check(sub)
    assert found.logged > SONNET_OUTPUT * sub_out / 1e6 and abs(found.error) < 0.03, request_table(found)


SONNET_OUTPUT = 15.0


def codex_rollout(path, *, seed=1, requests=20, model="gpt-5-codex", pause=None, duplicates=True):
    """A Codex CLI rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, the type/payload wrapper): per
    request, reasoning, a function call and its output, then a token_count whose last_token_usage counts the
    whole prompt as input and the part OpenAI found cached (every earlier prompt, in 128-token steps) as
    cached_input_tokens; with `duplicates`, each count is sent twice (a rate-limit update repeats it);
    `pause`: a request after which the cache was gone. Returns the logged last_token_usage per request."""
    rnd, lines, logged = random.Random(seed), [], []
    stamp = lambda k: f"2026-11-0{1 + k // 600}T10:{(k // 10) % 60:02d}:{k % 10:02d}.000Z"  # noqa: E731
    lines += [{"timestamp": stamp(0), "type": "session_meta", "payload": {
                  "id": "r1", "instructions": "You are Codex, a coding agent. " * 40, "cli_version": "0.77.0"}},
              {"timestamp": stamp(0), "type": "turn_context", "payload": {"model": model, "cwd": "/w"}},
              {"timestamp": stamp(0), "type": "response_item", "payload": {"type": "message", "role": "user",
               "content": [{"type": "input_text", "text": "Fix the failing date parser test"}]}}]
    size, total = 9_000, {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0}
    for k in range(requests):
        cached = 0 if not logged or k == pause else (logged[-1]["input_tokens"] // 128) * 128
        out = 80 + rnd.randrange(900)
        last = {"input_tokens": size, "cached_input_tokens": cached, "output_tokens": out,
                "reasoning_output_tokens": out // 2, "total_tokens": size + out}
        logged.append(last)
        for key in total:
            total[key] += last[key]
        text = "\n".join(f"src/dates.py:{i}: parse({rnd.random():.5f})" for i in range(rnd.randrange(10, 120)))
        lines += [{"timestamp": stamp(k), "type": "response_item", "payload": {"type": "reasoning", "summary": []}},
                  {"timestamp": stamp(k), "type": "response_item", "payload": {
                      "type": "function_call", "name": "shell", "call_id": f"c{k}",
                      "arguments": json.dumps({"command": ["rg", "-n", f"parse{k}", "src"]})}}]
        for _ in range(2 if duplicates else 1):
            lines.append({"timestamp": stamp(k), "type": "event_msg", "payload": {"type": "token_count", "info": {
                "total_token_usage": dict(total), "last_token_usage": last, "model_context_window": 272_000}}})
        lines.append({"timestamp": stamp(k), "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": f"c{k}",
            "output": json.dumps({"output": text, "metadata": {"exit_code": 0}})}})
        size += len(text) // 4 + 150 + rnd.randrange(600)      # and the reasoning Codex sends back
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return logged


@pytest.mark.parametrize("pause", [None, 9])
def test_a_codex_rollout_is_billed_request_by_request_at_openai_prices(tmp_path, pause):
    """Bug: a rollout's token_count events were read only for their total: no request of it was compared,
    its model was billed at Sonnet's price, and its cache as Anthropic's (writes at 1.25x, 20 blocks back)."""
    logged = codex_rollout(tmp_path / "rollout-2026-11-01T10-00-00-r1.jsonl", requests=24, pause=pause)
    session = load_trace(tmp_path / "rollout-2026-11-01T10-00-00-r1.jsonl")
    assert len(session.turns) == 24 and session.automatic_cache
    found = check(session)
    price = for_model("gpt-5-codex")
    own = sum(((u["input_tokens"] - u["cached_input_tokens"]) * 1.25 + u["cached_input_tokens"] * 0.125
               + u["output_tokens"] * 10) / 1e6 for u in logged)
    assert price.input == 1.25 and found.logged == pytest.approx(own)
    assert abs(found.error) < 0.03 and distribution(found)["within5"] >= 22, request_table(found)


# -- prices ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model, base, read", [
    ("claude-opus-4-7", 5, 0.5), ("claude-opus-4-8", 5, 0.5), ("claude-opus-5", 5, 0.5),
    ("claude-opus-5-5", 4, 0.2), ("claude-sonnet-5", 2, 0.2), ("claude-sonnet-5-5", 2, 0.1),
    ("claude-fable-5", 10, 1.0), ("claude-fable-5-1", 10, 0.25), ("claude-mythos-5", 10, 1.0),
    ("claude-mythos-5-1", 10, 0.25), ("claude-3-opus-20240229", 15, 1.5), ("claude-3-haiku-20240307", 0.25, 0.03),
])
def test_every_model_anthropic_lists_has_its_price(model, base, read):
    prices = for_model(model, strict=True)
    assert (prices.input, prices.cache_read) == (base, read)


def test_haiku_5_5_is_priced_by_prompt_length_and_an_unknown_model_is_never_silent():
    haiku = for_model("claude-haiku-5-5")
    assert haiku.cost({"input_tokens": 100_000}) == pytest.approx(0.01)
    assert haiku.cost({"input_tokens": 1, "cache_read_input_tokens": 100_000, "output_tokens": 1_000_000}) == \
        pytest.approx((0.5 + 100_000 * 0.05) / 1e6 + 2.5)          # every token of a long prompt at the high band
    with pytest.raises(UnknownModel, match="claude-opus-9"):
        for_model("claude-opus-9", strict=True)
    with pytest.warns(UserWarning, match="claude-sonnet-9.*\\$3"):
        for_model("claude-sonnet-9")
    assert len(MODELS) >= 24


@pytest.mark.parametrize("seed", range(5))
def test_chart_labels_never_overlap_on_generated_points(seed):
    """Bug: the Pareto chart drew the s06 and s07 labels over each other (points a few pixels apart)."""
    from arena.measures.frontier import label_offsets

    rnd = random.Random(seed)
    points = [(rnd.uniform(0, 60), rnd.uniform(0, 40)) for _ in range(14)]   # crowded: most labels collide
    sizes = [(rnd.uniform(15, 45), 8.4) for _ in points]
    boxes = [(x + dx, y + dy, x + dx + w, y + dy + h)
             for (x, y), (dx, dy), (w, h) in zip(points, label_offsets(points, sizes), sizes)]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])
