"""The agent's own record folders: inside the workspace, the model's file tools read there, never write.

From s05 on, an agent keeps a record of its own in the workspace (s05's saved tool outputs,
s06's transcripts). The model must be able to read it back, and must not be able to rewrite
it: a summary that says "the full output is in .tool_results/x.txt" is only true while that
file is the one the agent wrote. Keeping the folders read-only is not what any stage teaches;
this module is where it is done.

    folder_holding(real, folders)   -> the record folder `real` is in (or is), or None
    read_only_in(handler, folders, resolve, refuse)
        a file tool handler (workspace, path, **rest) that first resolves `path` (s02's
        resolve_in: never outside the workspace) and calls refuse(path, folder) -- which
        raises -- when it lands in one of folders(); otherwise runs the handler

Example: folder_holding(Path("/ws/.tool_results/t1.txt"), [Path("/ws/.tool_results")])
  -> Path("/ws/.tool_results")

Not modeled: bash (a command that can write there asks first: s03's permissions), a folder
swapped for a symlink after the agent is made.
"""

from __future__ import annotations

from pathlib import Path


def folder_holding(real: Path, folders) -> Path | None:
    """The folder of `folders` that is `real` or holds it, or None."""
    return next((folder for folder in folders if real == folder or folder in real.parents), None)


def read_only_in(handler, folders, resolve, refuse):
    """`handler`, refusing every path inside one of `folders()` (asked at each call: a later stage adds some)."""
    def tool(workspace: Path, path: str, **rest) -> str:
        folder = folder_holding(resolve(workspace, path), folders())
        if folder is not None:
            refuse(path, folder)  # raises: the model hears why
        return handler(workspace, path, **rest)
    tool.__name__ = handler.__name__
    return tool
