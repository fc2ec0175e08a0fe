"""Bills that match the logs: the counter calibrated per block kind on the first requests, checked on the rest.

Motto: calibrate on what a user would have; check on what they would not.

    a log with usage per request (Claude Code)
        clean growth steps t-1 -> t:  logged growth g_t,  counted tokens of the new blocks by kind
                                      c_t = (text, code, JSON, CJK)           (kind_of: one block's kind)
        first part (FIT of the steps, at least MIN_STEPS):  fit w >= 0 with  g_t ~ w . c_t on the steps
                                      the new blocks explain, plus tokens per harness event (bills/log_events.py)
                                      (least squares, pulled towards the pooled ratio for rare kinds)
        the rest:  error = (sum (w . c_t + events_t) - sum g_t) / sum g_t  (held out: never fitted on)
        prefix:    logged input of request 0 - counted request 0 (with w): system prompt, tools, files
        cache:     what the log's reads and writes state, as events alike for every strategy (bills/log_events.py):
                   a loss (a pause, a rewrite: cache_events), a request's uncached tail (uncached_tails),
                   a read found past 20 new blocks (found_far); each write 5-minute / 1-hour as the log
                   splits it; a request sent again on the same history (Session.repeats) sent again
        model:     each request's logged model, priced at its own list price (prices.py)
        output:    the logged output_tokens where final (strategy-independent: the trajectory is fixed);
                   stream-json logs only carry placeholders per request, but their result line has the
                   session's total (thinking included): shared over the requests in proportion to each
                   visible reply (spread_output); with neither, the counted visible reply

BillModel(w, ...) is what every strategy on the session is replayed with (run.py), so the
comparison stays fair; check(session) replays what was sent ('recorded' after a real
compaction, else 'none') and compares it with the bill of the log's own usage.

Example: fit(session).line() -> 'text x1.21, code x1.33, JSON x1.52, CJK x1.90 (fit on 12 of 37 steps;
         held-out growth error -2.1 %)'

Not modeled: Claude Code's side calls the log does not hold (the result line's other models), thinking
tokens re-sent within one tool loop (absorbed by the fit).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from lessonkit.i18n import tr

from .accounting import UNRECORDED, UNRECORDED_TEXT, BlockMemo, block_key
from .calibration import logged_input
from .log_events import cache_events, carry, found_far, median_ratio, step_ratios, uncached_tails, unexplained
from .prices import SONNET, Prices, for_model

KINDS = ("text", "code", "json", "cjk")
_PLAIN = BlockMemo()
FIT = 1 / 3           # share of the clean growth steps the counter is fitted on (the rest checks it)
MIN_STEPS = 5
PULLS = (0.01, 0.1, 1.0, 10.0)   # ridge weights towards the pooled ratio (relative to the data's own weight):
                                 # the one with the least leave-one-out error on the fitted steps is used
PULL = 1.0
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uff00-\uffef]")
CODE = re.compile(r"^(\s{2,}\S|.*[;{}]\s*$|\s*(def|class|import|from|return|if|for|function|const|let)\b)")


def kind_of_text(text: str) -> str:
    """'cjk', 'json', 'code' or 'text' for a string. Example: kind_of_text('{"a": 1}') -> 'json'"""
    stripped = text.strip()
    letters = sum(1 for c in stripped if not c.isspace()) or 1
    if len(CJK.findall(stripped)) > 0.2 * letters:
        return "cjk"
    if stripped[:1] in "{[" and stripped[-1:] in "}]":
        try:
            json.loads(stripped)
            return "json"
        except ValueError:
            pass
    lines = [line for line in stripped.splitlines() if line.strip()]
    if lines and sum(1 for line in lines if CODE.match(line)) > 0.4 * len(lines):
        return "code"
    return "text"


def kind_of(block) -> str:
    """The kind of one message block: a tool call's input is JSON; text and results by their text."""
    if isinstance(block, str):
        return kind_of_text(block)
    if not isinstance(block, dict):
        return "text"
    if block.get("type") == "tool_use":
        return "json"
    content = block.get("content", block.get("text", ""))
    if isinstance(content, list):
        content = "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return kind_of_text(content if isinstance(content, str) else "")


class KindMemo(BlockMemo):
    """A BlockMemo that scales each block by its kind's weight (the stand-in block keeps its stated tokens)."""

    def __init__(self, prefix: int = 0, weights: dict | None = None, blocks: dict | None = None,
                 factor: float = 1.0):
        super().__init__(prefix=prefix)
        self.weights = dict(weights or {})
        self.blocks = blocks or {}       # block key -> the log's own ratio for that block (unlogged.step_ratios)
        self.factor = factor             # every weight times this (the spread's what-if runs)
        self._kinds: dict = {}

    def segment(self, role: str, block, first: bool):
        n, digest, marked = super().segment(role, block, first)
        if not block or (isinstance(block, dict) and UNRECORDED.match(str(block.get("text", "")))):
            return n, digest, marked
        w = self._kinds.get(digest)
        if w is None:
            w = self.blocks.get(memo_key(role, block, first))
            w = self._kinds[digest] = self.factor * (self.weights.get(kind_of(block), 1.0) if w is None else w)
        return round(n * w), digest, marked

    def fixed_segments(self, request: dict):
        """BlockMemo's, with the unrecorded prefix a breakpoint: Claude Code caches its system prompt
        and tools on their own, so a request after a compaction still reads them."""
        out = super().fixed_segments(request)
        if request.get("tools") and self.prefix and out and not out[-1][2]:
            out[-1] = (out[-1][0], out[-1][1], True)
        return out


def memo_key(role: str, block, first: bool):
    """A block's identity within a message (the key BlockMemo counts it under)."""
    return (role, first, ("text", block) if isinstance(block, str) else block_key(block))


def block_ratios(session, ratios: dict) -> dict:
    """{block key: ratio} for every block new at a step whose ratio the log states (unlogged.step_ratios)."""
    out, turns = {}, session.turns
    for t, r in ratios.items():
        for m in session.messages[turns[t - 1]:turns[t]]:
            content, role = m.get("content"), m.get("role")
            blocks = [content] if isinstance(content, str) or not content else content
            for k, b in enumerate(blocks):
                if b:
                    out.setdefault(memo_key(role, b, k == 0), r)
    return out


def _by_kind(messages: list) -> dict:
    plain, out = BlockMemo(), dict.fromkeys(KINDS, 0)
    for m in messages:
        content, role = m.get("content"), m.get("role")
        blocks = [content] if isinstance(content, str) or not content else content
        for k, b in enumerate(blocks):
            if isinstance(b, dict) and UNRECORDED.match(str(b.get("text", ""))):
                continue
            out[kind_of(b) if b else "text"] += plain.segment(role, b, k == 0)[0]
    return out


def steps(session, turn: bool = False) -> list[tuple]:
    """(counted tokens by kind, logged growth[, request index]) for each clean growth step of the session."""
    logged = [logged_input(u) for u in session.usage] if session.usage else []
    turns, cut, out = session.turns, {i for i, _ in session.recorded}, []
    for t in range(1, min(len(turns), len(logged))):
        a, b = logged[t - 1], logged[t]
        if a is None or b is None or b <= a or any(turns[t - 1] < i <= turns[t] for i in cut):
            continue
        out.append((_by_kind(session.messages[turns[t - 1]:turns[t]]), b - a) + ((t,) if turn else ()))
    return out


def _solve(a: list, b: list) -> list:
    """x with a x = b (Gaussian elimination with partial pivoting; a is small and regularized)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[c][c]:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def fit_weights(train: list, pull: float = None) -> dict:
    """Per-kind weights (logged tokens per counted token) fitted on (counts by kind, growth) steps,
    pulled towards the pooled ratio by `pull` (default PULL: see its comment)."""
    pull = PULL if pull is None else pull
    counted, grown = sum(sum(c.values()) for c, _ in train), sum(g for _, g in train)
    pooled = grown / counted if counted else 1.0
    scale = sum(sum(c.values()) ** 2 for c, _ in train) / max(1, len(train)) * pull * len(train)
    a = [[sum(c[i] * c[j] for c, _ in train) + (scale if i == j else 0) for j in KINDS] for i in KINDS]
    b = [sum(c[i] * g for c, g in train) + scale * pooled for i in KINDS]
    w = _solve(a, b)
    return {k: min(3 * pooled, max(pooled / 3, x)) for k, x in zip(KINDS, w)}


def choose_pull(train: list) -> float:
    """The PULLS value whose fit best predicts each fitted step from the others (leave-one-out)."""
    def loo(pull):
        err = 0.0
        for i, (c, g) in enumerate(train):
            w = fit_weights(train[:i] + train[i + 1:], pull)
            err += (sum(w[k] * c[k] for k in KINDS) - g) ** 2
        return err
    return min(PULLS, key=loo) if len(train) > 2 else PULL


@dataclass
class BillModel:
    """What a replay of one logged session is counted and priced with (see the module docstring)."""
    weights: dict
    prefix: int = 0
    hour: list = field(default_factory=list)      # per turn: the share of its cache writes the log wrote for 1 hour
    models: list = field(default_factory=list)
    times: list = field(default_factory=list)
    outputs: list = field(default_factory=list)   # logged final output per turn, or None
    fitted: int = 0                               # steps whose own ratio the log states
    checked: int = 0                              # requests compared (bill_check.py)
    error: float | None = None                    # the per-kind counter's error on those steps (new blocks)
    size_error: float | None = None               # request sizes, replayed vs logged (bill_check.py)
    unlogged: int = 0                             # tokens no message of the log holds, carried as stand-ins
    blocks: dict = field(default_factory=dict)    # block key -> its step's logged ratio
    events: dict = field(default_factory=dict)    # request t -> the last request whose cache entries survive
    tails: dict = field(default_factory=dict)     # request t -> tokens it sent uncached after its last breakpoint
    found: set = field(default_factory=set)       # requests that read the request before's entry over > LOOKBACK
                                                  # new blocks (the log's read): the cache looks back that far

    @property
    def spread(self) -> float:
        """The measured error of the replay of what was sent (request sizes where checked, else the counter's)."""
        found = self.size_error if self.size_error is not None else self.error
        return abs(found or 0.0)

    def memo(self, spread: float = 0.0) -> KindMemo:
        """The counter of this model, every weight times (1 + spread)."""
        return KindMemo(self.prefix, self.weights, self.blocks, 1 + spread)

    def output(self, turn: int, message: dict) -> int:
        """Output tokens of a turn: the logged count (thinking included) where final, else the plain
        counter's count of the recorded message (the input weights also carry what the log hides)."""
        if turn < len(self.outputs) and self.outputs[turn] is not None:
            return int(self.outputs[turn])
        return max(0, _PLAIN.message_tokens(message) - 3)

    def warm(self, session, cache, model: str) -> None:
        """Put the fixed prefix in the cache when the log's first request read it (cached by an earlier
        session with the same system prompt and tools), as the first request found it."""
        first = session.usage[0] if session.usage else None
        if isinstance(first, dict) and int(first.get("cache_read_input_tokens") or 0) >= self.prefix > 0:
            cache.account({"model": model, "tools": session.tools, "system": session.system, "messages": []})

    def model(self, turn: int):
        return self.models[turn] if turn < len(self.models) else None

    def hour_share(self, turn: int) -> float:
        return self.hour[turn] if turn < len(self.hour) else (self.hour[-1] if self.hour else 0.0)

    def line(self) -> str:
        names = {"text": tr("text"), "code": tr("code"), "json": "JSON", "cjk": tr("cjk")}
        kinds = ", ".join(f"{names[k]} x{self.weights[k]:.2f}" for k in KINDS)
        err = tr("not checked (too few steps)") if self.error is None else f"{100 * self.error:+.1f} %"
        extra = tr("; {n} tokens no message holds carried as stand-ins", n=f"{self.unlogged:,}") \
            if self.unlogged else ""
        extra += tr("; {n} cache losses read off the log", n=len(self.events)) if self.events else ""
        return tr("each step's blocks at the log's own ratio ({fitted} steps); new blocks by kind: {kinds} "
                  "(their error on those steps {err})", kinds=kinds, fitted=self.fitted, err=err) + extra


def _hour_shares(usage: list) -> list:
    """Per request: the share of its cache writes that were 1-hour writes (the log's cache_creation split);
    a request that wrote nothing takes the session's share."""
    def split(u):
        written = int(u.get("cache_creation_input_tokens") or 0) if isinstance(u, dict) else 0
        parts = u.get("cache_creation") if isinstance(u, dict) else None
        hour = int(parts.get("ephemeral_1h_input_tokens") or 0) if isinstance(parts, dict) else 0
        return written, min(hour, written)
    pairs = [split(u) for u in usage]
    written = sum(w for w, _ in pairs)
    whole = sum(h for _, h in pairs) / written if written else 0.0
    return [h / w if w else whole for w, h in pairs]


def fit(session) -> BillModel | None:
    """The bill model of a session that logs usage per request (None otherwise); sets its prefix, carries
    what no message holds as stand-ins and reads the cache events off the log (bills/log_events.py)."""
    if not session.usage or logged_input(session.usage[0]) is None:
        return None
    found = steps(session, turn=True)
    median = median_ratio(found)
    clean = [s[:2] for s in found if not unexplained(s, median)] or [s[:2] for s in found]
    weights = fit_weights(clean, choose_pull(clean)) if found else dict.fromkeys(KINDS, 1.0)
    error = (sum(sum(weights[x] * c[x] for x in KINDS) for c, _ in clean) / sum(g for _, g in clean) - 1
             if clean else None)
    ratios, excess = step_ratios(found, weights)
    outputs = [u.get("output_tokens") if isinstance(u, dict) and session.output_logged else None
               for u in session.usage]
    total = session.logged.get("output_tokens")
    if not session.output_logged and isinstance(total, int) and total > 0:
        outputs = spread_output(session, total)
    model = BillModel(weights, 0, _hour_shares(session.usage), session.models, session.times, outputs,
                      len(ratios), 0, error)
    model.blocks = block_ratios(session, ratios)
    _reprefix(session, model)
    model.unlogged = carry(session, excess)
    turns, marks = session.turns, {i for i, _ in session.recorded}
    cut = {t for t in range(1, len(turns)) if any(turns[t - 1] < i <= turns[t] for i in marks)}
    last = [(session.repeats[t] if t < len(session.repeats) and session.repeats[t] else [u])[-1]
            for t, u in enumerate(session.usage)]
    model.events = cache_events(session.usage, cut, model.prefix, left=last)
    model.tails = uncached_tails(session.usage)
    model.found = found_far(session, last, cut)
    return model


def spread_output(session, total: int) -> list[int]:
    """The result line's total output shared over the turns in proportion to each visible reply (the
    thinking the log does not show is taken to follow the reply's size): a trajectory constant, the same
    for every strategy. Example: replies of 10 and 30 counted tokens, total 400 -> [100, 300]"""
    shown = [max(0, _PLAIN.message_tokens(session.messages[i]) - 3) for i in session.turns]
    whole = sum(shown)
    if not whole:
        return [total // max(1, len(shown))] * len(shown)
    return [round(total * n / whole) for n in shown]


def _reprefix(session, model: BillModel) -> None:
    """Measure the unrecorded prefix again with the fitted counter (fixed part + attached stand-in)."""
    first = session.usage[0]
    messages = [dict(m) for m in session.messages]
    content = messages[0]["content"]
    if isinstance(content, list):
        messages[0]["content"] = [b for b in content if not (isinstance(b, dict) and UNRECORDED.match(
            str(b.get("text", ""))))]
    memo = model.memo()
    counted = memo.request_tokens({"tools": session.tools, "system": session.system,
                                   "messages": messages[:session.turns[0]]})
    missing = max(0, logged_input(first) - counted)
    fixed = min(missing, int(first.get("cache_read_input_tokens") or 0)) or missing
    if missing - fixed:
        messages[0]["content"] = list(messages[0]["content"]) + [
            {"type": "text", "text": UNRECORDED_TEXT.format(n=missing - fixed)}]
    session.messages, session.prefix_tokens, model.prefix = messages, fixed, fixed


def logged_bill(session, default: Prices = SONNET) -> float | None:
    """Dollars of the log's own per-request usage, each at its model's price (output: final counts,
    else the result line's total at the main model's price); None when the log has no usage."""
    usage = [u for _, _, u in session.logged_requests if isinstance(u, dict)]
    if not usage:
        return None
    total = sum(for_model(u.get("model"), default).cost({**u, "output_tokens": 0}) for u in usage)
    if session.output_logged:
        total += sum(for_model(u.get("model"), default).output * int(u.get("output_tokens") or 0)
                     for u in usage) / 1e6
    elif isinstance(session.logged.get("output_tokens"), int):
        total += for_model(usage[0].get("model"), default).output * session.logged["output_tokens"] / 1e6
    return total
