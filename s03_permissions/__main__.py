"""python -m s03_permissions: talk to the s03 agent in a terminal (it asks before destructive commands)."""

from lessonkit.repl import main

from . import Agent

raise SystemExit(main(Agent, "s03"))
