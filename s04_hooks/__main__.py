"""python -m s04_hooks: talk to the s04 agent in a terminal (its permission check is a hook)."""

from lessonkit.repl import main

from . import Agent

raise SystemExit(main(Agent, "s04"))
