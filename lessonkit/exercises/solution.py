"""The last rung of a hint ladder: a complete solution that runs as it is shown.

Motto: the last hint is a program, not a pointer: paste it into the exercise cell and the check passes.

    solution(reference, *helpers)    the sources of the reference and the helpers it should show,
                                     read from their modules (never a copy), after one import line
                                     per module for every other name they use
    solution("def f(...): ...")      a complete program written out (when the reference is not the
                                     function the student writes: a class, or a one-line delegation)
        │
        v
    Source ──> "# imports\nfrom s01_loop.loop import to_dict\n\n# s01_loop/loop.py:47-56 · ..."

A module-private name the sources use (`_inside`, `_TOO_LONG`) is shown with them, since it is
part of the answer; a public one is imported from the module that holds it. tests/test_exercises.py
runs every ladder's last rung in a fresh namespace and checks it.

Example: solution(s01_loop.assistant_message).text
  -> # imports
     from s01_loop.loop import to_dict

     # s01_loop/loop.py:47-56 · assistant_message
     def assistant_message(response) -> dict: ...

Not modeled: names a source reaches through an attribute of another module (`os.path` is one
import of `os`).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import sys
import types

from ..show.source import Source, source_of

__all__ = ["solution"]


def _function(obj):
    """The plain function behind a staticmethod, classmethod or method, or None."""
    target = getattr(obj, "__func__", obj)
    return target if inspect.isfunction(target) else None


def _names(tree: ast.AST) -> list[str]:
    """Every name a source reads when it is defined or run (decorators, defaults, body), in order;
    annotations are left out (the kit's modules do not evaluate them)."""
    skip = set()
    for node in ast.walk(tree):
        for ann in [getattr(node, "annotation", None), getattr(node, "returns", None)]:
            if ann is not None:
                skip |= {id(n) for n in ast.walk(ann)}
    return [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and id(n) not in skip]


def _private_part(module: types.ModuleType, name: str, value):
    """What to show for a module-private name: the function itself, or (module, NAME) for a value."""
    return _function(value) or (value if inspect.isclass(value) else (module, name))


def _parts(objs: tuple) -> tuple[list, dict[str, list[str]], list[str]]:
    """The objects to show (the given ones and the private names they use, in order), the names
    to import per module, and the modules to import whole."""
    shown, imports, whole, seen = [], {}, [], set()
    todo = list(objs)
    while todo:
        obj = todo.pop(0)
        fn = _function(obj)
        key = id(fn or obj) if not isinstance(obj, tuple) else obj
        if key in seen:
            continue
        seen.add(key)
        shown.append(obj)
        if isinstance(obj, tuple):  # a top-level assignment: the names its right-hand side reads
            module = obj[0]
        elif fn is not None or inspect.isclass(obj):
            module = sys.modules[(fn or obj).__module__]
        else:
            continue
        used = _names(ast.parse(_unwrapped(*source_of(obj))[1]))
        space = vars(module)
        for name in used:
            if name not in space or name in dir(builtins) and name not in vars(module):
                continue
            value = space[name]
            if isinstance(value, types.ModuleType):
                if value.__name__ == name:
                    whole.append(name)
                else:
                    imports.setdefault(value.__name__.rpartition(".")[0] or value.__name__, []).append(name)
            elif name.startswith("_") and name != "__name__":
                todo.append(_private_part(module, name, value))
            else:
                imports.setdefault(_home(name, value, module), []).append(name)
    defined = {getattr(_function(o) or o, "__name__", None) for o in shown}
    imports = {mod: sorted(set(names) - defined) for mod, names in sorted(imports.items())}
    return shown, {mod: names for mod, names in imports.items() if names}, sorted(set(whole))


def _home(name: str, value, used_in: types.ModuleType) -> str:
    """The module to import `name` from: where it is defined, as its top-level package exports it
    (s01_loop, pathlib), else the module that uses it. Example: ToolError -> 's01_loop'"""
    defined = getattr(value, "__module__", None) if not isinstance(value, (int, float, str, tuple)) else None
    for candidate in (defined and defined.split(".")[0], defined, used_in.__name__.split(".")[0]):
        if candidate and getattr(sys.modules.get(candidate), name, None) is value:
            return candidate
    return used_in.__name__


def _unwrapped(header: str, text: str) -> tuple[str, str]:
    """A method's source as a module-level function: without @staticmethod."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "@staticmethod":
        lines = lines[1:]
    return header, "\n".join(lines)


def solution(*objs) -> Source:
    """The solution shown as the last hint: one complete program (see the module docstring).

    Example: solution(micro_compact, micro_plan) -> imports + micro_plan's helpers + both functions
    """
    if not objs:
        raise TypeError("solution() needs the reference, or the program as a str")
    if len(objs) == 1 and isinstance(objs[0], str):
        return Source([("solution", objs[0].rstrip())])
    shown, imports, whole = _parts(objs)
    lines = [f"import {name}" for name in whole]
    lines += [f"from {mod} import {', '.join(names)}" for mod, names in imports.items()]
    parts = [("imports", "\n".join(lines))] if lines else []
    # helpers first (they were found after the objects that use them), then the given objects
    ordered = shown[len(objs):][::-1] + shown[:len(objs)][::-1]
    return Source(parts + [_unwrapped(*source_of(obj)) for obj in ordered])
