"""python -m s05_budget: chat with the s05 agent in a terminal, watching each step."""

from lessonkit.cli.repl import main

from . import Agent

REFUSED = ("s05 only moves big tool outputs to disk, it does not compact (s06 will): this turn stops "
           "here; the history is kept, so the next request is no shorter: 'exit' and start again, or "
           "use a later stage.")

raise SystemExit(main(Agent, "s05", refused=REFUSED))
