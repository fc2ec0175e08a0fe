"""Every public entry point of every stage refuses malformed input with one ValueError of one line.

The entry points are discovered, not listed: each stage package's `__all__`, and
every public function and class defined in its modules (those in a module's `__all__`
where it declares one; a class counts by its
constructor and its public static and class methods). A new public function is
covered the day it is written. Each gets the same malformed values in every
required argument: None, {}, [], 5, "x", a value nested 3,000 deep, objects that
are not JSON, a list holding a non-dict, a message with a bad role. It may
accept a value (for `read_file`, "x" is a path) or refuse it, and only ever with
a ValueError whose message is one line; never a TypeError, KeyError,
AttributeError or RecursionError from inside.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
STAGES = sorted(p.name for p in ROOT.glob("s[0-9][0-9]_*") if (p / "__init__.py").exists())
EXEMPT = {  # entry point -> why it is not fed malformed values
    "s08_compact4.config.CompactLayer": "an Enum: calling it is Python's own lookup by value, which reprs the value",
    "s03_permissions.rules.ask_on_terminal": "reads the keyboard (input()); it is only ever handed to an Agent",
}


def _nested(depth: int):
    value = []
    for _ in range(depth):
        value = [value]
    return value


def _deep_message(depth: int) -> list:
    inner = "x"
    for _ in range(depth):
        inner = {"a": inner}
    return [{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "n", "input": inner}]}]


class Opaque:
    """An object that is not JSON and has no useful attributes."""


MALFORMED = {
    "None": None, "empty dict": {}, "empty list": [], "int": 5, "string": "x",
    "nested 3000 deep": _nested(3000), "message nested 3000 deep": _deep_message(3000),
    "a set": {1, 2}, "an object": Opaque(), "bytes": b"x", "NaN": float("nan"),
    "list with a non-dict": [{"role": "user", "content": "hi"}, 5],
    "message with a bad role": [{"role": "robot", "content": "hi"}],
    "history with a set inside": [{"role": "user", "content": [{"type": "text", "text": "x", "extra": {1}}]}],
}


def _public(obj) -> bool:
    return callable(obj) and not getattr(obj, "__name__", "_").startswith("_")


def _entry_points() -> dict:
    """name -> callable: every stage's exported callables and its modules' public functions and classes."""
    found, seen = {}, set()

    def add(name, obj):
        if id(obj) not in seen:
            seen.add(id(obj))
            found[name] = obj

    for stage in STAGES:
        package = importlib.import_module(stage)
        modules = [importlib.import_module(f"{stage}.{m.name}") for m in pkgutil.iter_modules(package.__path__)
                   if m.name != "__main__"]
        for name in getattr(package, "__all__", ()):
            obj = getattr(package, name)
            if _public(obj) and not isinstance(obj, type(pytest)):
                add(f"{getattr(obj, '__module__', stage)}.{obj.__name__}", obj)
        for module in modules:  # a module's __all__, where it has one, says which of its names are public
            names = getattr(module, "__all__", None) or list(vars(module))
            for name in names:
                obj = getattr(module, name)
                if _public(obj) and getattr(obj, "__module__", None) == module.__name__:
                    add(f"{module.__name__}.{name}", obj)
    for name, cls in list(found.items()):  # a class's public static and class methods are entry points too
        if inspect.isclass(cls):
            for attr, raw in vars(cls).items():
                if not attr.startswith("_") and isinstance(raw, (staticmethod, classmethod)):
                    add(f"{name}.{attr}", getattr(cls, attr))
    return {name: obj for name, obj in sorted(found.items())
            if name not in EXEMPT and not (inspect.isclass(obj) and issubclass(obj, BaseException))}


ENTRY_POINTS = _entry_points()


def _call(func, value):
    """Call `func` with `value` in every required argument (positional and keyword-only)."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        params = []
    args = [value for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            and p.default is p.empty]
    kwargs = {p.name: value for p in params if p.kind == p.KEYWORD_ONLY and p.default is p.empty}
    return func(*args, **kwargs)


def _assert_only_value_error(name, func, value, tmp: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp)  # a path-taking function may create "x": in a scratch folder, never the tree
    try:
        _call(func, value)
    except ValueError as exc:
        message = str(exc)
        assert message and "\n" not in message, f"{name}: a ValueError of more than one line: {message!r}"
    except Exception as exc:  # noqa: BLE001 - the point of the test: name what leaked
        pytest.fail(f"{name}({type(value).__name__}) raised {type(exc).__name__}: {str(exc)[:200]}")


def test_the_entry_points_are_discovered_in_every_stage():
    assert len(STAGES) >= 8
    for stage in STAGES:
        assert any(name.startswith(f"{stage}.") for name in ENTRY_POINTS), stage
    for name in ("s05_budget.cache.with_cache_breakpoint", "s06_compact.auto.estimate_tokens",
                 "s08_compact4.boundary.TokenEstimator.estimate", "s06_compact.micro.micro_compact"):
        assert name in ENTRY_POINTS, name


@pytest.mark.parametrize("value", MALFORMED, ids=list(MALFORMED))
def test_every_entry_point_refuses_each_malformed_value_with_one_value_error(value, tmp_path, monkeypatch):
    for name, func in ENTRY_POINTS.items():
        _assert_only_value_error(name, func, MALFORMED[value], tmp_path, monkeypatch)


def _junk():
    """Random values a history never is: scalars, odd objects, and containers of them."""
    leaves = st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=5), st.binary(max_size=3),
                       st.builds(Opaque), st.sets(st.integers(), max_size=2))
    return st.recursive(leaves, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["role", "content", "type", "text", 1]),
                                                     inner, max_size=3)), max_leaves=8)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(ENTRY_POINTS)), value=_junk())
def test_any_junk_gets_a_value_error_or_an_answer(name, value, tmp_path, monkeypatch):
    _assert_only_value_error(name, ENTRY_POINTS[name], value, tmp_path, monkeypatch)
