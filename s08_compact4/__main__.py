"""python -m s08_compact4: talk to the s08 agent in a terminal (offline model by default)."""

from lessonkit.repl import main

from . import Agent

raise SystemExit(main(Agent, "s08"))
