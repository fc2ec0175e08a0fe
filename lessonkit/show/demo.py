"""Deterministic demo workspaces for lessons, tests and the arena.

Example: make_workspace(tmp / "ws", files=3, lines=20)
  -> ws/app_01.py, ws/app_02.py, ws/app_03.py (each ~20 lines: a docstring, functions, a class),
     the same bytes on every machine for the same arguments.
"""

from __future__ import annotations

import random
from pathlib import Path

NOUNS = ("config", "parser", "cache", "report", "queue", "token", "record", "session", "buffer",
         "window", "summary", "transcript", "budget", "event", "layer", "message")
VERBS = ("load", "parse", "merge", "count", "render", "flush", "split", "check", "score", "trim")


def module_source(index: int, lines: int, rng: random.Random) -> str:
    """One small, valid Python module of about `lines` lines."""
    noun = NOUNS[index % len(NOUNS)]
    out = [f'"""Module {index:02d}: helpers for the {noun}."""', ""]
    k = 0
    while len(out) < max(lines - 4, 4):
        verb, other = rng.choice(VERBS), rng.choice(NOUNS)
        out += [f"def {verb}_{other}_{k}(items):",
                f'    """{verb.capitalize()} the {other} items."""',
                f"    return [item for item in items if len(str(item)) > {rng.randint(0, 9)}]", ""]
        k += 1
    out += [f"class {noun.capitalize()}{index:02d}:", f'    """State of one {noun}."""',
            "    size = " + str(rng.randint(1, 999)), ""]
    return "\n".join(out)


def make_workspace(root, *, files: int = 6, lines: int = 30, seed: int = 0, prefix: str = "app") -> Path:
    """Create (or refresh) a folder of `files` Python modules; return its path."""
    if files < 0 or lines < 1:
        raise ValueError("files must be >= 0 and lines >= 1")
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    for i in range(1, files + 1):
        (root / f"{prefix}_{i:02d}.py").write_text(module_source(i, lines, rng), encoding="utf-8")
    return root
