"""python -m s06_compact: talk to the s06 agent in a terminal (offline model by default)."""

from lessonkit.repl import main

from . import Agent

raise SystemExit(main(Agent, "s06"))
