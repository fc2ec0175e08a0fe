"""The arena's report: the results table (text, Markdown, CSV), the chart, and the goal check.

Motto: one table per session, one overall, and a chart that shows why.

    rows ──> text table (terminal) ──> results.md ──> results.csv
    replays ──> arena.png: request tokens per turn, one line per strategy, x = a compaction,
                           the window as a dashed line, one panel per session

"Overall" sums money and tokens over sessions; its key-fact recall is all present
facts over all facts (so a session with many facts weighs more), its output recall
the mean of the sessions'; its peak is the largest one.

The goal (issue 6), checked per session: among the strategies that never exceed
the window (and send no invalid request), the recommended pipeline has the lowest
dollar cost, and recall at least as high as the best other such strategy's. It is
checked against both recalls (metrics.py, probes.py), and each part is reported on
its own: cost, key-fact recall, output recall.

Every heading and sentence is in the student's language (lessonkit.i18n.tr), results.md
too: it is a report for people. results.csv keeps English column names: it is data for tools.

Example: markdown_table(rows) -> "| strategy | cost $ | ..."      (LESSONS_LANG=zh: "| 策略 | 费用 $ | ...")

Not modeled: confidence intervals (the replay is deterministic: one run is the result).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from ..i18n import tr
from ..show.textwidth import ljust, rjust
from ..show.textwidth import width as cells_of
from .metrics import Row

RECOMMENDED = "recommended"
MAX_MARKS = 40


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


def by_session(rows: list[Row]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for r in rows:
        out.setdefault(r.session, []).append(r)
    return out


@dataclass
class Verdict:
    """The goal on one session, part by part. `others` are the contenders (they fit the window)."""
    session: str
    fits: bool                        # the recommended pipeline itself never exceeds the window
    cost: float
    cheaper: list                     # contenders cheaper than it
    recall: float
    best_recall: tuple                # (value, strategy) of the best contender
    output_recall: float
    best_output: tuple

    @property
    def cheapest(self) -> bool:
        return self.fits and not self.cheaper

    @property
    def key_facts(self) -> bool:
        return self.fits and self.recall >= self.best_recall[0]

    @property
    def output(self) -> bool:
        return self.fits and self.output_recall >= self.best_output[0]

    def line(self) -> str:
        """Example: 'g: met with key-fact recall, NOT MET with output recall · $2.74, cheapest · ...'"""
        if not self.fits:
            return tr("{session}: NOT MET: {strategy} exceeds the window or sends an invalid request",
                      session=self.session, strategy=RECOMMENDED)
        cost = (tr("${cost}, cheapest", cost=f"{self.cost:.2f}") if self.cheapest else
                tr("${cost}, cheaper: {names}", cost=f"{self.cost:.2f}", names=", ".join(self.cheaper)))
        return tr("{session}: {facts_met} with key-fact recall, {output_met} with output recall · {cost} · "
                  "key-fact recall {recall} (best other {best_recall}, {best_recall_by}) · "
                  "output recall {output_recall} (best other {best_output}, {best_output_by})",
                  session=self.session, facts_met=met(self.cheapest and self.key_facts),
                  output_met=met(self.cheapest and self.output), cost=cost, recall=f"{self.recall:.2f}",
                  best_recall=f"{self.best_recall[0]:.2f}", best_recall_by=self.best_recall[1],
                  output_recall=f"{self.output_recall:.2f}", best_output=f"{self.best_output[0]:.2f}",
                  best_output_by=self.best_output[1])


def met(ok: bool) -> str:
    """A goal's part, held or not, as the verdict lines say it. Example: met(False) -> "NOT MET" """
    return tr("met") if ok else tr("NOT MET")


def verdicts(rows: list[Row], recommended: str = RECOMMENDED) -> list[Verdict]:
    """The goal, per session where the recommended pipeline ran."""
    out = []
    for session, mine in by_session(rows).items():
        rec = next((r for r in mine if r.strategy == recommended), None)
        if rec is None:
            continue
        others = [r for r in mine if r.fits and r.strategy != recommended]
        best = max(others, key=lambda r: r.recall, default=None)
        best_out = max(others, key=lambda r: r.output_recall, default=None)
        out.append(Verdict(
            session, rec.fits, rec.cost, [r.strategy for r in others if r.cost < rec.cost],
            rec.recall, (best.recall, best.strategy) if best else (0.0, "-"),
            rec.output_recall, (best_out.output_recall, best_out.strategy) if best_out else (0.0, "-")))
    return out


def goal_check(rows: list[Row], recommended: str = RECOMMENDED) -> list[str]:
    """One line per session: is the goal met there, part by part, and if not, why not."""
    lines = [v.line() for v in verdicts(rows, recommended)]
    missing = [s for s, mine in by_session(rows).items() if not any(r.strategy == recommended for r in mine)]
    return lines + [tr("{session}: no '{strategy}' strategy in this run", session=s, strategy=recommended)
                    for s in missing]


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
        "Two recalls. **recall** (key facts, lessonkit/arena/metrics.py): user requests, file paths of tool "
        "calls and the first error line of each failed call, still visible in the final request. Clearing "
        "strategies never remove requests or tool inputs, and the recommended pipeline copies each failure's "
        "first error line into its placeholder with the metric's own function: its 1.00 holds by "
        "construction. **out recall** (lessonkit/arena/probes.py), designed around no strategy: the share of "
        "the distinct lines printed by the last 20 tool results that each request still shows, averaged over "
        "10 evenly spaced turns. Neither credits a paraphrase. **lost** (lessonkit/arena/consequences.py): of the "
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
        head = tr("## {session} ({n} requests, window {window})", session=session, n=mine[0].turns,
                  window=f"{mine[0].window:,}")
        parts.append(f"{head}\n\n{markdown_table(mine)}\n")
    parts.append(tr("## Overall") + f"\n\n{markdown_table(overall(rows))}\n")
    parts.append(tr("## Goal (issue 6)") + "\n\n" + "\n".join(f"- {line}" for line in goal_check(rows)) + "\n")
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
                        "(lessonkit/arena/breakpoints.py): the last block, plus the end of the region it last "
                        "rewrote, kept until the next rewrite. Costs:")
                     + "\n\n" + cost_comparison(rows, sticky) + "\n\n" + tr("Goal under this policy:") + "\n\n"
                     + "\n".join(f"- {line}" for line in goal_check(sticky)) + "\n")
    if overhead:
        parts.append(tr("## Per-turn overhead (ms)\n\nThe recommended pipeline against a seed-style one that "
                        "re-serialises and re-scans the whole history every turn "
                        "(lessonkit/arena/overhead.py):") + f"\n\n```\n{overhead}\n```\n")
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


def figure(replays: list, *, width: float = 11.0, panel: float = 3.8):
    """Request tokens per turn, one line per strategy, compactions marked; one panel per session.
    Its labels are in the lesson's language when an installed font draws it (lessonkit.show.charts).

    'none' is drawn black and dotted, the recommended pipeline thick; compactions are
    marked (x) for strategies that compact at most MAX_MARKS times in a session (a
    strategy that compacts every turn would only draw a thick line of crosses).
    Returns a lessonkit.show.charts.Chart (shows itself as a PNG in a notebook).
    """
    from matplotlib import colormaps

    from ..show.charts import Chart, _fonts, _say  # the lesson's language when a font draws it, else English

    sessions = list(dict.fromkeys(r.session for r in replays))
    fig = Chart(figsize=(width, panel * len(sessions) + 0.6))
    axes = fig.subplots(len(sessions), 1, squeeze=False)
    names = list(dict.fromkeys(r.strategy for r in replays))
    palette = colormaps["tab10" if len(names) <= 10 else "tab20"]
    colors = {n: palette(k) for k, n in enumerate(names)}
    colors["none"] = (0, 0, 0, 1)
    for ax, session in zip(axes[:, 0], sessions):
        for rp in (r for r in replays if r.session == session):
            main = rp.strategy == RECOMMENDED
            ax.plot(range(len(rp.turn_tokens)), rp.turn_tokens, label=rp.strategy, color=colors[rp.strategy],
                    linewidth=2.6 if main else 1.1, zorder=3 if main else 2,
                    linestyle=":" if rp.strategy == "none" else "-")
            marks = [t for t, _ in rp.compactions]
            if len(marks) <= MAX_MARKS:
                ax.plot(marks, [rp.turn_tokens[t] for t in marks], "x", color=colors[rp.strategy],
                        markersize=5)
        window = next(r.window for r in replays if r.session == session)
        ax.axhline(window, color="black", linestyle="--", linewidth=0.8)
        ax.text(0, window, " " + _say("window"), va="bottom", fontsize=8)
        ax.set_title(session, fontsize=10)
        ax.set_ylabel(_say("request tokens"))
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel(_say("turn (assistant message)"))
    fig.legend(*axes[0, 0].get_legend_handles_labels(), fontsize=8, ncol=6, loc="upper center")
    _fonts(fig)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.6 / (panel * len(sessions) + 0.6)))
    return fig


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
