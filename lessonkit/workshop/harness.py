"""The grading child: run one notebook's exercise cells and the kit's own checks on them.

Started by verify.py as `python -I -B <kit copy>/lessonkit/workshop/harness.py FD`, with a job on
stdin and FD a pipe to the grader. In this order:

    1. trusted   import the kit's checks (from the grader's read-only copy of the kit) and capture
                 the check objects; snapshot every kit module's namespace
    2. student   exec the student's exercise cells, each in one fresh namespace, nothing else of
                 their notebook (no check cell, no other cell): a line "cell K" goes out first
    3. verdict   call the captured check on the student's function; send passed/total/first failing
                 case as one JSON line; a kit module whose namespace changed is an error, not a pass

The verdict is structured data, so what the student prints changes nothing, and a check they
redefined or patched in another cell is never run. This is a separate process with its own
user (when the grader is root), environment, HOME, cwd and limits, not a sandbox for Python
code written to attack the grader itself; that code is in the graded cell for the instructor to read.

Example (stdin): {"nonce": "…", "cells": [[18, "def assistant_message(r): ..."]],
                  "checks": [{"name": "assistant_message", "prelude": "from ... import exercise",
                              "call": "exercise.check(assistant_message)"}]}
"""

import json
import os
import sys

PRELOAD = ("abc", "ast", "collections", "contextlib", "copy", "dataclasses", "datetime", "decimal", "enum",
           "fractions", "functools", "glob", "hashlib", "heapq", "inspect", "io", "itertools", "json", "math",
           "operator", "pathlib", "random", "re", "shutil", "string", "subprocess", "tempfile", "textwrap",
           "time", "typing", "uuid", "warnings")  # what an answer may import once the grader's user is dropped


def main() -> int:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.path.insert(0, root)
    fd = int(sys.argv[1])
    job = json.loads(sys.stdin.read())
    nonce, write, dumps = job["nonce"], os.write, json.dumps

    def send(**item):
        write(fd, (dumps({"nonce": nonce, **item}) + "\n").encode())

    import resource

    limits = job.get("limits", {})
    for what, value in ((resource.RLIMIT_AS, limits.get("memory")), (resource.RLIMIT_FSIZE, limits.get("output")),
                        (resource.RLIMIT_NPROC, limits.get("processes")), (resource.RLIMIT_CORE, 0)):
        if value is not None and (value or what == resource.RLIMIT_CORE):
            resource.setrlimit(what, (value, value))

    # 1. trusted: the kit's checks, imported before any student code
    trusted: dict = {}
    for check in job["checks"]:
        exec(compile(check["prelude"], "<kit check>", "exec"), trusted)  # noqa: S102 - the kit's own cell
    from lessonkit.exercises.checks import CheckResult

    kit = {name: dict(vars(module)) for name, module in list(sys.modules.items())
           if name.split(".")[0] == "lessonkit" or name[:1] == "s" and name[1:3].isdigit()}
    frozen = dict(trusted)

    def changed() -> str:
        for name, before in kit.items():
            module = sys.modules.get(name)
            now = vars(module) if module is not None else {}
            for key, value in before.items():
                if now.get(key, None) is not value and not key.startswith("__"):
                    return f"{name}.{key}"
        return ""

    # the grading user (when the grader is root): dropped here, after the kit's imports and before any
    # student code, so the interpreter may live where only root reads (a pyenv in /root)
    for name in PRELOAD + tuple(job.get("preload", ())):
        try:
            __import__(name)
        except ImportError:
            pass
    if job.get("user"):
        uid, gid = job["user"]
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
        if os.getuid() != uid or os.geteuid() != uid:
            send(error="could not drop to the grading user")
            return 1
    # 2. student: the exercise cells, in one namespace of their own
    namespace: dict = {"__name__": "__main__"}
    for index, code in job["cells"]:
        send(cell=index)
        try:
            exec(compile(code, f"<cell {index}>", "exec"), namespace)  # noqa: S102 - the graded code
        except BaseException as exc:  # noqa: BLE001 - a broken cell is the verdict "error"
            why = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"
            if isinstance(exc, OSError) and exc.errno == 27:   # EFBIG: RLIMIT_FSIZE on the output
                why = f"printed more than the output cap ({limits.get('output', 0) >> 10} KB)"
            elif isinstance(exc, MemoryError):
                why = f"MemoryError: over the memory cap ({limits.get('memory', 0) >> 20} MB)"
            send(error=f"cell {index}: {why}"[:300])
            return 0
    # 3. verdict: the captured check on the student's function
    for check in job["checks"]:
        name = check["name"]
        fn = namespace.get(name)
        send(check=name, cell=check.get("cell", 0))
        if not callable(fn):
            send(verdict=name, error=f"the exercise cells define no function {name}()")
            continue
        raised: list = []

        def counted(*args, __fn=fn, __raised=raised, **kwargs):
            try:
                return __fn(*args, **kwargs)
            except Exception as exc:
                __raised.append(f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}".rstrip(": "))
                raise

        counted.__name__ = name
        scope = dict(frozen)
        scope[name] = counted
        try:
            result = eval(compile(check["call"], "<kit check>", "eval"), scope)  # noqa: S307 - the kit's call
        except BaseException as exc:  # noqa: BLE001
            send(verdict=name, error=f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"[:300])
            continue
        touched = changed()
        if touched or type(result) is not CheckResult:
            send(verdict=name, error=f"the answer changed the kit in memory ({touched or type(result).__name__})")
            continue
        passed, failures = list(result.passed), list(result.failures)
        first = f"{failures[0][0]}: {failures[0][1]}" if failures else ""
        if raised and not passed and len(raised) >= len(failures):
            send(verdict=name, error=f"raised on every case: {raised[0]}"[:300])
            continue
        send(verdict=name, passed=len(passed), total=len(passed) + len(failures), first=str(first)[:300])
    send(done=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
