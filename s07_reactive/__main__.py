"""python -m s07_reactive: chat with the s07 agent in a terminal, watching each step."""

from lessonkit.cli.repl import main
from s06_compact.auto import THRESHOLD

from . import Agent

REFUSED = ("s07 compacts and retries once when a request is refused; this refusal came from a "
           "request it does not retry: this turn stops here; the history is kept.")


def options(window):
    """With a lesson window, auto-compact at half of it (s06's own 50,000 is for a 200,000 window)."""
    return {"threshold": min(THRESHOLD, window // 2)} if window else {}


raise SystemExit(main(Agent, "s07", options=options, refused=REFUSED))
