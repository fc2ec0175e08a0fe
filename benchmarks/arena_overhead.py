"""Benchmark: per-turn overhead of the kit's recommended pipeline vs a seed-style one (re-serialise and
re-scan the whole history every turn), at 100, 1,000 and 10,000 messages, measured in one run.

    python benchmarks/arena_overhead.py [--sizes 100,1000,10000] [--turns 20]

Prints ms per turn for each pipeline and the ratio (see arena/overhead.py for what each does).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.overhead import SIZES, TURNS, measure, table


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default=",".join(map(str, SIZES)), help="history sizes in messages")
    p.add_argument("--turns", type=int, default=TURNS, help="turns timed at each size")
    args = p.parse_args(argv)
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        raise SystemExit(f"error: --sizes must be whole numbers separated by commas, got {args.sizes!r}") from None
    if not sizes or min(sizes) < 3 or args.turns < 1:
        raise SystemExit("error: each size must be >= 3 messages and --turns >= 1")
    start = time.perf_counter()
    print(table(measure(sizes, args.turns)))
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
