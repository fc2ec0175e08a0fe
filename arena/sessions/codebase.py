"""A generated code base with a test runner and planted bugs, for the arena's long session.

Motto: a session is only as long as the work it has to do.

    root/
      src/app_01.py ... app_NN.py     lessonkit.show.demo modules (functions that filter lists)
      tests/expected.json             what every function must return on SAMPLE
      run_tests.py                    a pytest-like runner: progress dots, -v lines, FAILURES
                                      with the source around the failing line, a summary
    bugs: a few `> N` thresholds turned into `>= N`, each fixed by one `sed -i` on its line

Everything is a pure function of (files, lines, seed): the same bytes on every
machine, and no timings, paths or dates in any output (the session must replay
identically).

Example: build_codebase(tmp / "shop") -> [Bug(module="app_07", line=12, function="merge_cache_0", ...), ...]

Not modeled: anything but Python; packages, imports between modules.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

from lessonkit.show.demo import make_workspace

SAMPLE = ["", "a", "bb", "ccc", "dddd", "eeeee", "ffffff", "ggggggg", "hhhhhhhh", "iiiiiiiii", "jjjjjjjjjj",
          12, 345, 6789, 10111, 121314, 1516171, 18192021]
THRESHOLD = re.compile(r"len\(str\(item\)\) > (\d+)")

RUNNER = r'''"""A small pytest-like runner: python3 run_tests.py [-v] [tests/test_app_NN.py ...]"""
import importlib.util, json, sys
from pathlib import Path

ROOT = Path(__file__).parent
SAMPLE = __SAMPLE__


def load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "src" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv):
    verbose = "-v" in argv
    wanted = [a for a in argv if a.endswith(".py")]
    expected = json.loads((ROOT / "tests" / "expected.json").read_text())
    modules = sorted({key.split(".")[0] for key in expected})
    if wanted:
        names = [Path(w).stem.replace("test_", "", 1) for w in wanted]
        missing = [w for w, n in zip(wanted, names) if n not in modules]
        if missing:
            print(f"ERROR: file or directory not found: {missing[0]}")
            return 4
        modules = [m for m in modules if m in names]
    print("============================= test session starts ==============================")
    print(f"collected {sum(1 for k in expected if k.split('.')[0] in modules)} items")
    print()
    failures, passed, done = [], 0, 0
    total = sum(1 for k in expected if k.split(".")[0] in modules)
    for name in modules:
        module, marks = load(name), []
        for key in sorted(k for k in expected if k.split(".")[0] == name):
            func = key.split(".")[1]
            got = getattr(module, func)(list(SAMPLE))
            ok = got == expected[key]
            done += 1
            if ok:
                passed += 1
            else:
                failures.append((name, func, expected[key], got))
            marks.append("." if ok else "F")
            if verbose:
                print(f"tests/test_{name}.py::test_{func} {'PASSED' if ok else 'FAILED'}"
                      f"{'':>{max(1, 60 - len(name) - len(func))}}[{100 * done // total:3d}%]")
        if not verbose:
            pad = max(1, 50 - len(marks))
            print(f"tests/test_{name}.py {''.join(marks)}{'':>{pad}}[{100 * done // total:3d}%]")
    if failures:
        print()
        print("=================================== FAILURES ===================================")
        for name, func, want, got in failures:
            print(f"_{'_' * 20} test_{func} {'_' * 20}")
            print()
            lines = (ROOT / "src" / f"{name}.py").read_text().splitlines()
            at = next(i for i, ln in enumerate(lines) if ln.startswith(f"def {func}("))
            for ln in lines[max(0, at - 2): at + 3]:
                print(f"    {ln}")
            print(f">       assert {func}(SAMPLE) == expected[{name + '.' + func!r}]")
            print(f"E       AssertionError: {func} returned {len(got)} items, expected {len(want)}")
            print(f"E         extra items: {[x for x in got if x not in want]}")
            print(f"E         missing items: {[x for x in want if x not in got]}")
            print()
            print(f"src/{name}.py:{at + 3}: AssertionError")
        print("=========================== short test summary info ============================")
        for name, func, want, got in failures:
            print(f"FAILED tests/test_{name}.py::test_{func} - AssertionError: {func} returned "
                  f"{len(got)} items, expected {len(want)}")
    word = f"{len(failures)} failed, {passed} passed" if failures else f"{passed} passed"
    print(f"{'=' * 30} {word} {'=' * 30}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
'''


@dataclass(frozen=True)
class Bug:
    """A planted off-by-one: `line` (1-based) of src/<module>.py says `>= n` instead of `> n`."""
    module: str
    line: int
    function: str
    n: int

    @property
    def fix(self) -> str:
        return f"sed -i '{self.line}s/>= {self.n}/> {self.n}/' src/{self.module}.py"


def _functions(source: str) -> list[tuple[str, int, int]]:
    """(function name, 1-based line of its threshold, threshold) for each filter function."""
    out, name = [], None
    for number, line in enumerate(source.splitlines(), 1):
        if line.startswith("def "):
            name = line[4:line.index("(")]
        m = THRESHOLD.search(line)
        if m and name:
            out.append((name, number, int(m.group(1))))
    return out


def build_codebase(root, *, files: int = 48, lines: int = 150, bugs: int = 12, seed: int = 7) -> list[Bug]:
    """Write the code base under `root`; return the planted bugs (sorted by module)."""
    root = Path(root)
    src = make_workspace(root / "src", files=files, lines=lines, seed=seed)
    expected, planted = {}, []
    rng = random.Random(seed)
    for path in sorted(src.glob("app_*.py")):
        source = path.read_text(encoding="utf-8")
        for name, _, n in _functions(source):
            expected[f"{path.stem}.{name}"] = [x for x in SAMPLE if len(str(x)) > n]
    for path in sorted(rng.sample(sorted(src.glob("app_*.py")), min(bugs, files))):
        source = path.read_text(encoding="utf-8").splitlines()
        candidates = [f for f in _functions("\n".join(source)) if any(len(str(x)) == f[2] for x in SAMPLE)]
        name, number, n = rng.choice(candidates)
        source[number - 1] = source[number - 1].replace(f"> {n}]", f">= {n}]")
        path.write_text("\n".join(source) + "\n", encoding="utf-8")
        planted.append(Bug(path.stem, number, name, n))
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n",
                                                  encoding="utf-8")
    (root / "run_tests.py").write_text(RUNNER.replace("__SAMPLE__", repr(SAMPLE)), encoding="utf-8")
    return planted
