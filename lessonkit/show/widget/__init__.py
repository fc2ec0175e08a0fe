"""The front-end message-list view: an anywidget whose model holds every frame.

Motto: send the frames once; let the browser step through them.

    MessageListView / timeline / compare (lessonkit.show.views, lessonkit.show.compare)
        │  encode(): each distinct block once, a frame as runs of block numbers
        ▼
    FramesWidget (this module) ── model state ──> view.js + view.css (plain ES module, no build)
        kinds · blocks · frames · totals · labels ·     draws a frame, steps it on Slider / Play
        window · threshold · frame (synced)             in the browser, no kernel round trip

Because the frames are in the model, a saved notebook's widget state is enough to draw
and step the view: in nbconvert's HTML (`make site`), VS Code and Colab, with no kernel.
`frame` is synced both ways: view.show(3) moves the browser, the slider moves `frame`.
Every word the browser shows comes from `labels` (lessonkit.show.viewtext.labels(), in the language
the view was made in) and the kinds' shown names; view.js has English only for older models.

Example: FramesWidget(kinds=[["user", "#0072B2", "user"]], blocks=[[0, 0, 9, "hi", 1]],
                      frames=[[[[0, 1]], 1, "message 1/1", [], []]], frame=1)

Importing this module imports anywidget and ipywidgets; lessonkit.show.views imports it only
when a view is made.
Not modeled: editing the history from the browser (the model is one-way but for `frame`).
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets as t

HERE = Path(__file__).parent


class FramesWidget(anywidget.AnyWidget):
    """Frames of a message list (mode "player") or two panes (mode "compare"), drawn by view.js."""

    _esm = HERE / "view.js"
    _css = HERE / "view.css"
    mode = t.Unicode("player").tag(sync=True)      # "player" (slider, Play) or "compare" (two panes)
    kinds = t.List().tag(sync=True)                # [[name, css colour, shown name], ...]; a block's kind indexes it
    labels = t.Dict().tag(sync=True)               # key -> template with {fields} (lessonkit.show.viewtext)
    blocks = t.List().tag(sync=True)               # [[message, kind, tokens, label, first?], ...]
    frames = t.List().tag(sync=True)               # [[runs, messages, label, events, marks], ...]
    totals = t.List().tag(sync=True)               # tokens per frame, for the strip (timelines)
    compacted = t.List().tag(sync=True)            # 0-based frames preceded by a compaction
    window = t.Int(0).tag(sync=True)               # 0: none
    threshold = t.Int(0).tag(sync=True)
    scale = t.Int(1).tag(sync=True)                # tokens of a full-width bar
    full = t.Int(1).tag(sync=True)                 # tokens of a full gauge
    titles = t.List().tag(sync=True)               # compare: the two panes' titles
    caption = t.Unicode("").tag(sync=True)         # compare: the one-line delta
    frame = t.Int(0).tag(sync=True)                # 1-based frame shown (0: no frames)
    interval = t.Int(300).tag(sync=True)           # ms between Play steps at speed 1×
    step = t.Int(1).tag(sync=True)                 # frames per Play step

    def bundle(self, text: str):
        """This widget's display data with `text` as its text/plain (what shows where widgets do
        not render). Example: view.widget.bundle("3 messages") -> ({'text/plain': ..., ...}, {...})"""
        found = self._repr_mimebundle_()
        data, metadata = found if isinstance(found, tuple) else (found, {})
        return {**data, "text/plain": text}, metadata
