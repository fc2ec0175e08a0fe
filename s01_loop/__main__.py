"""python -m s01_loop: chat with the s01 agent in a terminal, watching each step."""

from lessonkit.cli.repl import main

from . import Agent

REFUSED = ("s01 does not compact (s06 will): this turn stops here; the history is kept, so the next "
           "request is no shorter: 'exit' and start again, or use a later stage.")

raise SystemExit(main(Agent, "s01", refused=REFUSED))
