"""Benchmark: what s03's OS sandbox costs per bash command, and which read-only commands ask.

    python benchmarks/bench_sandbox.py [--runs 40]

Times s01's `run_bash` on the same commands three ways, in one temporary git workspace: bare
(no sandbox), confined as a read-only command (Landlock, read-only mounts, namespaces) and
confined as an approved one (the workspace writable, network allowed). Prints the median and
90th-percentile ms per command, the sandbox's extra cost, and which of seed_rules.READS ask.
A benchmark, not a test: the numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lessonkit.base.sandbox import Policy, confine, probe
from s01_loop import run_bash
from s03_permissions import classify, seed_rules
from s03_permissions.loop import READ_ONLY_ENV, TEMP_VARS

COMMANDS = ("true", "ls -la", "git status", "grep -rn TODO .")


def timed(command: str, ws: Path, policy: Policy | None, runs: int) -> list[float]:
    """ms per run of `command`, each run setting up its own sandbox (as the agent does), after one warm-up."""
    times = []
    for k in range(runs + 1):
        start = time.perf_counter()
        private = tempfile.mkdtemp(prefix="bench-tmp-")
        if policy is None:
            output, failed = run_bash(command, cwd=ws)
        else:
            preexec, close = confine(Policy(writable=(private, *policy.writable), network=policy.network))
            try:
                output, failed = run_bash(command, cwd=ws, preexec_fn=preexec,
                                          env=dict.fromkeys(TEMP_VARS, private) | READ_ONLY_ENV)
            finally:
                close()
        subprocess.run(["rm", "-rf", private], check=True)
        if failed:
            raise SystemExit(f"error: `{command}` failed: {output.strip()[:200]}")
        if k:  # the first run only warms the caches
            times.append((time.perf_counter() - start) * 1000)
    return times


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=40, help="timed runs per command and way")
    args = p.parse_args(argv)
    if args.runs < 1:
        raise SystemExit("error: --runs must be at least 1")
    found = probe()
    print(f"sandbox: {found.ok} ({found.why})")
    if not found.ok:
        return 1
    with tempfile.TemporaryDirectory(prefix="bench-ws-") as folder:
        ws = Path(folder)
        (ws / "a.py").write_text("# TODO: one\nprint('hi')\n")
        subprocess.run("git init -q && git add -A && git -c user.name=b -c user.email=b@x commit -qm one",
                       shell=True, cwd=ws, check=True)
        ways = {"bare": None, "read-only": Policy(), "approved": Policy(writable=(str(ws),), network=True)}
        print(f"{'command':18} " + " ".join(f"{w + ' p50':>14} {w + ' p90':>14}" for w in ways)
              + f" {'extra p50':>10}")
        for command in COMMANDS:
            cols, medians = [], {}
            for way, policy in ways.items():
                t = sorted(timed(command, ws, policy, args.runs))
                medians[way] = statistics.median(t)
                cols += [f"{medians[way]:11.1f} ms", f"{t[int(0.9 * (len(t) - 1))]:11.1f} ms"]
            print(f"{command:18} " + " ".join(f"{c:>14}" for c in cols)
                  + f" {medians['read-only'] - medians['bare']:7.1f} ms")
    asking = [c for c in seed_rules.READS if not classify(c).read_only]
    print(f"read-only commands of seed_rules.READS that ask: {len(asking)} of {len(seed_rules.READS)}"
          + (f": {', '.join(asking)}" if asking else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
