"""Scripted scenarios: data files that drive a lesson's demo exactly, turn by turn.

A scenario is a JSON object (one per file in scenarios/, or passed to OfflineModel):

    {
      "name": "fix_failing_test",
      "description": "what the demo shows",
      "match": "fix the failing test",        regex, searched case-insensitively in the task
      "workspace": {"calc.py": "..."},         optional: the files the demo expects
      "steps": [                               one assistant turn each, in order
        {"say": "Let me run the tests first.",
         "calls": [{"role": "bash", "args": {"command": "python -m unittest -q"}}]},
        ...
      ],
      "final": "the end_turn answer once every step is done"
    }

A call names a *role* (bash, read, write, edit, list, compact) with role arguments
(command; path; path + content; path + old + new; path or pattern; focus), and is
sent to whichever offered tool plays that role, with that tool's parameter names
(see roles.py). `{"tool": "Name", "input": {...}}` calls one tool exactly instead.
Each step's text gets its step counter "(k/N)", so a compacted history resumes
where it was (see policy.py).

Example: scenario_steps({"steps": [{"say": "Reading", "calls": [...]}], ...})
  -> [Step("Reading (1/1).", [("read", {"path": "a.py"})])]

Not modeled: branching on tool results (a scenario is a fixed script).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

SCENARIO_DIR = Path(__file__).parent / "scenarios"
ROLE_NAMES = ("bash", "read", "write", "edit", "list", "compact")


class ScenarioError(ValueError):
    """A scenario that is not well formed (the message names the file and the problem)."""


@dataclass
class Step:
    """One turn of a plan: a text and the calls to make, as (role, args) pairs.

    A role of the form "=Name" calls the tool named Name with `args` as its input.
    """
    say: str
    calls: list = field(default_factory=list)


def check_scenario(scenario, where: str = "scenario") -> dict:
    """Raise ScenarioError (one line, naming the problem) unless `scenario` is well formed."""
    if not isinstance(scenario, dict):
        raise ScenarioError(f"{where}: a scenario is a JSON object")
    for key in ("match", "steps"):
        if key not in scenario:
            raise ScenarioError(f"{where}: missing key {key!r}")
    try:
        re.compile(scenario["match"])
    except (re.error, TypeError) as exc:
        raise ScenarioError(f"{where}: 'match' is not a valid regex: {exc}") from None
    if not isinstance(scenario["steps"], list) or not scenario["steps"]:
        raise ScenarioError(f"{where}: 'steps' must be a non-empty list")
    for k, step in enumerate(scenario["steps"]):
        if not isinstance(step, dict) or not isinstance(step.get("calls", []), list):
            raise ScenarioError(f"{where}: steps[{k}] must be an object with a 'calls' list")
        for j, call in enumerate(step.get("calls", [])):
            role = call.get("role") if isinstance(call, dict) else None
            if role not in ROLE_NAMES and not (isinstance(call, dict) and isinstance(call.get("tool"), str)):
                raise ScenarioError(f"{where}: steps[{k}].calls[{j}] needs a 'role' (one of "
                                 f"{', '.join(ROLE_NAMES)}) or a 'tool' name")
    if not isinstance(scenario.get("final", ""), str):
        raise ScenarioError(f"{where}: 'final' must be a string")
    return scenario


def load_scenarios(extra=None) -> list[dict]:
    """The given scenarios (checked), then every scenarios/*.json file, in name order."""
    out = [check_scenario(s, f"scenario {k}") for k, s in enumerate(extra or [])]
    for path in sorted(SCENARIO_DIR.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ScenarioError(f"{path.name}: not valid JSON: {exc}") from None
        out.append(check_scenario(data, path.name))
    return out


def find_scenario(task: str, scenarios: list) -> dict | None:
    """The first scenario whose `match` regex is found in the task."""
    for scenario in scenarios or []:
        if task and re.search(scenario["match"], task, re.IGNORECASE | re.DOTALL):
            return scenario
    return None


def scenario_steps(scenario: dict) -> list[Step]:
    """A scenario's steps, each text ending with its step counter (k/N)."""
    n = len(scenario["steps"])
    steps = []
    for k, step in enumerate(scenario["steps"], 1):
        calls = [(c["role"], dict(c.get("args") or {})) if "role" in c else ("=" + c["tool"], c.get("input") or {})
                 for c in step.get("calls", [])]
        say = step.get("say", "").rstrip().rstrip(".")
        steps.append(Step(f"{say} ({k}/{n}).".lstrip(), calls))
    return steps


def write_workspace(scenario: dict, root) -> Path:
    """Write the scenario's `workspace` files under `root`; return root."""
    root = Path(root)
    for name, text in (scenario.get("workspace") or {}).items():
        path = (root / name).resolve()
        if root.resolve() not in path.parents:
            raise ValueError(f"scenario workspace path {name!r} leaves the workspace")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
