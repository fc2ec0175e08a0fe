"""python -m s02_tools: chat with the s02 agent in a terminal, watching each step."""

from lessonkit.cli.repl import main

from . import Agent

REFUSED = ("s02 does not compact (s06 will): this turn stops here; the history is kept, so the next "
           "request is no shorter: 'exit' and start again, or use a later stage.")

raise SystemExit(main(Agent, "s02", refused=REFUSED))
