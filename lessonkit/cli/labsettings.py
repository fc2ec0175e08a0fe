"""JupyterLab settings the kit's environment ships with: views that survive a save and a reopen.

    python -m lessonkit.cli.labsettings [PREFIX]   (run by `python -m lessonkit setup` and `lab`,
                                                    postBuild and workshop/Dockerfile)
      -> PREFIX/share/jupyter/lab/settings/overrides.d/agent-lessons.json

A view is a widget; its output in a saved notebook names a widget model by id. JupyterLab draws
that output from the model, and after a reopen the model exists only if the notebook carries
the widget state (metadata "widgets" / application/vnd.jupyter.widget-state+json). ipywidgets
saves that state only with its "Save Widget State Automatically" setting, off by default: so a
work copy run and saved (JupyterLab autosaves, and signs it trusted) came back with "Error
displaying widget: model not found" in every view cell. This turns the setting on as an
environment default (JupyterLab's overrides.d, read from the environment's
share/jupyter/lab/settings); a student can still turn it off in Settings.

Standard library only: `python -m lessonkit setup` runs it on a bare Python for the .venv.

Example: install(Path(".venv")) -> .venv/share/jupyter/lab/settings/overrides.d/agent-lessons.json
  holding {"@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": true}}

Not modeled: a JupyterLab from another environment (it reads its own prefix), VS Code (it does not
save widget state at all).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OVERRIDES = Path("share", "jupyter", "lab", "settings", "overrides.d", "agent-lessons.json")
SETTINGS = {"@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True}}  # save widget state with the notebook


def install(prefix: Path | str = sys.prefix) -> Path:
    """Write the overrides file under `prefix` (an environment's root); return its path.
    Rewritten only when its text differs, so a second run changes nothing."""
    target = Path(prefix) / OVERRIDES
    text = json.dumps(SETTINGS, indent=2) + "\n"
    if not target.is_file() or target.read_text(encoding="utf-8") != text:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return target


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        path = install(args[0] if args else sys.prefix)
    except OSError as exc:
        print(f"error: cannot write the JupyterLab settings: {exc}", file=sys.stderr)
        return 2
    print(f"JupyterLab settings: widget state saved with notebooks ({path})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
