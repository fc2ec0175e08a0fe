"""The arena's report: the results table (text, Markdown, CSV), the chart, and the goal check.

Motto: one table per session, one overall, and a chart that shows why.

    rows ──> text table (terminal) ──> results.md ──> results.csv
    replays ──> arena.png: request tokens per turn, one line per strategy, x = a compaction,
                           the window as a dashed line, one panel per session

"Overall" sums money and tokens over sessions; its recall is all present facts over
all facts (so a session with many facts weighs more); its peak is the largest one.

The goal (issue 6), checked per session: among the strategies that never exceed
the window (and send no invalid request), the recommended pipeline has the lowest
dollar cost, and recall at least as high as the best other such strategy's.

Example: markdown_table(rows) -> "| strategy | cost $ | ..."

Not modeled: confidence intervals (the replay is deterministic: one run is the result).
"""

from __future__ import annotations

import csv
from pathlib import Path

from .metrics import Row

COLUMNS = ("strategy", "cost $", "cum. input", "cache read", "cache write", "uncached", "output",
           "summaries", "peak", "over", "invalid", "recall", "ms/turn")
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
            ms_per_turn=sum(r.ms_per_turn * r.turns for r in mine) / max(1, turns)))
    return out


def cells(r: Row) -> list[str]:
    return [r.strategy, f"{r.cost:.2f}", f"{r.cumulative_input:,}", f"{r.cache_read:,}",
            f"{r.cache_write:,}", f"{r.uncached:,}", f"{r.output:,}", str(r.summary_calls), f"{r.peak:,}",
            str(r.over), str(r.invalid), f"{r.recall:.2f}", f"{r.ms_per_turn:.2f}"]


def text_table(rows: list[Row]) -> str:
    """A fixed-width table for the terminal."""
    body = [list(COLUMNS)] + [cells(r) for r in rows]
    widths = [max(len(line[k]) for line in body) for k in range(len(COLUMNS))]
    lines = ["  ".join(c.ljust(w) if k == 0 else c.rjust(w) for k, (c, w) in enumerate(zip(line, widths)))
             for line in body]
    return "\n".join([lines[0], "-" * len(lines[0])] + lines[1:])


def markdown_table(rows: list[Row]) -> str:
    """A GitHub Markdown table."""
    head = "| " + " | ".join(COLUMNS) + " |"
    rule = "|" + "|".join(["---"] + ["---:"] * (len(COLUMNS) - 1)) + "|"
    return "\n".join([head, rule] + ["| " + " | ".join(cells(r)) + " |" for r in rows])


def by_session(rows: list[Row]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for r in rows:
        out.setdefault(r.session, []).append(r)
    return out


def goal_check(rows: list[Row], recommended: str = RECOMMENDED) -> list[str]:
    """One line per session: is the goal met there, and if not, why not."""
    lines = []
    for session, mine in by_session(rows).items():
        rec = next((r for r in mine if r.strategy == recommended), None)
        if rec is None:
            lines.append(f"{session}: no '{recommended}' strategy in this run")
            continue
        if not rec.fits:
            lines.append(f"{session}: NOT MET: {recommended} exceeds the window or sends an invalid request")
            continue
        others = [r for r in mine if r.fits and r.strategy != recommended]
        cheaper = [r.strategy for r in others if r.cost < rec.cost]
        best = max((r.recall for r in others), default=0.0)
        verdict = "met" if not cheaper and rec.recall >= best else "NOT MET"
        why = []
        if cheaper:
            why.append("cheaper: " + ", ".join(cheaper))
        if rec.recall < best:
            why.append(f"recall {rec.recall:.2f} < best other {best:.2f}")
        lines.append(f"{session}: {verdict}: ${rec.cost:.2f}, recall {rec.recall:.2f}"
                     + (f" ({'; '.join(why)})" if why else ""))
    return lines


def write_csv(rows: list[Row], path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["session", "strategy", "turns", "cost_usd", "cumulative_input", "cache_read",
                      "cache_write", "uncached", "output", "summary_calls", "peak", "window", "over_window",
                      "invalid", "recall", "recall_requests", "recall_paths", "recall_errors", "ms_per_turn"])
        for r in rows:
            d = r.recall_detail
            part = [f"{d[k][0]}/{d[k][1]}" if k in d else "" for k in ("requests", "paths", "errors")]
            out.writerow([r.session, r.strategy, r.turns, f"{r.cost:.4f}", r.cumulative_input, r.cache_read,
                          r.cache_write, r.uncached, r.output, r.summary_calls, r.peak, r.window, r.over,
                          r.invalid, f"{r.recall:.4f}", *part, f"{r.ms_per_turn:.3f}"])


def markdown_report(rows: list[Row], *, command: str, prices_source: str, overhead: str = "") -> str:
    """The whole results.md: a table per session, overall, the goal check, the overhead table."""
    parts = [f"# Compaction arena results\n\nReproduce with `{command}`. Prices: {prices_source}.\n"]
    for session, mine in by_session(rows).items():
        head = f"## {session} ({mine[0].turns} requests, window {mine[0].window:,})"
        parts.append(f"{head}\n\n{markdown_table(mine)}\n")
    parts.append(f"## Overall\n\n{markdown_table(overall(rows))}\n")
    parts.append("## Goal\n\n" + "\n".join(f"- {line}" for line in goal_check(rows)) + "\n")
    recorded = {r.session for r in rows if r.strategy == "recorded"}
    if recorded:
        parts.append("## What the recording agent's own compaction kept, against each strategy\n\n"
                     "Facts still present in the final request, by kind (see lessonkit/arena/metrics.py); "
                     "'recorded' is the context the agent really had after its own summary.\n\n"
                     + recall_by_kind([r for r in rows if r.session in recorded]) + "\n")
    if overhead:
        parts.append("## Per-turn overhead (ms)\n\nThe recommended pipeline against a seed-style one that "
                     "re-serialises and re-scans the whole history every turn "
                     f"(lessonkit/arena/overhead.py):\n\n```\n{overhead}\n```\n")
    return "\n".join(parts)


def chart(replays: list, path) -> None:
    """Request tokens per turn, one line per strategy, compactions marked; one panel per session.

    'none' is drawn black and the recommended pipeline thick; compactions are marked
    (x) for strategies that compact at most MAX_MARKS times in a session (a strategy
    that compacts every turn would only draw a thick line of crosses).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sessions = list(dict.fromkeys(r.session for r in replays))
    fig, axes = plt.subplots(len(sessions), 1, figsize=(11, 3.8 * len(sessions)), squeeze=False)
    names = list(dict.fromkeys(r.strategy for r in replays))
    palette = plt.get_cmap("tab10" if len(names) <= 10 else "tab20")
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
        ax.text(0, window, " window", va="bottom", fontsize=8)
        ax.set_title(session, fontsize=10)
        ax.set_ylabel("request tokens")
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("turn (assistant message)")
    axes[0, 0].legend(fontsize=8, ncol=6, loc="upper left", bbox_to_anchor=(0, 1.32))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def recall_by_kind(rows: list[Row]) -> str:
    """Per session, what each strategy's final request still shows, by kind of fact (Markdown)."""
    head = "| session | strategy | requests | paths | errors | all |\n|---|---|---:|---:|---:|---:|"
    lines = [head]
    for r in rows:
        d = r.recall_detail
        lines.append(f"| {r.session} | {r.strategy} | " + " | ".join(
            f"{d[k][0]}/{d[k][1]}" if k in d else "" for k in ("requests", "paths", "errors", "all")) + " |")
    return "\n".join(lines)


def write_all(rows: list[Row], replays: list, out_dir, *, command: str, prices_source: str,
              overhead: str = "") -> dict:
    """results.md, results.csv and arena.png in `out_dir`; returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"markdown": out / "results.md", "csv": out / "results.csv", "chart": out / "arena.png"}
    paths["markdown"].write_text(markdown_report(rows, command=command, prices_source=prices_source,
                                                 overhead=overhead), encoding="utf-8")
    write_csv(rows + overall(rows), paths["csv"])
    chart(replays, paths["chart"])
    return paths
