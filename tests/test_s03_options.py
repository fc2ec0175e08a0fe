"""s03's option table against the programs themselves: each allow-listed program, asked about each option.

OPTIONS says how each program reads its options (which take a value, which none); the classifier reads a
command's words by it, so a value it thinks is a flag could hide a writing option after it. Here every
program on this machine is run once per option (in the sandbox, in a temporary folder, reading nothing),
and what it says must agree: "requires an argument" exactly for the options OPTIONS gives a value, and
"invalid option" exactly for the letters it does not list.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import string
import subprocess
import sys
import tempfile

import pytest

from lessonkit.base.readonly_programs import OPTIONS, spec
from lessonkit.base.sandbox import Policy, confine, probe

pytestmark = pytest.mark.slow

END = "--s03-options-end--"  # between one answer and the next
BASH_OWN = ("command", "time", "exec")  # bash's own: no program to ask
CURATED = ("jq", "which")  # a chosen part of their options: each listed one is checked
RUNNERS = ("pytest", "py.test")  # read from `pytest --help` (a run of pytest takes seconds)
PROGRAMS = sorted(p for p in OPTIONS if p not in BASH_OWN + RUNNERS and shutil.which(p))
REJECTED = re.compile(r"invalid option|unrecognized option|illegal option|unknown option|unrecognized arguments",
                      re.I)
NEEDS_VALUE = re.compile(r"requires an argument|expected one argument|requires a value|takes (a|one|two) param", re.I)
TAKES_NONE = re.compile(r"doesn't allow an argument|does not allow an argument|ignored explicit argument", re.I)


def answers(program: str, words: list[str]) -> list[str]:
    """What `program` says to each word, alone: one confined bash (it writes nothing) runs them all in turn,
    in an empty folder, with no input."""
    script = "".join(f"timeout 5 {shlex.join([program, w])} </dev/null 2>&1; echo; echo {END}\n" for w in words)
    with tempfile.TemporaryDirectory() as folder:
        preexec, close = confine(Policy(writable=(folder,))) if probe().ok else (None, lambda: None)
        try:
            done = subprocess.run(["bash", "-c", script], cwd=folder, capture_output=True, timeout=600,
                                  preexec_fn=preexec, env=dict(os.environ, LC_ALL="C", TMPDIR=folder))
        finally:
            close()
    said = done.stdout.decode(errors="replace").split(f"\n{END}\n")
    assert len(said) == len(words) + 1, done.stderr[-300:]
    return said[:-1]


def test_every_allow_listed_program_with_options_is_on_this_machine():
    missing = [p for p in OPTIONS if p not in BASH_OWN and shutil.which(p) is None]
    assert missing == [], f"OPTIONS lists programs this machine does not have: {missing}"


@pytest.mark.parametrize("program", PROGRAMS)
def test_each_short_option_takes_a_value_exactly_as_the_program_does(program):
    _, letters, _ = spec(*OPTIONS[program])
    wrong, every = [], string.ascii_letters + string.digits
    for letter, said in zip(every, answers(program, [f"-{c}" for c in every])):
        said = said.split("Usage")[0]
        if letter not in letters:
            if program not in CURATED and not REJECTED.search(said):
                wrong.append(f"-{letter} is accepted by {program}, but OPTIONS does not list it")
        elif REJECTED.search(said):
            wrong.append(f"-{letter} is listed, but {program} rejects it: {said.strip()[:80]}")
        elif bool(NEEDS_VALUE.search(said)) != (letters[letter] == 1):
            wrong.append(f"-{letter} {'takes' if NEEDS_VALUE.search(said) else 'takes no'} value in {program}, "
                         f"not as OPTIONS says")
    assert wrong == []


@pytest.mark.parametrize("program", PROGRAMS)
def test_each_long_option_takes_a_value_exactly_as_the_program_does(program):
    _, _, names = spec(*OPTIONS[program])
    said = answers(program, [w for name in names for w in (name, name + "=x")])
    wrong = []
    for (name, arity), alone, given in zip(names.items(), said[::2], said[1::2]):
        if REJECTED.search(alone) and REJECTED.search(given):
            wrong.append(f"{name} is listed, but {program} rejects it")
        elif (arity >= 1) != bool(NEEDS_VALUE.search(alone)):
            wrong.append(f"{name} {'needs' if NEEDS_VALUE.search(alone) else 'needs no'} value in {program}")
        elif (arity == 0) != bool(TAKES_NONE.search(given)) and program not in CURATED:
            wrong.append(f"{name}=x is {'refused' if TAKES_NONE.search(given) else 'taken'} by {program}")
    assert wrong == []


def test_each_pytest_option_listed_takes_a_value_exactly_as_pytest_help_says():
    """pytest's options, as its own --help lists them (with the plugins installed here): the ones OPTIONS
    lists (a chosen part; any other asks) must be there, each with a value exactly when --help shows one."""
    helped = subprocess.run([sys.executable, "-m", "pytest", "--help"], capture_output=True, text=True, timeout=300,
                            cwd=tempfile.gettempdir()).stdout
    shown = {}
    for line in helped.splitlines():
        if m := re.match(r"^  (-\S.*?)(?:\s{2,}|$)", line):
            for part in m.group(1).split(", "):
                name, _, value = re.match(r"(-[\w-]+)([ =]?)(.*)", part).groups()
                shown[name] = bool(value)
    _, letters, names = spec(*OPTIONS["pytest"])
    wrong = [f"{option}: not in pytest --help" if option not in shown else f"{option}: takes a value: {shown[option]}"
             for option, arity in [*((f"-{k}", v) for k, v in letters.items()), *names.items()]
             if option not in shown or shown[option] != (arity != 0)]
    assert wrong == []
