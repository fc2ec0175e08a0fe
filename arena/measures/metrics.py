"""What the arena measures per strategy and session: money, tokens, cache, safety, memory, speed.

Motto: a cheaper request that forgot the error is not cheaper.

    Replay ──> Row: cost $ · cumulative input · uncached / cache write / cache read · output
                    summary calls · peak request vs window · requests over it · invalid requests
                    recall of key facts in the final request · output recall (probes.py)
                    · strategy ms per turn

Key facts (the recall metric), extracted from the session as recorded (the
recording agent's own compaction summaries excluded):

  * requests  every user text that is not a compaction artifact, first FACT_CHARS
              characters (whitespace collapsed)
  * paths     every file path a tool call touched: the values of path-like input
              keys (path, file_path, notebook_path, ... at any depth, e.g. Codex's
              apply_patch `changes`), and path-like words of shell commands (a word
              with a "/" or a known source-file extension; URLs, flags and /dev/
              excluded)
  * errors    for every failed tool result (is_error, or an exit-code marker:
              "[exit code N]", "[exit_code: N]", "<returncode>N</returncode>" with
              N != 0) its first error-looking line (offline.conversation.calls.
              ERROR_LINE), else its first non-empty line, cut to FACT_CHARS

A fact is present if its text, whitespace collapsed, occurs in the final request
(every text block, every string in tool inputs, every tool result; a summary in
the request counts like any other text); a path also counts if its file name
(the last part, when it has an extension: "base-phase.ts") occurs, since a summary
names files that way. Recall = present facts / all facts.

Example: a session whose only failed call printed "ImportError: no module x" and
whose final request still shows it -> errors 1/1.

What key-fact recall measures, and its limits. It asks whether three kinds of
fact a design may choose to keep are still visible at the end. Clearing strategies
never remove user text or tool inputs, so their requests and paths are always
1.00; a summary must copy them word for word to score. The errors are the one kind
a clearing strategy can lose, and the recommended pipeline was designed to keep
exactly them: its placeholders carry `error_line(...)`, this module's own function.
Its 1.00 is therefore by construction, not a finding. probes.py adds output
recall, which no strategy was designed around; the report shows both. probes.py
takes its readings during the replay (and imports this module for the key facts);
`output_recall` and `at_compaction` here turn those readings into the row's figures.

Not modeled: paraphrase (a summary that says the same thing in other words does not count),
what happened to a fact before the final request (output recall probes ten turns).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from offline.conversation.calls import COMMAND_KEYS, ERROR_LINE, PATH_KEYS
from offline.conversation.reading import is_artifact

from ..bills.prices import SONNET, Prices
from ..sessions.edits import blocks, result_text

FACT_CHARS = 120       # characters of a request or an error line
PATH_CHARS = 1_000     # a path is kept whole (its file name must survive for the file-name match)
EXIT_MARKER = re.compile(r"\[exit[ _]code:? *[1-9]\d*\]|<returncode>\s*[1-9]\d*\s*</returncode>")
EXTENSIONS = ("py", "ts", "tsx", "js", "jsx", "mjs", "cjs", "json", "md", "txt", "toml", "yaml", "yml", "sh",
              "rs", "go", "java", "kt", "c", "h", "cc", "cpp", "hpp", "rb", "php", "cs", "swift", "html",
              "css", "scss", "cfg", "ini", "lock", "sql", "xml", "csv", "ipynb", "log", "rst")
WORD = re.compile(r"[^\s'\"`;|&<>(){}=,]+")
FILE_WORD = re.compile(r"^(?:\.{0,2}/)?[\w.@+~-]+(?:/[\w.@+~-]+)*/?$")


def normalize(text: str) -> str:
    """Whitespace runs -> one space. Example: 'a \\n  b' -> 'a b'"""
    return " ".join(text.split())


def command_paths(command: str) -> list[str]:
    """Path-like words of a shell command. Example: 'cat src/a.py | head -5' -> ['src/a.py']"""
    out = []
    for word in WORD.findall(command):
        word = word.rstrip(".:")
        if word.startswith(("-", "/dev/")) or "://" in word or not FILE_WORD.match(word):
            continue
        tail = word.rsplit("/", 1)[-1]
        if ("/" in word.strip("/") or "." in tail and tail.rsplit(".", 1)[-1] in EXTENSIONS) and \
                any(c.isalpha() for c in word):
            out.append(word)
    return out


def input_paths(value) -> list[str]:
    """File paths in a tool input, at any depth (path keys and shell commands)."""
    out = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in PATH_KEYS and isinstance(item, str) and item.strip():
                out.append(item.strip())
            elif key in COMMAND_KEYS and isinstance(item, str):
                out += command_paths(item)
            elif isinstance(item, (dict, list)):
                out += input_paths(item)
    elif isinstance(value, list):
        for item in value:
            out += input_paths(item)
    return out


def error_line(text: str) -> str:
    """The first error-looking line of a failed result, else its first non-empty line."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    hit = next((ln for ln in lines if ERROR_LINE.search(ln)), lines[0] if lines else "")
    return normalize(hit)[:FACT_CHARS]


@dataclass
class Facts:
    """The key facts of a session, by kind."""
    requests: list = field(default_factory=list)
    paths: list = field(default_factory=list)
    errors: list = field(default_factory=list)

    def all(self) -> list[tuple[str, str]]:
        return ([("requests", f) for f in self.requests] + [("paths", f) for f in self.paths]
                + [("errors", f) for f in self.errors])


def extract_facts(messages: list) -> Facts:
    """The key facts of a history (see the module docstring)."""
    requests, paths, errors = {}, {}, {}
    for msg in messages:
        content = msg.get("content")
        if msg.get("role") == "user":
            texts = [content] if isinstance(content, str) else [b.get("text", "") for b in blocks(msg)
                                                                 if b.get("type") == "text"]
            for text in texts:
                if text.strip() and not is_artifact(text):
                    requests[normalize(text)[:FACT_CHARS]] = True
            for b in blocks(msg):
                if b.get("type") == "tool_result":
                    text = result_text(b)
                    if b.get("is_error") is True or EXIT_MARKER.search(text[-400:] + text[:400]):
                        line = error_line(text)
                        if line:
                            errors[line] = True
        else:
            for b in blocks(msg):
                if b.get("type") == "tool_use":
                    for path in input_paths(b.get("input") or {}):
                        paths[normalize(path)[:PATH_CHARS]] = True
    return Facts(list(requests), list(paths), list(errors))


def strings_in(value, out: list) -> list:
    """Every string inside a JSON value, appended to `out` (returned). Example: {"a": ["x", 1]} -> ["x"]"""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            strings_in(item, out)
    elif isinstance(value, list):
        for item in value:
            strings_in(item, out)
    return out


def request_text(messages: list) -> str:
    """Everything a request shows the model, as one whitespace-normalised string."""
    parts = []
    for msg in messages:
        content = msg.get("content")
        if isinstance(content, str):
            parts.append(content)
            continue
        for b in content or []:
            kind = b.get("type")
            if kind == "text":
                parts.append(b.get("text", ""))
            elif kind == "tool_use":
                parts.append(b.get("name", ""))
                strings_in(b.get("input") or {}, parts)
            elif kind == "tool_result":
                parts.append(result_text(b))
    return normalize("\n".join(parts))


def file_name(path: str) -> str:
    """The last part of a path if it looks like a file name, else "".
    Example: '/repo/src/phases/base-phase.ts' -> 'base-phase.ts'; 'tests/unit/core/' -> ''"""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    stem, dot, ext = name.rpartition(".")
    return name if dot and stem and ext.isalnum() and "/" in path else ""


def names_file(path: str, text: str) -> bool:
    """Does `text` name the path's file on its own (not inside a longer name)?
    Example: names_file('/r/src/a.py', 'I edited a.py.') -> True; ... 'data.py' -> False"""
    name = file_name(path)
    return bool(name) and re.search(r"(?<![\w.-])" + re.escape(name) + r"(?![\w-])", text) is not None


def recall(facts: Facts, messages: list) -> dict[str, tuple[int, int]]:
    """{kind: (present, total)} plus "all", for the facts in the request `messages`."""
    text = request_text(messages)
    out = {}
    for kind in ("requests", "paths", "errors"):
        items = getattr(facts, kind)
        found = sum(1 for f in items if f in text or kind == "paths" and names_file(f, text))
        out[kind] = (found, len(items))
    out["all"] = tuple(map(sum, zip(*out.values())))
    return out


@dataclass
class Row:
    """One strategy on one session: the figures of the results table."""
    session: str
    strategy: str
    turns: int
    cost: float
    cumulative_input: int
    uncached: int
    cache_write: int
    cache_read: int
    output: int
    summary_calls: int
    peak: int
    window: int
    over: int
    invalid: int
    recall: float
    recall_detail: dict
    ms_per_turn: float
    output_recall: float = 1.0                               # probes.py: mean over the probe turns
    at_compaction: dict = field(default_factory=dict)        # probes.py: at a recorded compaction
    needed_lost: int = 0                                     # consequences.py: needed items removed
    needed: int = 0                                          # ... out of this many needs checked
    lost_items: list = field(default_factory=list)           # (request, item, why) of each needed item lost
    first_compaction: int | None = None                      # the request of the strategy's first rewrite

    @property
    def fits(self) -> bool:
        """Never over the window and never invalid."""
        return self.over == 0 and self.invalid == 0


def output_recall(probes: dict) -> float:
    """Mean share of lines present over the evenly spaced probes (1.0 if no probe had a line)."""
    shares = [p / n for found in probes.values() if found.get("even") for p, n in [found["output"]] if n]
    return sum(shares) / len(shares) if shares else 1.0


def at_compaction(probes: dict) -> dict:
    """{"facts": (present, total), "output": (present, lines)} at the first recorded compaction, or {}."""
    for turn in sorted(probes):
        found = probes[turn]
        if "facts" in found:
            return {"facts": found["facts"]["all"], "output": found["output"], "detail": found["facts"]}
    return {}


def row(replay, facts: Facts, prices: Prices = SONNET) -> Row:
    """The table row for one replay (output recall from its probes, if it was probed)."""
    records = replay.records
    charged = [r for r in records if r.kind != "refused"]
    detail = recall(facts, replay.final_request)
    present, total = detail["all"]
    return Row(
        session=replay.session, strategy=replay.strategy, turns=len(replay.turn_tokens),
        cost=sum(r.cost(prices) for r in charged),
        cumulative_input=sum(r.tokens for r in charged),
        uncached=sum(r.uncached for r in charged), cache_write=sum(r.cache_write for r in charged),
        cache_read=sum(r.cache_read for r in charged), output=sum(r.output for r in charged),
        summary_calls=sum(1 for r in records if r.kind == "summary"),
        peak=max((r.tokens for r in records), default=0), window=replay.window,
        over=sum(1 for r in records if r.tokens > replay.window),
        invalid=sum(1 for r in records if r.error),
        recall=present / total if total else 1.0, recall_detail=detail,
        ms_per_turn=1000 * sum(replay.seconds) / max(1, len(replay.seconds)),
        output_recall=output_recall(replay.probes), at_compaction=at_compaction(replay.probes))
