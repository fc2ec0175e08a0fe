"""python -m s04_hooks: chat with the s04 agent, watching each step (its permission check is a hook)."""

from lessonkit.cli.repl import main

from . import Agent

REFUSED = ("s04 does not compact (s06 will): this turn stops here; the history is kept, so the next "
           "request is no shorter: 'exit' and start again, or use a later stage.")

raise SystemExit(main(Agent, "s04", refused=REFUSED))
