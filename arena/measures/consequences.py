"""Consequences, not counts: the items a strategy had removed at the moment the agent needed them.

Motto: forgetting costs nothing until the agent needs what it forgot.

    recorded future: request t  ──  Read src/a.py          (the same file as result r0)  -> r0 needed at t
                                ──  Bash "pytest -x"       (the same command as r2)      -> r2 needed at t
                                ──  Edit old_string "def total(items):"  (a line of r0)  -> r0 needed at t
    strategy's request at t: does it still hold r0 whole?   no -> one needed item removed

A tool result is *needed* at request t when the recorded agent, in the assistant
message that request produced, re-reads the same file (a path-like input value,
metrics.input_paths), re-runs the same command (an identical `command`/`cmd`
input), or quotes a line of it (a line of the result, QUOTE_CHARS or longer once
stripped, appears as a line of its text or of a string in its tool inputs). The
trajectory is fixed, so the need is read from what the agent really did next.

A need is charged to the newest earlier result with that path, command or line
(an agent that read a file twice needs the second read). For each strategy: how
many (request, result) needs found the result removed from the
request it sent at that moment: no tool_result with that id whose text is the
original (cleared, masked, summarised, persisted to a preview) and, for a quote,
the quoted line nowhere in the request either (a summary that kept the line keeps
what was needed). Lower is better; 'none' scores 0 by construction.

What it measures, and not: a re-read proves the agent wanted the content again,
even if the recording agent still had it (agents re-read files they hold), so a
count of needs is an upper bound on real harm; and a strategy that forgot
something cannot be seen going wrong, only seen missing what the recorded agent used.

Example: read a.py, five other reads, then an Edit quoting a.py -> masking-1 removed 1 of 1 need, none 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lessonkit.i18n import tr

from ..sessions.edits import blocks, result_text
from .metrics import input_paths, normalize, strings_in

QUOTE_CHARS = 24          # a quoted line must be at least this long once stripped (not "}" or "return x")
COMMAND_KEYS = ("command", "cmd")
KINDS = ("re-read", "re-run", "quote")     # why a result is needed, as Needs.needs records it


def _lines(text: str) -> set[str]:
    return {s for s in (ln.strip() for ln in text.splitlines()) if len(s) >= QUOTE_CHARS}


def _command(inp: dict) -> str | None:
    for key in COMMAND_KEYS:
        if isinstance(inp.get(key), str) and inp[key].strip():
            return normalize(inp[key])
        if isinstance(inp.get(key), list):
            return normalize(" ".join(map(str, inp[key])))
    return None


@dataclass
class Needs:
    """Every (turn, tool_use_id, why, quoted line) need of a session, from its recorded future."""
    needs: list = field(default_factory=list)       # (turn, id, why, line or None)
    originals: dict = field(default_factory=dict)   # tool_use_id -> the result's text as recorded

    @property
    def items(self) -> int:
        """Distinct results needed at least once."""
        return len({n[1] for n in self.needs})

    @property
    def moments(self) -> int:
        """Distinct (request, result) needs: what Checker counts."""
        return len({(n[0], n[1]) for n in self.needs})

    def by_kind(self) -> dict:
        """Needs per kind, every kind named. Example: {"re-read": 40, "re-run": 9, "quote": 0}"""
        return {why: sum(1 for n in self.needs if n[2] == why) for why in KINDS}

    def line(self) -> str:
        """The needs in a sentence, in the student's language.
        Example: "49 needs of 38 earlier results, by kind: re-read 40, re-run 9, quoted 0" """
        kinds = self.by_kind()
        return tr("{moments} needs of {items} earlier results, by kind: re-read {reread}, re-run {rerun}, "
                  "quoted {quote}", moments=self.moments, items=self.items, reread=kinds["re-read"],
                  rerun=kinds["re-run"], quote=kinds["quote"])


def find_needs(session) -> Needs:
    """The needs of `session` (see the module docstring)."""
    out, by_path, by_command, by_line, calls = Needs(), {}, {}, {}, {}
    turn_of = {index: t for t, index in enumerate(session.turns)}
    for i, message in enumerate(session.messages):
        if message.get("role") == "assistant":
            t, seen = turn_of[i], set()
            content = message.get("content")
            texts = [content] if isinstance(content, str) else []
            for b in blocks(message):
                if b.get("type") == "text":
                    texts.append(b.get("text", ""))
                elif b.get("type") == "tool_use":
                    inp = b.get("input") or {}
                    calls[b.get("id")] = inp
                    for path in input_paths(inp):
                        for item in by_path.get(path, ()):
                            seen.add((item, "re-read", None))
                    for item in by_command.get(_command(inp), ()) if _command(inp) else ():
                        seen.add((item, "re-run", None))
                    strings_in(inp, texts)
            for text in texts:
                for line in {ln.strip() for ln in text.splitlines()}:
                    for item in by_line.get(line, ()):
                        seen.add((item, "quote", line))
            out.needs += [(t, item, why, line) for item, why, line in sorted(seen, key=str)]
        else:
            for b in blocks(message):
                if b.get("type") != "tool_result":
                    continue
                key, text = b.get("tool_use_id"), result_text(b)
                out.originals[key] = text
                inp = calls.get(key, {})
                for path in input_paths(inp):      # the newest result for a path, command, line
                    by_path[path] = [key]
                if _command(inp):
                    by_command[_command(inp)] = [key]
                for line in _lines(text):
                    by_line[line] = [key]
    return out


class Checker:
    """One replay's probe: at each request, which of the needs of that turn the request has removed."""

    def __init__(self, needs: Needs):
        self.needs, self.removed, self.checked = needs, [], 0
        self.at: dict = {}                  # turn -> item -> [(why, line)]
        for t, item, why, line in needs.needs:
            self.at.setdefault(t, {}).setdefault(item, []).append((why, line))

    def __call__(self, turn: int, messages: list) -> None:
        wanted = self.at.get(turn)
        if not wanted:
            return
        held = {b.get("tool_use_id"): result_text(b) for m in messages if m.get("role") == "user"
                for b in blocks(m) if b.get("type") == "tool_result"}
        whole = None
        for item, reasons in wanted.items():
            self.checked += 1
            if held.get(item) == self.needs.originals.get(item):
                continue
            if all(line is not None for _, line in reasons):     # only quoted: are the lines still there?
                whole = whole if whole is not None else _request_text(messages)
                if all(line in whole for _, line in reasons):
                    continue
            self.removed.append((turn, item, ",".join(sorted({why for why, _ in reasons}))))


def _request_text(messages: list) -> str:
    """Every line the request shows (texts, tool inputs, results), stripped, one per line."""
    return "\n".join(ln.strip() for m in messages for ln in _raw_text(m).splitlines())


def _raw_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = []
    for b in blocks(message):
        parts += [b.get("text", "")] if b.get("type") == "text" else \
            [result_text(b)] if b.get("type") == "tool_result" else strings_in(b.get("input") or {}, [])
    return "\n".join(parts)
