"""A stage diff as a reader sees it: what it is made of, and its plain text and HTML.

Motto: the two versions of a method side by side, so the change reads at a glance.

    StageDiff(old, new, files)          one FileDiff per file of the new stage:
      FileDiff                            new?, docstring line, definitions, constants,
        Override(name, new, old)          methods it overrides (both as Code: where, line, text)
        Constant(name, where, value, old) and methods it adds
      │
      ├─> headline()        "s06_compact adds to s05_budget: 4 new files, 4 overridden methods, ..."
      ├─> text(width)       plain text for a terminal, each override in two columns (side_by_side)
      ├─> repr()            the notebook's text/plain: the headline and one line per file
      └─> _repr_html_()     one <details> per file, pygments-coloured code in two columns
                            (one shared <style>, so the saved output stays small)

Example: side_by_side(Code("s05/a.py", 10, "x = 1\n"), Code("s06/a.py", 20, "x = 2\n"), 40)
  -> ['s05/a.py:10-10       | s06/a.py:20-20', 'x = 1                | x = 2']

Not modeled: a line-by-line diff inside a method (both versions are shown whole).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from ..i18n import tr, tr_lines, trn

CSS_CLASS = "lk-diff"


@dataclass
class Code:
    """A piece of source: where it is (file relative to the repository, first line) and its text."""
    where: str
    line: int
    text: str

    @property
    def label(self) -> str:
        """Example: 's06_compact/agent.py:162-180'"""
        return f"{self.where}:{self.line}-{self.line + self.text.count(chr(10)) - (self.text.endswith(chr(10)))}"


@dataclass
class Override:
    """A method (or function) of the new stage and the one it replaces."""
    name: str          # "Agent.prepare" or "agent_loop"
    new: Code
    old: Code


@dataclass
class Constant:
    name: str
    where: str         # "s06_compact/auto.py:42"
    value: str         # repr in the new stage
    old: str | None    # repr in the previous stage, None when it is new


@dataclass
class FileDiff:
    """One file of the new stage: new or same-named, what it defines, and what it overrides."""
    name: str                                              # "agent.py"
    new: bool                                              # the previous stage has no file of that name
    doc: str = ""                                          # the first line of its docstring
    lines: int = 0
    defines: list[str] = field(default_factory=list)       # "class Agent(s05_budget.Agent)", "def auto_compact"
    overrides: list[Override] = field(default_factory=list)
    added: list[str] = field(default_factory=list)         # "Agent.log", ... methods a class adds
    constants: list[Constant] = field(default_factory=list)


@dataclass
class StageDiff:
    old: str
    new: str
    files: list[FileDiff]

    # -- counts -------------------------------------------------------------------------

    def counts(self) -> dict:
        return {"new files": sum(f.new for f in self.files),
                "overridden": sum(len(f.overrides) for f in self.files),
                "new methods": sum(len(f.added) for f in self.files),
                "changed constants": sum(c.old is not None for f in self.files for c in f.constants),
                "new constants": sum(c.old is None for f in self.files for c in f.constants)}

    def headline(self) -> str:
        """Example: 's06_compact adds to s05_budget: 4 new files, 4 overridden methods, ...'"""
        c = self.counts()
        files, overridden, methods = c["new files"], c["overridden"], c["new methods"]
        changed, constants = c["changed constants"], c["new constants"]
        # one message per count and number (English says "1 new file", "2 new files")
        return tr("{new} adds to {old}: {files}, {overridden}, {methods}, {changed}, {constants}",
                  new=self.new, old=self.old,
                  files=tr("{n} new file", n=1) if files == 1 else tr("{n} new files", n=files),
                  overridden=(tr("{n} overridden method", n=1) if overridden == 1
                              else tr("{n} overridden methods", n=overridden)),
                  methods=tr("{n} new method", n=1) if methods == 1 else tr("{n} new methods", n=methods),
                  changed=(tr("{n} changed constant", n=1) if changed == 1
                           else tr("{n} changed constants", n=changed)),
                  constants=(tr("{n} new constant", n=1) if constants == 1
                             else tr("{n} new constants", n=constants)))

    # -- plain text ---------------------------------------------------------------------

    def text(self, width: int = 120) -> str:
        """The whole diff as plain text, the two versions of each override in two columns."""
        out = [self.headline(), ""]
        for f in self.files:
            kind = tr("new file") if f.new else tr("also in {stage}", stage=self.old)
            out.append(f"== {self.new}/{f.name} "
                       + trn("({kind}, {n} line)", "({kind}, {n} lines)", f.lines, kind=kind)
                       + (f": {tr_lines(f.doc)}" if f.doc else ""))
            if f.new and f.defines:
                out += [f"   {d}" for d in f.defines]
            for c in f.constants:
                change = f"{c.old} -> {c.value}" if c.old is not None else tr("{value} (new)", value=c.value)
                out.append(f"   {c.name} = {change}   [{c.where}]")
            if f.added:
                out.append("   " + tr("adds: {names}", names=", ".join(f.added)))
            for o in f.overrides:
                out.append("   " + tr("overrides {name}:", name=o.name))
                out += ["   " + line for line in side_by_side(o.old, o.new, width - 3)]
            out.append("")
        return "\n".join(out).rstrip() + "\n"

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        """The notebook's text/plain: the headline and one line per file (the HTML holds the code)."""
        lines = [self.headline()]
        for f in self.files:
            what = [tr("new") if f.new else "",
                    tr("{n} overridden", n=len(f.overrides)) if f.overrides else "",
                    trn("{n} new method", "{n} new methods", len(f.added)) if f.added else "",
                    trn("{n} constant", "{n} constants", len(f.constants)) if f.constants else ""]
            said = tr(", ").join(w for w in what if w) or tr("same name, nothing overridden")
            lines.append(f"  {f.name}: {said}")
        return "\n".join(lines)

    # -- HTML ---------------------------------------------------------------------------

    def _repr_html_(self) -> str:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer

        formatter = HtmlFormatter(cssclass="src", nowrap=False)

        def code(c: Code) -> str:
            return (f"<div class='where'>{html.escape(c.label)}</div>"
                    + highlight(c.text, PythonLexer(), formatter))

        style = formatter.get_style_defs(f".{CSS_CLASS} .src")
        parts = [f"<div class='{CSS_CLASS}'><style>{style}\n"
                 f".{CSS_CLASS} table {{border-collapse:collapse;width:100%;table-layout:fixed}}"
                 f".{CSS_CLASS} td {{vertical-align:top;padding:2px 6px;text-align:left}}"
                 f".{CSS_CLASS} .src pre {{font-size:11px;white-space:pre-wrap;margin:0}}"
                 f".{CSS_CLASS} .where {{color:#666;font-size:11px}}"
                 f".{CSS_CLASS} summary {{cursor:pointer}}</style>",
                 f"<p><b>{html.escape(self.headline())}</b></p>"]
        for f in self.files:
            tag = tr("new") if f.new else tr("also in {stage}", stage=self.old)
            doc = f" — {html.escape(tr_lines(f.doc))}" if f.doc else ""  # a stage's title, if translated
            about = html.escape(trn("({kind}, {n} line)", "({kind}, {n} lines)", f.lines, kind=tag))
            parts.append(f"<details><summary><code>{html.escape(self.new)}/{html.escape(f.name)}</code> "
                         f"{about}{doc}</summary><div style='margin-left:1.5em'>")
            if f.new and f.defines:
                parts.append("<ul>" + "".join(f"<li><code>{html.escape(d)}</code></li>" for d in f.defines)
                             + "</ul>")
            if f.constants:
                rows = "".join(
                    f"<tr><td><code>{html.escape(c.name)}</code></td>"
                    f"<td><code>{html.escape(c.old) if c.old is not None else html.escape(tr('(new)'))}</code></td>"
                    f"<td><code>{html.escape(c.value)}</code></td><td>{html.escape(c.where)}</td></tr>"
                    for c in f.constants)
                parts.append(f"<table><tr><th>{html.escape(tr('constant'))}</th><th>{html.escape(self.old)}</th>"
                             f"<th>{html.escape(self.new)}</th><th>{html.escape(tr('where'))}</th></tr>{rows}</table>")
            if f.added:
                names = ", ".join(f"<code>{html.escape(a)}</code>" for a in f.added)
                parts.append("<p>" + html.escape(tr("adds {names}")).format(names=names) + "</p>")
            for o in f.overrides:
                name = f"<code>{html.escape(o.name)}</code>"
                replaced = html.escape(tr("{stage} (replaced)", stage=o.old.where.split("/")[0]))
                parts.append("<p>" + html.escape(tr("overrides {name}")).format(name=name)
                             + f"</p><table><tr><th>{replaced}</th><th>{html.escape(self.new)}</th></tr>"
                             f"<tr><td>{code(o.old)}</td><td>{code(o.new)}</td></tr></table>")
            parts.append("</div></details>")
        parts.append("</div>")
        return "".join(parts)


def side_by_side(left: Code, right: Code, width: int = 117) -> list[str]:
    """Two sources in two columns, the longer one's lines cut with '…'.
    Example: ['s05/agent.py:10-12        | s06/agent.py:20-24', 'def f(x):                 | def f(x):', ...]"""
    col = max(20, (width - 3) // 2)

    def fit(s: str) -> str:
        s = s.expandtabs(4)
        return s if len(s) <= col else s[:col - 1] + "…"

    a = [left.label, *left.text.rstrip("\n").split("\n")]
    b = [right.label, *right.text.rstrip("\n").split("\n")]
    rows = []
    for i in range(max(len(a), len(b))):
        x, y = (a[i] if i < len(a) else ""), (b[i] if i < len(b) else "")
        rows.append(f"{fit(x):<{col}} | {fit(y)}".rstrip())
    return rows
