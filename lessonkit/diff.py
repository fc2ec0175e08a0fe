"""What a stage adds to the one before: new files, overridden methods side by side, changed constants.

Motto: computed from the code, so it cannot go stale.

    stage_diff("s05_budget", "s06_compact")
      files      s06's *.py whose name s05 does not have          -> new (with their definitions)
      classes    a class of s06 with a base from an earlier stage -> each method it overrides, shown
                                                                     beside the method it replaces
                                                                     (found along the base's MRO)
                 functions of s06 with the name of one s05 exports  -> the same, side by side
      constants  CAPS names s06 assigns at module level (ast)     -> changed (s05 has another value)
                                                                     or new
        │
        ├─> str(diff)          plain text for a terminal: the two versions in two columns
        └─> diff._repr_html_() a notebook view: one <details> per file, pygments-coloured code in
                               two columns (one shared <style>, so the saved output stays small)

Every location is a path relative to the repository and a line range, so the output is
the same on every machine, and changes only when the stages change.

Example: python -m lessonkit diff s05_budget s06_compact
  -> s06_compact adds to s05_budget: 4 new files, 4 overridden methods, 9 new methods ...

Not modeled: attributes set in __init__, changes inside functions a stage does not redefine.
"""

from __future__ import annotations

import argparse
import ast
import html
import importlib
import inspect
import re
import shutil
import sys
import textwrap
import types
from dataclasses import dataclass, field
from pathlib import Path

from .i18n import tr, tr_lines, trn

ROOT = Path(__file__).resolve().parent.parent
STAGE = re.compile(r"^s\d\d_[a-z0-9]+$")
SKIP_MODULES = ("__main__",)   # a stage's REPL entry: listed, never imported
CSS_CLASS = "lk-diff"


# ---- what the diff is made of -------------------------------------------------------------

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
            out.append(f"== {self.new}/{f.name} " + tr("({kind}, {lines} lines)", kind=kind, lines=f.lines)
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
            about = html.escape(tr("({kind}, {lines} lines)", kind=tag, lines=f.lines))
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


# ---- reading the stages -------------------------------------------------------------------

def stages(root: Path = ROOT) -> list[str]:
    """The stage packages in the repository, in order. Example: ['s01_loop', ..., 's08_compact4']"""
    return sorted(p.name for p in Path(root).iterdir() if p.is_dir() and STAGE.match(p.name)
                  and (p / "__init__.py").is_file())


def previous(stage: str, root: Path = ROOT) -> str:
    """The stage before `stage`. Example: previous('s06_compact') -> 's05_budget'"""
    names = stages(root)
    if stage not in names:
        raise ValueError(f"unknown stage {stage!r}: use one of {', '.join(names)}")
    i = names.index(stage)
    if i == 0:
        raise ValueError(f"{stage} is the first stage: there is nothing before it")
    return names[i - 1]


def _rel(path) -> str:
    """A source file as the diff names it: relative to the folder that holds its stage package.
    Example: <repo>/s06_compact/agent.py -> 's06_compact/agent.py'"""
    p = Path(path).resolve()
    return f"{p.parent.name}/{p.name}"


def _code(obj) -> Code:
    obj = getattr(obj, "fget", None) or getattr(obj, "__func__", None) or obj
    obj = inspect.unwrap(obj)
    lines, start = inspect.getsourcelines(obj)
    return Code(_rel(inspect.getsourcefile(obj)), start, textwrap.dedent("".join(lines)))


def _modules(stage: str) -> dict[str, types.ModuleType]:
    """file name -> module, for every .py of the stage but __main__ (never imported)."""
    pkg = importlib.import_module(stage)
    out = {"__init__.py": pkg}
    for path in sorted(Path(pkg.__file__).parent.glob("*.py")):
        if path.stem not in SKIP_MODULES and path.stem != "__init__":
            out[path.name] = importlib.import_module(f"{stage}.{path.stem}")
    return out


def _namespace(stage: str) -> dict:
    """Every name the stage's modules hold (their own and the ones they import)."""
    names: dict = {}
    for module in _modules(stage).values():
        for k, v in vars(module).items():
            names.setdefault(k, v)
    return names


def _defining(cls: type, name: str):
    """The attribute `name` as the class that defines it along cls's MRO holds it, or None."""
    for klass in inspect.getmro(cls):
        if name in vars(klass):
            return vars(klass)[name]
    return None


def _written_in(obj, path: Path) -> bool:
    """True if the function's source is in `path` (False for generated code: dataclass, Enum)."""
    obj = inspect.unwrap(getattr(obj, "fget", None) or getattr(obj, "__func__", None) or obj)
    try:
        inspect.getsourcelines(obj)
        return Path(inspect.getsourcefile(obj)).resolve() == Path(path).resolve()
    except (OSError, TypeError):
        return False


def _has_source(obj) -> bool:
    try:
        _code(obj)
        return True
    except (OSError, TypeError):
        return False


def _is_code(obj) -> bool:
    obj = getattr(obj, "fget", None) or getattr(obj, "__func__", None) or obj
    return inspect.isfunction(obj)


def _constants(tree: ast.Module) -> list[tuple[str, int]]:
    """Module-level CAPS assignments. Example: [('THRESHOLD', 42), ('MAX_FAILURES', 43)]"""
    found = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, ast.AnnAssign) and node.value is not None else []
        for t in targets:
            if isinstance(t, ast.Name) and t.id.isupper() and not t.id.startswith("_"):
                found.append((t.id, node.lineno))
    return found


def _stable(value) -> str:
    """repr, with sets sorted and addresses dropped (both change from run to run).
    Example: {'b', 'a'} -> {'a', 'b'}; {'s': <function <lambda> at 0x7f..>} -> {'s': <function <lambda>>}"""
    if isinstance(value, (set, frozenset)):
        inner = ", ".join(sorted(_stable(v) for v in value))
        return f"{{{inner}}}" if isinstance(value, set) else f"frozenset({{{inner}}})"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_stable(v) for v in value) + ("," if isinstance(value, tuple) and len(value) == 1 else "")
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_stable(k)}: {_stable(v)}" for k, v in value.items()) + "}"
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))  # a function's address changes from run to run


def _short(value) -> str:
    text = _stable(value)
    return text if len(text) <= 70 else text[:69] + "…"


def file_diff(stage: str, name: str, module: types.ModuleType, old_names: dict, old_files: set) -> FileDiff:
    """What one file of `stage` defines, overrides and changes, against the previous stage's names."""
    path = Path(module.__file__)
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    doc = (ast.get_docstring(tree) or "").strip().split("\n")[0]
    fd = FileDiff(name, name not in old_files, doc, source.count("\n"))
    for node in tree.body:
        obj = getattr(module, getattr(node, "name", ""), None)
        if isinstance(node, ast.ClassDef) and isinstance(obj, type):
            bases = [b for b in obj.__bases__ if b.__module__.split(".")[0] != stage
                     and STAGE.match(b.__module__.split(".")[0])]   # bases from earlier stages
            shown = ", ".join(f"{b.__module__.split('.')[0]}.{b.__qualname__}" if b.__module__.split(".")[0]
                              .startswith("s0") else b.__qualname__ for b in obj.__bases__)
            fd.defines.append(f"class {node.name}({shown})" if shown != "object" else f"class {node.name}")
            for attr, value in vars(obj).items():
                if attr.isupper() and bases and not _is_code(value):  # a class constant, e.g. Agent.LAYERS
                    old = next((r for r in (_defining(b, attr) for b in bases) if r is not None), _MISSING)
                    line = next((n.lineno for n in node.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                                 and attr in [getattr(x, "id", None) for x in
                                              (n.targets if isinstance(n, ast.Assign) else [n.target])]), node.lineno)
                    if old is _MISSING or not _same(old, value):
                        fd.constants.append(Constant(f"{node.name}.{attr}", f"{_rel(path)}:{line}", _short(value),
                                                     None if old is _MISSING else _short(old)))
                    continue
                if not _is_code(value) or attr.startswith("__") and attr != "__init__" \
                        or not _written_in(value, path):   # made by a dataclass or metaclass, not written here
                    continue
                replaced = next((r for r in (_defining(b, attr) for b in bases) if r is not None), None)
                if replaced is not None and _is_code(replaced) and _has_source(replaced):
                    fd.overrides.append(Override(f"{node.name}.{attr}", _code(value), _code(replaced)))
                elif replaced is None and bases:
                    fd.added.append(f"{node.name}.{attr}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and inspect.isfunction(obj):
            fd.defines.append(f"def {node.name}")
            old = old_names.get(node.name)
            if inspect.isfunction(old) and old is not obj and not node.name.startswith("_") and _has_source(old):
                fd.overrides.append(Override(node.name, _code(obj), _code(old)))
    for const, line in _constants(tree):
        if not hasattr(module, const):
            continue
        value = getattr(module, const)
        old = old_names.get(const, _MISSING)
        if old is _MISSING:
            fd.constants.append(Constant(const, f"{_rel(path)}:{line}", _short(value), None))
        elif not _same(old, value):
            fd.constants.append(Constant(const, f"{_rel(path)}:{line}", _short(value), _short(old)))
    return fd


_MISSING = object()


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 -- values that cannot be compared count as changed
        return a is b


def stage_diff(old: str | None = None, new: str | None = None, *, root: Path = ROOT) -> StageDiff:
    """What stage `new` adds to `old` (by default the stage before it); `root` holds the stage
    packages (importable by name).

    Example: stage_diff("s05_budget", "s06_compact").counts()["new files"] -> 4
    """
    if new is None:
        old, new = None, old
    if new is None:
        raise ValueError("stage_diff() needs the stage to show, e.g. stage_diff('s05_budget', 's06_compact')")
    known = stages(root)
    for s in (old, new):
        if s is not None and s not in known:
            raise ValueError(f"unknown stage {s!r}: use one of {', '.join(known)}")
    old = old or previous(new, root)
    old_modules = _modules(old)
    old_files = {p.name for p in Path(old_modules["__init__.py"].__file__).parent.glob("*.py")}
    old_names = _namespace(old)
    files = [file_diff(new, name, module, old_names, old_files) for name, module in _modules(new).items()]
    files.sort(key=lambda f: (not f.new, f.name == "__init__.py", f.name))
    return StageDiff(old, new, files)


def main(argv=None) -> int:
    """python -m lessonkit diff [OLD] NEW [--width N]"""
    from .console import tolerant_console

    tolerant_console()
    parser = argparse.ArgumentParser(prog="python -m lessonkit diff",
                                     description="What a stage adds to the one before it.")
    parser.add_argument("stages", nargs="+", metavar="STAGE", help="[OLD] NEW, e.g. s05_budget s06_compact")
    parser.add_argument("--width", type=int, default=None, help="columns (default: the terminal's)")
    args = parser.parse_args(argv)
    if len(args.stages) > 2:
        parser.error("give one or two stages: [OLD] NEW")
    sys.path.insert(0, str(ROOT))
    try:
        diff = stage_diff(*args.stages)
    except (ValueError, ImportError) as exc:
        print(tr("error: {message}", message=exc), file=sys.stderr)
        return 2
    print(diff.text(args.width or shutil.get_terminal_size((120, 24)).columns), end="")
    return 0
