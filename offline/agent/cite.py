"""Answering from the documents a request sends, with citations when the document asks for them.

    user: [document "The library opens at nine. It closes at five.", citations on] "When does it open?"
      -> [text "From "Hours": ", text "The library opens at nine." + citations [char_location 0..26]]

The passage is the document's sentence (a text document), page (a PDF: its text, page 1 when the
pages cannot be told apart) or block (a content document) that shares the most words with the
question; with citations enabled the cited block carries the API's location for its kind:
char_location, page_location or content_block_location, with `document_index` counting the
request's documents in order and `document_title` (build-with-claude/citations). Without
citations the same words come as plain text. A question no passage shares a word with is left
to the policy.

Example: answer({"messages": [{"role": "user", "content": [doc, {"type": "text", "text": "When does it open?"}]}]})
  -> Reply with blocks [{"type": "text", "text": "From \"Hours\": "}, {"type": "text", "text": "The library opens at
     nine.", "citations": [{"type": "char_location", "cited_text": "The library opens at nine.", ...}]}]

Not modeled: several passages in one answer, search_result citations, PDF text per page.
"""

from __future__ import annotations

import base64
import binascii
import re

from lessonkit.base.media_tokens import pdf_text
from lessonkit.i18n import tr

from ..conversation.language import request_language
from .policy import Reply

WORD = re.compile(r"[a-z0-9]+")
CJK = re.compile(r"[\u3400-\u9fff]+")  # Chinese text has no spaces: its words are read as character pairs
SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")
STOP = {"the", "a", "an", "of", "to", "in", "on", "at", "is", "are", "was", "were", "does", "do", "did", "what",
        "when", "where", "who", "how", "which", "it", "its", "this", "that", "and", "or", "for", "with", "about",
        "say", "says", "document", "documents", "please", "tell", "me", "from", "by", "be", "there", "much", "many"}


def _stem(word: str) -> str:
    """A crude stem, so "closes" meets "close". Example: "closes" -> "clos", "close" -> "clos" """
    for end in ("ing", "ed", "s", "e"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            word = word[: -len(end)]
    return word


def _words(text: str) -> set[str]:
    """The words a passage and a question can share. Example: "The library opens" -> {"library", "open"}"""
    words = {_stem(w) for w in WORD.findall(text.lower()) if w not in STOP and len(w) > 1}
    return words | {run[k:k + 2] for run in CJK.findall(text) for k in range(len(run) - 1)}


def _documents(body: dict) -> list[dict]:
    """Every top-level document block of the request's user messages, in order (the API's document_index)."""
    out = []
    for msg in body.get("messages") or []:
        content = msg.get("content") if isinstance(msg, dict) and msg.get("role") == "user" else None
        out += [b for b in content if isinstance(b, dict) and b.get("type") == "document"] \
            if isinstance(content, list) else []
    return out


def _passages(doc: dict, index: int):
    """(text, citation without cited_text) for each passage of a document the offline model can read."""
    source, title = doc.get("source") or {}, doc.get("title")
    base = {"document_index": index, "document_title": title if isinstance(title, str) else None}
    if source.get("type") == "text" and isinstance(source.get("data"), str):
        for found in SENTENCE.finditer(source["data"]):
            start = found.start() + len(found.group()) - len(found.group().lstrip())
            text = found.group().strip()
            if text:
                yield text, dict(base, type="char_location", start_char_index=start, end_char_index=start + len(text))
    elif source.get("type") == "base64":
        try:
            text = " ".join(pdf_text(base64.b64decode(source.get("data") or "")).split())
        except (binascii.Error, ValueError):
            return
        if text:
            yield text, dict(base, type="page_location", start_page_number=1, end_page_number=2)
    elif source.get("type") == "content":
        blocks = source.get("content")
        blocks = [{"type": "text", "text": blocks}] if isinstance(blocks, str) else blocks or []
        for k, block in enumerate(blocks):
            if isinstance(block, dict) and block.get("type") == "text" and block.get("text", "").strip():
                yield block["text"].strip(), dict(base, type="content_block_location", start_block_index=k,
                                                  end_block_index=k + 1)


def _question(body: dict) -> str:
    """The text blocks of the newest user message (its documents left out)."""
    for msg in reversed(body.get("messages") or []):
        if isinstance(msg, dict) and msg.get("role") == "user":
            content = msg.get("content")
            if isinstance(content, str):
                return content
            return " ".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")
    return ""


def answer(body: dict) -> Reply | None:
    """The answer from the best passage of the request's documents, or None (no document, no shared word)."""
    docs = _documents(body)
    question = _words(_question(body))
    if not docs or not question:
        return None
    best = None
    for index, doc in enumerate(docs):
        for text, where in _passages(doc, index):
            score = len(question & _words(text))
            if score and (best is None or score > best[0]):
                best = (score, text, where, doc)
    if best is None:
        return None
    _, text, where, doc = best
    title, language = doc.get("title"), request_language(_question(body))
    lead = {"type": "text", "text": tr('From "{title}": ', language=language, title=title) if isinstance(title, str)
            else tr("From the document: ", language=language)}
    cited = {"type": "text", "text": text}
    if isinstance(doc.get("citations"), dict) and doc["citations"].get("enabled") is True:
        cited["citations"] = [dict(where, cited_text=text)]
    return Reply(lead["text"] + text, blocks=[lead, cited])
