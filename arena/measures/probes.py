"""A second recall measure, designed around no strategy: how much of what the tools printed lately
can the model still see?

Motto: the key facts say what a design chose to keep; raw output says what it threw away.

    session ──> probe turns: PROBES evenly spaced (the last one is the final request),
                + the first request after each compaction the recording agent made
    at probe turn t:
      lines  = distinct lines (whitespace collapsed, >= MIN_LINE characters) printed by the
               last RECENT tool results before t; at most MAX_LINES, evenly sampled
      present: the line occurs anywhere in the request t (any block, any summary, any input)
    output recall = mean over the evenly spaced probes of present / lines   (metrics.output_recall)

Why a second measure. The key facts (metrics.py) are the user's requests, the file
paths in tool inputs and the first error line of each failure. Clearing strategies
never touch tool inputs or user text, so paths and requests survive in all of them;
and the recommended pipeline copies each failure's first error line into its
placeholder, using the very function the metric uses (metrics.error_line). So key-fact
recall is 1.00 for it by construction: it measures whether a design kept those three
kinds of fact, not how much it forgot. Output recall counts the raw lines that no
strategy copies on purpose; a strategy that clears results early (to save money)
scores low on it, and that is the trade it makes.

At a recorded compaction (Claude Code's, in the two Claude Code traces) the probe
also takes the key facts of the history up to that point: the request right after
it is, for the 'recorded' baseline, the agent's own summary alone, so the probe
compares what that summary kept with what each strategy sends at the same turn.

Example: a request that shows 3 of the 40 lines the last 20 results printed -> (3, 40)

Not modeled: whether the model would need those lines (a trajectory replay cannot
ask), paraphrase (a summary that restates a line in other words does not count).
"""

from __future__ import annotations

from ..sessions.edits import blocks, result_text
from .metrics import extract_facts, normalize, recall, request_text

RECENT = 20        # tool results before the probe whose lines are counted
PROBES = 10        # evenly spaced probe turns per session
MIN_LINE = 16      # characters, whitespace collapsed: shorter lines ("}", "ok") prove nothing
MAX_LINES = 200    # lines per probe, evenly sampled (keeps a 550K-character log cheap to probe)


def output_lines(texts) -> list[str]:
    """Distinct long lines of some tool outputs, in order of first appearance.

    Example: output_lines(["def load_config(path):\\n}\\n", "def load_config(path):"])
      -> ["def load_config(path):"]
    """
    seen: dict[str, None] = {}
    for text in texts:
        for line in text.splitlines():
            line = normalize(line)
            if len(line) >= MIN_LINE:
                seen.setdefault(line, None)
    return list(seen)


def sample(items: list, n: int = MAX_LINES) -> list:
    """At most n items, evenly spaced, first and order kept. Example: sample([0..9], 3) -> [0, 3, 6]"""
    if len(items) <= n:
        return list(items)
    return [items[k * len(items) // n] for k in range(n)]


def recent_results(messages: list, n: int = RECENT) -> list[str]:
    """The texts of the last n tool results in `messages`."""
    out = []
    for m in reversed(messages):
        if m.get("role") != "user":
            continue
        for b in reversed(blocks(m)):
            if b.get("type") == "tool_result":
                out.append(result_text(b))
                if len(out) == n:
                    return out[::-1]
    return out[::-1]


def request_lines(messages: list) -> set[str]:
    """Every line of every text in the request, whitespace collapsed (the probe's fast path)."""
    out = set()
    for m in messages:
        content = m.get("content")
        parts = [content] if isinstance(content, str) else []
        for b in content if isinstance(content, list) else ():
            if b.get("type") == "text":
                parts.append(b.get("text", ""))
            elif b.get("type") == "tool_result":
                parts.append(result_text(b))
        for part in parts:
            out.update(normalize(line) for line in part.splitlines())
    return out


def present(lines: list[str], messages: list) -> int:
    """How many of `lines` occur in the request (whole lines first, then anywhere in its text)."""
    whole = request_lines(messages)
    missing = [line for line in lines if line not in whole]
    if not missing:
        return len(lines)
    text = request_text(messages)
    return len(lines) - len(missing) + sum(1 for line in missing if line in text)


def probe_turns(turns: int, probes: int = PROBES) -> list[int]:
    """Evenly spaced turn indices, the last one the final turn. Example: probe_turns(20, 4) -> [4, 9, 14, 19]"""
    return sorted({max(0, round(k * turns / probes) - 1) for k in range(1, probes + 1)}) if turns else []


class Probes:
    """The probe a replay calls on every request: `probes(turn, messages) -> dict | None`.

    Evenly spaced turns get {"output": (present, lines)}; the first turn after a
    recorded compaction also gets {"facts": recall dict of the history so far}.
    """

    def __init__(self, session, *, recent: int = RECENT, probes: int = PROBES):
        history, turns = session.messages, session.turns
        self.lines: dict[int, list[str]] = {}
        self.even = set(probe_turns(len(turns), probes))
        self.compaction: dict = {}
        for index, _ in session.recorded:
            after = next((t for t, i in enumerate(turns) if i > index), None)
            if after is not None:
                self.compaction[after] = extract_facts(history[:index + 1])
        for t in self.even | set(self.compaction):
            self.lines[t] = sample(output_lines(recent_results(history[:turns[t]], recent)))

    def __call__(self, turn: int, messages: list) -> dict | None:
        if turn not in self.lines:
            return None
        lines = self.lines[turn]
        out = {"output": (present(lines, messages), len(lines)), "even": turn in self.even}
        if turn in self.compaction:
            out["facts"] = recall(self.compaction[turn], messages)
        return out
