"""What crosses between the judge and the grading child: inputs go down pickled, outputs come up as JSON data.

    judge (trusted) ── pickle(args), callables as ("cb", n) ──> child      the judge's own objects: safe to load
    child ── encode(result): JSON, every type tagged ──> judge ──decode──> plain values, the kit's own classes
                                                                          rebuilt from data, anything else Foreign

Nothing the child sends is ever unpickled or run: decode rebuilds only classes of modules the judge has
already imported from the kit, the stage packages, the SDK or the standard library, by setting their
attributes (never calling their code), so an output can be right or wrong, but never a verdict.
A callable in the inputs (a hook, an `approve`) stays in the judge: the child gets a proxy that asks
the judge to call it. An object of the inputs that the answer changes in place (a history it edits,
a list it walks) comes back as its new state, applied to the judge's own object (`sync`); a result that
IS part of the inputs comes back as a reference to it, so `result is messages` still holds.

An object met twice in one value goes once, then as {"A": n} naming its first sending {"#": n}.

Example: encode((1, Path("a")), {}) -> {"T": [1, {"P": "a", "c": "PosixPath", "#": 1}], "#": 0};
         decode(that) -> (1, PosixPath('a'))
"""

from __future__ import annotations

import base64
import io
import pathlib
import pickle
import sys
import types

MAX_DEPTH = 60
MAX_ITEMS = 200_000
ALLOWED = ("lessonkit.", "anthropic.", "pathlib", "builtins", "collections", "datetime", "decimal", "fractions",
           "json.", "httpx.", "enum")


def _stage(module: str) -> bool:
    top = module.split(".")[0]
    return len(top) > 4 and top[0] == "s" and top[1:3].isdigit() and top[3] == "_"


class Foreign:
    """A value of a type the judge does not rebuild (the answer's own class, a generator, ...): its
    type's name and repr only. Example: Foreign("Thing", "<Thing>") -> shows as <Thing>"""

    def __init__(self, kind: str, text: str):
        self.kind, self.text = kind, text

    def __repr__(self) -> str:
        return self.text

    def __eq__(self, other) -> bool:
        return False

    __hash__ = object.__hash__


# ---- the child's side ----------------------------------------------------------------------------

class _Budget:
    def __init__(self):
        self.left = MAX_ITEMS
        self.sent: dict = {}   # id(object) -> its number: an object met again goes as {"A": number}

    def take(self):
        self.left -= 1
        if self.left < 0:
            raise ValueError("the value is too large to send")


def encode(obj, refs: dict, depth: int = 0, budget: _Budget | None = None, seen=None):
    """obj as JSON data. refs: id(object) -> path, for the objects of the inputs (sent as {"R": path})."""
    budget = budget or _Budget()
    budget.take()
    seen = seen if seen is not None else set()
    if depth > MAX_DEPTH:
        return {"X": type(obj).__name__, "r": "(nested too deep)"}
    kind = type(obj)
    if obj is None or kind in (bool, int, str):
        return obj
    if kind is float:
        return {"f": repr(obj)} if obj != obj or obj in (float("inf"), float("-inf")) else obj
    if id(obj) in refs and not isinstance(obj, (int, float, str, bytes, tuple, frozenset)):
        return {"R": refs[id(obj)]}
    if isinstance(obj, Remote):
        return {"C": object.__getattribute__(obj, "_remote")[1]}
    if callable(obj) and isinstance(getattr(obj, CALLBACK, None), int):
        return {"C": getattr(obj, CALLBACK)}
    if id(obj) in seen:
        return {"X": kind.__name__, "r": "(a value that contains itself)"}
    if id(obj) in budget.sent:   # shared, not copied: 400 messages sharing one log went as 400 logs,
        return {"A": budget.sent[id(obj)]}   # over MAX_ITEMS, and the answer's changes were dropped
    budget.sent[id(obj)] = number = len(budget.sent)
    seen.add(id(obj))
    try:
        out = _encode_new(obj, kind, refs, depth, budget, seen)
        if isinstance(out, dict):
            out["#"] = number
        return out
    finally:
        seen.discard(id(obj))


def _encode_new(obj, kind, refs, depth, budget, seen):
    """encode() of an object met for the first time: its type's tag and its parts."""
    def enc(x):
        return encode(x, refs, depth + 1, budget, seen)
    if kind is list:
        return {"L": [enc(x) for x in obj]}
    if kind is tuple:
        return {"T": [enc(x) for x in obj]}
    if kind is dict:
        return {"D": [[enc(k), enc(v)] for k, v in obj.items()]}
    if kind in (set, frozenset):
        return {"S" if kind is set else "F": [enc(x) for x in obj]}
    if kind in (bytes, bytearray):
        return {"B": base64.b64encode(bytes(obj)).decode()}
    if isinstance(obj, pathlib.PurePath):
        return {"P": str(obj), "c": kind.__name__}
    module = getattr(kind, "__module__", "") or ""
    if module.startswith(ALLOWED) or _stage(module) or module in ALLOWED:
        out = {"O": [module, kind.__qualname__]}
        state = {}
        for key, value in (getattr(obj, "__dict__", None) or {}).items():
            state[str(key)] = enc(value)
        for slot in [s for c in kind.__mro__ for s in getattr(c, "__slots__", ()) if isinstance(s, str)]:
            if slot not in state and not slot.startswith("__") and hasattr(obj, slot):
                state[slot] = enc(getattr(obj, slot))
        out["d"] = state
        if isinstance(obj, BaseException):
            out["a"] = [enc(a) for a in obj.args]
        elif isinstance(obj, list):   # by the base class: an instrumented list counts no walk of ours
            out["L"] = [enc(x) for x in list.__iter__(obj)]
        elif isinstance(obj, dict):
            out["D"] = [[enc(k), enc(v)] for k, v in dict.items(obj)]
        elif isinstance(obj, (int, float, str)):
            out["v"] = enc(kind.__mro__[[c in (int, float, str) for c in kind.__mro__].index(True)](obj))
        return out
    if isinstance(obj, BaseException):
        return {"E": kind.__name__, "a": [_text(a) for a in obj.args][:5]}
    return {"X": kind.__name__, "r": _text(obj)}


def _text(obj) -> str:
    try:
        text = repr(obj)
    except Exception:  # noqa: BLE001 - the answer's own repr may raise
        text = f"<{type(obj).__name__}>"
    return text[:300]


def reachable(args, prefix=("a",)) -> dict:
    """id(object) -> path, for every container and object reachable from the inputs."""
    refs: dict = {}
    stack = [(args, prefix)]
    while stack and len(refs) < MAX_ITEMS:
        obj, path = stack.pop()
        if id(obj) in refs or obj is None or isinstance(obj, (bool, int, float, str, bytes)):
            continue
        refs[id(obj)] = list(path)
        if isinstance(obj, (list, tuple)):   # by the base class's iterator: nothing of the object's runs
            items = list.__iter__(obj) if isinstance(obj, list) else tuple.__iter__(obj)
            stack += [(x, (*path, i)) for i, x in enumerate(items)]
        elif isinstance(obj, dict):
            stack += [(v, (*path, k)) for k, v in dict.items(obj) if isinstance(k, (str, int))]
        if hasattr(obj, "__dict__") and not isinstance(obj, type) and not callable(obj):
            stack += [(v, (*path, "." + k)) for k, v in vars(obj).items()]
    return refs


# ---- the judge's side ----------------------------------------------------------------------------

def _class(module: str, qualname: str):
    """A class the judge already has (never imports one on the child's word), or None."""
    if not (module.startswith(ALLOWED) or _stage(module) or module in ALLOWED):
        return None
    found = sys.modules.get(module)
    for part in qualname.split("."):
        if found is None or part.startswith("<"):
            return None
        found = getattr(found, part, None)
    return found if isinstance(found, type) else None


def decode(data, ref=lambda path: None, depth: int = 0, memo: dict | None = None):
    """The value the child sent, rebuilt in the judge (see the module's docstring). memo: number -> the
    object rebuilt for {"#": number}, which {"A": number} names again (one object, not two copies)."""
    memo = {} if memo is None else memo
    if depth > MAX_DEPTH + 2:
        return Foreign("value", "(nested too deep)")
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):      # never sent bare; read as a list
        return [decode(x, ref, depth + 1, memo) for x in data]
    if not isinstance(data, dict) or not data:
        return Foreign("value", repr(data)[:100])
    if "A" in data:
        return memo.get(data["A"], Foreign("value", "(a value the child named twice)")) \
            if isinstance(data["A"], int) else Foreign("value", "(a value the child named twice)")
    out = _decode_new(data, ref, depth, memo)
    if isinstance(data.get("#"), int):
        memo[data["#"]] = out
    return out


def _decode_new(data: dict, ref, depth: int, memo: dict):
    """decode() of a value sent whole (not {"A": n})."""
    def dec(x):
        return decode(x, ref, depth + 1, memo)
    if "R" in data:
        return ref(data["R"])
    if "C" in data:   # a callable or an object of the judge's that the child was given: the judge's own
        return ref(("C", data["C"]))
    if "f" in data:
        return float(str(data["f"]))
    if "O" not in data:
        if "L" in data:
            return [dec(x) for x in data["L"]]
        if "T" in data:
            return tuple(dec(x) for x in data["T"])
        if "D" in data:
            return _dict(data["D"], dec)
        if "S" in data or "F" in data:
            items = [dec(x) for x in data.get("S", data.get("F")) or []]
            try:
                return set(items) if "S" in data else frozenset(items)
            except TypeError:
                return Foreign("set", repr(items)[:200])
        if "B" in data:
            return base64.b64decode(str(data["B"]))
        if "P" in data:
            cls = getattr(pathlib, str(data.get("c", "PosixPath")), pathlib.PosixPath)
            return (cls if isinstance(cls, type) and issubclass(cls, pathlib.PurePath) else pathlib.PosixPath)(
                str(data["P"]))
        if "E" in data:
            return _foreign_error(str(data["E"]), [str(a) for a in data.get("a", [])])
        return Foreign(str(data.get("X", "value")), str(data.get("r", ""))[:300])
    module, qualname = (list(data["O"]) + ["", ""])[:2]
    cls = _class(str(module), str(qualname))
    state = {str(k): dec(v) for k, v in (data.get("d") or {}).items()}
    if cls is None:
        if "a" in data:
            return _foreign_error(str(qualname).split(".")[-1], [dec(a) for a in data["a"]])
        return Foreign(str(qualname).split(".")[-1], f"<{qualname}>")
    return _build(cls, state, data, dec)


def _dict(pairs, dec):
    out = {}
    for pair in pairs or []:
        key, value = dec(pair[0]), dec(pair[1])
        try:
            out[key] = value
        except TypeError:
            out[repr(key)] = value
    return out


def _foreign_error(name: str, args) -> BaseException:
    """An exception of the answer's own class: an Exception subclass with its name, its args."""
    safe = "".join(ch for ch in name if ch.isalnum() or ch == "_")[:60] or "Error"
    cls = types.new_class(safe, (Exception,))
    cls.__module__ = "answer"
    return cls(*args)


def _build(cls, state: dict, data: dict, dec):
    """An instance of a kit (or SDK, or standard) class from its data, without running its code."""
    try:
        from pydantic import BaseModel
    except ImportError:  # pragma: no cover - the SDK needs pydantic
        BaseModel = ()
    if BaseModel and issubclass(cls, BaseModel):
        try:
            return cls.model_construct(**state)
        except Exception:  # noqa: BLE001
            return Foreign(cls.__name__, f"<{cls.__name__}>")
    if issubclass(cls, BaseException):
        obj = cls.__new__(cls)
        obj.args = tuple(dec(a) for a in data.get("a", []))
    elif "v" in data and issubclass(cls, (int, float, str)):
        try:
            obj = cls.__new__(cls, dec(data["v"]))
        except Exception:  # noqa: BLE001
            return Foreign(cls.__name__, repr(dec(data["v"])))
    elif issubclass(cls, (list, dict)):
        obj = cls.__new__(cls)
        if isinstance(obj, list):
            list.extend(obj, [dec(x) for x in data.get("L", [])])
        else:
            dict.update(obj, _dict(data.get("D", []), dec))
    else:
        try:
            obj = object.__new__(cls)
        except TypeError:
            return Foreign(cls.__name__, f"<{cls.__name__}>")
    for key, value in state.items():
        try:
            object.__setattr__(obj, key, value)
        except (AttributeError, TypeError):
            pass
    return obj


def path_get(root, path):
    """The object at `path` (as reachable() names it) below root: items of lists, tuples and dicts, and an
    object's own attributes (its __dict__, never a class's, a method's globals or anything getattr finds).
    Example: path_get([[1, 2]], ["a", 0, 1]) -> 2; path_get(x, ["a", ".__class__"]) -> KeyError"""
    obj = root
    for step in path[1:]:
        if isinstance(step, str) and step.startswith("."):
            obj = vars(obj)[step[1:]]    # TypeError for an object without one, KeyError for a name it lacks
        else:
            index = isinstance(obj, (list, tuple)) and type(step) is int
            if not (index or isinstance(obj, dict) and type(step) in (str, int)):
                raise KeyError(step)
            obj = obj[step]
    return obj


def sync(mine, theirs, depth: int = 0):
    """Make the judge's input object `mine` hold what the child's copy became (its decoded state `theirs`),
    in place where it can be changed in place; returns the object to keep."""
    if depth > MAX_DEPTH or mine is theirs:
        return mine
    if isinstance(theirs, Foreign) and callable(mine):
        return mine   # a function comes back as its name only: that is no change (s09's tools lost their handlers)
    if type(mine) is not type(theirs):
        return theirs
    if isinstance(mine, list):   # by the base class's own methods: nothing of an instrumented list runs
        old = list.copy(mine)
        new = [sync(old[i], x, depth + 1) if i < len(old) else x for i, x in enumerate(list.__iter__(theirs))]
        list.__setitem__(mine, slice(None), new)
    elif isinstance(mine, dict):
        old = dict(dict.items(mine))   # not dict.copy: on a subclass it calls its keys() and __getitem__
        new = {k: sync(old[k], v, depth + 1) if k in old else v for k, v in dict.items(theirs)}
        dict.clear(mine)
        dict.update(mine, new)
    elif isinstance(mine, (str, int, float, bytes, tuple, frozenset, type(None), pathlib.PurePath)):
        return theirs
    if hasattr(mine, "__dict__") and hasattr(theirs, "__dict__") and not callable(mine):
        for key, value in vars(theirs).items():
            try:
                object.__setattr__(mine, key, sync(getattr(mine, key), value, depth + 1)
                                   if hasattr(mine, key) else value)
            except (AttributeError, TypeError):
                pass
    return mine


def _kept(obj) -> bool:
    """A callable the judge keeps and the child calls back: a function pickle cannot name (a case's own,
    a lambda, even one at a module's top level), a class of a case's own, a bound method, or a built-in
    method of an object (`[tripwire].index`: pickled, its object went down as a remote one and the call
    failed in the child)."""
    if isinstance(obj, types.BuiltinMethodType):   # bound to an object, not a module's function like len
        return not isinstance(getattr(obj, "__self__", None), types.ModuleType)
    if isinstance(obj, (type, types.FunctionType)):   # a class (s04's Refuse) or function pickle cannot name
        return "<" in obj.__qualname__
    return isinstance(obj, types.MethodType)


def _rebuilt(cls, items, state):
    """A list or dict subclass of the kit's, as the child gets it: its items and attributes set directly,
    so neither side runs its methods (a history that counts its walks counts the answer's, not ours)."""
    obj = cls.__new__(cls)
    if isinstance(obj, list):
        list.extend(obj, items)
    else:
        dict.update(obj, items)
    obj.__dict__.update(state)
    return obj


def _container_reduce(obj):
    """reducer_override: a list or dict subclass copied by its base class's own methods, never by iterating it."""
    kind = type(obj)
    if isinstance(obj, (list, dict)) and kind not in (list, dict) and hasattr(obj, "__dict__"):
        items = list.copy(obj) if isinstance(obj, list) else dict(dict.items(obj))  # dict.copy calls keys()
        return _rebuilt, (kind, items, dict(vars(obj)))
    return NotImplemented


def _callable_object(obj) -> bool:
    return callable(obj) and not isinstance(obj, (type, types.FunctionType, types.MethodType,
                                                  types.BuiltinMethodType))


def _called_back(obj) -> bool:
    """A callable object pickle cannot copy (an instance of a hook class a case defines): called back."""
    return _callable_object(obj) and not _sendable(obj)


class _Probe(pickle.Pickler):
    """Whether an object would go down by value: the callables the judge keeps count as kept."""

    root = None

    def dump(self, obj):
        self.root = obj
        return super().dump(obj)

    def persistent_id(self, obj):
        if _kept(obj) or obj is not self.root and _called_back(obj):
            return "kept"
        return None

    def reducer_override(self, obj):
        if not isinstance(obj, type) and "<" in type(obj).__qualname__:   # an instance of a case's own
            raise pickle.PicklingError("an instance of a local class")     # class: called back, never rebuilt
        return _container_reduce(obj)


def _sendable(obj) -> bool:
    """Whether an object can go down by value (its callables kept here): else it goes as a remote object."""
    try:
        _Probe(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
        return True
    except Exception:  # noqa: BLE001 - any reason an object cannot be pickled
        return False


class _Down(pickle.Pickler):
    """The judge's pickler: a callable of the kit's cases becomes a callback id (with its name, for an answer
    that names the hook it calls); an object that cannot be pickled (a context with a client in it) a remote
    object, whose attributes the child asks for."""

    def __init__(self, file, callbacks: list):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.callbacks = callbacks

    def _keep(self, obj, kind):
        named = obj if isinstance(obj, (type, types.FunctionType, types.MethodType, types.BuiltinMethodType)) \
            else type(obj)
        names = (str(getattr(named, "__name__", "")), str(getattr(named, "__qualname__", "")))
        for n, kept in enumerate(self.callbacks):
            if kept is obj:
                return (kind, n, *names)
        self.callbacks.append(obj)
        return (kind, len(self.callbacks) - 1, *names)

    def reducer_override(self, obj):
        return _container_reduce(obj)

    def persistent_id(self, obj):
        if _kept(obj) or _called_back(obj):
            return self._keep(obj, "cb")
        if isinstance(obj, (types.GeneratorType, io.IOBase)):
            raise pickle.PicklingError(f"cannot send a {type(obj).__name__}")
        kind = type(obj)
        if kind.__module__ != "builtins" and not isinstance(obj, (type, BaseException, pathlib.PurePath)) \
                and not _sendable(obj):   # a callable object (a hook's class) is called back, named by its class
            return self._keep(obj, "cb") if callable(obj) else self._keep(obj, "obj")
        return None


def down(obj, callbacks: list) -> str:
    """obj pickled for the child (callables kept here, in `callbacks`), as text."""
    buffer = io.BytesIO()
    _Down(buffer, callbacks).dump(obj)
    return base64.b64encode(buffer.getvalue()).decode()


class Remote:
    """In the child: an object of the judge's, each attribute asked for (a method: a callback)."""

    def __init__(self, proxy, number):
        object.__setattr__(self, "_remote", (proxy, number))

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        proxy, number = object.__getattribute__(self, "_remote")
        return proxy(number, attr=name)()

    def __setattr__(self, name, value):
        raise AttributeError(f"{name}: the judge's object cannot be changed from here")


CALLBACK = "__lessons_callback__"   # a proxy's number: it goes back up as the judge's own object ({"C": n})


def up_loads(text: str, proxy):
    """The child's side of down(): the judge's objects, each callback id a proxy(n) with the callable's name."""
    class _Load(pickle.Unpickler):
        def persistent_load(self, pid):
            if pid[0] != "cb":
                return Remote(proxy, pid[1])
            fn = proxy(pid[1])
            if len(pid) >= 4:
                fn.__name__, fn.__qualname__ = str(pid[2]) or fn.__name__, str(pid[3]) or fn.__qualname__
            setattr(fn, CALLBACK, int(pid[1]))
            return fn
    return _Load(io.BytesIO(base64.b64decode(text))).load()
