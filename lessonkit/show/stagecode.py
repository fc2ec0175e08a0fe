"""Reading a stage's code: its files, the classes and functions it (re)defines, its constants.

Motto: computed from the code, so it cannot go stale.

    stage "s06_compact" ──> stage_modules(): every .py but __main__, imported by name;
                            stage_names(): every name the stage before holds
         for each file ──> file_diff(stage, name, module, names of the stage before, its files)
           classes    a base from an earlier stage -> each method it overrides, found along the
                      base's MRO (Override: both as Code), the methods it adds, its CAPS constants
           functions  with the name of one the stage before exports -> an Override
           constants  CAPS names assigned at module level (ast) -> changed (another value) or new,
                      shown by _stable(): sets sorted, no addresses, the same on every run

Every location is a path relative to the repository and a line range (s06_compact/agent.py:162-180).

Example: previous("s06_compact") -> "s05_budget";  _stable({"b", "a"}) -> "{'a', 'b'}"
         file_diff("s06_compact", "micro.py", module, names, files).new -> True

Not modeled: attributes set in __init__, changes inside functions a stage does not redefine.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import textwrap
import types
from pathlib import Path

from .diffview import Code, Constant, FileDiff, Override

ROOT = Path(__file__).resolve().parents[2]
STAGE = re.compile(r"^s\d\d_[a-z0-9]+$")
SKIP_MODULES = ("__main__",)   # a stage's REPL entry: listed, never imported


def stages(root: Path = ROOT) -> list[str]:
    """The stage packages in the repository, in order. Example: ['s01_loop', ..., 's10_memory']"""
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


def stage_modules(stage: str) -> dict[str, types.ModuleType]:
    """file name -> module, for every .py of the stage but __main__ (never imported)."""
    pkg = importlib.import_module(stage)
    out = {"__init__.py": pkg}
    for path in sorted(Path(pkg.__file__).parent.glob("*.py")):
        if path.stem not in SKIP_MODULES and path.stem != "__init__":
            out[path.name] = importlib.import_module(f"{stage}.{path.stem}")
    return out


def stage_names(stage: str) -> dict:
    """Every name the stage's modules hold (their own and the ones they import)."""
    names: dict = {}
    for module in stage_modules(stage).values():
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
