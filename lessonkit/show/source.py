"""Show the code of a stage in a notebook: the module's own source, never a copy in a cell.

Motto: the notebook shows what runs, so the two cannot drift apart.

    show(s01_loop.Agent.loop)                   a function, method, class, property or module
    show((s03_permissions.rules, "DENY_LIST"))  a top-level assignment, found with ast
        │
        v
    Source ──> text/plain     "# s01_loop/loop.py:131-144 · Agent.loop" + the source lines
           └─> text/markdown  the same header + a ```python block (highlighted by JupyterLab)

The header names the file relative to the repository (never an absolute path) and
the line range, so the output is the same on every machine; a change to the module
changes the notebook's output, and `pytest --nbval` notices.

Example: show(s01_loop.final_text)
  -> # s01_loop/loop.py:65-67 · final_text      (the lines it has today)
     def final_text(message: dict) -> str:
         ...

Not modeled: objects without source (builtins, C extensions, values made at run time);
they raise a one-line TypeError.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import textwrap
import types
from pathlib import Path


class Source:
    """The source of one or more objects: `header` lines and `text`, shown as plain text or markdown."""

    def __init__(self, parts: list[tuple[str, str]]):
        self.parts = parts  # (header, source text) per object

    @property
    def text(self) -> str:
        """Everything shown, as plain text."""
        return "\n\n".join(f"# {header}\n{text}" for header, text in self.parts)

    def __repr__(self) -> str:
        return self.text

    def _repr_markdown_(self) -> str:
        out = []
        for header, text in self.parts:
            ticks = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
            out.append(f"**`{header}`**\n\n{ticks}python\n{text}\n{ticks}")
        return "\n\n".join(out)


def _root_of(module: types.ModuleType) -> Path:
    """The folder that holds the module's top-level package (the repository, for the kit)."""
    top = sys.modules.get(module.__name__.split(".")[0], module)
    top_file = Path(inspect.getsourcefile(top) or "")
    return top_file.parent.parent if top_file.name == "__init__.py" else top_file.parent


def _where(module: types.ModuleType) -> tuple[str, list[str]]:
    """The module's file relative to its repository, and its lines."""
    path = inspect.getsourcefile(module)
    if path is None:
        raise TypeError(f"module {module.__name__} has no Python source file")
    real = Path(path).resolve()
    try:
        shown = real.relative_to(_root_of(module).resolve()).as_posix()
    except ValueError:
        shown = real.name
    return shown, real.read_text(encoding="utf-8").splitlines()


def _assignment(module: types.ModuleType, name: str) -> tuple[int, int]:
    """First and last line (1-based) of the top-level statement that assigns `name`."""
    _, lines = _where(module)
    for node in ast.parse("\n".join(lines)).body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return node.lineno, node.end_lineno
    raise TypeError(f"{module.__name__} has no top-level assignment to {name!r}")


def source_of(obj) -> tuple[str, str]:
    """(header, source) of one object.

    Example: source_of(final_text) -> ('s01_loop/loop.py:65-67 · final_text', 'def final_text(...')
    """
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], types.ModuleType):
        module, name = obj
        first, last = _assignment(module, name)
        label = name
    else:
        target = obj.fget if isinstance(obj, property) else getattr(obj, "__func__", obj)
        module = target if isinstance(target, types.ModuleType) else inspect.getmodule(target)
        if module is None or not (inspect.ismodule(target) or inspect.isclass(target)
                                  or inspect.isfunction(target)):
            raise TypeError(f"cannot show the source of {type(obj).__name__} objects: "
                            "give a module, class, function, method or (module, 'NAME')")
        if inspect.ismodule(target):
            first, last, label = 1, len(_where(module)[1]), module.__name__
        else:
            block, first = inspect.getsourcelines(target)
            last = first + len(block) - 1
            label = getattr(target, "__qualname__", target.__name__)
    path, lines = _where(module)
    text = textwrap.dedent("\n".join(lines[first - 1:last])).rstrip()
    return f"{path}:{first}-{last} · {label}", text


def show(*objs) -> Source:
    """The source of each object, with its file and line range. Example: show(Agent.loop, Agent.ask)"""
    if not objs:
        raise TypeError("show() needs at least one object")
    return Source([source_of(obj) for obj in objs])


def doc(obj) -> str:
    """The docstring of `obj`, its title and motto lines in the lesson's language (lessonkit.i18n).

    Example: print(doc(s03_permissions.loop)) -> "s03 · Permissions: ..." (or "s03 · 权限：..." in zh)
    """
    from lessonkit.i18n import tr_lines

    text = inspect.getdoc(obj) if not isinstance(obj, types.ModuleType) else obj.__doc__
    if not text:
        raise TypeError(f"{getattr(obj, '__name__', type(obj).__name__)} has no docstring")
    return tr_lines(text)

