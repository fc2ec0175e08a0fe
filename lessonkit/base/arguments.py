"""One-line checks of a caller's arguments, and a short repr safe for any value.

Every public entry point of the stages refuses bad input the same way: one ValueError
naming the argument and showing a short picture of what came, never a traceback from
deep inside. None of the stages teaches this; all of them use it.

    check_type(None, str, "path")        -> ValueError("path must be a str, got None")
    check_int(-1, "keep", 0)             -> ValueError("keep must be >= 0, got -1")
    check_path("", "workspace")          -> ValueError("workspace must be a path, got ''")
    check_client(object())               -> ValueError("client must be an anthropic client ...")
    short_repr([[[[[1]]]]])              -> '[[[[...]]]]'   (a 3,000-deep list too: no RecursionError)

Example: check_int(True, "keep") -> ValueError("keep must be a int, got True")  (a bool is not an int)

Not modeled: checks of a value's contents beyond its type (each caller says what it needs).
"""

from __future__ import annotations

import os
import reprlib

_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 3, 40, 40


def short_repr(value, width: int = 60) -> str:
    """A short one-line repr of any value, for an error message. Example: [[[[[1]]]]] -> '[[[[...]]]]'"""
    text = _SHORT.repr(value).replace("\n", " ")
    return text if len(text) <= width else text[:width - 1] + "…"


def check_type(value, kind, name: str) -> None:
    """Raise one ValueError unless `value` is a `kind` (a bool is not an int). Example: (None, str, "path")"""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(name, str) or not kinds or not all(isinstance(k, type) for k in kinds):
        raise ValueError("check_type takes a value, a type (or a tuple of types) and the value's name")
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise ValueError(f"{name} must be a {names}, got {short_repr(value)}")


def check_client(client) -> None:
    """Raise one ValueError unless `client` can send a request (has messages.create)."""
    if not callable(getattr(getattr(client, "messages", None), "create", None)):
        raise ValueError(f"client must be an anthropic client (with messages.create), got {short_repr(client)}")


def check_path(value, name: str) -> None:
    """Raise one ValueError unless `value` is a path (a str or an os.PathLike). Example: (None, "directory")"""
    check_type(name, str, "name")
    if not isinstance(value, (str, os.PathLike)) or value == "":
        raise ValueError(f"{name} must be a path, got {short_repr(value)}")


def check_int(value, name: str, minimum: int | None = None) -> None:
    """Raise one ValueError unless `value` is an int >= `minimum`. Example: check_int(-1, "keep", 0) -> ValueError"""
    check_type(value, int, name)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
