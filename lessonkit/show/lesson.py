"""A lesson's setup, run by its first code cell: an interrupt says one line, not a traceback.

    from lessonkit.show.lesson import start; start()     (the first code cell of each lesson)
      -> in IPython (a notebook, the IPython shell): a KeyboardInterrupt (the ■ button, Kernel >
         Interrupt, Ctrl-C) prints "interrupted: the history is intact ..." in place of the
         60-line traceback through the kit's internals; the cell still stops (Run All stops there)
      -> %tb right after shows the whole traceback; LESSONS_TRACEBACK=1 shows it every time
      -> outside IPython: nothing (the stage REPLs say the same line themselves, lessonkit/cli/repl.py)

The history is intact because the loop answers every open tool call before the interrupt
goes on up (s01_loop/loop.py), and a history that ends on a user turn is continued by the
next ask(). Registered by start(), never at import: importing the kit changes no shell.

Example: start(); then a cell running agent.ask(...) interrupted ->
  interrupted: the history is intact; the next ask() goes on from it (%tb shows the traceback)

Not modeled: other exceptions (they keep IPython's traceback: it is what a student needs).
"""

from __future__ import annotations

import os
import sys

from ..i18n import tr

TRACEBACK_ENV = "LESSONS_TRACEBACK"  # "1": show an interrupt's whole traceback too


def wants_traceback() -> bool:
    """True when the student asked for full tracebacks (LESSONS_TRACEBACK=1), read at each interrupt."""
    return os.environ.get(TRACEBACK_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def interrupted_line() -> str:
    """The one line an interrupt shows. Example: 'interrupted: the history is intact; ...'"""
    return tr("interrupted: the history is intact; the next ask() goes on from it (%tb shows the traceback)")


def on_interrupt(shell, etype, value, tb, tb_offset=None):
    """IPython's custom exception handler for KeyboardInterrupt: keep the exception for %tb, then
    show one line (or, when asked for, the whole traceback)."""
    sys.last_type, sys.last_value, sys.last_traceback = etype, value, tb  # what %tb reads
    if sys.version_info >= (3, 12):
        sys.last_exc = value
    if wants_traceback():
        stb = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
    else:
        stb = [interrupted_line()]
    shell._showtraceback(etype, value, stb)  # an error output of this one line: the cell still failed
    return stb


def start(shell=None) -> bool:
    """Set up the lesson in the running IPython (or `shell`); False outside IPython. Idempotent."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return False
        shell = get_ipython()
    if shell is None:
        return False
    shell.set_custom_exc((KeyboardInterrupt,), on_interrupt)
    return True
