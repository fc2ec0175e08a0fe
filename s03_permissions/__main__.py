"""python -m s03_permissions: chat with the s03 agent, watching each step (it asks before what may write)."""

from lessonkit.cli.repl import main

from . import Agent

REFUSED = ("s03 does not compact (s06 will): this turn stops here; the history is kept, so the next "
           "request is no shorter: 'exit' and start again, or use a later stage.")

raise SystemExit(main(Agent, "s03", refused=REFUSED))
