"""The kit's own cassettes: each lesson run once against the offline model, every API pair recorded.

    python -m lessonkit.workshop cassettes lessons/*.ipynb    -> workshop/cassettes/<lesson>.jsonl

A lesson runs in a fresh kernel (nbclient) on a copy in a temporary folder, with
LESSONS_BACKEND=record LESSONS_RECORD_FROM=offline LESSONS_CASSETTE=<its cassette>, so the
committed notebook is never changed. Replaying a lesson with LESSONS_BACKEND=replay
LESSONS_REPLAY=strict then gives its committed outputs (tests/test_cassette.py checks it).
An instructor records real ones the same way with the real API (workshop/README.md).

Example: record_lesson(Path("lessons/s01_loop.ipynb"), Path("workshop/cassettes"))
  -> (Path("workshop/cassettes/s01_loop.jsonl"), 3)   # 3 requests recorded
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..backends.client import REPO_ROOT

CASSETTES = REPO_ROOT / "workshop" / "cassettes"


def record_lesson(notebook: Path, out: Path = CASSETTES, *, env=None, timeout: int = 120) -> tuple[Path, int]:
    """Run `notebook` once with recording on; return the cassette's path and its number of pairs
    (0, and no file, for a lesson that makes no API request)."""
    import nbformat

    from ..kernels import run_notebook

    out.mkdir(parents=True, exist_ok=True)
    cassette = (out / f"{Path(notebook).stem}.jsonl").resolve()
    settings = {"LESSONS_BACKEND": "record", "LESSONS_RECORD_FROM": "offline", "LESSONS_CASSETTE": str(cassette)}
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / Path(notebook).name
        shutil.copy(notebook, copy)
        nb = nbformat.read(copy, as_version=4)
        run_notebook(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                     resources={"metadata": {"path": str(Path(notebook).resolve().parent)}},
                     env={**(env if env is not None else os.environ), **settings})
    count = sum(1 for line in cassette.read_text(encoding="utf-8").splitlines() if line.strip()) \
        if cassette.exists() else 0
    if count == 0:
        cassette.unlink(missing_ok=True)   # a lesson that never calls the API (the arena) has no cassette
    return cassette, count
