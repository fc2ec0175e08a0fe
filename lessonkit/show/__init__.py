"""What the lessons show: views, charts, source, diffs, and the recorder that feeds them.

    record.py    an agent run as frames, one per API request
    bars.py      what a message list is made of: a Bar per content block, its kind and tokens
    textpicture.py  a message list as text, a line per message (where widgets do not render)
    views.py     the message-list view (anywidget; widget/ holds its ES module and CSS)
    compare.py   before/after of one compaction layer, side by side
    viewtext.py  the views' words, in the student's language
    charts.py    static matplotlib charts: the saw-tooth and the cache
    source.py    a stage's own code, shown in a notebook (never a copy)
    diff.py      what a stage adds to the one before (`python -m lessonkit diff`)
    stagecode.py reading a stage's code: its files, overrides and constants (for diff.py)
    diffview.py  a stage diff as text and HTML
    textwidth.py columns that line up in a monospace font, Chinese included
    demo.py      deterministic demo workspaces for lessons, tests and the arena
"""
