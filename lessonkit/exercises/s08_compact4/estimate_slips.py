"""Why an estimate_one answer is off: the slip that gives the student's number, else the rules it breaks.

    estimated(message)(got)   None if got is TokenEstimator.estimate_one(message), an int; else one line:
      not an int                        use // 3, not / 3
      a slip in SLIPS gives `got`       that slip (str(message), per-block rounding, \\uXXXX escapes, ...);
                                        of two slips that give the same number, the one the answer
                                        showed on PROBES (diagnose) is named
      none does                         how far off, and what each part of this message counts (RULES)
    count_chars(message, **slip)      the characters of each part, counted right or with one slip
    diagnose(fn)                      the slips fn makes on PROBES: small messages each of which only one
                                      slip gets wrong (a number alone can fit two slips: round() and
                                      json.dumps's spaces both give 23 for 68 characters)

Example: estimated({"role": "assistant", "content": [{"type": "text", "text": "Reading (1/3)."},
                                                      {"type": "text", "text": "And more!!"}]})(7)
  -> "returned 7, expected 8 for a message of ['text', 'text']: each block was rounded down on its own:
     add the characters up, divide once"
"""

from __future__ import annotations

import json

from lessonkit.i18n import tr
from s08_compact4 import TokenEstimator

from ..checks import translated


def count_chars(message: dict, *, ascii_json=False, spaces=False, inputs=True, ids=True, str_lists=False,
                sep=0, others=False, utf8=False, use_ids=False) -> list:
    """The characters of each part of a message, counted the right way (all flags off) or with
    one of the slips the flags name. Example: count_chars({'role': 'user', 'content': 'hello'}) -> [5]"""
    size = (lambda text: len(text.encode("utf-8"))) if utf8 else len
    content = message["content"]
    if isinstance(content, str):
        return [size(content)]
    parts = []
    texts = sum(1 for b in content if b.get("type") == "text")
    if sep and texts > 1:  # the texts joined with a separator: one more character between each two
        parts.append(sep * (texts - 1))
    for b in content:
        kind = b.get("type")
        if kind == "text":
            parts.append(size(b.get("text", "")))
        elif kind == "tool_use":
            dumped = json.dumps(b.get("input", {}), ensure_ascii=ascii_json,
                                separators=None if spaces else (",", ":"))
            parts.append(size(b.get("name", "")) + (size(dumped) if inputs else 0)
                         + (len(b.get("id", "")) if use_ids else 0))
        elif kind == "tool_result":
            c = b.get("content", "")
            text = c if isinstance(c, str) else str(c) if str_lists else (" " * sep).join(
                x.get("text", "") for x in c if isinstance(x, dict))
            parts.append((len(b.get("tool_use_id", "")) if ids else 0) + size(text))
        elif others:  # an image (or any other block) counted by its repr
            parts.append(len(str(b)))
    return parts


SLIPS = (  # (what the student's number matches, what that says), tried in order
    (lambda m: len(str(m)) // 3,
     "that is str(message) // 3, the dict's repr with its keys and quotes: count the text only"),
    (lambda m: sum(n // 3 for n in count_chars(m)),
     "each block was rounded down on its own: add the characters up, divide once"),
    (lambda m: sum(count_chars(m, ascii_json=True)) // 3,
     "non-ASCII input was counted as \\uXXXX escapes: json.dumps(..., ensure_ascii=False)"),
    (lambda m: sum(count_chars(m, ascii_json=True, spaces=True)) // 3,
     "the input was counted with json.dumps's defaults: \\uXXXX escapes and spaces; use "
     "ensure_ascii=False, separators=(',', ':')"),
    (lambda m: sum(count_chars(m, spaces=True)) // 3,
     "the input was counted with json.dumps's spaces: separators=(',', ':')"),
    (lambda m: sum(count_chars(m, inputs=False)) // 3,
     "the tool_use's input was not counted: it is sent as JSON and takes tokens"),
    (lambda m: sum(count_chars(m, str_lists=True)) // 3,
     "a tool_result's content can be a list of blocks: count the text of its text blocks"),
    (lambda m: sum(count_chars(m, ids=False)) // 3, "the tool_use_id is sent too: count its characters"),
    (lambda m: sum(count_chars(m, utf8=True)) // 3,
     "the text was measured in UTF-8 bytes: len() of the str counts characters (a Chinese one is 3 bytes)"),
    (lambda m: sum(count_chars(m, use_ids=True)) // 3,
     "the tool_use's id was counted: a call counts its name and its input (the id is counted where the "
     "tool_result answers it)"),
    (lambda m: -(-sum(count_chars(m)) // 3),
     "the characters were divided rounding up (or to the nearest): // 3 rounds down, once"),
    (lambda m: round(sum(count_chars(m)) / 3),
     "the characters were divided rounding up (or to the nearest): // 3 rounds down, once"),
    (lambda m: sum(count_chars(m, sep=1)) // 3,
     "the blocks' texts were joined with a separator, one character more for each block: add their lengths"),
    (lambda m: sum(count_chars(m, others=True)) // 3,
     "an image (or any block that is not text, tool_use or tool_result) was counted: it counts nothing here"),
)

PROBES = (  # (message, the slip texts a wrong number on it shows): each tells one slip apart from the rest
    ({"role": "user", "content": "abcde"}, (SLIPS[-3][1],)),                          # 5 // 3 = 1, rounded up 2
    ({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",         # 5 // 3 = 1, joined 2
                                   "content": [{"type": "text", "text": "ab"}, {"type": "text", "text": "cd"}]}]},
     (SLIPS[-2][1],)),
    ({"role": "user", "content": [{"type": "text", "text": "abc"},                    # 3 // 3 = 1, the image more
                                  {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                               "data": "iVBORw0KGgo="}}]}, (SLIPS[-1][1],)),
)


def diagnose(fn) -> set:
    """The slip texts fn shows on PROBES (a probe it raises on shows nothing).
    Example: diagnose(lambda m: round(TokenEstimator.estimate_one(m) * 1.0 + 0.4)) -> set() (each probe right)"""
    shown = set()
    for message, texts in PROBES:
        want = TokenEstimator.estimate_one(message)
        try:
            got = fn(message)
        except Exception:  # noqa: BLE001 -- the cases report the exception
            continue
        if isinstance(got, int) and got != want:
            shown.update(text for slip, text in SLIPS if text in texts and slip(message) == got)
    return shown


class Estimate:
    """What the answer returned on a case, and the slips it showed on PROBES."""

    def __init__(self, value, slips: set):
        self.value, self.slips = value, slips


def with_diagnosis(fn, env=None):
    """The student's fn as the cases call it: message -> Estimate (its number, and diagnose(fn) once)."""
    shown: list = []

    def run(message):
        if not shown:
            shown.append(diagnose(fn))
        return Estimate(fn(message), shown[0])
    return run


RULES = {  # what each part of a message counts, said when no known slip gives the student's number
    "image": "an image block counts nothing here",
    "str": "a plain-string content counts its own characters",
    "text": "a text block counts its text",
    "tool_use": "a tool_use counts its name and its input as compact JSON",
    "tool_result": "a tool_result counts its tool_use_id and its content's text",
    "empty": "an empty content counts nothing",
}


def estimated(message: dict):
    """A verdict: the student's number is the reference's; if not, which slip gives that number."""
    want = TokenEstimator.estimate_one(message)

    def verdict(got) -> str | None:
        shown = got.slips if isinstance(got, Estimate) else set()
        got = got.value if isinstance(got, Estimate) else got
        if got == want and type(got) is int:
            return None
        if not isinstance(got, int) or isinstance(got, bool):
            return tr("returned {got} ({kind}), expected the int {want}: use // 3, not / 3", got=repr(got),
                      kind=type(got).__name__, want=want)
        kinds = [b.get("type") for b in message["content"]] if isinstance(message["content"], list) else ["str"]
        fits = [text for slip, text in SLIPS if slip(message) == got != want]
        why = next((translated(text) for text in fits if text in shown), None) or (
            translated(fits[0]) if fits else None)
        if why is None:
            rules = [translated(RULES[kind]) for kind in dict.fromkeys(kinds) if kind in RULES] or [
                translated(RULES["empty"])]
            why = tr("{off}: {rules}, then // 3 once", rules="; ".join(rules),
                     off=tr("{n} too many", n=got - want) if got > want else tr("{n} too few", n=want - got))
        return tr("returned {got}, expected {want} for a message of {kinds}: {why}", got=got, want=want,
                  kinds=kinds, why=why)
    return verdict
