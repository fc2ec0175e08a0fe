"""Requests as people type them: greetings, politeness, question forms and typos around a plain one.

    "Hi! Could you please create hello.py that prints Hello, World?"
        -> "create hello.py that prints Hello, World"     (the "?" belongs to the question, not the text)
    "Run the tests please, thanks!"   -> "Run the tests"
    "能帮我运行 app.py 吗？"            -> "运行 app.py"
    "thanks!"                         -> ""  (thanks alone: thanked() is True, the answer is polite)
    "shwo me app.py"                  -> "show me app.py"  (fix_typos: a word one or two letters away
                                          from one word of the grammar's own vocabulary)

Text in `backticks` or quotes is never touched. A typo is fixed only when the request does
not parse as typed, and a fix that lands in what the user typed as content ("prints Hello
Wrold") is undone: content is kept exactly.

Example: core("Can you create a.py that prints hi?") -> ("create a.py that prints hi", True)

Not modeled: typos in Chinese, in file names, or in words the grammar does not use.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

GREET = (r"(?:hi there|hey there|hello there|hiya|hi|hello|hey|good (?:morning|afternoon|evening)|dear \w+|"
         r"你好|您好|嗨|哈喽|早上好|下午好|晚上好)")
THANKS = (r"(?:thanks?(?: you)?(?: (?:so|very) much)?(?: a lot| again| in advance)?|thx|ty|cheers|many thanks|"
          r"much appreciated|谢谢(?:你|您|啦)?|多谢|感谢(?:你|您)?|辛苦了|好的)")
LEAD = re.compile(r"^\s*(?:" + GREET + r"|" + THANKS + r")(?![\w\u3400-\u9fff])[\s,，.!！。:;~]*", re.IGNORECASE)
TAIL = re.compile(r"[\s,，.!！。~]*(?:(?:please|pls|plz|for me|if you can|if possible|" + THANKS + r"|请|吧)"
                  r"[\s.!！。~]*)$", re.IGNORECASE)
TAIL_ASKED = re.compile(r"[\s,，]*(?:please|pls|plz|for me|if you can|if possible)\s*([?？])$", re.IGNORECASE)
ASKED = re.compile(r"^(?:(?:can|could|would|will)\s+you|can\s+u|could\s+u|would\s+you\s+be\s+able\s+to|"
                   r"are\s+you\s+able\s+to|is\s+it\s+possible\s+to|i'?d\s+like\s+you\s+to|"
                   r"i\s+want\s+you\s+to|"
                   r"i\s+need\s+you\s+to|kindly|please)\s+(?:please\s+|kindly\s+|just\s+)?", re.IGNORECASE)
ZH_POLITE = re.compile(r"^(?:请你?|请您|麻烦(?:你|您)?)?\s*(?:帮我|帮忙)?\s*(?=\S)")
ZH_ASKED = re.compile(r"^(?:请你?|请您|麻烦(?:你|您)?|你|您)?(?:能不能|可不可以|能否|可以|能)\s*"
                      r"(?:帮我|帮忙|给我)?\s*(?=\S)(.+?)\s*(?:好吗|行吗|可以吗|吗)?\s*[？?]?$")
PROTECT = re.compile(r"`[^`]*`|\"[^\"]*\"|“[^”]*”|'[^'\s][^']*'")  # typed content: never corrected
OPEN_Q = re.compile(r"[?？]+$")
WONDER = re.compile(r"^(?:(?:tell|show)\s+me|let\s+me\s+know|i'?d\s+like\s+to\s+know|i\s+wonder)\s+"
                    r"(?=(?:how|what|which|where|who|whether)\b)", re.IGNORECASE)  # "tell me how ...": "how ..."


def thanked(task: str) -> bool:
    """True for thanks alone ("thanks!", "thank you so much", "谢谢") with no request in it."""
    return bool(re.fullmatch(r"\W*(?:" + THANKS + r"|ok|okay|great|perfect|nice|cool|awesome|好|好的)"
                             r"(?:[\s,，.!！。]+(?:" + THANKS + r"|ok|okay|great|perfect|nice|cool|awesome))*\W*",
                             task.strip(), re.IGNORECASE))


def core(task: str) -> tuple[str, bool]:
    """(the request without greetings, please/thanks and a question form around it, whether it was asked).

    Example: "Hi! Could you please run the tests?" -> ("run the tests", True)
    """
    text, asked = task.strip(), False
    for _ in range(4):  # "Hi! Hello, could you ..." : take off each layer
        before = text
        text = LEAD.sub("", text, count=1)
        text = TAIL.sub("", text, count=1)
        if TAIL_ASKED.search(text):  # "..., please?"
            text, asked = TAIL_ASKED.sub("", text), True
        text = WONDER.sub("", text, count=1)
        m = ASKED.match(text)
        if m:
            text, asked = text[m.end():], asked or not m.group(0).lower().startswith(("please", "kindly"))
        if text == before:
            break
    if re.search(r"[\u3400-\u9fff]", text):
        m = ZH_ASKED.match(text)
        if m and m.group(1) != text:  # 能帮我……吗？: a question form around the request
            text, asked = m.group(1), True
        text = ZH_POLITE.sub("", text, count=1)
        text = TAIL.sub("", text).strip()
    if asked:  # the question mark ends the question; a quoted or backticked "?" is the user's text
        text = OPEN_Q.sub("", text)
    text = re.sub(r"\s*[,，]\s*$", "", text.strip())
    return (text or task.strip()), asked


@functools.lru_cache(maxsize=1)
def vocabulary() -> frozenset[str]:
    """The English words the grammar's own patterns use (read from grammar*.py, their docstrings left out)."""
    import ast

    from . import clause as grammar_clause
    from . import files as grammar_files
    from . import parts as grammar_parts
    from . import shell as grammar_shell
    from . import table as grammar

    words: set[str] = set()
    for module in (grammar, grammar_clause, grammar_files, grammar_parts, grammar_shell):
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                plain = re.sub(r"\\[A-Za-z]", " ", node.value)  # \b, \s, \w are not words
                words.update(w.lower() for w in re.findall(r"(?<![A-Za-z])[A-Za-z]{3,}(?![A-Za-z])", plain))
    return frozenset(words)


def _nearest(word: str, vocab: frozenset[str]) -> str | None:
    """The one grammar word a typed word is a typo of (one letter off; two for words of 6+ letters)."""
    from rapidfuzz import process
    from rapidfuzz.distance import OSA  # a swap of two letters ("shwo") counts as one edit

    limit = 1 if len(word) <= 5 else 2
    found = process.extract(word.lower(), vocab, scorer=OSA.distance, score_cutoff=limit, limit=5)
    if not found:
        return None
    best = min(d for _, d, _ in found)
    top = [w for w, d, _ in found if d == best]
    if len(top) > 1 or best == 2:  # a tie, or two letters off: only one that keeps the first letter
        top = [w for w in top if w[0] == word[0].lower()]
    return top[0] if len(top) == 1 else None


def fixes(text: str) -> list[tuple[int, int, str]]:
    """(start, end, grammar word) for each word of `text` that is a typo of one. Quoted text is skipped."""
    vocab = vocabulary()
    shielded = PROTECT.sub(lambda m: " " * len(m.group(0)), text)
    out = []
    for m in re.finditer(r"(?<![\w./@-])[A-Za-z]{3,}(?![\w./@-])", shielded):
        word = m.group(0)
        if word.lower() in vocab or word[0].isupper() and shielded[:m.start()].strip():
            continue  # a grammar word, or a name ("French", "Paris") past the first word
        near = _nearest(word, vocab)
        if near:
            out.append((m.start(), m.end(), near))
    return out


def apply_fixes(text: str, chosen: list[tuple[int, int, str]]) -> str:
    for start, end, word in sorted(chosen, reverse=True):
        text = text[:start] + word + text[end:]
    return text


def retry(text: str, parse, content) -> tuple[object, list[tuple[str, str]]]:
    """Parse `text` with its typos fixed: (what `parse` returned, [(typed, fixed)]) or (None, []).

    `content(result)` is the text the result keeps as the user's own (what to write, print,
    find); a fix that shows up there is undone, so "prints Hello Wrold" keeps "Wrold".
    """
    chosen = fixes(text)
    while chosen:
        result = parse(apply_fixes(text, chosen))
        if not result:
            return None, []
        kept = content(result).lower()
        inside = [f for f in chosen if re.search(r"(?<!\w)" + re.escape(f[2]) + r"(?!\w)", kept)
                  and not re.search(r"(?<!\w)" + re.escape(f[2]) + r"(?!\w)", text.lower())]
        if not inside:
            return result, [(text[s:e], w) for s, e, w in chosen]
        chosen = [f for f in chosen if f not in inside]
    return None, []
