"""Scripted scenarios: data files that drive a lesson's demo exactly, turn by turn.

A scenario is a JSON object (one per file in scenarios/, or passed to OfflineModel):

    {
      "name": "fix_failing_test",
      "description": "what the demo shows",
      "match": "fix the failing test",        regex, searched case-insensitively in the task
      "workspace": {"calc.py": "..."},         optional: the files the demo expects
      "steps": [                               one assistant turn each, in order
        {"say": "Let me run the tests first.",
         "calls": [{"role": "bash", "args": {"command": "python -m unittest -q"}}],
         "expect": "FAILED \\(failures=1\\)"},      optional: a regex its result must show
        ...
      ],
      "final": "the end_turn answer once every step is done: {tests} tests pass"
    }

A scenario says only what its tools' results show. A step's `expect` is searched in the
result of its call: where it is not found, the scenario is not in the workspace it was
written for (or the fix did not work), and the answer says so, quoting the tool, instead
of going on. The final answer's `{name}` fields are filled from the named groups the
steps' `expect` matched, so "both tests pass" is read back from the test run itself.

A call names a *role* (bash, read, write, edit, list, compact) with role arguments
(command; path; path + content; path + old + new; path or pattern; focus), and is
sent to whichever offered tool plays that role, with that tool's parameter names
(see roles.py). `{"tool": "Name", "input": {...}}` calls one tool exactly instead.
Each step's text gets its step counter "(k/N)", so a compacted history resumes
where it was (see policy.py).

Example: scenario_steps({"steps": [{"say": "Reading", "calls": [...]}], ...})
  -> [Step("Reading (1/1).", [("read", {"path": "a.py"})])]

Not modeled: branching on tool results beyond stopping (a scenario is a fixed script).
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
    expect: str | None = None  # a scenario step: the regex its result must show (else the script stops)


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
        if "expect" in step:
            try:
                re.compile(step["expect"])
            except (re.error, TypeError) as exc:
                raise ScenarioError(f"{where}: steps[{k}].expect is not a valid regex: {exc}") from None
    if not isinstance(scenario.get("final", ""), str):
        raise ScenarioError(f"{where}: 'final' must be a string")
    groups = {g for step in scenario["steps"] if "expect" in step for g in re.compile(step["expect"]).groupindex}
    missing = sorted(set(re.findall(r"\{(\w+)\}", scenario.get("final", ""))) - groups)
    if missing:
        raise ScenarioError(f"{where}: 'final' reads {{{missing[0]}}}, which no step's expect captures "
                            "(a claim in the answer must come from a tool's result)")
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
        steps.append(Step(f"{say} ({k}/{n}).".lstrip(), calls, step.get("expect")))
    return steps


# ---- a scenario says only what its tools' results show ------------------------------------------
def scenario_answer(steps: list[Step], final: str | None, results: list) -> tuple[str | None, str | None]:
    """(the answer that stops the script, or None; the final answer with its fields read back).

    `results` holds, per step, the result text of its call, or None while it is not made.
    Example: a step expecting 'return a - b' whose read said "no file 'calc.py'"
      -> ("Stopped after step 2 of 4: ... the tool said: no file 'calc.py'", final)
    """
    values = {}
    for k, (step, result) in enumerate(zip(steps, results), 1):
        if step.expect is None or result is None:
            continue
        found = re.search(step.expect, result, re.MULTILINE)
        if found is None:  # not the workspace it was written for, or the fix did not work: say so
            said = " | ".join(line.strip() for line in result.strip().splitlines()[:3] if line.strip())
            return (f"Stopped after step {k} of {len(steps)}: this scripted task expected its result to show "
                    f"/{step.expect}/, and the tool said: {said[:200] or '(no output)'}. This is not the "
                    "workspace the script was written for, or the change did not work, so I changed "
                    "nothing more and claim nothing."), final
        values.update({name: value for name, value in found.groupdict().items() if value is not None})
    if final and all(f"{{{name}}}" not in final or name in values for name in re.findall(r"\{(\w+)\}", final)):
        final = re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), final)
    return None, final


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
