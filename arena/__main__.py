"""python -m arena: replay long sessions under every strategy and report.

    python -m arena                          generated session + ../shared/traces if present
    python -m arena --traces DIR             + every *.json / *.jsonl trace or raw log in DIR
    python -m arena --no-generated --traces ~/.claude/projects/P/SESSION.jsonl
                                                       your own Claude Code session (readers/), also
                                                       Agent SDK stream-json, codex exec --json,
                                                       mini-swe-agent .traj.json, OpenHands completions
    python -m arena --no-calibrate           the plain counter, at Sonnet prices where no model is
                                                       logged (default: a log with usage per request is
                                                       replayed with its bill model, bills/model.py)
    python -m arena --no-harness-truncation  Codex outputs as logged, not as Codex sent them
    python -m arena --spread                 + runs at minus and plus the counter's measured error
    python -m arena --no-generated --traces DIR --strategies none,ctx-edit
    python -m arena --out artifacts/arena    where results.md, results.csv, arena.png go
    python -m arena --breakpoints last       skip the same-policy check (half the time)

The main tables use the 'last' breakpoint policy (one breakpoint on each request's
last block; the recommended pipeline adds its own stable marks). With the default
--breakpoints both, every strategy is replayed again under the 'sticky' policy (the
same marks for everyone, arena/replay.py) and results.md compares the two.

Bad input (a missing folder, an unknown strategy) is a one-line error and exit
status 1; an invalid trace file is skipped with its reason printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from lessonkit.backends.client import REPO_ROOT
from lessonkit.i18n import tr, trn

from .bills.prices import source
from .context import WINDOW

DEFAULT_TRACES = REPO_ROOT.parent / "shared" / "traces"
DEFAULT_OUT = REPO_ROOT / "artifacts" / "arena"


def parse(argv):
    p = argparse.ArgumentParser(prog="python -m arena", description=__doc__.split("\n")[0])
    p.add_argument("--traces", type=Path, action="append", default=None,
                   help=f"a folder of traces or raw logs, or one file; repeatable (default: {DEFAULT_TRACES} "
                        "if it exists)")
    p.add_argument("--calibrate", action="store_true", default=True,
                   help="(the default) replay a log with usage per request with its bill model (bills/model.py)")
    p.add_argument("--no-calibrate", dest="calibrate", action="store_false",
                   help="the plain counter, no per-request models, prefix only")
    p.add_argument("--spread", action="store_true",
                   help="replay again at minus and plus the counter's measured error; call a win only across it")
    p.add_argument("--no-harness-truncation", action="store_true",
                   help="send tool outputs as logged, not cut as the harness cut them (Codex: harness.py)")
    p.add_argument("--no-traces", action="store_true", help="do not read the default traces folder")
    p.add_argument("--no-generated", action="store_true", help="skip the generated session")
    p.add_argument("--strategies", default="", help="comma-separated names (default: all)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: %(default)s)")
    p.add_argument("--cache-dir", type=Path, default=None, help="where the generated session is cached")
    p.add_argument("--window", type=int, default=WINDOW,
                   help="context window in tokens (default: %(default)s)")
    p.add_argument("--breakpoints", choices=("last", "sticky", "both"), default="both",
                   help="client breakpoint policy; 'both' adds the same-policy check (default: %(default)s)")
    p.add_argument("--no-overhead", action="store_true", help="skip the per-turn overhead benchmark")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    return p.parse_args(argv)


def load_sessions(args, say) -> list:
    from .sessions.folders import load_traces
    from .sessions.generated import generated_session
    from .sessions.session import SessionError

    sessions = []
    folders = args.traces or ([] if args.no_traces or not DEFAULT_TRACES.is_dir() else [DEFAULT_TRACES])
    for folder in folders:
        try:
            found, skipped = load_traces(folder, truncate=not args.no_harness_truncation)
        except SessionError as exc:
            raise SystemExit(tr("error: {message}", message=exc)) from None
        for name, reason in skipped:
            say(tr("skipped {name}: {reason}", name=name, reason=reason))
        say(trn("{n} trace from {folder}", "{n} traces from {folder}", len(found), folder=folder))
        from .sessions.folders import subagent_line

        for line in subagent_line(found):
            say("  " + line)
        sessions += found
    if not args.no_generated:
        say(tr("generated session: loading (generating it takes about a minute the first time)"))
        sessions.append(generated_session(args.cache_dir))
    if not sessions:
        raise SystemExit(tr("error: no session to replay (give --traces DIR or drop --no-generated)"))
    return sessions


def main(argv=None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)

    def say(text):
        print(text, file=sys.stderr, flush=True)

    from .measures.goal import goal_check
    from .report import overall, text_table, write_all
    from .run import run_arena
    from .strategies.registry import strategies

    names = [n.strip() for n in args.strategies.split(",") if n.strip()] or None
    try:
        strategies(names)
    except ValueError as exc:
        raise SystemExit(tr("error: {message}", message=exc)) from None
    if args.window < 1:
        raise SystemExit(tr("error: --window must be a positive number of tokens"))
    sessions = load_sessions(args, say)
    live = sys.stderr.isatty() and not args.quiet
    started, last = time.perf_counter(), [None]

    def progress(session, strategy, turn, turns):
        if args.quiet:
            return
        if live:
            print(f"\r  {session}  {strategy:<14} " + tr("turn {turn}/{turns}", turn=turn, turns=turns) + "   ",
                  end="", file=sys.stderr, flush=True)
        elif turn == turns and last[0] != (session, strategy):
            last[0] = (session, strategy)
            say(f"  {session}  " + trn("{strategy}: {turns} turn", "{strategy}: {turns} turns", turns,
                                       strategy=strategy, turns=turns))

    main_policy = "sticky" if args.breakpoints == "sticky" else "last"
    calibrations = {}
    rows, replays = run_arena(sessions, names, window=args.window, progress=progress, breakpoints=main_policy,
                              calibrate=args.calibrate, calibrations=calibrations)
    sticky = None
    if args.breakpoints == "both":
        say("\n" + tr("the same again, every strategy with the 'sticky' breakpoint policy"))
        last[0] = None
        sticky, _ = run_arena(sessions, names, window=args.window, progress=progress, breakpoints="sticky",
                              calibrate=args.calibrate)
    if live:
        print(file=sys.stderr)
    for session in dict.fromkeys(r.session for r in rows):
        print(f"\n{session}\n" + text_table([r for r in rows if r.session == session]))
    print("\n" + tr("overall") + "\n" + text_table(overall(rows)))
    print("\n" + tr("goal: among strategies that never exceed the window, 'recommended' is cheapest, "
                    "with recall >= the best other's"))
    for line in goal_check(rows):
        print("  " + line)
    if sticky:
        print("\n" + tr("the same breakpoint policy for every strategy ('sticky'): cost $") + "\n"
              + text_table(overall(sticky)) + "\n" + tr("goal under it:"))
        for line in goal_check(sticky):
            print("  " + line)
    print("\n" + tr("the counter against the logs (counted / logged)"))
    for session in sessions:
        measured = calibrations[session.name].line()
        print("  " + tr("{session}: {calibration}; prefix {prefix}", session=session.name, calibration=measured,
                        prefix=f"{session.prefix_tokens:,}"))
    from .bill_check import check, sent_strategy
    from .bill_check import table as bill_table
    from .measures.frontier import forgetting_lines, regret_lines, regret_table

    checks = []
    if args.calibrate:
        for session in sessions:
            sent = next((rp for rp in replays if rp.session == session.name
                         and rp.strategy == sent_strategy(session)), None)
            found = check(session, sent) if sent is not None else None
            if found is not None:
                checks.append(found)
    bills = ""
    if checks:
        from .bill_check import distribution_line, request_table, totals_table

        bills = (tr("## Bills against the logs\n\nThe replay of what each log sent ('recorded' after a real "
                    "compaction, else 'none'), every request at its own model's price, against the bill of the "
                    "log's own usage. What the log states is taken as events of the session, alike for every "
                    "strategy: each step's size (its new blocks at the log's own ratio, what no message holds a "
                    "stand-in), where the cache was lost (the log's reads), the 5-minute / 1-hour split of each "
                    "request's writes, Claude Code's compaction calls. Nothing is fitted on part of a log.")
                 + "\n\n" + bill_table(checks) + "\n\n" + totals_table(checks, sessions)
                 + "\n\n" + "\n".join(f"- {distribution_line(c)}" for c in checks) + "\n\n"
                 + "\n".join(f"- {c.session}: {c.calibration}" for c in checks) + "\n\n"
                 + "\n\n".join(tr("### Request by request: {session}", session=c.session) + "\n\n"
                                + request_table(c) for c in checks) + "\n\n")
        print("\n" + tr("bills against the logs") + "\n" + bill_table(checks))
        for c in checks:
            print("  " + distribution_line(c))
    from .bills.prices import unpriced_in, unpriced_line

    for model, used in unpriced_in(sessions).items():     # this run's sessions, never an earlier run's
        say(unpriced_line(model, used))
        bills += f"- **{unpriced_line(model, used)}**\n"
    memory = (tr("## Cost against memory, and the oracle\n\nThe oracle clears at the hindsight-best requests "
                 "within the recommended pipeline's family (oracle.py): a lower bound only for the strategies "
                 "that only clear (the lines below say where); regret = cost - the oracle's. Pareto: no other "
                 "strategy is both no dearer and loses no more needed results.") + "\n\n"
              + regret_table(rows) + "\n\n" + "\n".join(f"- {line}" for line in regret_lines(rows)
                                                        + forgetting_lines(rows)) + "\n\n")
    from .measures.frontier import bound_lines, memory_lines

    memory += "\n".join(f"- {line}" for line in bound_lines(rows) + memory_lines(rows)) + "\n\n"
    print("\n" + tr("regret against the oracle") + "\n" + "\n".join("  " + x for x in regret_lines(rows)))
    for line in forgetting_lines(rows) + bound_lines(rows) + memory_lines(rows):
        print("  " + line)
    runs = {"main": rows}
    if args.spread:
        if not checks:
            say("\n" + tr("no trace logs usage per request: the spread is the plain counter's"))
        for sign, label in ((-1, "low"), (1, "high")):
            say("\n" + tr("the same again, every weight moved by {sign} the counter's measured error",
                          sign="-" if sign < 0 else "+"))
            last[0] = None
            runs[label], _ = run_arena(sessions, names, window=args.window, progress=progress,
                                       breakpoints=main_policy, calibrate=args.calibrate, spread=sign)
    from .measures.spread import goal_lines, section

    print("\n" + tr("goal across the spread: cheapest or within 1 % among those that fit, in every run; fewest "
                    "needed items removed among those under 60 % of none and Claude Code's own compaction"))
    for line in goal_lines(runs):
        print("  " + line)
    extra = bills + memory + section(runs, calibrations, sessions)
    overhead = ""
    if not args.no_overhead:
        from .overhead import measure, table

        say("\n" + tr("per-turn overhead: the recommended pipeline vs a seed-style one (re-serialise, re-scan)"))
        overhead = table(measure())
        print("\n" + tr("per-turn overhead (ms), kit's recommended pipeline vs seed-style re-serialise/re-scan")
              + "\n" + overhead)
    given = sys.argv[1:] if argv is None else []
    command = "python -m arena" + "".join(f" {a}" for a in given)
    paths = write_all(rows, replays, args.out, command=command, prices_source=source(), overhead=overhead, extra=extra,
                      sticky=sticky)
    from .measures.frontier import chart as frontier_chart

    frontier_chart(rows, Path(args.out) / "frontier.png")
    say("\n" + tr("wrote {markdown}, {csv}, {chart} in {seconds} s", markdown=paths["markdown"], csv=paths["csv"],
                  chart=paths["chart"], seconds=f"{time.perf_counter() - started:.0f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
