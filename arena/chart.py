"""The arena's chart: request tokens per turn, one line per strategy, a panel per session.

Motto: a chart that shows why the table says what it says.

    replays ──> one panel per session: tokens of each request (y) per turn (x), one line per strategy,
                x = a compaction, the window as a dashed line; 'none' black and dotted,
                the recommended pipeline thick

report.py saves it as arena.png; the capstone notebook shows it inline.

Example: figure(replays) -> a lessonkit.show.charts.Chart with len(sessions) panels (a PNG in a notebook)
"""

from __future__ import annotations

from .measures.goal import RECOMMENDED

MAX_MARKS = 40


def figure(replays: list, *, width: float = 11.0, panel: float = 3.8):
    """Request tokens per turn, one line per strategy, compactions marked; one panel per session.
    Its labels are in the lesson's language when an installed font draws it (lessonkit.show.charts).

    'none' is drawn black and dotted, the recommended pipeline thick; compactions are
    marked (x) for strategies that compact at most MAX_MARKS times in a session (a
    strategy that compacts every turn would only draw a thick line of crosses).
    Returns a lessonkit.show.charts.Chart (shows itself as a PNG in a notebook).
    """
    from matplotlib import colormaps

    from lessonkit.show.charts import Chart, _fonts, _say  # the lesson's language when a font draws it, else English

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
