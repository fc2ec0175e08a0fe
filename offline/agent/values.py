"""Structured output with the right values, or an honest "can't": each field's value found in the user's words.

    schema field            where its value comes from                       "John is 42, a happy customer"
    name / person / author  a capitalised name (not a country)               name -> "John"
    city / town / place     a capitalised place after in/at/from, not a country; a `City` model's name too
    country                 a country the text names (COUNTRIES)
    integer / number        digits or number words, en and zh ("forty-two", "四十二", "3.5", "2 million")
                            nearest the field's own word ("age 42", "42 years old"), else in order
    enum                    a member the text names, else a sentiment lexicon for positive/negative/neutral
    boolean                 the field's own word in the text (negated or not), or yes / no
    text / query / message  the whole request;  summary / answer / result: the model's own answer
    list of these           every one the text names;  list of objects: one per name, from its own words

A required field the text does not give raises Missing(field): the answer is then
`stop_reason: "refusal"` naming it (forced.py, structured.py), never a made-up value.

Example: fill({"properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
               "required": ["name", "age"]}, "John is 42") -> {"name": "John", "age": 42}
         fill(same, "Hello there") -> Missing("name")

Not modeled: knowledge (which words are cities), dates, nested lists of lists, `pattern`.
"""

from __future__ import annotations

import re

from ..grammar.numbers import numbers
from .inputs import _kind, _phrase, _resolve, _type_of, _words

PLACE_WORDS = {"city", "town", "place", "location", "destination", "origin", "capital", "village", "region"}
COUNTRY_WORDS = {"country", "nation", "nationality"}
NAME_WORDS = {"name", "person", "author", "user", "username", "who", "customer", "employee", "student", "owner",
              "character", "first", "last", "full", "people", "persons", "names", "members", "friends"}
WHOLE_WORDS = {"query", "question", "text", "message", "content", "prompt", "input", "request", "body", "comment"}
SAID_WORDS = {"summary", "answer", "response", "result", "output", "reply", "explanation", "final"}
COUNTRIES = {"afghanistan", "argentina", "australia", "austria", "belgium", "brazil", "canada", "chile", "china",
             "colombia", "cuba", "denmark", "egypt", "england", "finland", "france", "germany", "greece", "india",
             "indonesia", "iran", "iraq", "ireland", "israel", "italy", "japan", "kenya", "korea", "mexico",
             "morocco", "netherlands", "new zealand", "nigeria", "norway", "pakistan", "peru", "poland", "portugal",
             "russia", "scotland", "singapore", "south africa", "spain", "sweden", "switzerland", "taiwan",
             "thailand", "turkey", "uk", "ukraine", "united kingdom", "united states", "usa", "vietnam", "wales"}
NOT_NAMES = {"i", "the", "a", "an", "my", "our", "his", "her", "their", "this", "that", "these", "those", "it", "is",
             "what", "who", "where", "when", "how", "why", "which", "please", "hi", "hello", "hey", "dear", "thanks",
             "extract", "make", "create", "get", "give", "tell", "find", "list", "add", "and", "or", "but", "so",
             "he", "she", "they", "we", "you", "yes", "no", "ok", "mr", "mrs", "ms", "dr", "here", "there",
             "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today", "tomorrow",
             "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
             "november", "december", "english", "chinese", "python", "json", "api", "in", "at", "from", "on", "of",
             "to", "for", "with", "by", "also", "then", "both", "each", "all", "some", "not", "one", "two", "three"}
POSITIVE = {"love", "loved", "loves", "great", "excellent", "amazing", "awesome", "good", "happy", "like", "liked",
            "fantastic", "wonderful", "perfect", "best", "enjoy", "enjoyed", "pleased", "delighted", "recommend",
            "喜欢", "很好", "太好", "满意", "棒", "爱"}
NEGATIVE = {"hate", "hated", "hates", "terrible", "awful", "bad", "worst", "horrible", "poor", "disappointed",
            "disappointing", "angry", "broken", "useless", "dislike", "annoying", "sad", "refund", "never",
            "讨厌", "很差", "太差", "失望", "糟糕", "垃圾", "恨"}
NEGATIONS = {"not", "no", "never", "isn't", "isnt", "doesn't", "don't", "wasn't", "aren't", "without", "n't"}
NAME_RE = re.compile(r"(?<![\w'])([A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?(?:\s+[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)*)")


class Missing(Exception):
    """A required field the request does not give. `field` names it ("age", "people[1].age")."""

    def __init__(self, field: str):
        super().__init__(field)
        self.field = field


def _names(text: str) -> list[tuple[int, str]]:
    """(position, name) of capitalised names in the text, common words and countries left out."""
    out = []
    for m in NAME_RE.finditer(text):
        words = m.group(1).split()
        while words and (words[0].lower() in NOT_NAMES or words[0].lower() in NAME_WORDS):  # "Customer Chen"
            words = words[1:]
        name = " ".join(words)
        if name and name.lower() not in NOT_NAMES and name.lower() not in COUNTRIES:
            out.append((m.start() + m.group(1).find(name), name))
    return out


class _Reader:
    """One request's words, handing out values to the fields that ask (a name is used once)."""

    def __init__(self, text: str, said: str = ""):
        self.text, self.said, self.used = text, said, set()

    def take_name(self, place: bool) -> str | None:
        names = [(p, n) for p, n in _names(self.text) if n not in self.used]
        if place:
            after = [(p, n) for p, n in names if re.search(r"\b(?:in|at|from|to|near|visit(?:ed|ing)?|of)\s+$",
                                                            self.text[:p], re.IGNORECASE)]
            names = after or names  # "in Porto": a place; else the first name no other field took
        quoted = re.search(r"[\"“']([^\"”']{1,60})[\"”']", self.text)
        if not place and quoted and quoted.group(1) not in self.used:
            names = [(quoted.start(), quoted.group(1))] + names
        named = re.search(r"\b(?:named|called|name is|i'm|i am|this is)\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)",
                          self.text)
        if not place and named and named.group(1) not in self.used:
            names = [(named.start(1), named.group(1))] + names
        if not names:
            return None
        self.used.add(names[0][1])
        return names[0][1]

    def take_country(self) -> str | None:
        for c in sorted(COUNTRIES, key=len, reverse=True):
            m = re.search(r"\b" + re.escape(c) + r"\b", self.text, re.IGNORECASE)
            if m and m.group(0) not in self.used:
                self.used.add(m.group(0))
                return m.group(0)
        return None

    def take_number(self, field: str) -> float | None:
        found = [(p, v) for p, v in numbers(self.text) if p not in self.used]
        if not found:
            return None
        words = _words(field) - {"number", "num", "of", "the", "count", "value", "amount", "total"}
        near = [m.start() for w in words for m in re.finditer(r"\b" + re.escape(w), self.text, re.IGNORECASE)]
        if field.lower() in ("age", "years") or "age" in words:
            near += [m.start() for m in re.finditer(r"\b(?:years?\s+old|aged?)\b|岁", self.text)]
        pick = min(found, key=lambda f: min(abs(f[0] - n) for n in near)) if near else found[0]
        self.used.add(pick[0])
        return pick[1]


def _enum(values: list, field: str, r: _Reader):
    low = r.text.lower()
    named = [v for v in values if isinstance(v, str) and re.search(r"(?<!\w)" + re.escape(v.lower()) + r"(?!\w)", low)]
    if len(named) >= 1:
        return named[0]
    lowered = {str(v).lower(): v for v in values}
    if "positive" in lowered or "negative" in lowered:
        words = set(re.findall(r"[a-z']+|[\u3400-\u9fff]{1,2}", low)) | {w for w in POSITIVE | NEGATIVE if w in low}
        negated = bool(words & NEGATIONS)
        pos, neg = len(words & POSITIVE), len(words & NEGATIVE)
        if negated and pos and not neg:
            pos, neg = 0, 1
        if pos > neg and "positive" in lowered:
            return lowered["positive"]
        if neg > pos and "negative" in lowered:
            return lowered["negative"]
        if pos == neg == 0 and "neutral" in lowered:
            return lowered["neutral"]
    raise Missing(field)


def _boolean(field: str, r: _Reader):
    words = _words(field) - {"is", "has", "was", "are", "can", "should", "flag"}
    low = r.text.lower()
    for w in words:
        m = re.search(r"\b" + re.escape(w), low)
        if m:
            before = set(re.findall(r"[a-z']+", low[max(0, m.start() - 20):m.start()]))
            return not (before & NEGATIONS or re.search(r"n't\s+(?:\w+\s+)?$", low[:m.start()]))
    if re.fullmatch(r"\W*(yes|true|yep|sure|是|对)\W*", low):
        return True
    if re.fullmatch(r"\W*(no|false|nope|不是|否)\W*", low):
        return False
    raise Missing(field)


def _string(schema: dict, field: str, title: str, r: _Reader):
    words = _words(field) | ({"name"} & _words(title) if field.lower() == "name" else set())
    scope = _words(title) if field.lower() in ("name", "title") else set()
    if words & COUNTRY_WORDS or (scope & COUNTRY_WORDS):
        value = r.take_country()
    elif words & PLACE_WORDS or (scope & PLACE_WORDS):
        value = r.take_name(place=True)
    elif words & NAME_WORDS or "title" in words or scope & NAME_WORDS:
        value = r.take_name(place=False)
    elif _kind(field) in ("path", "command"):  # a path or a `command` the request names
        value = _phrase(_kind(field), r.text)
    elif words & WHOLE_WORDS:
        value = " ".join(r.text.split()) or None
    elif words & SAID_WORDS:
        value = r.said.strip() or None
    else:  # "color: red", "the color is red", "street Ockham"
        m = re.search(r"\b" + re.escape(field.replace("_", " ")) + r"\s*(?:is|:|=|of)?\s+([\w.@/-]+)", r.text,
                      re.IGNORECASE) or re.search(r"\b" + re.escape(field.replace("_", " ")) + r"\s*[:=]\s*([\w.@/-]+)",
                                                  r.text, re.IGNORECASE)
        value = m.group(1) if m and m.group(1).lower() not in NOT_NAMES else None
    if value is None:
        raise Missing(field)
    high = schema.get("maxLength")
    return value[:high] if isinstance(high, int) else value


def _value(schema: dict, field: str, title: str, r: _Reader, root: dict):
    schema = _resolve(schema if isinstance(schema, dict) else {}, root)
    if "const" in schema:
        return schema["const"]
    options = [o for o in schema.get("anyOf") or schema.get("oneOf") or [] if isinstance(o, dict)
               and o.get("type") != "null"]
    if options:
        return _value(dict(options[0], **{k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}),
                      field, title, r, root)
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return _enum(schema["enum"], field, r)
    kind = _type_of(schema)
    if kind == "object":
        return _object(schema, r, root, field)
    if kind == "array":
        return _array(schema, field, r, root)
    if kind in ("integer", "number"):
        value = r.take_number(field)
        if value is None or kind == "integer" and value != int(value):
            raise Missing(field)
        for bound, bad in (("minimum", lambda v, b: v < b), ("maximum", lambda v, b: v > b)):
            if isinstance(schema.get(bound), (int, float)) and bad(value, schema[bound]):
                raise Missing(field)  # the text's number does not fit: never a clamped, made-up one
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return _boolean(field, r)
    if kind == "null":
        return None
    return _string(schema, field, title, r)


def _object(schema: dict, r: _Reader, root: dict, where: str = "") -> dict:
    out = {}
    title = str(schema.get("title") or where)
    required = [p for p in schema.get("required") or [] if isinstance(p, str)]
    for prop, sub in (schema.get("properties") or {}).items():
        try:
            out[prop] = _value(sub, prop, title, r, root)
        except Missing as missing:
            if prop in required:
                raise Missing(f"{where + '.' if where else ''}{missing.field}") from None
    return out


def _array(schema: dict, field: str, r: _Reader, root: dict) -> list:
    items = _resolve(schema.get("items") if isinstance(schema.get("items"), dict) else {}, root)
    low = schema.get("minItems", 1) if isinstance(schema.get("minItems"), int) else 1
    if _type_of(items) == "object" and "enum" not in items:  # one item per name, each from its own words
        starts = [p for p, _ in _names(r.text)] or [0]
        parts = [r.text[a:b] for a, b in zip(starts, starts[1:] + [len(r.text)])]
        out = []
        for k, part in enumerate(parts):
            try:
                out.append(_object(items, _Reader(part, r.said), root, f"{field}[{k}]"))
            except Missing:
                if not out:
                    raise
    elif isinstance(items.get("enum"), list):  # every member the text names, in its order
        low_text = r.text.lower()
        hits = [(low_text.find(str(v).lower()), v) for v in items["enum"] if isinstance(v, str)
                and re.search(r"(?<!\w)" + re.escape(v.lower()) + r"(?!\w)", low_text)]
        out = [v for _, v in sorted(hits)]
    elif _type_of(items) == "string" and not (_words(field) & (NAME_WORDS | PLACE_WORDS | COUNTRY_WORDS)):
        stem = re.escape(field.lower().rstrip("s"))  # "tags: a, b and c", "tagged math and poetry"
        m = re.search(r"\b" + stem + r"\w*\s*(?:[:=]|are|is|as|with)?\s*"
                      r"([\w-]+(?:\s*,\s*[\w-]+)*(?:,?\s+and\s+[\w-]+)?)", r.text, re.IGNORECASE)
        out = [w for w in re.split(r"\s*,\s*|,?\s+and\s+", m.group(1)) if w] if m else []
    else:
        out = []
        sub = _Reader(r.text, r.said)
        while len(out) < 50:
            try:
                value = _value(items, field, "", sub, root)
            except Missing:
                break
            if value in out or isinstance(value, str) and value == " ".join(r.text.split()):
                break
            out.append(value)
    if len(out) < max(low, 1) and low > 0 or not out:
        raise Missing(field)
    high = schema.get("maxItems")
    return out[:high] if isinstance(high, int) else out


def fill(schema: dict, text: str, said: str = "") -> dict:
    """The object `schema` asks for, its values from `text` (`said`: the model's own answer), or Missing."""
    r = _Reader(text, said)
    value = _value(schema if isinstance(schema, dict) else {}, "", "", r, schema)
    return value if isinstance(value, dict) else {}
