"""One recorded session for the arena: a history checked as the API checks a request, and what surrounds it.

Motto: replay what agents really did, not what we wish they had done.

    parsed JSON (a message list, or {"messages": [...], "system", "tools"}) + meta
         │  session_from: recording-agent summaries taken out · Codex's output cut · validated
         v
    Session(name, messages, system, tools, recorded=[(index, summary text)], notes,
            prefix_tokens, usage=[logged usage per turn], logged={totals})

The whole request. The system prompt and tool schemas come from the meta
(`system`, `tools`); where the log names the tools but not their schemas (Claude
Code's `tools_available`), each named tool gets a minimal schema, and the note says
so. A raw log read by arena/readers records each request's real usage:
its first request's logged input minus what the kit counts for it is the part of
the request the log does not hold (system prompt, tool schemas, attached files),
`prefix_tokens`, sent and counted with every agent request (accounting.py,
calibration.py). A Codex trace holding outputs as logged, not as sent, is cut the
way Codex cut them (harness.py), unless `truncate=False`.

A history is checked the way the API checks a request (offline.api.validate):
roles alternate, every tool_use is answered, no orphan tool_result. One that fails
raises SessionError with a one-line reason naming the session.

Compaction summaries that the recording agent wrote itself (Claude Code's "This
session is being continued..." user text, found by the meta's `markers` or,
without them, by offline.conversation.reading.is_artifact) are taken out of the
history the strategies replay: a strategy that never compacted would never have
seen them. They are kept in `Session.recorded`, for the "recorded" baseline.

When the trace does not record the tool schemas (most do not), each tool used
gets a minimal schema, so that requests carry `tools` as the real API requires.

The readers (readers/) and the folder loader (sessions/folders.py) both make their sessions here.

Example: session_from("s", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
  -> Session("s", messages=[...2 messages], tools=[], recorded=[], notes=[])

Not modeled: images (they count as the token counter counts them), thinking blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lessonkit.i18n import tr, trn
from offline.api.validate import ApiError, validate_request
from offline.conversation.reading import is_artifact

from .harness import cut_codex, needs_cut


class SessionError(ValueError):
    """A trace the arena cannot replay, with a one-line reason."""


@dataclass
class Session:
    """One recorded session: the history as it happened, and what surrounds it."""
    name: str
    messages: list
    system: str | list | None = None
    tools: list = field(default_factory=list)
    recorded: list = field(default_factory=list)   # [(message index, summary text)]
    source: str = ""
    notes: list = field(default_factory=list)
    prefix_tokens: int = 0                         # unrecorded fixed prefix, measured from logged usage
    usage: list = field(default_factory=list)      # logged usage dict (or None) per turn, where recorded
    logged: dict = field(default_factory=dict)     # logged totals: input_tokens, cached, output, cost_usd
    output_logged: bool = False                    # usage's output_tokens are final counts (not stream-json's)
    subagents: list = field(default_factory=list)  # Sessions of the subagents this session started
    parent: str = ""                               # for a subagent: its main session's name
    subagent_files: list = field(default_factory=list)   # the files its subagents were read from
    compactions: list = field(default_factory=list)  # what the log states of each of Claude Code's own
                                                   # compactions: {"pre_tokens", "post_tokens", "usage"}
    model_usage: dict = field(default_factory=dict)  # the result line's modelUsage (stream-json), if any
    result_usage: dict = field(default_factory=dict)  # the result line's usage: the logged requests' sum
    repeats: list = field(default_factory=list)    # per turn: the usage of each further request the log made on
                                                   # the same history (a retry), billed at that turn
    automatic_cache: bool = False                  # the provider caches every prompt by itself (OpenAI): no
                                                   # breakpoints to look back from, no write premium

    @property
    def models(self) -> list:
        """The logged model of each turn's request (None where the log does not say)."""
        return [u.get("model") if isinstance(u, dict) else None for u in self.usage] or [None] * len(self.turns)

    @property
    def logged_requests(self) -> list:
        """(turn, k, usage) for every request the log bills, in order: k = 0 the turn's own, 1.. its repeats."""
        out = []
        for t, u in enumerate(self.usage):
            out.append((t, 0, u))
            out += [(t, k, r) for k, r in enumerate(self.repeats[t] if t < len(self.repeats) else [], 1)]
        return out

    @property
    def times(self) -> list:
        """Seconds since the epoch of each turn's request, where logged (else None)."""
        from datetime import datetime

        out = []
        for u in self.usage or [None] * len(self.turns):
            stamp = u.get("timestamp") if isinstance(u, dict) else None
            try:
                out.append(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp())
            except (AttributeError, ValueError):
                out.append(None)
        return out

    @property
    def turns(self) -> list[int]:
        """Indices of the assistant messages: one model request each."""
        return [i for i, m in enumerate(self.messages) if m.get("role") == "assistant"]

    @property
    def tool_calls(self) -> int:
        return sum(1 for m in self.messages if m.get("role") == "assistant"
                   for b in _blocks(m) if b.get("type") == "tool_use")


def _blocks(message: dict) -> list:
    content = message.get("content")
    return content if isinstance(content, list) else []


def minimal_tools(messages: list) -> list:
    """A schema-less tool definition for each tool name the history uses, in order of use."""
    names = dict.fromkeys(b.get("name") for m in messages if m.get("role") == "assistant"
                          for b in _blocks(m) if b.get("type") == "tool_use" and b.get("name"))
    return [{"name": n, "description": f"{n} (schema not recorded in the trace)",
             "input_schema": {"type": "object"}} for n in names]


def _split_recorded(messages: list, indices: set) -> tuple[list, list, list]:
    """Take recording-agent summaries out of user messages: (messages, recorded, notes)."""
    out, recorded, notes = [], [], []
    for i, msg in enumerate(messages):
        content = msg.get("content")
        if msg.get("role") != "user":
            out.append(msg)
            continue
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        texts = [b for b in blocks if b.get("type") == "text"
                 and (i in indices or is_artifact(b.get("text", "")))]
        rest = [b for b in blocks if not any(b is t for t in texts)]
        if texts and rest:
            recorded += [(i, b["text"]) for b in texts]
            out.append({**msg, "content": rest})
        else:
            if texts:
                notes.append(tr("message {i}: a compaction summary alone in its message is kept in the history",
                                i=i))
            out.append(msg)
    return out, recorded, notes


def session_from(name: str, data, meta: dict | None = None, source: str = "", *,
                 truncate: bool = True) -> Session:
    """A Session from parsed JSON (a message list or {"messages": ...}); SessionError if unusable.

    `truncate=False` keeps a Codex trace's outputs as logged (harness.py)."""
    meta = dict(meta or {})
    if isinstance(data, dict):
        meta = {**data, **meta}
        data = data.get("messages")
    if not isinstance(data, list):
        raise SessionError(f"{name}: expected a JSON list of messages (or an object with 'messages')")
    markers = {m.get("message_index") for m in meta.get("markers") or [] if isinstance(m, dict)}
    messages, recorded, notes = _split_recorded(data, markers)
    if truncate and needs_cut(meta):
        messages, removed = cut_codex(messages)
        notes.append(tr("Codex's own output cut applied (256 lines / 10 KiB): {removed} characters not sent",
                        removed=f"{removed:,}"))
    try:
        validate_request({"model": "arena", "max_tokens": 1, "messages": messages})
    except ApiError as exc:
        raise SessionError(f"{name}: not a valid Messages-API history: {exc.message}") from None
    if not any(m["role"] == "assistant" for m in messages):
        raise SessionError(f"{name}: no assistant turn to replay")
    system, tools = meta.get("system"), _tools(meta.get("tools"), messages, notes)
    named = [n for n in meta.get("tools_available") or [] if isinstance(n, str)]
    if named and not meta.get("tools"):
        have = {t["name"] for t in tools}
        tools = tools + [t for t in minimal_tools([{"role": "assistant", "content": [
            {"type": "tool_use", "name": n} for n in named]}]) if t["name"] not in have]
        notes.append(trn("{n} tool named in the log, its schema not recorded: a minimal schema sent",
                         "{n} tools named in the log, schemas not recorded: minimal schemas sent", len(named)))
    if system is not None and not _accepted({"system": system}):
        notes.append(tr("the recorded system prompt is not one the API accepts: replayed without it"))
        system = None
    usage = list(meta.get("usage_per_turn") or [])
    if usage and len(usage) != sum(1 for m in messages if m["role"] == "assistant"):
        notes.append(tr("logged usage does not align with the turns: not used"))
        usage = []
    repeats = [list(r) if isinstance(r, list) else [] for r in meta.get("repeats_per_turn") or []]
    logged = _totals(meta)
    session = Session(name, messages, system, tools, recorded, source or str(meta.get("source", "")), notes,
                      0, usage, logged, bool(meta.get("output_logged")))
    session.subagent_files = list(meta.get("subagent_files") or [])
    session.repeats = repeats if usage and len(repeats) == len(usage) else []
    session.automatic_cache = bool(meta.get("automatic_cache"))
    calls = [u for u in meta.get("compaction_calls") or [] if isinstance(u, dict)]
    stated = [m for m in meta.get("markers") or [] if isinstance(m, dict)
              and m.get("kind") == "claude_code_compaction_summary"]
    session.compactions = [{"pre_tokens": m.get("pre_tokens"), "post_tokens": m.get("post_tokens"),
                            "usage": calls[k] if k < len(calls) else None} for k, m in enumerate(stated)]
    result = meta.get("result") if isinstance(meta.get("result"), dict) else {}
    if isinstance(result.get("modelUsage"), dict):
        session.model_usage = result["modelUsage"]
    if isinstance(result.get("usage"), dict):
        # what the log's own request lines hold of each kind (every request of the main chain, a retry
        # included, and its subagents' of the main model); the output only as the result line states it
        beside = result.get("beside") if isinstance(result.get("beside"), dict) else {}
        held = {k: sum(int(u.get(k) or 0) for _, _, u in session.logged_requests if isinstance(u, dict))
                for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")}
        session.result_usage = {**{k: v + beside.get(k, 0) for k, v in held.items()},
                                "output_tokens": int(result["usage"].get("output_tokens") or 0)
                                + beside.get("output_tokens", 0)}
    for sub_name, sub_messages, sub_meta in meta.get("subagents") or []:
        try:
            sub = session_from(sub_name, sub_messages, {**sub_meta, "tools": meta.get("tools")}, session.source)
        except SessionError as exc:
            session.notes.append(tr("subagent skipped: {reason}", reason=exc))
            continue
        sub.parent = name
        session.subagents.append(sub)
    return session


def _totals(meta: dict) -> dict:
    """Logged totals the meta file carries: Codex's turn usage, Claude Code's total_cost_usd."""
    out = {}
    usage = meta.get("usage")
    if isinstance(usage, dict):
        out.update({k: v for k, v in usage.items() if isinstance(v, (int, float))})
    cost = (meta.get("result") or {}).get("total_cost_usd") if isinstance(meta.get("result"), dict) else None
    if isinstance(cost, (int, float)):
        out["cost_usd"] = cost
    result = meta.get("result") if isinstance(meta.get("result"), dict) else {}
    if isinstance((result.get("usage") or {}).get("output_tokens"), int):
        out["output_tokens"] = result["usage"]["output_tokens"]     # the main chain's output, all requests
    return out


def _accepted(fields: dict) -> bool:
    """Would the API take a request with these fields (and one user message)?"""
    try:
        validate_request({"model": "arena", "max_tokens": 1, "messages": [{"role": "user", "content": "x"}],
                          **fields})
    except ApiError:
        return False
    return True


def _tools(recorded, messages: list, notes: list) -> list:
    """The recorded tool schemas if the API would take them, plus a minimal one for any other tool used."""
    used = minimal_tools(messages)
    if not recorded:
        return used
    if not isinstance(recorded, list) or not _accepted({"tools": recorded}):
        notes.append(tr("the recorded tool schemas are not ones the API accepts: minimal schemas used"))
        return used
    names = {t.get("name") for t in recorded}
    return list(recorded) + [t for t in used if t["name"] not in names]
