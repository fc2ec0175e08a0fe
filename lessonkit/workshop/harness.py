"""The grading child: run one notebook's answer cells, then call the answers on inputs the judge sends.

Started by judge.py as `python -I -B <kit copy>/lessonkit/workshop/harness.py FD`, with requests on
stdin (one JSON line each) and FD a pipe back to the judge. It decides nothing:

    1. job       {"cells": [[K, source], ...], "names": [...], "limits": ..., "user": ...}
    2. student   import what the judge's inputs are made of (its check modules, the SDK), enter the
                 jail (jail.py: only the Python, this kit copy and the run's folders exist), drop to
                 this run's own user (when started as root), exec the cells in one namespace;
                 "cell K" goes out before each; a cell of an exercise that raises is {"error": ...}
    3. ready     which names are functions, and which of them ARE the kit's reference (its object,
                 or its code). A call of a reference (kitcopy.py: each tells on itself)
                 sends {"op": "reference", "key"} before it runs: the judge notes it
    4. calls     {"op": "call", "name", "args"}: the judge's inputs (pickled by the judge: its own data),
                 the function called on them; out goes {"op": "result", "value"} or {"op": "raised", ...},
                 with the inputs' state afterwards, all as JSON data (wire.py), never a verdict.
                 A callable among the inputs is the judge's: calling it asks the judge ("callback").

Whatever this process prints, writes or exits with, the judge only ever reads outputs from it, and
compares them with what it expects itself, in a process this one cannot read or signal.

Example (stdin): {"cells": [[18, "def assistant_message(r): ..."]], "names": ["assistant_message"]}
                 {"op": "call", "name": "assistant_message", "args": "<pickle>"}
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
    stdin = sys.stdin
    job = json.loads(stdin.readline())
    write, dumps = os.write, json.dumps

    def send(**item):
        data = (dumps(item) + "\n").encode()
        while data:
            data = data[write(fd, data):]

    import resource

    limits = job.get("limits", {})
    for what, value in ((resource.RLIMIT_AS, limits.get("memory")), (resource.RLIMIT_FSIZE, limits.get("output")),
                        (resource.RLIMIT_NPROC, limits.get("processes")), (resource.RLIMIT_CORE, 0)):
        if value is not None and (value or what == resource.RLIMIT_CORE):
            resource.setrlimit(what, (value, value))
    from lessonkit.workshop import wire

    for name in PRELOAD + tuple(job.get("preload", ())) + tuple(job.get("modules", ())):
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - a module the answer may not need
            pass
    import builtins

    # a reference (kitcopy.py) calls this before it runs: the judge hears that it was called
    builtins.__lessons_reference__ = lambda key: send(op="reference", key=str(key)[:200])
    if job.get("jail"):   # as root: a filesystem of the Python, this kit copy and the run's folders only
        from lessonkit.workshop import jail

        try:
            jail.enter(job["jail"]["folder"], keep=[root, *jail.python_paths()], write=job["jail"]["write"],
                       hide=jail.kit_copies([p for p in sys.path if p != root]))
            jail.no_new_privileges()
        except OSError as exc:
            send(error=f"could not isolate the grading: {exc}")
            return 1
    if job.get("user"):
        uid, gid = job["user"]
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
        if os.getuid() != uid or os.geteuid() != uid:
            send(error="could not drop to the grading user")
            return 1
    # the student's cells, in one namespace of their own; a cell of the student's own that raises is
    # skipped (the live kernel ran it too, and kept what it defined before the error)
    namespace: dict = {"__name__": "__main__"}
    for index, code, fatal in job["cells"]:
        send(cell=index)
        try:
            exec(compile(code, f"<cell {index}>", "exec"), namespace)  # noqa: S102 - the graded code
        except BaseException as exc:  # noqa: BLE001 - a broken cell is the verdict "error"
            if not fatal and isinstance(exc, Exception):
                continue
            why = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"
            if isinstance(exc, OSError) and exc.errno == 27:   # EFBIG: RLIMIT_FSIZE on the output
                why = f"printed more than the output cap ({limits.get('output', 0) >> 10} KB)"
            elif isinstance(exc, MemoryError):
                why = f"MemoryError: over the memory cap ({limits.get('memory', 0) >> 20} MB)"
            send(error=f"cell {index}: {why}"[:300])
            return 0
    send(ready={name: {"callable": callable(namespace.get(name)),
                       "reference": reference(namespace.get(name), job.get("references", {}).get(name))}
                for name in job["names"]})
    sent_errors: dict = {}   # id(exception the judge raised in a callback) -> (it, its number there)

    def proxy(number, attr=None):
        def callback(*args, **kwargs):
            if attr is not None:
                send(op="callback", n=number, attr=attr)
            else:
                send(op="callback", n=number, args=wire.encode((args, kwargs), refs))
            reply = json.loads(stdin.readline())
            if "raise" in reply:
                exc = wire.up_loads(reply["raise"], proxy)
                sent_errors[id(exc)] = (exc, reply["eid"])   # kept alive: a freed one's id is reused
                raise exc
            return wire.up_loads(reply["value"], proxy)
        return callback

    refs: dict = {}
    for line in stdin:
        request = json.loads(line)
        if request.get("op") != "call":
            break
        fn = namespace.get(request["name"])
        args, kwargs = wire.up_loads(request["args"], proxy)
        refs = wire.reachable((args, kwargs))
        sent_errors.clear()   # the judge numbers a call's errors from 0: an old number names nothing
        try:
            value = fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - raising is an output like any other
            mine = sent_errors.get(id(exc), (None, 0))
            error = {"ER": mine[1]} if mine[0] is exc else wire.encode(exc, {})
            out = {"op": "raised", "error": error}
        else:
            try:
                out = {"op": "result", "value": wire.encode(value, refs)}
            except (ValueError, RecursionError) as exc:
                out = {"op": "raised", "error": wire.encode(ValueError(str(exc)), {})}
        try:
            out["after"] = wire.encode((args, kwargs), {})
        except (ValueError, RecursionError):
            pass
        send(**out)
    return 0


def reference(fn, where) -> bool:
    """Whether fn is the exercise's reference (where: its module and name), or runs the same code."""
    if fn is None or not where:
        return False
    import importlib

    try:
        ref = importlib.import_module(where[0])
        for part in where[1].split("."):
            ref = getattr(ref, part)
    except (ImportError, AttributeError):
        return False
    if fn is ref:
        return True
    key = _key(getattr(fn, "__code__", None))
    return key is not None and key == _key(getattr(ref, "__code__", None))


def _key(code):
    if code is None:
        return None
    return (code.co_code, code.co_names, tuple(c for c in code.co_consts if isinstance(c, (str, int, float, bytes))))


if __name__ == "__main__":
    sys.exit(main())
