"""Why an estimate_one answer is off: the slip that gives the student's number, else the rules it breaks.

    estimated(message)(got)   None if got is TokenEstimator.estimate_one(message), an int; else one line:
      not an int                        use // 3, not / 3
      a slip in SLIPS gives `got`       that slip (str(message), per-block rounding, \\uXXXX escapes, ...)
      none does                         how far off, and what each part of this message counts (RULES)
    count_chars(message, **slip)      the characters of each part, counted right or with one slip

Example: estimated({"role": "assistant", "content": [{"type": "text", "text": "Reading (1/3)."},
                                                      {"type": "text", "text": "And more!!"}]})(7)
  -> "returned 7, expected 8 for a message of ['text', 'text']: each block was rounded down on its own:
     add the characters up, divide once"
"""

from __future__ import annotations

import json

from s08_compact4 import TokenEstimator

from ...i18n import tr
from ..checks import translated


def count_chars(message: dict, *, ascii_json=False, spaces=False, inputs=True, ids=True, str_lists=False) -> list:
    """The characters of each part of a message, counted the right way (all flags off) or with
    one of the slips the flags name. Example: count_chars({'role': 'user', 'content': 'hello'}) -> [5]"""
    content = message["content"]
    if isinstance(content, str):
        return [len(content)]
    parts = []
    for b in content:
        kind = b.get("type")
        if kind == "text":
            parts.append(len(b.get("text", "")))
        elif kind == "tool_use":
            dumped = json.dumps(b.get("input", {}), ensure_ascii=ascii_json,
                                separators=None if spaces else (",", ":"))
            parts.append(len(b.get("name", "")) + (len(dumped) if inputs else 0))
        elif kind == "tool_result":
            c = b.get("content", "")
            text = c if isinstance(c, str) else str(c) if str_lists else "".join(
                x.get("text", "") for x in c if isinstance(x, dict))
            parts.append((len(b.get("tool_use_id", "")) if ids else 0) + len(text))
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
)


RULES = {  # what each part of a message counts, said when no known slip gives the student's number
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
        if got == want and type(got) is int:
            return None
        if not isinstance(got, int) or isinstance(got, bool):
            return tr("returned {got} ({kind}), expected the int {want}: use // 3, not / 3", got=repr(got),
                      kind=type(got).__name__, want=want)
        kinds = [b.get("type") for b in message["content"]] if isinstance(message["content"], list) else ["str"]
        why = next((translated(text) for slip, text in SLIPS if slip(message) == got != want), None)
        if why is None:
            rules = [translated(RULES[kind]) for kind in dict.fromkeys(kinds) if kind in RULES] or [
                translated(RULES["empty"])]
            why = tr("{off}: {rules}, then // 3 once", rules="; ".join(rules),
                     off=tr("{n} too many", n=got - want) if got > want else tr("{n} too few", n=want - got))
        return tr("returned {got}, expected {want} for a message of {kinds}: {why}", got=got, want=want,
                  kinds=kinds, why=why)
    return verdict
