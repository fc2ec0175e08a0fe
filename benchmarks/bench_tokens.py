"""Benchmark: the token counter on 1 MB of prose, code, JSON and CJK text (the bar: well under 100 ms per MB).

    python benchmarks/bench_tokens.py [--mb 1] [--repeat 5]

Prints, per kind of text: its size, tokens counted, tokens per character, and the
best of `repeat` timings in milliseconds, plus ms per MB. The texts are built
deterministically here (no files, no network), each exactly --mb megabytes of UTF-8.

Example output (the project's 2-core machine):
    kind       chars      bytes     tokens  tok/char   best ms   ms/MB
    prose    1000000    1000000     210714     0.211      1.75    1.75
    cjk       333333     999999     333333     1.000      2.55    2.55
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lessonkit import tokens
from lessonkit.show.demo import module_source

MB = 1_000_000


def fill(unit: str, size: int) -> str:
    """`unit` repeated, cut to `size` bytes of UTF-8 (never inside a character)."""
    text = unit * (size // len(unit.encode("utf-8")) + 1)
    return text.encode("utf-8")[:size].decode("utf-8", "ignore")


def texts(size: int) -> dict[str, str]:
    rng = random.Random(0)
    prose = ("Compaction keeps an agent working when its context fills up. The loop sends the whole "
             "history on every turn, so old tool results cost tokens again and again; a summary keeps "
             "the story and drops the transcript. ")
    code = "\n\n".join(module_source(i, 80, rng) for i in range(20))
    data = json.dumps([{"id": i, "name": f"item-{i}", "tags": ["alpha", "beta"], "price": i * 1.25,
                        "ok": i % 3 == 0} for i in range(2000)], indent=2)
    cjk = "上下文压缩让代理在上下文填满时继续工作。每一轮都会重新发送整个历史，旧的工具结果一次又一次地消耗令牌。"
    return {"prose": fill(prose, size), "code": fill(code, size), "json": fill(data, size), "cjk": fill(cjk, size)}


def best_ms(text: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        tokens.count_text(text)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=1.0, help="megabytes of each kind of text (default 1)")
    parser.add_argument("--repeat", type=int, default=5, help="timings per text; the best is shown (default 5)")
    args = parser.parse_args(argv)
    if args.mb <= 0 or args.repeat < 1:
        parser.error("--mb must be > 0 and --repeat >= 1")
    size = int(args.mb * MB)
    print(f"{'kind':6} {'chars':>9} {'bytes':>10} {'tokens':>10} {'tok/char':>9} {'best ms':>9} {'ms/MB':>7}")
    worst = 0.0
    for kind, text in texts(size).items():
        ms = best_ms(text, args.repeat)
        n = tokens.count_text(text)
        nbytes = len(text.encode("utf-8"))
        worst = max(worst, ms / (nbytes / MB))
        per_mb = ms / (nbytes / MB)
        print(f"{kind:6} {len(text):>9} {nbytes:>10} {n:>10} {n / len(text):>9.3f} {ms:>9.2f} {per_mb:>7.2f}")
    print(f"slowest: {worst:.2f} ms per MB (the bar: well under 100 ms per MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
