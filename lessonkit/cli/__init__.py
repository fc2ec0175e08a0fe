"""The kit's commands: set up, open the lessons, run the tests, re-execute notebooks, build the site, the REPL.

    commands.py   python -m lessonkit setup|lab|test (standard library only; the Makefile calls it)
    notebooks.py  python -m lessonkit.cli.notebooks: re-execute lessons in place (make lessons)
    site.py       python -m lessonkit.cli.site: the lessons as a static HTML site (make site)
    repl.py       python -m sNN_name: a stage's agent in the terminal, showing its work
"""
