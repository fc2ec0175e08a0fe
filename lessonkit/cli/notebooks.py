"""Re-execute lesson notebooks in place: outputs and widget state saved, timings printed.

    python -m lessonkit.cli.notebooks lessons/*.ipynb      (or: make lessons)

Each notebook runs top to bottom in a fresh kernel of this Python, in its own
folder, with nbclient's `store_widget_state`, so a saved notebook shows its widgets
in viewers that render widget state. Cell timing metadata is not recorded and
stream chunks are merged, so a re-run changes only the widget model ids (random
by design in ipywidgets; nbval does not compare them).

Example: python -m lessonkit.cli.notebooks lessons/s01_loop.ipynb
  -> "lessons/s01_loop.ipynb: 14 code cells in 3.2 s"
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

CELL_TIMEOUT_S = 120


def coalesce_streams(outputs: list) -> list:
    """Merge neighbouring stdout/stderr chunks, so how the kernel happened to split a cell's
    printing does not change the saved file. Example: [out "a", out "b"] -> [out "ab"]"""
    merged = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (out.get("output_type") == "stream" and prev is not None
                and prev.get("output_type") == "stream" and prev.get("name") == out.get("name")):
            prev["text"] = prev["text"] + out["text"]
        else:
            merged.append(out)
    return merged


def execute(path, *, timeout: int = CELL_TIMEOUT_S) -> tuple[float, int]:
    """Execute one notebook in place; return (seconds it took, number of code cells)."""
    import nbformat

    from ..kernels import run_notebook

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    run_notebook(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                 record_timing=False, resources={"metadata": {"path": str(path.parent)}})
    elapsed = time.perf_counter() - start
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)
    nbformat.write(nb, path)
    return elapsed, sum(1 for c in nb.cells if c.cell_type == "code")


def main(argv=None) -> int:
    from ..console import tolerant_console

    tolerant_console()  # a non-UTF-8 console shows '?' for what it cannot encode, never crashes
    parser = argparse.ArgumentParser(prog="python -m lessonkit.cli.notebooks", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="notebooks to re-execute in place")
    args = parser.parse_args(argv)
    total = 0.0
    for name in args.paths:
        path = Path(name)
        if not path.is_file():
            print(f"error: {name}: no such notebook", file=sys.stderr)
            return 2
        seconds, cells = execute(path)
        total += seconds
        print(f"{path}: {cells} code cells in {seconds:.1f} s", flush=True)
    print(f"{len(args.paths)} notebook(s) in {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
