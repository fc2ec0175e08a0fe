"""lessonkit.cli.notebooks: re-execution in place, with stable stream outputs."""

from __future__ import annotations

import nbformat

from lessonkit.cli.notebooks import coalesce_streams, execute


def test_neighbouring_stream_chunks_merge_by_name():
    outs = [nbformat.v4.new_output("stream", name="stdout", text="a"),
            nbformat.v4.new_output("stream", name="stdout", text="b"),
            nbformat.v4.new_output("stream", name="stderr", text="c"),
            nbformat.v4.new_output("stream", name="stdout", text="d")]
    merged = coalesce_streams(outs)
    assert [(o["name"], o["text"]) for o in merged] == [("stdout", "ab"), ("stderr", "c"), ("stdout", "d")]


def test_execute_runs_in_place_and_saves_outputs(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import sys\nfor i in range(3):\n    print(i); sys.stdout.flush()"),
                nbformat.v4.new_code_cell("import os\nprint(os.path.basename(os.getcwd()))")]
    path = tmp_path / "demo" / "n.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, path)
    seconds, cells = execute(path)
    saved = nbformat.read(path, as_version=4)
    assert cells == 2 and seconds > 0
    assert [o["text"] for o in saved.cells[0].outputs] == ["0\n1\n2\n"]
    assert saved.cells[1].outputs[0]["text"] == "demo\n"  # runs in the notebook's own folder
    assert "execution" not in saved.cells[0].metadata      # no timing metadata
