"""Running a notebook in a fresh kernel, started once more if another process took its ports.

jupyter_client picks free TCP ports, writes them to the connection file, then starts the kernel,
which binds them. A kernel started at the same moment by another process (a second pytest worker,
a second instructor) can take one of those ports first: the new kernel dies with "Address already
in use" before it answers kernel_info, and nothing of the notebook has run. Starting it again picks
new ports.

    run_notebook(nb, env=None, **options)   nbclient.NotebookClient(nb, **options).execute(env=env),
                                            started up to KERNEL_STARTS times for that one failure

Example: run_notebook(nbformat.read("lessons/s01_loop.ipynb", as_version=4), timeout=120,
  kernel_name="python3") -> the notebook with its outputs (a kernel that died on a taken port: once more)

Not modeled: a kernel that dies after it answered (a crash in a cell) is the notebook's failure,
and is raised at once.
"""

from __future__ import annotations

KERNEL_STARTS = 2  # a second start with new ports; a third collision in a row is not a race
DIED_AT_START = "before replying to kernel_info"  # jupyter_client's words for that failure


def run_notebook(nb, *, env=None, client_class=None, **options):
    """Execute `nb` in place with nbclient (options as NotebookClient's); returns `nb`."""
    if client_class is None:
        from nbclient import NotebookClient as client_class
    for start in range(1, KERNEL_STARTS + 1):
        try:
            client_class(nb, **options).execute(**({} if env is None else {"env": env}))
            return nb
        except RuntimeError as exc:
            if DIED_AT_START not in str(exc) or start == KERNEL_STARTS:
                raise
