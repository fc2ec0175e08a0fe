"""python -m s10_memory: chat with the s10 agent in a terminal, watching each step."""

from lessonkit.cli.repl import main

from . import Agent

REFUSED = ("s10 compacts and retries once when a request is refused; this refusal came from a "
           "request it does not retry: this turn stops here; the history is kept.")

raise SystemExit(main(Agent, "s10", refused=REFUSED))
