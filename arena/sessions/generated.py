"""The arena's generated session: the kit's own agent, on the offline model, doing long work.

Motto: a benchmark anyone can rerun needs a session anyone can regenerate.

    build_codebase(tmp/shop) ──> scenarios(bugs)  (six tasks, 300+ scripted tool calls)
                                      │
    s01 Agent(offline client, huge window) .ask(task 1) .ask(task 2) ... .ask(task 6)
                                      │                 (bash runs for real in tmp/shop)
                                      v
    Session("generated", messages) ──> cache_dir/generated-<version>-<key>.json

The offline model's policy follows each task's scenario step by step (one bash call
per turn), so the trajectory is fixed and every output is real: file reads, big
test logs (the verbose suite is cut at s01's 50,000-character cap), greps, failed
commands and the edits that fix the planted bugs. No compaction runs while it is
generated: the recorded history is the raw one, far over a 200K window, which the
strategies then have to manage. Nothing in it depends on time or place, so the
same version gives the same bytes; it is cached (outside the repository) because
generating it runs ~320 commands.

Example: generated_session() -> Session("generated", 600+ messages, 300+ tool calls)

Not modeled: an agent that reacts to what it reads (the offline policy is scripted).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from .codebase import build_codebase
from .session import Session, session_from

VERSION = "1"
FILES, LINES, BUGS, SEED = 56, 150, 12, 7
SMALL = (6, 40, 2)        # files, lines, bugs of the notebook's session (generated in a few seconds)
NAME = "generated"
WORKSPACE = "shop"
RUN = "python3 -B run_tests.py"


def _steps(pairs) -> list[dict]:
    return [{"say": say, "calls": [{"tool": "bash", "input": {"command": command}}]}
            for say, command in pairs]


def scenarios(bugs, files: int = FILES) -> list[dict]:
    """Six scripted tasks over the code base (offline-policy scenario dicts), in order."""
    mods = [f"app_{i:02d}" for i in range(1, files + 1)]
    buggy = [b.module for b in bugs]
    survey = ([("Listing the project", "find . -type f -not -path '*/__pycache__/*' | sort"),
               ("Counting lines", "wc -l src/*.py run_tests.py")]
              + [(f"Reading src/{m}.py", f"cat -n src/{m}.py") for m in mods]
              + [("Reading the test runner", "cat -n run_tests.py"),
                 ("Reading the next module", f"cat -n src/app_{files + 1:02d}.py"),
                 ("Counting functions per module", "grep -c '^def ' src/*.py")])
    fix = [("Running the suite", RUN), ("Running the suite verbosely", f"{RUN} -v")]
    for k, bug in enumerate(bugs, 1):
        test = f"tests/test_{bug.module}.py"
        fix += [(f"Running {test}", f"{RUN} {test} -v"),
                (f"Looking at src/{bug.module}.py around line {bug.line}",
                 f"sed -n '{max(1, bug.line - 12)},{bug.line + 12}p' src/{bug.module}.py"),
                (f"Finding >= comparisons in src/{bug.module}.py", f"grep -n '>= ' src/{bug.module}.py"),
                (f"Fixing {bug.function} in src/{bug.module}.py", bug.fix),
                (f"Re-running {test}", f"{RUN} {test}")]
        if k == len(bugs) // 2:
            fix.append(("Checking progress on the whole suite", RUN))
    fix += [("Running the whole suite again", RUN), ("And verbosely", f"{RUN} -v")]
    verbs = ("load", "parse", "merge", "count", "render", "flush", "split", "check", "score", "trim")
    nouns = ("config", "parser", "cache", "report", "queue", "token", "record", "session", "buffer",
             "window", "summary", "transcript", "budget", "event", "layer", "message")
    verbs, nouns = verbs[:max(1, files // 5)], nouns[:max(1, files // 3)]   # all of them at full size
    dupes = ([(f"Finding {v}_* helpers", f"grep -rn 'def {v}_' src/") for v in verbs]
             + [(f"Finding *_{n}_* helpers", f"grep -rn 'def [a-z]*_{n}_' src/") for n in nouns]
             + [(f"Re-reading the top of src/{m}.py", f"head -40 src/{m}.py") for m in mods[::4]]
             + [("Looking for TODO notes", "grep -rn 'TODO' src/")])
    each = ([(f"Running tests/test_{m}.py alone", f"{RUN} tests/test_{m}.py -v") for m in mods]
            + [("Tail of the verbose suite", f"{RUN} -v | tail -n 60"),
               ("Writing NOTES.md", "printf '%s\\n' '# Notes' '' 'Fixed off-by-one thresholds in: "
                + ", ".join(buggy) + "' > NOTES.md"),
               ("Reading NOTES.md", "cat NOTES.md")])
    sizes = ([(f"Outline of src/{m}.py", f"grep -n '^def \\|^class ' src/{m}.py") for m in mods]
             + [("Final run", RUN)])
    again = ([(f"Checking src/{m}.py for >=", f"grep -n '>=' src/{m}.py || echo 'no >= left'") for m in buggy]
             + [(f"Reading src/{m}.py again", f"cat -n src/{m}.py") for m in buggy]
             + [("One more verbose run", f"{RUN} -v")])
    tasks = [
        ("survey", "Survey this project: list its files and read every module under src/ and the runner.",
         survey, "The project has {files} modules under src/, a test runner and expected results."),
        ("fix", f"Run the test suite with `{RUN}` and fix every failing test.", fix,
         f"All tests pass now: I fixed {len(bugs)} off-by-one thresholds ({', '.join(buggy)})."),
        ("dupes", "Find the helper names that appear in more than one module, and tell me.", dupes,
         "Every verb and noun appears in several modules; the names differ by their number suffix."),
        ("each", "Check that each test module passes on its own, then note the fixes in NOTES.md.", each,
         "Each test module passes alone; NOTES.md lists the fixed modules."),
        ("sizes", "Give me an outline (functions and classes) of every module.", sizes,
         "Each module defines about 36 functions and one class."),
        ("again", "Double-check the modules you fixed: no `>=` comparison should be left.", again,
         "No >= comparison is left in the modules I fixed, and the suite passes."),
    ]
    return [{"name": f"arena-{key}", "match": "^" + re.escape(task) + "$", "steps": _steps(pairs),
             "final": final.format(files=files), "task": task} for key, task, pairs, final in tasks]


def _key() -> str:
    """The cache key: generator version and parameters, and the source of what runs the session.

    The agent (s01_loop), the offline model (offline/) and this package's code
    base and scenarios decide every byte of the session, so a change to any of them
    makes a new key (and a new session, generated once).
    """
    import offline
    import s01_loop

    here = Path(__file__).parent
    sources = sorted([*Path(s01_loop.__file__).parent.glob("*.py"), *Path(offline.__file__).parent.rglob("*.py"),
                      here / "codebase.py", Path(__file__)])
    digest = hashlib.sha256(json.dumps([VERSION, FILES, LINES, BUGS, SEED]).encode())
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def default_cache_dir() -> Path:
    """$LESSONS_ARENA_CACHE, else $XDG_CACHE_HOME/agent-lessons/arena, else ~/.cache/agent-lessons/arena."""
    if os.environ.get("LESSONS_ARENA_CACHE"):
        return Path(os.environ["LESSONS_ARENA_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "agent-lessons" / "arena"


def generate(workdir, *, files: int = FILES, lines: int = LINES, bugs: int = BUGS, seed: int = SEED) -> list:
    """Run the six tasks with the s01 agent in `workdir`; return the message history."""
    from offline import OfflineModel, offline_client
    from s01_loop import Agent

    root = Path(workdir) / WORKSPACE
    planted = build_codebase(root, files=files, lines=lines, bugs=bugs, seed=seed)
    tasks = scenarios(planted, files)
    client = offline_client(OfflineModel(10 ** 9, scenarios=tasks), max_retries=0)
    agent = Agent(client, workspace=root, max_turns=1_000)
    messages: list = []
    with _environment(LC_ALL="C", TZ="UTC"):   # `sort` and globs order the same on every machine
        for task in tasks:
            agent.ask(task["task"], messages)
    return messages


@contextlib.contextmanager
def _environment(**values):
    """Set environment variables for the agent's commands; restore them afterwards."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def small_session(files: int = SMALL[0], lines: int = SMALL[1], bugs: int = SMALL[2]) -> Session:
    """The same six tasks on a smaller code base, generated afresh (a few seconds; no cache).

    The arena notebook replays it live. Example: small_session() -> Session("small", ~118 messages)
    """
    from s01_loop import loop
    from s01_loop.bash import BASH_TOOL

    with tempfile.TemporaryDirectory(prefix="arena-small-") as tmp:
        messages = generate(tmp, files=files, lines=lines, bugs=bugs)
    meta = {"system": loop.SYSTEM.format(workspace=WORKSPACE), "tools": [BASH_TOOL]}
    return session_from("small", messages, meta, source=f"arena.sessions.generated.small_session{SMALL}")


def generated_session(cache_dir=None, *, refresh: bool = False) -> Session:
    """The generated session, from the cache if this version was generated before."""
    from s01_loop import loop

    cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
    path = cache_dir / f"{NAME}-v{VERSION}-{_key()}.json"
    if path.is_file() and not refresh:
        messages = json.loads(path.read_text(encoding="utf-8"))
    else:
        with tempfile.TemporaryDirectory(prefix="arena-gen-") as tmp:
            messages = generate(tmp)
        cache_dir.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".tmp")
        partial.write_text(json.dumps(messages, ensure_ascii=False), encoding="utf-8")
        partial.replace(path)
    from s01_loop.bash import BASH_TOOL

    meta = {"system": loop.SYSTEM.format(workspace=WORKSPACE), "tools": [BASH_TOOL]}
    return session_from(NAME, messages, meta, source=f"generated by arena.sessions.generated v{VERSION}")
