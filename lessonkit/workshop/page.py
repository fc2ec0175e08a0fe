"""The room as a page: students × exercises, each cell coloured by its state; it reloads itself.

    python -m lessonkit.workshop progress --html room.html              write it once
    python -m lessonkit.workshop progress --html room.html --watch 10   rewrite it every 10 s (Ctrl-C stops)

The page refreshes on its own (<meta http-equiv="refresh">), so a browser left open on it
follows the room. A cell shows k/n (cases passing) and, on hover, the first failing case or
the error. The page says what it is: advisory records a student can write; `verify` grades.

Example: html(rows) -> "<!doctype html>...<td class='passed' title='...'>✓</td>..."
"""

from __future__ import annotations

import html as escape
import time

COLOURS = {"not logged in": "#ffffff", "not started": "#eeeeee", "trying": "#fff3b0", "stuck": "#ffb347",
           "passed": "#9be39b", "error": "#ff7b7b", "uses the reference": "#c9b3ff"}
REFRESH_S = 10


def html(table, *, refresh: int = REFRESH_S, now: float | None = None, links: str | None = None) -> str:
    """The whole page for `table` (progress.Row objects); with `links`, each student's name links to
    their feedback page, `{links}{name}.html` (the room service's feedback/)."""
    students = list(dict.fromkeys(r.student for r in table))
    columns = list(dict.fromkeys((r.lesson, r.exercise) for r in table))
    by = {(r.student, r.lesson, r.exercise): r for r in table}
    e = escape.escape
    head = "".join(f"<th title='{e(lesson)}'>{e(lesson.split('_')[0])}<br>{e(name)}</th>" for lesson, name in columns)
    body = []
    for student in students:
        cells = []
        for lesson, name in columns:
            r = by[(student, lesson, name)]
            cases = f"{r.passed}/{r.total}"
            label = {"passed": "✓", "not started": "·", "error": "error", "not logged in": "-",
                     "uses the reference": "ref", "stuck": cases + "!"}.get(r.state, cases)
            label = "missing" if r.detail.startswith("notebook missing") else label
            tip = f"{r.state}: {plain(r.detail)}" if r.detail else r.state
            if r.attempts:
                tip += f" ({r.attempts} attempt(s), since {r.since}, last {r.last})"
            secret = getattr(r, "hidden", "")
            if secret:
                tip += f"; hidden cases {plain(secret)}"
                label += f" (hidden {secret.split(';')[0]})"
            cells.append(f"<td class='{e(r.state.replace(' ', '-'))}' title='{e(tip)}'>{e(label)}</td>")
        last = max((r.last for r in table if r.student == student and r.last), default="")
        who = e(student) if links is None else f"<a href='{e(links + page_name(student))}'>{e(student)}</a>"
        when = f"<td class='last' title='{e(last)}'>{e(ago(last, now))}</td>"
        body.append(f"<tr><th class='who'>{who}</th>{''.join(cells)}{when}</tr>")
    totals = "".join(f"<td>{sum(by[(s, lesson, n)].state == 'passed' for s in students)}/{len(students)}</td>"
                     for lesson, n in columns)
    legend = " ".join(f"<span class='{s.replace(' ', '-')}'>{s}</span>" for s in COLOURS)
    style = " ".join(f".{s.replace(' ', '-')} {{ background: {c}; }}" for s, c in COLOURS.items())
    stamp = time.strftime("%H:%M:%S", time.localtime(now))
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="{int(refresh)}">
<title>Agent Lessons: the room</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1.5em; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #ccc; padding: 4px 8px; text-align: center; }}
th.who {{ text-align: left; }} .legend span {{ padding: 2px 8px; margin-right: 4px; border: 1px solid #ccc; }}
{style}
</style></head><body>
<h1>The room: {len(students)} student(s), {len(columns)} exercise(s)</h1>
<p class="legend">{legend} · k/n: cases passing · hover a cell for the failing case · updated {stamp},
reloads every {int(refresh)} s</p>
<p><b>Advisory:</b> these are the records students' own checks wrote; a student can write them. The
grade is <code>python -m lessonkit.workshop verify</code>, which re-checks every answer.</p>
<table id="room"><thead><tr><th>student</th>{head}<th>last activity</th></tr></thead>
<tbody>{''.join(body)}</tbody>
<tfoot><tr><th class='who'>passed</th>{totals}<td></td></tr></tfoot></table>
</body></html>
"""


def plain(text) -> str:
    """A student's text without control characters (progress.plain). Example: "\x1b[2Jx" -> "[2Jx" """
    from .progress import plain as strip

    return strip(text)


def ago(when: str, now: float | None = None) -> str:
    """A record's UTC time as the room reads it: the local time and how long ago.
    Example: ("2026-12-07T10:02:00Z", 10:14 that day) -> "10:02 · 12 min ago"; "" -> "-" """
    import calendar

    try:
        t = calendar.timegm(time.strptime(when, "%Y-%m-%dT%H:%M:%SZ"))
    except (TypeError, ValueError):
        return when or "-"
    minutes = max(0, int(((time.time() if now is None else now) - t) // 60))
    since = "just now" if minutes < 1 else f"{minutes} min ago" if minutes < 120 else f"{minutes // 60} h ago"
    return f"{time.strftime('%H:%M', time.localtime(t))} · {since}"


def page_name(student: str) -> str:
    """A student's feedback page's file name: their name with anything but letters, digits, ._- as _.
    Example: "ada" -> "ada.html"; "../x" -> ".._x.html" """
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in student).lstrip(".") or "student"
    return f"{safe}.html"


def _words(language: str) -> dict[str, str]:
    """The states and the table's headings as a student reads them, in `language`."""
    from ..i18n import tr

    return {"not logged in": tr("not logged in", language=language),
            "not started": tr("not started", language=language), "trying": tr("trying", language=language),
            "stuck": tr("stuck", language=language), "passed": tr("passed", language=language),
            "error": tr("error", language=language),
            "uses the reference": tr("uses the reference", language=language),
            "lesson": tr("lesson", language=language), "exercise": tr("exercise", language=language),
            "state": tr("state", language=language), "cases": tr("cases", language=language),
            "points": tr("points", language=language), "what to look at": tr("what to look at", language=language)}


def feedback_page(student: str, rows, *, language: str = "en") -> str:
    """One student's page, in `language`: each exercise, its state, cases, points and what to look at next
    (the first failing case, the hidden cases). Example: feedback_page("ada", rows, language="zh")
    -> "<!doctype html>...<h1>ada 的反馈</h1>..." """
    from ..i18n import tr

    e, words = escape.escape, _words(language)
    lines, got, most = [], 0.0, 0.0
    for r in rows:
        cases = f"{r.passed}/{r.total}" if r.total else "-"
        secret = f"<br>{e(tr('hidden cases: {cases}', language=language, cases=plain(r.hidden)))}" if r.hidden else ""
        points = f"{_num(r.points)} / {_num(r.max_points)}" if r.max_points else "-"
        got, most = got + r.points, most + r.max_points
        state = words.get(r.state, r.state)
        lines.append(f"<tr class='{e(r.state.replace(' ', '-'))}'><td>{e(r.lesson)}</td><td>{e(r.exercise)}</td>"
                     f"<td>{e(state)}</td><td>{e(cases)}</td><td>{e(points)}</td><td>{e(plain(r.detail))}{secret}</td></tr>")
    style = " ".join(f".{s.replace(' ', '-')} {{ background: {c}; }}" for s, c in COLOURS.items())
    heads = "".join(f"<th>{e(words[h])}</th>" for h in ("lesson", "exercise", "state", "cases", "points",
                                                         "what to look at"))
    total = tr("points: {got} of {most}", language=language, got=_num(got), most=_num(most)) if most else ""
    return f"""<!doctype html>
<html lang="{e(language)}"><head><meta charset="utf-8">
<title>{e(tr("Feedback: {student}", language=language, student=student))}</title><style>{style}
body {{ font-family: system-ui, sans-serif; margin: 1.5em; }}
td, th {{ border: 1px solid #ccc; padding: 4px 8px; }} table {{ border-collapse: collapse; }}</style></head>
<body><h1>{e(tr("Feedback: {student}", language=language, student=student))}</h1><p>{e(total)}</p>
<table><tr>{heads}</tr>
{''.join(lines)}</table></body></html>
"""


def _num(x: float) -> str:
    return f"{x:g}"


def feedback_pages(table, folder) -> list:
    """One page per student in `folder` (page_name(student)), each in the student's language (the
    language of their notebook or their last check: Row.lang). Returns the files written."""
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for student in dict.fromkeys(r.student for r in table):
        mine = [r for r in table if r.student == student]
        language = next((r.lang for r in mine if getattr(r, "lang", "")), "en")
        path = folder / page_name(student)
        path.write_text(feedback_page(student, mine, language=language), encoding="utf-8")
        written.append(path)
    return written
