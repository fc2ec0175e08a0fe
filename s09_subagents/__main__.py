"""python -m s09_subagents: chat with the s09 agent in a terminal, watching each step."""

from lessonkit.cli.repl import main

from . import Agent

REFUSED = ("s09 compacts and retries once when a request is refused; this refusal came from a "
           "request it does not retry: this turn stops here; the history is kept.")

raise SystemExit(main(Agent, "s09", refused=REFUSED))
