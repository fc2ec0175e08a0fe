"""python -m s01_loop: talk to the s01 agent in a terminal (offline model by default)."""

from lessonkit.repl import main

from . import Agent

raise SystemExit(main(Agent, "s01"))
