"""Per-turn overhead: the kit's recommended pipeline against a seed-style one, as the history grows.

Motto: a layer that runs before every request must not cost more as the session gets longer.

    history of N messages (100, 1,000, 10,000) ──> the next TURNS turns, each timed:
      seed-style   estimate = len(json.dumps(history)) // 4       re-serialise everything
                   collect every tool_result, name each one         re-scan everything
                   replace the old ones (placeholders)              -> O(N) per turn
      kit          recommended.Recommended.request(history)         incremental: counts and
                                                                    gains kept as messages arrive
                                                                    -> about O(new messages)
    report: ms per turn (median and mean of the timed turns) for each, and their ratio,
            measured in the same run

The seed-style pipeline is a straightforward re-implementation of seed 000's
loop (micro_compact, then auto_compact_if_needed's estimate) with its bugs fixed
(the name lookup done in the same pass: the seed's per-result rescan would make it
quadratic). The kit's pipeline runs with a window too large to ever summarise:
summaries are model calls, not per-turn overhead. The history is synthetic and
deterministic: a task, then bash calls whose results are ~1,500-character code
listings, one in seven failing.

Example: measure((100, 1_000)) -> [Overhead(messages=100, kit=(0.09, 0.1), seed=(0.3, 0.3)), ...]

Not modeled: the cost of the request itself (that is the arena's job), disk speed
(the kit's pipeline appends each message to its transcript).
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from dataclasses import dataclass

from lessonkit.i18n import tr
from lessonkit.show.demo import module_source
from lessonkit.show.textwidth import rjust

from .sessions.session import session_from

SIZES = (100, 1_000, 10_000)
TURNS = 50
KEEP_RECENT = 3


def synthetic_history(n: int, seed: int = 0) -> list:
    """A task and (n - 1) // 2 bash turns: results are code listings, one in seven fails."""
    rng = random.Random(seed)
    sources = [module_source(i, 40, rng)[:1_500] for i in range(1, 21)]
    out = [{"role": "user", "content": "Read the modules one by one and fix the failing tests."}]
    k = 0
    while len(out) < n:
        tid = f"toolu_{k:06d}"
        out.append({"role": "assistant", "content": [
            {"type": "text", "text": f"Reading module {k % 20} ({k + 1}/{n // 2})."},
            {"type": "tool_use", "id": tid, "name": "bash",
             "input": {"command": f"cat -n src/app_{k % 20:02d}.py"}}]})
        result = {"type": "tool_result", "tool_use_id": tid, "content": sources[k % 20]}
        if k % 7 == 3:
            result.update(content=sources[k % 20][:400] + f"\nAssertionError: case {k} failed\n[exit code 1]",
                          is_error=True)
        out.append({"role": "user", "content": [result]})
        k += 1
    return out[:n]


def seed_turn(messages: list) -> int:
    """One turn of the seed-style pipeline on `messages` (in place); returns its token estimate."""
    names, results = {}, []
    for message in messages:                      # micro_compact: re-scan the whole history
        for block in message["content"] if isinstance(message["content"], list) else ():
            if block.get("type") == "tool_use":
                names[block["id"]] = block["name"]
            elif block.get("type") == "tool_result":
                results.append(block)
    for block in results[:-KEEP_RECENT]:
        if len(str(block.get("content", ""))) > 100:
            block["content"] = f"[Previous: used {names.get(block['tool_use_id'], 'tool')}]"
    return len(json.dumps(messages, default=str)) // 4   # auto_compact's estimate: re-serialise it all


@dataclass
class Overhead:
    """ms per turn at one history size: median and mean of the timed turns, for each pipeline.

    The median is the steady per-turn cost; the mean also carries the occasional batch
    clearing and the interpreter's garbage collections (which grow with the heap).
    """
    messages: int
    kit: tuple[float, float]    # (median, mean) ms
    seed: tuple[float, float]

    @property
    def ratio(self) -> float:
        return self.seed[0] / self.kit[0] if self.kit[0] else float("inf")

    @property
    def mean_ratio(self) -> float:
        return self.seed[1] / self.kit[1] if self.kit[1] else float("inf")


def _kit_ms(history: list, start: int, turns: int) -> tuple[float, float]:
    """(median, mean) ms per turn of the recommended pipeline over `turns` turns after `start` messages."""
    from .context import Context
    from .strategies.recommended import Recommended

    session = session_from("overhead", history[:3])
    with tempfile.TemporaryDirectory(prefix="arena-overhead-") as tmp:
        ctx = Context(session, window=10 ** 9, workdir=tmp)
        pipeline = Recommended()
        pipeline.start(session, ctx)
        live, times = [], []
        for message in history[:start]:         # warm up: the pipeline sees the first `start` messages
            live.append(message)
            if message["role"] == "user":
                pipeline.request(live)
        for message in history[start:start + 2 * turns]:
            live.append(message)
            if message["role"] == "user":
                t0 = time.perf_counter()
                pipeline.request(live)
                times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times), 1000 * statistics.mean(times)


def _seed_ms(history: list, start: int, turns: int) -> tuple[float, float]:
    """(median, mean) ms per turn of the seed-style pipeline over `turns` turns after `start` messages."""
    live = json.loads(json.dumps(history[:start]))   # its own copy: it edits in place
    times = []
    for message in json.loads(json.dumps(history[start:start + 2 * turns])):
        live.append(message)
        if message["role"] == "user":
            t0 = time.perf_counter()
            seed_turn(live)
            times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times), 1000 * statistics.mean(times)


def measure(sizes=SIZES, turns: int = TURNS) -> list[Overhead]:
    """Per-turn ms of both pipelines at each history size, in one run."""
    history = synthetic_history(max(sizes) + 2 * turns + 1)
    return [Overhead(n, _kit_ms(history, n + (n % 2 == 0), turns), _seed_ms(history, n + (n % 2 == 0), turns))
            for n in sizes]


def table(rows: list[Overhead]) -> str:
    """The rows as a fixed-width table, headings in the student's language (a Chinese character is
    two cells wide: lessonkit.show.textwidth)."""
    median, mean = tr("median"), tr("mean")
    lines = ["  ".join([rjust(tr("messages"), 9), rjust(tr("kit ms/turn"), 17), rjust(tr("seed-style ms/turn"), 18),
                        rjust(tr("seed / kit"), 16)]),
             "  ".join([" " * 9, rjust(median, 9) + rjust(mean, 8), rjust(median, 9) + rjust(mean, 9),
                        rjust(median, 9) + rjust(mean, 7)])]
    lines += [f"{r.messages:>9,}  {r.kit[0]:>8.3f} {r.kit[1]:>8.3f}  {r.seed[0]:>9.3f} {r.seed[1]:>8.3f}"
              f"  {r.ratio:>7.0f}x {r.mean_ratio:>6.0f}x" for r in rows]
    return "\n".join(lines)
