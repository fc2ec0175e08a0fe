"""s04 exercise: trigger an event's hooks (`exercise`): in order, the first non-None return decides.

    trigger.py    the exercise: trigger_hooks(registry, event, *args), its cases and its wrong answers
      demo.py       the named demo hooks the cases register, and how a call is run and told
      verdicts.py   why an outcome is wrong, from which hooks it called and what came out

Example: exercise.check(asks_everyone) -> ✗ trigger_hooks: 6/9 cases pass
  ✗ the first hook that decides wins: returned 'blocked: writes go under notes/' after calling allow,
    block, log; expected: returned 'blocked: writes go under notes/' after calling allow, block: log was
    called after block had decided: return the first non-None value at once; ...

Reference: s04_hooks.trigger_hooks.
"""

from __future__ import annotations

from .redact import redact_exercise, redact_secrets
from .trigger import (
    SOLUTION,
    STARTER,
    asks_everyone,
    dunder_name,
    error_as_decision,
    exercise,
    first_arg_only,
    names_the_event,
    seeds_trigger,
    truthy,
)

__all__ = ["SOLUTION", "STARTER", "asks_everyone", "dunder_name", "error_as_decision", "exercise", "first_arg_only",
           "names_the_event", "redact_exercise", "redact_secrets", "seeds_trigger", "truthy"]
