"""python -m s05_budget: talk to the s05 agent in a terminal (offline model by default)."""

from lessonkit.repl import main

from . import Agent

raise SystemExit(main(Agent, "s05"))
