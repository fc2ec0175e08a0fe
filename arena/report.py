"""The arena's report: the results table (text, Markdown, CSV) and the whole results.md.

Motto: one table per session, one overall, and the files that keep them.

    rows ──> text table (terminal) ──> results.md ──> results.csv
    replays ──> arena.png (plot.figure, saved by `chart`)

"Overall" sums money and tokens over sessions; its key-fact recall is all present
facts over all facts (so a session with many facts weighs more), its output recall
the mean of the sessions'; its peak is the largest one. results.md also holds the
goal check (goal.py), what each request held at a recorded compaction, recall by
kind of fact, and the costs under both breakpoint policies.

Every heading and sentence is in the student's language (lessonkit.i18n.tr), results.md
too: it is a report for people. results.csv keeps English column names: it is data for tools.

Example: markdown_table(rows) -> "| strategy | cost $ | ..."      (LESSONS_LANG=zh: "| 策略 | 费用 $ | ...")

Not modeled: confidence intervals (the replay is deterministic: one run is the result).
"""

from __future__ import annotations

import csv
from pathlib import Path

from lessonkit.i18n import tr, trn
from lessonkit.show.textwidth import ljust, rjust
from lessonkit.show.textwidth import width as cells_of

from .chart import figure
from .measures.goal import by_session, goal_check
from .measures.metrics import Row


def overall(rows: list[Row]) -> list[Row]:
    """One row per strategy, summed over the sessions it ran on."""
    out = []
    for name in dict.fromkeys(r.strategy for r in rows):
        mine = [r for r in rows if r.strategy == name]
        present = sum(r.recall_detail["all"][0] for r in mine)
        total = sum(r.recall_detail["all"][1] for r in mine)
        turns = sum(r.turns for r in mine)
        out.append(Row(
            session="overall", strategy=name, turns=turns, cost=sum(r.cost for r in mine),
            cumulative_input=sum(r.cumulative_input for r in mine), uncached=sum(r.uncached for r in mine),
            cache_write=sum(r.cache_write for r in mine), cache_read=sum(r.cache_read for r in mine),
            output=sum(r.output for r in mine), summary_calls=sum(r.summary_calls for r in mine),
            peak=max(r.peak for r in mine), window=max(r.window for r in mine),
            over=sum(r.over for r in mine),
            invalid=sum(r.invalid for r in mine), recall=present / total if total else 1.0,
            recall_detail={"all": (present, total)},
            ms_per_turn=sum(r.ms_per_turn * r.turns for r in mine) / max(1, turns),
            output_recall=sum(r.output_recall for r in mine) / len(mine),
            needed_lost=sum(r.needed_lost for r in mine), needed=sum(r.needed for r in mine)))
    return out


def cells(r: Row, timing: bool = True) -> list[str]:
    out = [r.strategy, f"{r.cost:.2f}", f"{r.cumulative_input:,}", f"{r.cache_read:,}",
           f"{r.cache_write:,}", f"{r.uncached:,}", f"{r.output:,}", str(r.summary_calls), f"{r.peak:,}",
           str(r.over), str(r.invalid), f"{r.recall:.2f}", f"{r.output_recall:.2f}", f"{r.needed_lost}/{r.needed}"]
    return out + [f"{r.ms_per_turn:.2f}"] if timing else out


def columns(timing: bool = True) -> list[str]:
    """The table's headings, in the student's language (made when asked: no language at import)."""
    out = [tr("strategy"), tr("cost $"), tr("cum. input"), tr("cache read"), tr("cache write"), tr("uncached"),
           tr("output"), tr("summaries"), tr("peak"), tr("over"), tr("invalid"), tr("recall"),
           tr("out recall"), tr("lost"), tr("ms/turn")]
    return out if timing else out[:-1]


def text_table(rows: list[Row], *, timing: bool = True, width: int | None = None) -> str:
    """A fixed-width table for the terminal (timing=False leaves out ms/turn, which varies).
    width: wrap the columns into stacked tables of at most that many characters, each led by the
    strategy (a notebook's output area is about 100 characters at 1280 px, the full table 128)."""
    heads = columns(timing)
    body = [heads] + [cells(r, timing) for r in rows]
    widths = [max(cells_of(line[k]) for line in body) for k in range(len(heads))]
    groups, group = [], [0]
    for k in range(1, len(heads)):
        if width and group != [0] and sum(widths[j] + 2 for j in group) + widths[k] > width:
            groups.append(group)
            group = [0]
        group.append(k)
    groups.append(group)
    out = []
    for keep in groups:
        lines = ["  ".join(ljust(line[k], widths[k]) if k == 0 else rjust(line[k], widths[k]) for k in keep)
                 for line in body]                 # in cells: a Chinese heading is twice its length
        out.append("\n".join([lines[0], "-" * cells_of(lines[0])] + lines[1:]))
    return "\n\n".join(out)


def markdown_table(rows: list[Row], *, timing: bool = True) -> str:
    """A GitHub Markdown table."""
    heads = columns(timing)
    head = "| " + " | ".join(heads) + " |"
    rule = "|" + "|".join(["---"] + ["---:"] * (len(heads) - 1)) + "|"
    return "\n".join([head, rule] + ["| " + " | ".join(cells(r, timing)) + " |" for r in rows])


def compaction_table(rows: list[Row]) -> str:
    """At the recording agent's own compaction: what each strategy's request held (Markdown)."""
    lines = ["| " + " | ".join([tr("session"), tr("strategy"), tr("key facts so far"),
                                tr("lines of the last 20 results")]) + " |", "|---|---|---:|---:|"]
    for r in rows:
        if r.at_compaction:
            (fp, ft), (op, ot) = r.at_compaction["facts"], r.at_compaction["output"]
            lines.append(f"| {r.session} | {r.strategy} | {fp}/{ft} | {op}/{ot} |")
    return "\n".join(lines)


def write_csv(rows: list[Row], path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["session", "strategy", "turns", "cost_usd", "cumulative_input", "cache_read",
                      "cache_write", "uncached", "output", "summary_calls", "peak", "window", "over_window",
                      "invalid", "recall", "recall_requests", "recall_paths", "recall_errors", "output_recall",
                      "needed_lost", "needs", "ms_per_turn"])
        for r in rows:
            d = r.recall_detail
            part = [f"{d[k][0]}/{d[k][1]}" if k in d else "" for k in ("requests", "paths", "errors")]
            out.writerow([r.session, r.strategy, r.turns, f"{r.cost:.4f}", r.cumulative_input, r.cache_read,
                          r.cache_write, r.uncached, r.output, r.summary_calls, r.peak, r.window, r.over,
                          r.invalid, f"{r.recall:.4f}", *part, f"{r.output_recall:.4f}", r.needed_lost, r.needed,
                          f"{r.ms_per_turn:.3f}"])


def recall_note() -> str:
    """results.md's paragraph on the three memory columns."""
    return tr(
        "Two recalls. **recall** (key facts, arena/measures/metrics.py): user requests, file paths of tool "
        "calls and the first error line of each failed call, still visible in the final request. Clearing "
        "strategies never remove requests or tool inputs, and the recommended pipeline copies each failure's "
        "first error line into its placeholder with the metric's own function: its 1.00 holds by "
        "construction. **out recall** (arena/measures/probes.py), designed around no strategy: the share of "
        "the distinct lines printed by the last 20 tool results that each request still shows, averaged over "
        "10 evenly spaced turns. Neither credits a paraphrase. **lost** (arena/measures/consequences.py): of the "
        "times the recorded agent needed an earlier tool result again (re-read the same file, re-ran the same "
        "command, quoted a line of it), how many found it removed from the strategy's request at that moment "
        "(lower is better; 'none' is 0 by construction).")


def markdown_report(rows: list[Row], *, command: str, prices_source: str, overhead: str = "",
                    sticky: list[Row] | None = None, extra: str = "") -> str:
    """The whole results.md: a table per session, overall, the goal, the recorded compactions,
    the same-breakpoint-policy check (`sticky` rows), the overhead table."""
    parts = [tr("# Compaction arena results\n\nReproduce with `{command}`. Prices: {prices}.",
                command=command, prices=prices_source) + f"\n\n{recall_note()}\n"]
    for session, mine in by_session(rows).items():
        head = trn("## {session} ({n} request, window {window})", "## {session} ({n} requests, window {window})",
                   mine[0].turns, session=session, window=f"{mine[0].window:,}")
        parts.append(f"{head}\n\n{markdown_table(mine)}\n")
    parts.append(tr("## Overall") + f"\n\n{markdown_table(overall(rows))}\n")
    parts.append(tr("## Goal: cheapest among those that fit, remembering as much") + "\n\n"
                 + "\n".join(f"- {line}" for line in goal_check(rows)) + "\n")
    if extra:
        parts.append(extra)
    if any(r.at_compaction for r in rows):
        parts.append(tr("## At the recording agent's own compaction\n\nThe first request after Claude Code "
                        "compacted: for 'recorded' it is Claude Code's summary alone; for the others, what "
                        "each sends at the same turn. Key facts of the history so far (a path counts if its "
                        "file name is named), and the lines of the last 20 tool results.")
                     + "\n\n" + compaction_table(rows) + "\n")
    recorded = {r.session for r in rows if r.strategy == "recorded"}
    if recorded:
        parts.append(tr("## What each final request still shows, by kind of fact") + "\n\n"
                     + recall_by_kind([r for r in rows if r.session in recorded]) + "\n")
    if sticky:
        parts.append(tr("## The same breakpoint policy for every strategy\n\nAbove, the client puts one "
                        "breakpoint on the last block of each request and the recommended pipeline adds its "
                        "own stable marks (part of its design). Here every strategy gets the 'sticky' policy "
                        "(arena/bills/breakpoints.py): the last block, plus the end of the region it last "
                        "rewrote, kept until the next rewrite. Costs:")
                     + "\n\n" + cost_comparison(rows, sticky) + "\n\n" + tr("Goal under this policy:") + "\n\n"
                     + "\n".join(f"- {line}" for line in goal_check(sticky)) + "\n")
    if overhead:
        parts.append(tr("## Per-turn overhead (ms)\n\nThe recommended pipeline against a seed-style one that "
                        "re-serialises and re-scans the whole history every turn "
                        "(arena/overhead.py):") + f"\n\n```\n{overhead}\n```\n")
    return "\n".join(parts)


def cost_comparison(last: list[Row], sticky: list[Row]) -> str:
    """$ per strategy and session under both breakpoint policies (Markdown)."""
    sessions = list(by_session(last))
    cost = {(r.session, r.strategy): r.cost for r in sticky}
    head = (f"| {tr('strategy')} | " + " | ".join(tr("{session} last / sticky", session=s) for s in sessions)
            + " |")
    lines = [head, "|---|" + "---:|" * len(sessions)]
    for name in dict.fromkeys(r.strategy for r in last):
        mine = {r.session: r.cost for r in last if r.strategy == name}
        lines.append(f"| {name} | " + " | ".join(
            f"{mine[s]:.2f} / {cost[(s, name)]:.2f}" if s in mine and (s, name) in cost else "" for s in sessions)
            + " |")
    return "\n".join(lines)


def chart(replays: list, path) -> None:
    """figure(replays), saved as a PNG at `path`."""
    figure(replays).savefig(path, dpi=110, metadata={"Software": None})


def recall_by_kind(rows: list[Row]) -> str:
    """Per session, what each strategy's final request still shows, by kind of fact (Markdown)."""
    heads = [tr("session"), tr("strategy"), tr("requests"), tr("paths"), tr("errors"), tr("all")]
    lines = ["| " + " | ".join(heads) + " |", "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        d = r.recall_detail
        lines.append(f"| {r.session} | {r.strategy} | " + " | ".join(
            f"{d[k][0]}/{d[k][1]}" if k in d else "" for k in ("requests", "paths", "errors", "all")) + " |")
    return "\n".join(lines)


def write_all(rows: list[Row], replays: list, out_dir, *, command: str, prices_source: str,
              overhead: str = "", sticky: list[Row] | None = None, extra: str = "") -> dict:
    """results.md, results.csv and arena.png in `out_dir`; returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"markdown": out / "results.md", "csv": out / "results.csv", "chart": out / "arena.png"}
    paths["markdown"].write_text(markdown_report(rows, command=command, prices_source=prices_source,
                                                 overhead=overhead, sticky=sticky, extra=extra),
                                 encoding="utf-8")
    write_csv(rows + overall(rows), paths["csv"])
    chart(replays, paths["chart"])
    return paths
