"""python -m lessonkit.arena: replay long sessions under every strategy and report.

    python -m lessonkit.arena                          generated session + ../shared/traces if present
    python -m lessonkit.arena --traces DIR             + every *.json / *.jsonl trace or raw log in DIR
    python -m lessonkit.arena --no-generated --traces ~/.claude/projects/P/SESSION.jsonl
                                                       your own Claude Code session (readers/), also
                                                       Agent SDK stream-json, codex exec --json,
                                                       mini-swe-agent .traj.json, OpenHands completions
    python -m lessonkit.arena --calibrate              scale the counter per trace to its logged usage
    python -m lessonkit.arena --no-harness-truncation  Codex outputs as logged, not as Codex sent them
    python -m lessonkit.arena --spread                 + what-if runs at both ends of the ratio range
    python -m lessonkit.arena --no-generated --traces DIR --strategies none,ctx-edit
    python -m lessonkit.arena --out artifacts/arena    where results.md, results.csv, arena.png go
    python -m lessonkit.arena --breakpoints last       skip the same-policy check (half the time)

The main tables use the 'last' breakpoint policy (one breakpoint on each request's
last block; the recommended pipeline adds its own stable marks). With the default
--breakpoints both, every strategy is replayed again under the 'sticky' policy (the
same marks for everyone, lessonkit/arena/replay.py) and results.md compares the two.

Bad input (a missing folder, an unknown strategy) is a one-line error and exit
status 1; an invalid trace file is skipped with its reason printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..backends.client import REPO_ROOT
from ..i18n import tr
from .prices import source
from .replay import WINDOW

DEFAULT_TRACES = REPO_ROOT.parent / "shared" / "traces"
DEFAULT_OUT = REPO_ROOT / "artifacts" / "arena"


def parse(argv):
    p = argparse.ArgumentParser(prog="python -m lessonkit.arena", description=__doc__.split("\n")[0])
    p.add_argument("--traces", type=Path, action="append", default=None,
                   help=f"a folder of traces or raw logs, or one file; repeatable (default: {DEFAULT_TRACES} "
                        "if it exists)")
    p.add_argument("--calibrate", action="store_true",
                   help="scale the token counter per trace to the usage the trace logged (calibration.py)")
    p.add_argument("--spread", action="store_true",
                   help="replay again at both ends of the counter's ratio range; call a win only across it")
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
    from .generate import generated_session
    from .sessions import SessionError, load_traces

    sessions = []
    folders = args.traces or ([] if args.no_traces or not DEFAULT_TRACES.is_dir() else [DEFAULT_TRACES])
    for folder in folders:
        try:
            found, skipped = load_traces(folder, truncate=not args.no_harness_truncation)
        except SessionError as exc:
            raise SystemExit(tr("error: {message}", message=exc)) from None
        for name, reason in skipped:
            say(tr("skipped {name}: {reason}", name=name, reason=reason))
        say(tr("{n} trace(s) from {folder}", n=len(found), folder=folder))
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

    from .registry import strategies
    from .report import goal_check, overall, text_table, write_all
    from .run import run_arena

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
            say(f"  {session}  " + tr("{strategy}: {turns} turns", strategy=strategy, turns=turns))

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
    runs = {"main": rows}
    if args.spread:
        from .calibration import ratio_range

        found = ratio_range(calibrations)
        if found is None:
            say("\n" + tr("no trace logs usage: no spread"))
        for r in sorted(set(found or ())):
            say("\n" + tr("the same again, every count scaled by 1/{ratio} (the counter's ratio on one trace)",
                          ratio=f"{r:.2f}"))
            last[0] = None
            runs[f"x{1 / r:.2f}"], _ = run_arena(sessions, names, window=args.window, progress=progress,
                                                 breakpoints=main_policy, scale=1 / r)
    from .verdict import goal_lines, section

    print("\n" + tr("goal (issue 14): cheapest or within 1 % among those that fit, in every run; fewest needed "
                    "items removed among those under 60 % of none"))
    for line in goal_lines(runs):
        print("  " + line)
    extra = section(runs, calibrations, sessions)
    overhead = ""
    if not args.no_overhead:
        from .overhead import measure, table

        say("\n" + tr("per-turn overhead: the recommended pipeline vs a seed-style one (re-serialise, re-scan)"))
        overhead = table(measure())
        print("\n" + tr("per-turn overhead (ms), kit's recommended pipeline vs seed-style re-serialise/re-scan")
              + "\n" + overhead)
    given = sys.argv[1:] if argv is None else []
    command = "python -m lessonkit.arena" + "".join(f" {a}" for a in given)
    paths = write_all(rows, replays, args.out, command=command, prices_source=source(), overhead=overhead, extra=extra,
                      sticky=sticky)
    say("\n" + tr("wrote {markdown}, {csv}, {chart} in {seconds} s", markdown=paths["markdown"], csv=paths["csv"],
                  chart=paths["chart"], seconds=f"{time.perf_counter() - started:.0f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
