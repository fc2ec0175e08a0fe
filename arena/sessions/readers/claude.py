"""Claude Code session JSONL and Claude Agent SDK stream-json, read into a replayable session.

Motto: the main chain, as the model saw it, with what each request really cost.

    ~/.claude/projects/<project>/<session>.jsonl      one JSON object per line: user / assistant /
    claude -p --output-format stream-json             system / summary / result / progress / ...
         │
         │  user, assistant lines of the main chain  ──> messages (lines of one response merged,
         │                                               parallel results merged, thinking dropped; a second
         │                                               response with no user line between: a retry, billed
         │                                               as a request of its own at that turn)
         │  model "<synthetic>" (an API error shown)  ──> skipped: no request, never sent
         │  a prompt whose parent is an earlier line  ──> a rewind: the branch it left is a session of its own
         │  isSidechain / parent_tool_use_id          ──> a subagent: its own session (meta "subagents")
         │  <session>/subagents/agent-*.jsonl         ──> the same (Claude Code 2.1.1x and later); without
         │  progress lines (agent_progress)               that file, its progress copies in the main file
         │  system compact_boundary + the summary     ──> a marker: Claude Code's own compaction
         │  message.usage on assistant lines          ──> the real usage of each request, with its
         │                                               model and timestamp (the lines of one message id:
         │                                               the largest output_tokens, the final count)
         │  system init / result                      ──> model, tool names, total cost
         └  anything else (progress, snapshots, ...)   ──> skipped, as the format notes ask
                                                          (../shared/formats/claude-code-session-jsonl.md)

The system prompt and tool schemas are not in either log: the tools are named
(stream-json's init line) and get minimal schemas; what the first request held
beyond what the kit counts (system prompt, tools, attached files) is measured
from its logged usage (calibration.py). A stream-json log does not record the
prompt either: it is read from `<log>.prompt.txt` or `prompt.txt` beside the log
when there is one, else a one-line stand-in says it is missing.

A stream-json log's per-line output_tokens are streaming placeholders (1, 2, ...): its
meta says `output_logged: False`, and the real output is only in the result line's total (the
main chain's) and its modelUsage (every request's: what is beyond the main chain is its
subagents' replies and Claude Code's compaction calls, _stream_output).

Example: read_claude(Path("s.jsonl")) -> ("s", messages, meta with usage_per_turn, markers, subagents)
"""

from __future__ import annotations

import json
from pathlib import Path

from arena.bills.prices import FREE
from lessonkit.i18n import tr, trn

from .build import Builder, ReaderError, json_lines, task_or_stand_in, text_of, where


def _sidechains(lines) -> dict:
    """{conversation key: [(n, line)]} of the subagent lines: by agentId (2.1.1x), by the stream's
    parent_tool_use_id, else (1.0.7x: inline, no agentId) by their uuid / parentUuid chain: a sidechain line
    whose parent is not a sidechain line starts a conversation of its own."""
    side, chain = {}, {}
    for n, line in lines:
        if line.get("type") not in ("user", "assistant") or not (line.get("isSidechain")
                                                                 or line.get("parent_tool_use_id")):
            continue
        key = line.get("agentId") or line.get("parent_tool_use_id")
        if key is None:
            key = chain.get(line.get("parentUuid")) or f"sidechain-{len(side) + 1}"
        if line.get("uuid"):
            chain[line["uuid"]] = key
        side.setdefault(key, []).append((n, line))
    return side


def _session_id(lines) -> str | None:
    return next((line["sessionId"] for _, line in lines if isinstance(line.get("sessionId"), str)), None)


def _rewinds(lines) -> tuple[list, list]:
    """(the conversation as it went on, [the lines of each branch it left]). A user's prompt whose parentUuid
    is not the line written just before it but an earlier user or assistant line is a rewind (the user went
    back and the conversation went on from there): the user and assistant lines after that parent, up to the
    prompt, are a branch the requests that follow never sent, kept apart when it holds a request. A tool
    result (parallel calls parent their results on their own calls) or a parent not in the file starts none.
    Example: P1 A1 R1 A2, then P2 whose parent is the line before P1 -> ([.., P2, ..], [[P1, A1, R1, A2]])"""
    where, main, branches, last = {}, [], [], None
    for n, line in lines:
        parent, kind = line.get("parentUuid"), line.get("type")
        content = (line.get("message") or {}).get("content") if isinstance(line.get("message"), dict) else None
        prompt = kind == "user" and not line.get("isCompactSummary") and not (
            isinstance(content, list) and any(isinstance(c, dict) and c.get("type") == "tool_result" for c in content))
        if prompt and parent is not None and last is not None and parent != last and parent in where:
            at = where[parent]                             # the position in `main` the conversation goes on from
            left = [(m, x) for m, x in main[at + 1:] if x.get("type") in ("user", "assistant")]
            if any(x.get("type") == "assistant" and isinstance((x.get("message") or {}).get("usage"), dict)
                   for _, x in left):
                branches.append(left)
                main = main[:at + 1] + [(m, x) for m, x in main[at + 1:] if x.get("type") not in ("user", "assistant")]
                where = {u: i for u, i in where.items() if i <= at}
                where.update({x.get("uuid"): i for i, (_, x) in enumerate(main) if x.get("uuid")})
        main.append((n, line))
        if line.get("uuid"):
            where[line["uuid"]], last = len(main) - 1, line["uuid"]
    return main, branches


def _progress_copies(lines, have: set) -> dict:
    """{agent id: [(n, line)]}: the subagent messages that Claude Code 2.1.3x copies into the main file as
    progress lines (data.type "agent_progress", data.message a user or assistant line), for each agent
    that made a request of its own and whose own file is not in `have` (agent ids of the subagent files)."""
    out, seen = {}, set()
    for n, line in lines:
        data = line.get("data") if line.get("type") == "progress" else None
        copy = data.get("message") if isinstance(data, dict) and data.get("type") == "agent_progress" else None
        agent = data.get("agentId") if isinstance(copy, dict) else None
        if not isinstance(agent, str) or agent in have or copy.get("type") not in ("user", "assistant") \
                or not isinstance(copy.get("message"), dict):
            continue
        key = copy.get("uuid") or (agent, json.dumps(copy.get("message"), sort_keys=True)[:2_000])
        if key in seen:                   # the same message copied again
            continue
        seen.add(key)
        out.setdefault(agent, []).append((n, {**copy, "isSidechain": True, "agentId": agent}))
    return {a: group for a, group in out.items() if any(
        line.get("type") == "assistant" and isinstance(line["message"].get("usage"), dict) for _, line in group)}


def subagent_files(path: Path, lines=None) -> list[Path]:
    """The subagent files of a session: `<stem>/subagents/*.jsonl` (2.1.1x and later) and, beside it,
    `agent-*.jsonl` files whose lines carry the session's id (2.0.x), sorted; not the session itself."""
    name = path.name.split(".")[0]
    folder = path.parent / name / "subagents"
    found = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    if not path.name.startswith("agent-"):
        own = _session_id(lines if lines is not None else json_lines(path))
        for other in sorted(path.parent.glob("agent-*.jsonl")):
            try:
                if own and other != path and _session_id(json_lines(other)[:5]) == own:
                    found.append(other)
            except ReaderError:
                continue
    return found


def read_claude(path: Path) -> tuple[str, list, dict]:
    """(name, messages, meta) of a Claude Code session or stream-json log; ReaderError if unreadable.

    meta["subagents"]: [(name, messages, meta)] for each subagent conversation (sidechain lines
    grouped by agent or by chain, and the subagent files: subagent_files), each with its own usage.
    meta["compaction_calls"]: the usage of Claude Code's own compaction calls where the log holds them
    (an agent-acompact-* file: the summarising call itself)."""
    cut: list = []
    lines = json_lines(path, cut)
    for n, line in lines:
        if not isinstance(line.get("type"), str):
            raise ReaderError(f"{where(path, n)}: a line without a 'type': expected a Claude Code log line "
                              f"(user, assistant, system, summary, ...)")
    side = _sidechains(lines)
    inside = {n for group in side.values() for n, _ in group}
    main, branches = _rewinds([(n, line) for n, line in lines if n not in inside])
    name = path.name.split(".")[0]
    messages, meta = _read_lines(path, main)
    subagents, calls, skipped = [], [], []
    for k, group in enumerate(branches, 1):     # a branch the user rewound from: its requests were made
        try:
            sub, sub_meta = _read_lines(path, group, subagent=True)
        except ReaderError as exc:
            skipped.append(str(exc))
            continue
        subagents.append((f"{name}+branch-{k}", sub, sub_meta))
    for key, group in side.items():
        if not any(line.get("type") == "assistant" and line.get("message", {}).get("usage") for _, line in group):
            continue                         # no request of its own: nothing to bill
        try:
            sub, sub_meta = _read_lines(path, group, subagent=True)
        except ReaderError as exc:
            skipped.append(str(exc))
            continue
        subagents.append((f"{name}+{str(key)[:12]}", sub, sub_meta))
    for sub_path in subagent_files(path, lines):
        try:
            sub_lines = json_lines(sub_path)
            if "acompact" in sub_path.name:  # the compaction call itself: its usage, not a conversation
                calls += [u for u in _requests(sub_lines) if u]
                continue
            sub, sub_meta = _read_lines(sub_path, sub_lines, subagent=True)
        except ReaderError as exc:
            skipped.append(str(exc))
            continue
        subagents.append((f"{name}+{sub_path.stem}", sub, sub_meta))
    files = subagent_files(path, lines)
    copied = _progress_copies(lines, {p.stem.removeprefix("agent-") for p in files})
    for key, group in copied.items():    # a subagent whose own file is not beside the log: its progress copies
        try:
            sub, sub_meta = _read_lines(path, group, subagent=True)
        except ReaderError as exc:
            skipped.append(str(exc))
            continue
        subagents.append((f"{name}+{key[:12]}", sub, sub_meta))
    meta["subagents"], meta["subagent_files"] = subagents, [str(p) for p in files]
    if calls:
        meta["compaction_calls"] = calls
    notes = meta["reader_notes"]
    notes[:0] = cut
    if _stream_output(messages, meta, subagents):
        notes.append(tr("subagents' output: the result line's modelUsage less the main chain's usage, shared by "
                        "visible reply (their lines carry only streaming placeholders)"))
    if side:
        lines_ = sum(len(group) for group in side.values())
        read_as = trn("{n} conversation read as a session of its own", "{n} conversations read as sessions of "
                      "their own", sum(1 for s in subagents if "+agent-" not in s[0]))
        notes.insert(0, trn("{n} subagent (sidechain) line: {read_as}",
                            "{n} subagent (sidechain) lines: {read_as}", lines_, read_as=read_as))
    notes += [trn("{n} branch the user rewound from (the conversation went on from an earlier message): "
                  "billed as a session of its own", "{n} branches the user rewound from (the conversation went "
                  "on from an earlier message): billed as sessions of their own", len(branches))] * bool(branches)
    notes += [trn("{n} subagent read from its progress copies (its own file is not beside the log)",
                  "{n} subagents read from their progress copies (their own files are not beside the log)",
                  len(copied))] * bool(copied)
    notes += [tr("subagent not read: {reason}", reason=r) for r in skipped]
    return name, messages, meta


def _visible(messages: list, only=None) -> int:
    """Tokens of what the assistant messages show (text and tool calls), or of the messages at `only`."""
    from lessonkit.tokens import count_text

    out = 0
    for i, m in enumerate(messages):
        if (only is None and m.get("role") != "assistant") or (only is not None and i not in only):
            continue
        for b in m.get("content") if isinstance(m.get("content"), list) else [{"text": m.get("content")}]:
            out += count_text(str(b.get("text") or "")) + count_text(json.dumps(b.get("input") or ""))
    return out


def _stream_output(messages: list, meta: dict, subagents: list) -> bool:
    """Stream-json only: what its result line states of the subagents' requests. Their lines' output_tokens
    are streaming placeholders; modelUsage holds every model's total output, usage the main chain's. What a
    model's total holds beyond the main chain is its subagents' replies and, for the main model, Claude
    Code's compaction calls: shared over them in proportion to what each shows (its visible replies, the
    summary). Each subagent's meta gets its share as its logged output (spread over its requests by
    bill.spread_output); the main meta's result gets "beside": the subagents' own usage of the main model,
    so that the compaction call is what remains (baselines.unlogged_calls). True if it shared anything."""
    result = meta.get("result") or {}
    totals, main_usage = result.get("modelUsage"), result.get("usage")
    streamed = [sub for sub in subagents if not sub[2].get("output_logged")]
    if not isinstance(totals, dict) or not isinstance(main_usage, dict) or not streamed:
        return False
    models = [u.get("model") for u in meta.get("usage_per_turn") or [] if isinstance(u, dict) and u.get("model")]
    main = max(set(models), key=models.count) if models else meta.get("model")

    def model_of(sub_meta):
        found = [u.get("model") for u in sub_meta.get("usage_per_turn") or [] if isinstance(u, dict)]
        return max(set(found), key=found.count) if found else main
    summaries = {m.get("message_index") for m in meta.get("markers") or []
                 if m.get("kind") == "claude_code_compaction_summary"}
    claims = [(model_of(sm), _visible(sub), sm) for _, sub, sm in streamed]
    claims.append((main, _visible(messages, summaries) if summaries else 0, None))    # the compaction calls
    beside = dict.fromkeys(("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                            "output_tokens"), 0)
    for model in {c[0] for c in claims}:
        stats = totals.get(model) if isinstance(totals.get(model), dict) else {}
        pool = int(stats.get("outputTokens") or 0) - (int(main_usage.get("output_tokens") or 0) if model == main else 0)
        mine = [c for c in claims if c[0] == model]
        weight = sum(w for _, w, _ in mine)
        for _, w, sub_meta in mine:
            if sub_meta is None:
                continue
            share = max(0, round(pool * w / weight)) if weight else 0
            sub_meta["result"] = {"usage": {"output_tokens": share}}
            if model == main:
                beside["output_tokens"] += share
                for u in sub_meta.get("usage_per_turn") or []:
                    for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
                        beside[key] += int((u or {}).get(key) or 0)
    result["beside"] = beside
    return True


def _requests(lines) -> list:
    """The usage of each request of a file's assistant lines (one per message id)."""
    by_id, out = {}, []
    for _, line in lines:
        message = line.get("message")
        if line.get("type") == "assistant" and isinstance(message, dict):
            found = _usage(message, line, by_id)
            if found is not None and all(found is not u for u in out):
                out.append(found)
    return out


def _read_lines(path: Path, lines, subagent: bool = False) -> tuple[list, dict]:
    """(messages, meta) of one conversation's lines (the main chain, or one subagent's)."""
    b, meta = Builder("cc"), {"format": "claude-code"}
    task, boundary, thinking, stream, by_id, synthetic = None, None, 0, False, {}, 0
    for n, line in lines:
        kind = line.get("type")
        if "parent_tool_use_id" in line or kind in ("result",) or line.get("subtype") == "init":
            stream = True
        if kind == "system":
            if line.get("subtype") == "init":
                meta.update(model=line.get("model"), tools_available=line.get("tools") or [],
                            claude_code_version=line.get("claude_code_version"))
            elif line.get("subtype") == "compact_boundary":
                info = line.get("compact_metadata") or line.get("compactMetadata") or {}
                boundary = {"kind": "claude_code_compaction_summary", "trigger": info.get("trigger"),
                            "pre_tokens": info.get("pre_tokens", info.get("preTokens")),
                            "post_tokens": info.get("post_tokens", info.get("postTokens"))}
            continue
        if kind == "result":
            meta["result"] = {k: line[k] for k in ("total_cost_usd", "num_turns", "usage", "modelUsage")
                              if k in line}
            continue
        if kind not in ("user", "assistant"):
            continue                     # progress copies, snapshots, titles: not requests
        message = line.get("message")
        if not isinstance(message, dict):
            raise ReaderError(f"{where(path, n)}: a {kind} line without a 'message' object")
        content = message.get("content")
        if kind == "assistant" and (message.get("model") in FREE or line.get("isApiErrorMessage")):
            synthetic += 1               # Claude Code's own stand-in reply (an API error shown): no request,
            continue                     # and never sent to the model
        if kind == "assistant":
            if not isinstance(content, list):
                raise ReaderError(f"{where(path, n)}: assistant content is not a list of blocks")
            meta.setdefault("model", message.get("model"))
            thinking += sum(1 for c in content if isinstance(c, dict) and "thinking" in str(c.get("type")))
            b.assistant([c.get("text") for c in content if isinstance(c, dict) and c.get("type") == "text"],
                        [(c.get("id"), c.get("name"), c.get("input") or {}) for c in content
                         if isinstance(c, dict) and c.get("type") == "tool_use"],
                        _usage(message, line, by_id), message.get("id"))
            continue
        texts = [content] if isinstance(content, str) else []
        for c in content if isinstance(content, list) else []:
            if not isinstance(c, dict):
                raise ReaderError(f"{where(path, n)}: a user content block is not an object")
            if c.get("type") == "tool_result":
                b.result(c.get("tool_use_id"), text_of(c.get("content")), c.get("is_error") is True)
            elif c.get("type") == "text":
                texts.append(c.get("text", ""))
        for text in texts:
            if task is None and not b.messages:
                task = text
            elif boundary is not None or line.get("isCompactSummary"):
                b.user(text, boundary or {"kind": "claude_code_compaction_summary"})
                boundary = None
            else:
                b.user(text)
    if not b.messages:
        raise ReaderError(f"{where(path)}: no user or assistant line of the {'subagent' if subagent else 'main'} chain")
    if task is None:
        task = task_or_stand_in(path, b)
    messages, markers, usage = b.finish(task)
    b.notes += [trn("dropped {n} thinking block", "dropped {n} thinking blocks", thinking)] * bool(thinking)
    b.notes += [trn("skipped {n} reply Claude Code made up itself (an API error shown as a message): no request",
                    "skipped {n} replies Claude Code made up itself (API errors shown as messages): no requests",
                    synthetic)] * bool(synthetic)
    b.notes.append(tr("system prompt and tool schemas are not in the log"))
    meta.update(markers=markers, usage_per_turn=usage, reader_notes=b.notes, source=str(path),
                output_logged=not stream, repeats_per_turn=b.repeats)
    repeated = sum(len(r) for r in b.repeats)
    b.notes += [trn("{n} request sent again on the same history (a retry): billed at its turn",
                    "{n} requests sent again on the same history (retries): billed at their turns",
                    repeated)] * bool(repeated)
    return messages, meta


def _usage(message: dict, line: dict, by_id: dict) -> dict | None:
    """The usage of the request behind this line, shared by every line of its message id: with its model
    and timestamp, and the largest output_tokens seen (a line can carry a streaming placeholder)."""
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None
    key = message.get("id") or id(message)
    found = by_id.get(key)
    if found is None:
        found = by_id[key] = {**usage, "model": message.get("model"), "timestamp": line.get("timestamp")}
    found["output_tokens"] = max(int(found.get("output_tokens") or 0), int(usage.get("output_tokens") or 0))
    return found
