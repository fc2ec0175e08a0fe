"""python -m s07_reactive: talk to the s07 agent in a terminal (offline model by default)."""

from lessonkit.repl import main

from . import Agent

raise SystemExit(main(Agent, "s07"))
