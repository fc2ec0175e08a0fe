"""The offline model's summariser: an extractive summary of what is in the conversation.

    a summary request ──> pasted.read_conversation: the events ──> sections.extract: six sections
                      ──> trimmed, oldest first, to fit max_tokens ──> render: "1. User requests:\n- ..."

Asked to summarise, the offline model reads the conversation (reading.py, pasted.py) and
writes the six sections the seed's prompt asks for, each built from the events (sections.py),
in the language of the latest user request. Lists are trimmed, oldest first, to fit
`max_tokens` (the first request stays).

Example: [user "read a.py", call read_file(a.py), result "def f(): ..."]
  -> "1. User requests:\n- read a.py\n...3. Files and code:\n- a.py: read, 1 line, defines f..."

Not modeled: judgement. Nothing is inferred that the text does not say.
"""

from __future__ import annotations

import re
from collections import Counter

from lessonkit import tokens
from lessonkit.i18n import tr

from ..conversation.language import SECTION_ZH, request_language
from ..conversation.pasted import read_conversation
from ..conversation.reading import Event, block_text
from .sections import SECTIONS, extract, one_line, previous_sections

__all__ = ["is_summary_request", "summarize"]

SUMMARY_WORDS = re.compile(r"summar|摘要|总结|riassum|riassun|sintesi|condens|compact", re.IGNORECASE)
# With tools offered, only an unmistakable request for a summary of the conversation counts.
SUMMARY_OF_CONVERSATION = re.compile(
    r"summari[sz]e\s+(the|this|our)\s+(conversation|history|transcript|session|messages)|"
    r"summary of (the|this|our) (conversation|history|transcript|session)|## Messages to Summarize|"
    r"对话记录.*摘要", re.IGNORECASE | re.DOTALL)


def is_summary_request(body: dict) -> bool:
    """A request whose last user message asks for a summary of the conversation.

    Without tools any mention of summarising counts; with tools offered only an
    explicit "summarize the conversation" (or the seeds' prompts) does, so that
    "compact" with a `compact` tool is a tool call, not a summary. Either way
    there must be a conversation to summarise (before the instruction, or in it).
    """
    messages = body.get("messages") or []
    if not messages or messages[-1].get("role") != "user":
        return False
    instruction = block_text(messages[-1].get("content"), results=False)[:4000]
    if body.get("tools") and (body.get("tool_choice") or {}).get("type") != "none":
        asked = SUMMARY_OF_CONVERSATION.search(instruction)
    else:
        asked = SUMMARY_WORDS.search(instruction)
    return bool(asked) and bool(read_conversation(messages)[0])


def render(sections: dict[str, list[str]], analysis: str, tagged: bool, language: str = "en") -> str:
    """The summary text: six numbered sections of bullets, in <analysis>/<summary> tags if asked.

    In Chinese the headings are the same six sections, numbered alike ("1. 用户请求：").
    """
    none = tr("(none)", language=language)
    body = "\n\n".join(f"{i}. {SECTION_ZH[name] + '：' if language == 'zh' else name + ':'}\n"
                       + "\n".join(f"- {item}" for item in (sections[name] or [none]))
                       for i, name in enumerate(SECTIONS, 1))
    if not tagged:
        return body
    return f"<analysis>\n{analysis}\n</analysis>\n\n<summary>\n{body}\n</summary>"


def summary_language(events: list[Event]) -> str:
    """The language of the conversation's latest request (kept in an earlier summary if compacted).

    Example: [request "统计 a.py 的行数", call, result] -> "zh"
    """
    for e in reversed(events):
        if e.kind == "request":
            return request_language(e.text)
        if e.kind == "summary":
            requests = previous_sections([e])["User requests"]
            if requests:
                return request_language(requests[-1])
    return "en"


def summarize(messages: list, max_tokens: int) -> str:
    """The summary text for a summarisation request's messages, fitted to max_tokens.

    Written in the language of the latest user request (the instruction to summarise is the
    harness's, so it does not count).
    """
    events, instruction = read_conversation(messages)
    language = summary_language(events)
    sections = extract(events, language)
    kinds = Counter(e.kind for e in events)
    analysis = tr("The conversation has {requests} user request(s), {calls} tool call(s), "
                  "{errors} error(s) and {summaries} earlier summary(ies).", language=language,
                  requests=kinds["request"], calls=kinds["call"], errors=len(sections["Errors and fixes"]),
                  summaries=kinds["summary"])
    tagged = "<summary>" in instruction
    budget = max(64, int(max_tokens * 0.9))
    # Trim the longest list, oldest items first, until the summary fits its budget.
    # Cost of each bullet is counted once, so this stays fast on huge conversations.
    cost = {name: [tokens.count_text(item) + 1 for item in items] for name, items in sections.items()}
    frame = tokens.count_text(render({name: [] for name in SECTIONS}, analysis, tagged, language))
    total = frame + sum(sum(c) for c in cost.values())
    while total > budget:
        name = max(SECTIONS, key=lambda s: (len(sections[s]), sum(cost[s])))
        if len(sections[name]) <= 1:
            break
        drop = 1 if name == "User requests" and len(sections[name]) > 2 else 0  # keep the first task
        sections[name].pop(drop)
        total -= cost[name].pop(drop)
    text = render(sections, analysis, tagged, language)
    if tokens.count_text(text) > max_tokens:  # single huge bullets: cut them
        sections = {name: [one_line(item, 100) for item in items[-3:]] for name, items in sections.items()}
        text = render(sections, analysis, tagged, language)
    return text
