"""The arena notebook's exercise: design a compaction strategy under a budget, checked by replay.

Motto: a strategy is good when the bill says so, not when the token count does.

    my_strategy(history, ctx) -> messages          called before every request of the session
         │   history: the recorded messages so far (read-only: build new dicts, never edit them)
         │   ctx.tokens(messages), ctx.window: the request's size and the limit
         v
    replay on the notebook's session ──> every request valid? never over the window?
                                         the recorded history untouched?
                                         the newest results reach the model whole?
                                         failed calls still marked failed (is_error)?
                                         a cleared result says so (never sent empty)?
                                         cheaper than sending everything?
                                         at most BUDGET x what sending everything costs?

The starter clears every old tool result every turn. It is valid, it fits, it
sends far fewer tokens than sending everything, and it costs more: each turn it
rewrites a block far back in the prompt, so the cache can read almost nothing and
every request is a cache write (1.25x the input price instead of 0.1x). The check
says so with the figures (three cases: the cache, the bill, the budget).

MISTAKES holds wrong strategies a student plausibly writes, each with the words the
report says about it; hint() climbs a ladder of three hints, then shows the reference.

Reference: `batched_clearing` (below): clear only in whole batches of BATCH results,
so the prompt changes once every BATCH turns and the cache reads it in between.
The recommended pipeline (recommended.py) does the same with a batch size computed
from the prices, and keeps each failure's error line.

Example: check(batched_clearing, session, window=12_000)
  -> ✓ batched_clearing ($0.18 for 188,801 input tokens; sending everything: $0.26 ...): 5/5 cases pass

Not modeled: a time limit for a strategy that never returns.
"""

from __future__ import annotations

import copy

from lessonkit.exercises import Mistake, climb
from lessonkit.exercises.checks import Case, CheckResult, tr  # tr: the i18n lookup the checks use
from lessonkit.exercises.checks import check as run_cases

from .measures.metrics import extract_facts, row
from .replay import replay
from .sessions.edits import replace_result, result_positions
from .strategies.registry import strategies

BUDGET = 0.8       # of what sending everything costs on the same session: a fifth off the bill
KEEP = 3           # the reference keeps the newest KEEP results whole
BATCH = 10         # ... and clears the older ones only in whole batches of BATCH results
PLACEHOLDER = "[cleared]"
SENDS_ALL = 0.9    # a strategy sending this share of sending everything's tokens has barely compacted

STARTER = '''\
def my_strategy(history, ctx):
    """Before every request: every tool result but the newest 3 becomes "[cleared]"."""
    keep = 3
    results = [(i, k) for i, m in enumerate(history) if m["role"] == "user" and isinstance(m["content"], list)
               for k, b in enumerate(m["content"]) if b["type"] == "tool_result"]
    out = list(history)                       # a new list; the messages in it are shared
    for i, k in results[:len(results) - keep]:
        content = list(out[i]["content"])     # copy the message before changing a block
        content[k] = {**content[k], "content": "[cleared]"}
        out[i] = {**out[i], "content": content}
    return out
'''

TASK = """Write my_strategy(history, ctx) -> the messages to send before each request.
Never exceed ctx.window, send only valid requests, never edit the history's dicts,
and cost at most 80% of what sending everything costs on the same session."""


def batched_clearing(history: list, ctx) -> list:
    """The reference: clear old results only in whole batches of BATCH, keeping the newest KEEP.

    The cleared part grows by BATCH results at a time, so between two batches the
    prompt only grows at its end and the cache reads all of it.
    Example: 25 results -> the oldest 20 cleared (22 old ones, in whole batches of 10)
    """
    results = result_positions(history)
    old = max(0, len(results) - KEEP)
    out = list(history)
    for i, k in results[:old - old % BATCH]:
        out[i] = replace_result(out[i], k, PLACEHOLDER)
    return out


def _text(content) -> str:
    """A tool_result's content as text. Example: [{"type": "text", "text": "ok"}] -> "ok" """
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return content if isinstance(content, str) else ""


class FunctionStrategy:
    """A function (history, ctx) -> messages as an arena strategy."""

    def __init__(self, fn, name: str | None = None):
        self.fn, self.name = fn, name or getattr(fn, "__name__", "strategy")

    def start(self, session, ctx):
        self.ctx = ctx

    def request(self, history):
        out = self.fn(history, self.ctx)
        if not isinstance(out, list):
            raise TypeError(tr("{name} returned {kind}, not a list of messages", name=self.name,
                               kind=type(out).__name__))
        return out


class Outcome:
    """One replay of the student's strategy, and what it is compared with."""

    def __init__(self, fn, session, window: int):
        mine = copy.deepcopy(session)            # the notebook's session stays as it was
        facts = extract_facts(session.messages)
        self.unseen = None                       # (request, tool name, sent, recorded) of the first result the
                                                 # model never saw whole
        self.unmarked = None                     # (request, tool name) of the first failed call sent as a success
        self.blanked = None                      # (request, tool name) of the first result sent empty
        result = replay(mine, lambda: FunctionStrategy(fn), window=window, probe=self._newest(session))
        self.row = row(result, facts)
        self.records = result.records
        self.window = window
        self.touched = mine.messages != session.messages
        self.none = row(replay(session, strategies(["none"])["none"], window=window), facts)

    def _newest(self, session):
        """A probe of each request: does it hold, whole, the results of the calls the agent has just made (the
        newest user message)? A result cleared before the model ever read it is a result the agent lost. And is
        every failed call still marked failed, and every changed result still saying something?"""
        turns, messages = session.turns, session.messages
        names = {b.get("id"): b.get("name") for m in messages if m.get("role") == "assistant"
                 and isinstance(m.get("content"), list) for b in m["content"] if b.get("type") == "tool_use"}
        recorded = {b.get("tool_use_id"): b for m in messages if m.get("role") == "user"
                    and isinstance(m.get("content"), list) for b in m["content"]
                    if isinstance(b, dict) and b.get("type") == "tool_result"}

        def probe(t, sent):
            if not turns[t] or not sent:
                return None
            new = [b for b in messages[turns[t] - 1].get("content") or [] if isinstance(b, dict)
                   and b.get("type") == "tool_result"]
            last = sent[-1].get("content") if isinstance(sent[-1].get("content"), list) else []
            lost = next((b for b in new if b not in last), None)
            if lost is not None and self.unseen is None:
                now = next((b for b in last if isinstance(b, dict) and b.get("tool_use_id") == lost.get("tool_use_id")),
                           None)
                self.unseen = (t, names.get(lost.get("tool_use_id"), "tool"),
                               _text(now.get("content")) if now else None, _text(lost.get("content")))
            for m in sent:
                for b in m.get("content") if isinstance(m.get("content"), list) else ():
                    was = recorded.get(b.get("tool_use_id")) if isinstance(b, dict) and \
                        b.get("type") == "tool_result" else None
                    if was is None:
                        continue
                    name = names.get(b.get("tool_use_id"), "tool")
                    if was.get("is_error") and not b.get("is_error") and self.unmarked is None:
                        self.unmarked = (t, name)
                    if not _text(b.get("content")).strip() and _text(was.get("content")).strip() \
                            and self.blanked is None:
                        self.blanked = (t, name)
            return None
        return probe

    def summary(self) -> str:
        """Example: '$0.18 for 188,801 input tokens; sending everything: $0.26 for 556,893'"""
        return tr("${cost} for {tokens} input tokens; sending everything: ${all_cost} for {all_tokens}",
                  cost=f"{self.row.cost:.2f}", tokens=f"{self.row.cumulative_input:,}",
                  all_cost=f"{self.none.cost:.2f}", all_tokens=f"{self.none.cumulative_input:,}")


def _misses(o) -> str:
    """When the cache wrote more than it read: why that costs (empty otherwise)."""
    if o.row.cache_read >= o.row.cache_write:
        return ""
    return tr("the cache wrote {writes} tokens and read only {reads}: a cache write costs 1.25x the input price, "
              "a read 0.1x; each request changed a block far back in the prompt, so the next one could not reuse "
              "it: clear less often, in bigger batches", writes=f"{o.row.cache_write:,}", reads=f"{o.row.cache_read:,}")


def _cases(outcome_of, share: float) -> list[Case]:
    """No case carries a fixed `why`: each verdict explains the replay it was given. A strategy that
    raised fails every case with its own error, which check() reports as it is."""
    def valid(o):
        bad = next((r for r in o.records if r.error), None)
        return None if bad is None else tr("request {n} is refused: {error}", n=bad.turn + 1, error=bad.error)

    def fits(o):
        over = next((r for r in o.records if r.tokens > o.window), None)
        return None if over is None else tr("request {n} sends {tokens} tokens > {window}: the API refuses a "
                                            "request over the window (prompt is too long)", n=over.turn + 1,
                                            tokens=f"{over.tokens:,}", window=f"{o.window:,}")

    def untouched(o):
        return tr("the recorded history changed: copy a message before changing it; the agent's own list must "
                  "keep what really happened") if o.touched else None

    def cheaper(o):
        if o.row.cost <= o.none.cost:
            return None
        problem = tr("costs ${cost}, more than sending everything (${all_cost}) while sending {tokens} tokens "
                     "instead of {all_tokens}: cache writes {writes}, reads {reads}", cost=f"{o.row.cost:.2f}",
                     all_cost=f"{o.none.cost:.2f}", tokens=f"{o.row.cumulative_input:,}",
                     all_tokens=f"{o.none.cumulative_input:,}", writes=f"{o.row.cache_write:,}",
                     reads=f"{o.row.cache_read:,}")
        if o.row.cache_read < o.row.cache_write:
            return tr("{problem}: rewriting an old block moves the cache's prefix: clear less often, in bigger "
                      "batches", problem=problem)
        return problem

    def budget(o):
        limit = share * o.none.cost
        if o.row.cost <= limit:
            return None
        problem = tr("costs ${cost}, budget ${limit}", cost=f"{o.row.cost:.2f}", limit=f"{limit:.2f}")
        if o.row.cache_read < o.row.cache_write:
            return tr("{problem}: the cache wrote {writes} tokens and read only {reads} (each clearing is one cache "
                      "miss; between clearings the cache reads the whole prefix): clear less often, in bigger "
                      "batches", problem=problem, writes=f"{o.row.cache_write:,}", reads=f"{o.row.cache_read:,}")
        if o.row.cumulative_input >= SENDS_ALL * o.none.cumulative_input:
            return tr("{problem}: it sends {tokens} input tokens, {part} of what sending everything sends: clear "
                      "old tool results, a batch at a time", problem=problem, tokens=f"{o.row.cumulative_input:,}",
                      part=f"{o.row.cumulative_input / o.none.cumulative_input:.0%}")
        return problem

    def reads(o):
        misses = _misses(o)
        return misses or None

    def newest(o):
        if o.unseen is None:
            return None
        t, name, sent, was = o.unseen
        size = next((r.tokens for r in o.records if r.turn == t and r.kind == "turn"), 0)
        share = f"{size / o.window:.0%}"
        if sent is None:
            how = tr("leaves it out")
        elif not sent.strip():
            how = tr("sends it empty")
        elif was.startswith(sent):
            how = tr("cuts it to its first {n} of {total} characters", n=f"{len(sent):,}", total=f"{len(was):,}")
        else:
            how = tr("replaces it with {text}", text=repr(sent[:40]))
        return tr("request {n} ({share} of the window) {how}, the result of the {tool} call the agent has just "
                  "made: the model never reads it, so the agent acts without the output it asked for: change only "
                  "older results, keep the newest whole", n=t + 1, share=share, how=how, tool=name)

    def errors(o):
        if o.unmarked is None:
            return None
        t, name = o.unmarked
        return tr("request {n} sends a failed {tool} call's result without is_error: the model reads a failure as "
                  "a success: copy the block with its other fields ({{**block, \"content\": ...}}), never rebuild "
                  "it", n=t + 1, tool=name)

    def says_cleared(o):
        if o.blanked is None:
            return None
        t, name = o.blanked
        return tr("request {n} sends a {tool} result empty: the model cannot tell a cleared result from a command "
                  "that printed nothing: put a placeholder that says it was cleared", n=t + 1, tool=name)

    return [
        Case("every request is valid", (), valid),
        Case("never over the window", (), fits),
        Case("the recorded history is untouched", (), untouched),
        Case("the newest results reach the model whole", (), newest),
        Case("failed calls stay marked as failed", (), errors),
        Case("a cleared result says it was cleared", (), says_cleared),
        Case("the prompt cache reads more than it writes", (), reads),
        Case("costs no more than sending everything", (), cheaper),
        Case(tr("within the budget ({share} of sending everything)", share=f"{share:.0%}"), (), budget),
    ]


def check(fn, session, *, window: int, budget: float = BUDGET) -> CheckResult:
    """Replay `fn` on `session` (once) and check it; the report's first line ends with the figures.

    `budget` is the share of what sending everything costs that the strategy may spend.
    """
    if not callable(fn):
        raise TypeError(tr("check() needs your strategy function, got {kind}", kind=type(fn).__name__))
    outcome: list = []

    def run():
        if not outcome:
            try:
                outcome.append(Outcome(fn, session, window))
            except Exception as exc:  # noqa: BLE001 (the student's code failing is a result: every case says so)
                outcome.append(exc)
        if isinstance(outcome[0], Exception):
            raise outcome[0]
        return outcome[0]

    result = run_cases(run, _cases(run, budget), title=getattr(fn, "__name__", "my_strategy"), echo=False)
    if outcome and not isinstance(outcome[0], Exception):
        result.title = tr("{title} ({summary})", title=result.title, summary=outcome[0].summary())
    from lessonkit.exercises import record_result  # the room view's record (lessonkit/exercises/records.py)

    crashed = [outcome[0]] * len(result.failures) if outcome and isinstance(outcome[0], Exception) else []
    record_result("arena", getattr(fn, "__name__", "my_strategy"), result, crashed)
    return result


# ---- plausible wrong strategies, and the hint ladder --------------------------------------

def edits_in_place(history, ctx):
    """Clears old results by editing the recorded dicts themselves."""
    results = result_positions(history)
    for i, k in results[:max(0, len(results) - KEEP)]:
        history[i]["content"][k]["content"] = PLACEHOLDER
    return history


def drops_first_answer(history, ctx):
    """Drops the first assistant turn (its calls are long): two user messages in a row."""
    return history[:1] + history[2:] if len(history) > 2 else list(history)


def sends_everything(history, ctx):
    """No compaction at all."""
    return list(history)


def as_tuple(history, ctx):
    """Returns a tuple of messages."""
    return tuple(history)


def clears_all_late(history, ctx):
    """Once the request passes 90 % of the window, every tool result becomes "[cleared]", the newest too."""
    if ctx.tokens(history) <= 0.9 * ctx.window:
        return list(history)
    out = list(history)
    for i, k in result_positions(history):
        out[i] = replace_result(out[i], k, PLACEHOLDER)
    return out


def cuts_every_result(history, ctx):
    """Every result cut to its first 200 characters from the start, the newest too: cheap, and blind."""
    out = list(history)
    for i, k in result_positions(history):
        text = out[i]["content"][k].get("content")
        if isinstance(text, str) and len(text) > 200:
            out[i] = replace_result(out[i], k, text[:200])
    return out


def rebuilds_blocks(history, ctx):
    """The reference's batches, each cleared block rebuilt from its id alone: is_error is lost."""
    results = result_positions(history)
    old = max(0, len(results) - KEEP)
    out = list(history)
    for i, k in results[:old - old % BATCH]:
        content = list(out[i]["content"])
        content[k] = {"type": "tool_result", "tool_use_id": content[k]["tool_use_id"], "content": PLACEHOLDER}
        out[i] = {**out[i], "content": content}
    return out


def clears_to_nothing(history, ctx):
    """The reference's batches, each old result replaced by an empty string."""
    results = result_positions(history)
    old = max(0, len(results) - KEEP)
    out = list(history)
    for i, k in results[:old - old % BATCH]:
        out[i] = replace_result(out[i], k, "")
    return out


def last_ten(history, ctx):
    """Keeps the newest ten messages: the request may start with the assistant."""
    return list(history[-10:])


MISTAKES = (
    Mistake("edits the recorded history", edits_in_place, "the recorded history changed"),
    Mistake("drops the first assistant turn", drops_first_answer, "roles must alternate"),
    Mistake("sends everything", sends_everything, "within the budget"),
    Mistake("returns a tuple", as_tuple, "returned tuple, not a list of messages"),
    Mistake("keeps the newest ten messages", last_ten, 'first message must use the "user" role'),
    Mistake("clears everything once over 90 %", clears_all_late, "the model never reads it"),
    Mistake("cuts every result, the newest too", cuts_every_result, "cuts it to its first 200 of"),
    Mistake("rebuilds each cleared block", rebuilds_blocks, "without is_error: the model reads a failure"),
    Mistake("clears results to an empty string", clears_to_nothing, "the model cannot tell a cleared result"),
)

HINTS = (
    "Tokens are not dollars: the cache reads a prompt's unchanged prefix at a tenth of the price. "
    "Every request on which you change an old block is a full-price cache write from there on.",
    "Clear less often, in bigger batches: between two clearings the prompt only grows at its end and "
    "the cache reads all of it. Keep the newest few results whole, and build new dicts (never edit "
    "the history's).",
    f"Count the tool results (result_positions(history)); clear only the oldest "
    f"old - old % {BATCH} of the old ones (old = all but the newest {KEEP}), each with "
    f"replace_result(message, k, '{PLACEHOLDER}').",
)
_asked = [0]


def hint(rung: int | None = None):
    """The next hint of the ladder (or hint `rung`); after the third, the reference's source."""
    return climb(HINTS, batched_clearing, _asked, rung)


def starter_function():
    """The starter, compiled on its own (as running the notebook's exercise cell does)."""
    namespace: dict = {}
    exec(compile(STARTER, "<starter my_strategy>", "exec"), namespace)  # noqa: S102
    return namespace["my_strategy"]
