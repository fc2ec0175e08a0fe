"""python -m s06_compact: chat with the s06 agent in a terminal, watching each step."""

from lessonkit.cli.repl import main
from s06_compact.auto import THRESHOLD

from . import Agent

REFUSED = ("s06 compacts before a request, on its estimate, and has no answer to a refusal (s07 adds "
           "one): this turn stops here; the history is kept, and auto-compact runs before the next "
           "request once the estimate reaches the threshold.")


def options(window):
    """With a lesson window, auto-compact at half of it (s06's own 50,000 is for a 200,000 window)."""
    return {"threshold": min(THRESHOLD, window // 2)} if window else {}


raise SystemExit(main(Agent, "s06", options=options, refused=REFUSED))
