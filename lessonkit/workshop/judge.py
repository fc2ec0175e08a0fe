"""The judge: one notebook's checks, run where no student code runs, on outputs a child returns.

Started by verify.py (as the verify's own user, root on a hub) as
`python -I -B <kit copy>/lessonkit/workshop/judge.py FD` with the job on stdin; the verdicts go to FD.

    judge (this process: the kit's cases, setups, adapters, verdicts; hidden cases, read before the jail)
      │ as root: enters its own jail (jail.py): the Python, the two kit copies (read-only even to root)
      │ and this run's folder; a link a child plants in a case's folder leads nowhere else
      │ starts the child (child.py: own uid, PID/mount/network namespaces, limits), sends the answer cells
      │ for every call a check makes of the student's function: the inputs go down, the raw
      │ output (or what it raised) comes up as JSON data (wire.py); this process compares it
      │ a call of a reference in the child (kitcopy.py) comes up as {"op": "reference"}: noted for its exercise
      └─> {"verdicts": {name: {passed, total, first, error, reference, hidden: {passed, failed}}}}

The child cannot write a verdict: it holds no channel to verify, and this process runs as another
user than the child (when root), outside its namespaces. It cannot choose the inputs, and it never
sees the expected values.

Example (stdin): {"cells": [[18, "def f(x): ...", true]], "checks": [{"name": "f", "prelude": "...",
                  "call": "exercise.check(f)"}], "timeout": 60, "memory": 2048, "base": "/tmp/...",
                  "child_kit": "/tmp/.../kit-...", "references": {"f": ["s01_loop.loop:f"]}, "lang": "en"}
"""

import json
import os
import sys
import time

STARTUP_S = 300   # for the child's imports of the kit, before the student's first cell (a loaded machine)


class ChildTime:
    """The student's time (--timeout): spent only while the judge waits for the child, from its first
    cell on; the judge's own work between calls (s06's check runs the agent four times) is not theirs.
    Example: clock = ChildTime(60); clock.receive(child, "in a call of f()") -> the child's next item"""

    def __init__(self, seconds: float):
        self.left = seconds

    def receive(self, child, what: str = "") -> dict:
        start = time.monotonic()
        try:
            return child.receive(start + self.left, what)
        finally:
            self.left = max(0.0, self.left - (time.monotonic() - start))


def main() -> int:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.path.insert(0, root)
    fd = int(sys.argv[1])
    job = json.loads(sys.stdin.read())
    os.environ["LESSONS_PROGRESS"] = "off"     # the kit's checks record nothing here
    try:
        out = judge(job, root)
    except Exception as exc:  # noqa: BLE001 - one line for the row, never a traceback in a gradebook
        out = {"fatal": f"the judge failed: {type(exc).__name__}: {exc}"[:300]}
    data = (json.dumps(out) + "\n").encode()
    while data:
        data = data[os.write(fd, data):]
    return 0


def judge(job: dict, root: str) -> dict:
    import tempfile
    from pathlib import Path

    from lessonkit.workshop import jail, wire
    from lessonkit.workshop.child import Child, Gone, can_isolate, run_user

    base = Path(job["base"])
    work = Path(tempfile.mkdtemp(prefix="run-", dir=base))     # the only folder this run writes
    os.chmod(work, 0o711)
    scratch = work / "cases"
    scratch.mkdir(mode=0o711)
    tempfile.tempdir = str(scratch)            # the kit's sandboxes: where the child may reach them
    child_kit = Path(job.get("child_kit") or root)
    if job.get("lang"):
        os.environ["LESSONS_LANG"] = str(job["lang"])   # the checks' words in the student's language
    scopes = []
    for check in job["checks"]:
        scope: dict = {}
        exec(compile(check["prelude"], "<kit check>", "exec"), scope)  # noqa: S102 - the kit's own cell
        receiver = check["call"].split(".check(")[0].strip()
        scopes.append((scope, scope.get(receiver)))
    owners = {key: name for name, keys in (job.get("references") or {}).items() for key in keys}
    hidden = load_hidden(job.get("hidden"))
    deadline = time.monotonic() + STARTUP_S    # the kit's imports first; the student's time starts at cell 1
    names = [c["name"] for c in job["checks"]]
    verdicts, note = {}, ""
    with run_user() as user:
        isolated = user is not None and can_isolate()
        if isolated:
            try:
                jail.enter(work / "jail", keep=[root, child_kit, *jail.python_paths()], write=[work])
            except OSError as exc:
                isolated, note = False, f"no namespaces here ({exc})"
        child = Child(child_kit, user=user, memory_mb=int(job["memory"]), base=work, isolated=isolated)
        child.shared = (str(scratch),)
        with child:
            child.timeout_s = float(job["timeout"])
            try:
                kit = ("lessonkit", "offline", "arena", "anthropic", "pydantic", "httpx", "zoneinfo")
                modules = sorted({m for m in sys.modules if m.split(".")[0] in kit or wire._stage(m)})
                child.send({**child.job, "cells": job["cells"], "names": names,
                            "references": {n: k[0].split(":") for n, k in (job.get("references") or {}).items() if k},
                            "modules": modules})
                clock = None   # the student's time starts at their first cell
                while True:
                    item = clock.receive(child) if clock is not None else \
                        child.receive(deadline, "before the first cell (the kit's imports)")
                    if clock is None and "cell" in item:
                        clock = ChildTime(float(job["timeout"]))
                    if "error" in item:
                        return {"fatal": str(item["error"])[:300]}
                    if "ready" in item:
                        ready = item["ready"] if isinstance(item["ready"], dict) else {}
                        break
                if clock is None:   # a notebook with no cell to run: the calls get the whole time
                    clock = ChildTime(float(job["timeout"]))
                called: set = set()    # the exercises whose own reference their answers called
                for check, (scope, exercise) in zip(job["checks"], scopes):
                    name = check["name"]
                    state = ready.get(name) if isinstance(ready.get(name), dict) else {}
                    if not state.get("callable"):
                        verdicts[name] = {"error": f"the notebook defines no function {name}()"}
                        continue
                    remote = Remote(child, name, clock, scratch, user, wire, owners, called)
                    verdicts[name] = run_check(check, scope, exercise, remote, hidden.get(name))
                    verdicts[name]["reference"] = bool(state.get("reference"))
                for name in called:
                    if name in verdicts:
                        verdicts[name]["reference"] = True
            except Gone as gone:
                return {"fatal": str(gone)}
    for v in verdicts.values():
        if user is None:
            v["unisolated"] = "not root"
        elif not isolated:
            v["unisolated"] = note or "no namespaces here"
    return {"verdicts": verdicts}


def run_check(check, scope, exercise, remote, hidden) -> dict:
    """The kit's own check call, with the student's function being `remote`; then the hidden cases."""
    from lessonkit.exercises.checks import CheckResult
    from lessonkit.exercises.checks import check as run_cases

    name = check["name"]
    scope = dict(scope)
    scope[name] = remote
    remote.raised.clear()
    try:
        result = eval(compile(check["call"], "<kit check>", "eval"), scope)  # noqa: S307 - the kit's call
    except TypeError as exc:
        return {"error": f"TypeError: {(str(exc).splitlines() or [''])[0]}"[:300]}
    if not isinstance(result, CheckResult):
        return {"error": f"the check returned {type(result).__name__}"}
    passed, failures = list(result.passed), list(result.failures)
    out = {"passed": len(passed), "total": len(passed) + len(failures),
           "first": f"{failures[0][0]}: {failures[0][1]}"[:300] if failures else ""}
    if remote.raised and not passed and len(remote.raised) >= len(failures):
        out = {"error": f"raised on every case: {remote.raised[0]}"[:300]}
    if hidden is not None and exercise is not None and "error" not in out:
        with exercise.setup() as env:
            cases = hidden(env) if callable(hidden) else list(hidden)
            secret = run_cases(exercise.adapt(remote, env), cases, title=name, echo=False)
        out["hidden"] = {"passed": list(secret.passed), "failed": [[n, r[:200]] for n, r in secret.failures]}
    return out


def load_hidden(path) -> dict:
    """The instructor's hidden cases: a Python file defining CASES = {function name: [Case, ...] or
    a function env -> [Case, ...]}. Readable by its owner only (the students' kernels cannot read it)."""
    if not path:
        return {}
    import runpy

    return dict(runpy.run_path(str(path)).get("CASES", {}))


class Remote:
    """The student's function as the judge calls it: each call runs in the child, on these inputs."""

    def __init__(self, child, name, clock, scratch, user, wire, owners=None, called=None):
        self.child, self.name, self.clock, self.scratch, self.user, self.wire = \
            child, name, clock, scratch, user, wire
        self.owners, self.called = owners or {}, called if called is not None else set()
        self.raised: list = []
        self.__name__ = self.__qualname__ = name

    def _open_scratch(self):
        """The kit's sandboxes (made by this process) given to the child's uid: it may read and write them.
        By descriptor, never following a link (a link the child planted is changed itself, not its target)."""
        if self.user is None:
            return
        for _folder, dirs, files, fd in os.fwalk(self.scratch, follow_symlinks=False):
            for entry in dirs + files:
                try:
                    os.chown(entry, *self.user, dir_fd=fd, follow_symlinks=False)
                except OSError:
                    pass

    def __call__(self, *args, **kwargs):
        wire, child = self.wire, self.child
        callbacks, errors = [], []
        try:
            payload = wire.down((args, kwargs), callbacks)
        except Exception as exc:  # noqa: BLE001 - an input that cannot be sent is the kit's problem
            raise TypeError(f"the judge cannot send this input to the answer: {exc}") from None
        self._open_scratch()
        child.send({"op": "call", "name": self.name, "args": payload})
        inputs = (args, kwargs)

        def ref(path):
            try:
                if isinstance(path, tuple) and path[:1] == ("C",):   # one of the callables it was given
                    return callbacks[int(path[1])]
                return wire.path_get(inputs, path)
            except (KeyError, IndexError, AttributeError, TypeError, ValueError):
                return wire.Foreign("value", "(a reference the judge cannot find)")
        while True:
            item = self.clock.receive(child, f"in a call of {self.name}()")
            if item.get("op") == "reference":   # a reference ran: it counts against the exercise it answers,
                if self.owners.get(item.get("key")) == self.name:   # never one that builds on it (s02's find_text)
                    self.called.add(self.name)
                continue
            if item.get("op") == "callback":
                try:
                    fn = callbacks[int(item["n"])]
                    if "attr" in item:   # an attribute of a remote object: a method is sent as a callback
                        attr = str(item["attr"])
                        if attr.startswith("_"):
                            raise AttributeError(f"{attr}: not the answer's to read")
                        reply = {"value": wire.down(getattr(fn, attr), callbacks)}
                    else:
                        cargs, ckwargs = wire.decode(item["args"], ref)
                        reply = {"value": wire.down(fn(*cargs, **dict(ckwargs)), callbacks)}
                except Exception as exc:  # noqa: BLE001 - the judge's callable raised: raised in the child
                    errors.append(exc)
                    try:
                        reply = {"raise": wire.down(exc, callbacks), "eid": len(errors) - 1}
                    except Exception:  # noqa: BLE001
                        reply = {"raise": wire.down(RuntimeError(str(exc)), callbacks), "eid": len(errors) - 1}
                child.send({"op": "reply", **reply})
                continue
            if item.get("op") in ("result", "raised"):
                break
        after = wire.decode(item.get("after"), ref) if "after" in item else None
        if isinstance(after, tuple) and len(after) == 2:
            for mine, theirs in zip(args, after[0] if isinstance(after[0], tuple) else ()):
                wire.sync(mine, theirs)
            if isinstance(after[1], dict):
                for key, value in after[1].items():
                    if key in kwargs:
                        wire.sync(kwargs[key], value)
        if item["op"] == "result":
            return wire.decode(item.get("value"), ref)
        error = item.get("error")
        if isinstance(error, dict) and "ER" in error:
            try:
                exc = errors[int(error["ER"])]
            except (IndexError, ValueError, TypeError):
                exc = RuntimeError("(an error the judge cannot find)")
        else:
            exc = wire.decode(error, ref)
        if not isinstance(exc, Exception):
            exc = RuntimeError(repr(exc)[:200])
        self.raised.append(f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}".rstrip(": "))
        raise exc


if __name__ == "__main__":
    sys.exit(main())
