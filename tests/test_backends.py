"""Every lesson on every backend: each notebook runs with LESSONS_BACKEND=anthropic against the offline
model served over real HTTP on 127.0.0.1 (its default 200,000-token window), with zero error outputs.

The outputs are not compared (a real model writes its own text); what is checked is that no cell
raises: the lessons' small windows hold on that backend too (lessonkit/backends/window.py), and cells that
read the run handle a run that went another way. Each notebook runs in a temporary copy.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from lessonkit.kernels import run_notebook
from offline import OfflineModel
from offline.serve.server import serve_in_thread

pytestmark = pytest.mark.backends

LESSONS = sorted((Path(__file__).resolve().parent.parent / "lessons").glob("*.ipynb"))
CELL_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def served():
    """The offline model with its default window, served on a free port of 127.0.0.1 as the lessons' backend."""
    server = serve_in_thread(OfflineModel(), port=0)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def errors_of(nb) -> list[str]:
    """'cell N: Name: value' for every error output."""
    return [f"cell {i}: {out.get('ename')}: {out.get('evalue')}"
            for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
            for out in cell.get("outputs", []) if out.get("output_type") == "error"]


@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_the_lesson_runs_on_the_anthropic_backend(lesson, served, tmp_path, monkeypatch):
    for name in ("LESSONS_CONTEXT_WINDOW", "MODEL_ID", "LESSONS_WINDOW_COUNT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LESSONS_BACKEND", "anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "x")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", served)
    copy = tmp_path / lesson.name
    shutil.copy(lesson, copy)
    nb = nbformat.read(copy, as_version=4)
    run_notebook(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", allow_errors=True,
                 resources={"metadata": {"path": str(tmp_path)}})
    assert errors_of(nb) == []
