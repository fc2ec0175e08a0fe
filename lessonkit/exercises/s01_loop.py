"""s01 exercise: turn the model's response into the assistant turn the loop appends.

    response (SDK Message) ──> assistant_message(response) ──> {"role": "assistant", "content": [dicts]}
      content: TextBlock, ToolUseBlock ...          every block a plain dict (json.dumps works)
      stop_reason: "tool_use" | "end_turn" | "max_tokens" | ...
                                                    tool_use blocks kept only if stop_reason == "tool_use"
                                                    never an empty content

The starter is the seed's own line, `{"role": "assistant", "content": response.content}`:
it puts SDK objects into the history (which then cannot be saved, compared or
counted as data), and a turn cut off by max_tokens keeps a tool call no tool will
ever answer, so the next request is refused with a 400.

Reference: s01_loop.assistant_message.
"""

from __future__ import annotations

import json

from anthropic.types import Message

from s01_loop import assistant_message, to_dict

from ..i18n import tr, trn
from . import Case, Exercise, Mistake

STARTER = '''\
from s01_loop import to_dict   # an SDK block -> a plain dict; use it if you like


def assistant_message(response):
    """The assistant turn to append to the history, as a plain dict."""
    return {"role": "assistant", "content": response.content}   # the seed's line
'''

TASK = """Write assistant_message(response): the assistant turn to append, as a plain dict.
Every content block must be a plain dict; a tool_use block stays only when
stop_reason == "tool_use"; the content is never empty."""

TEXT = {"type": "text", "text": "Done: 3 files."}
RUNNING = {"type": "text", "text": "Running `ls` (1/1)."}
LS = {"type": "tool_use", "id": "toolu_01", "name": "bash", "input": {"command": "ls"}}
WC = {"type": "tool_use", "id": "toolu_02", "name": "bash", "input": {"command": "wc -l app_01.py"}}
HALF = {"type": "tool_use", "id": "toolu_03", "name": "bash", "input": {}}  # cut off mid-call


def response(stop_reason: str, *blocks: dict) -> Message:
    """An SDK Message as the client returns it. Example: response("end_turn", TEXT)"""
    return Message.model_validate({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "offline",
        "content": list(blocks), "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 20}})


def shape_problem(got) -> str | None:
    """What keeps `got` from being an assistant turn of plain dicts, or None."""
    if not isinstance(got, dict):
        return tr("returned a {kind}, expected a dict {{'role': 'assistant', 'content': [...]}}",
                  kind=type(got).__name__)
    if got.get("role") != "assistant":
        return tr("role is {role}, expected 'assistant'", role=repr(got.get("role")))
    content = got.get("content")
    if not isinstance(content, list):
        return tr("content is a {kind}, expected a list of blocks", kind=type(content).__name__)
    if not content:
        return tr("content is empty: the API refuses an assistant message with no content")
    extra = sorted(set(got) - {"role", "content"})
    if extra:
        return tr("the message has extra keys {extra}: a history message holds only role and content "
                  "(the API refuses unknown fields)", extra=extra)
    for i, block in enumerate(content):
        if not isinstance(block, dict):
            return tr("content[{i}] is a {kind}, not a plain dict: convert each block with to_dict (the "
                      "history is data: it must survive json.dumps)", i=i, kind=type(block).__name__)
        unset = [key for key, value in block.items() if value is None]
        if unset:  # model_dump() and vars() keep every field the SDK knows, set or not
            return tr("content[{i}] carries {keys} set to None: model_dump() and vars() keep every field the "
                      "SDK knows, and the API refuses fields it does not take back ('caller: Extra inputs are "
                      "not permitted'): leave out what is None (to_dict does)", i=i,
                      keys=", ".join(repr(k) for k in unset))
    try:
        if json.loads(json.dumps(got)) != got:
            return tr("the message changes when written as JSON and read back")
    except (TypeError, ValueError) as exc:
        return tr("the message is not plain JSON ({error}): the history is data, it must survive json.dumps",
                  error=exc)
    return None


def exactly(*blocks: dict):
    """A verdict: the content is these blocks, in this order; a wrong content is explained by what
    it lost (a call the loop must run, a call of several) or how it changed a block."""
    want_kinds = [b["type"] for b in blocks]
    want_calls = [b["id"] for b in blocks if b["type"] == "tool_use"]

    def verdict(got):
        problem = shape_problem(got)
        if problem:
            if want_calls and isinstance(got, dict) and isinstance(got.get("content"), str):
                return tr("{problem}: a string holds no tool_use block, so the loop has no call to run",
                          problem=problem)
            return problem
        kinds = [b.get("type") for b in got["content"]]
        calls = [b.get("id") for b in got["content"] if b.get("type") == "tool_use"]
        if kinds != want_kinds:
            differ = tr("content has blocks {kinds}, expected {want}", kinds=kinds, want=want_kinds)
            if want_calls and not calls:
                return tr("{problem}: the loop runs the tool_use blocks of this turn, and there are none",
                          problem=differ)
            if len(calls) < len(want_calls):
                return trn("{problem}: {n} of the {total} calls is left: every call is kept, each gets its "
                           "own tool_result", "{problem}: {n} of the {total} calls are left: every call is kept, "
                           "each gets its own tool_result", len(calls), problem=differ, total=len(want_calls))
            return differ
        for i, (mine, want) in enumerate(zip(got["content"], blocks)):
            if {k: mine.get(k) for k in want} != want:
                differ = tr("content[{i}] is {got}, expected {want}", i=i, got=f"{mine!r:.120}", want=repr(want))
                if want["type"] == "tool_use" and sorted(calls) == sorted(want_calls) and calls != want_calls:
                    return tr("{problem}: the calls are out of order ({calls}): keep them as the model made "
                              "them", problem=differ, calls=calls)
                return differ
        return None
    return verdict


def text_only(got, stop_reason: str = "max_tokens") -> str | None:
    """A verdict: some text, no tool_use (the call was cut off, here by `stop_reason`)."""
    problem = shape_problem(got)
    if problem:
        if isinstance(got, dict) and got.get("content") == []:
            return tr("content is empty: the API refuses an assistant message with no content; with the "
                      "cut-off call left out nothing is left, so put in one text block")
        return problem
    kinds = [b.get("type") for b in got["content"]]
    if "tool_use" in kinds and stop_reason != "max_tokens":
        return tr("content has blocks {kinds}: this turn stopped at {stop_reason}, and its tool call is as "
                  "unfinished as one cut off by max_tokens: every stop_reason but 'tool_use' leaves the call "
                  "unanswered, not only 'max_tokens'", kinds=kinds, stop_reason=repr(stop_reason))
    if "tool_use" in kinds:
        return tr("content has blocks {kinds}: the cut-off tool_use is still there: no tool will answer it, "
                  "and an unanswered tool_use makes the next request a 400", kinds=kinds)
    if not any(b.get("type") == "text" and str(b.get("text") or "").strip() for b in got["content"]):
        if "text" in kinds:  # a text block is there, but blank: the API refuses it
            return tr("content has blocks {kinds} with no words in the text: the API refuses a blank text block "
                      "(text content blocks must contain non-whitespace text): put words in it, e.g. '(no text)'",
                      kinds=kinds)
        return tr("content has blocks {kinds}, expected at least one non-empty text block", kinds=kinds)
    return None


def cases(env=None) -> list[Case]:
    """No case carries a fixed `why`: each verdict explains the failure it found."""
    return [
        Case("a text answer (end_turn)", (response("end_turn", TEXT),), exactly(TEXT)),
        Case("a tool call (tool_use)", (response("tool_use", RUNNING, LS),), exactly(RUNNING, LS)),
        Case("two tool calls in one turn", (response("tool_use", LS, WC),), exactly(LS, WC)),
        Case("cut off by max_tokens inside a tool call", (response("max_tokens", RUNNING, HALF),), text_only),
        Case("cut off by max_tokens before any text", (response("max_tokens", HALF),), text_only),
        Case("stopped at a stop sequence inside a tool call", (response("stop_sequence", RUNNING, HALF),),
             lambda got: text_only(got, "stop_sequence")),
        Case("stopped at the context window inside a tool call",
             (response("model_context_window_exceeded", RUNNING, HALF),),
             lambda got: text_only(got, "model_context_window_exceeded")),
    ]


# ---- plausible wrong answers (the seed's line and the slips after it) ------------------------

def seeds_line(response):
    """The seed: the SDK's blocks go into the history as they are."""
    return {"role": "assistant", "content": response.content}


def keeps_cut_calls(response):
    """Converts the blocks, but keeps a tool call cut off by max_tokens."""
    return {"role": "assistant", "content": [to_dict(b) for b in response.content]}


def may_leave_nothing(response):
    """Drops a cut-off call, but can leave an empty content."""
    keep = [to_dict(b) for b in response.content]
    if response.stop_reason != "tool_use":
        keep = [b for b in keep if b["type"] != "tool_use"]
    return {"role": "assistant", "content": keep}


def max_tokens_only(response):
    """Drops the tool calls of a turn cut off by max_tokens, but of no other unfinished turn."""
    blocks = [to_dict(b) for b in response.content]
    if response.stop_reason == "max_tokens":
        blocks = [b for b in blocks if b["type"] != "tool_use"]
    return {"role": "assistant", "content": blocks or [{"type": "text", "text": "(no text)"}]}


def drops_every_call(response):
    """Keeps only text, even from a turn whose calls are complete."""
    return {"role": "assistant", "content": [to_dict(b) for b in response.content if b.type == "text"]
            or [{"type": "text", "text": "-"}]}


def whole_response(response):
    """Dumps the whole response: id, model, usage and stop_reason come along."""
    return response.model_dump(mode="json", exclude_none=True)


def first_text(response):
    """Keeps the text as a plain string: the calls are lost, and the loop has none to run."""
    return {"role": "assistant", "content": next((b.text for b in response.content if b.type == "text"), "")}


MISTAKES = (
    Mistake("the seed's line: SDK blocks in the history", seeds_line, "content[0] is a TextBlock, not a plain dict"),
    Mistake("keeps a tool call cut off by max_tokens", keeps_cut_calls, "the cut-off tool_use is still there"),
    Mistake("drops cut calls on max_tokens only", max_tokens_only,
            "every stop_reason but 'tool_use' leaves the call unanswered"),
    Mistake("drops the cut call and leaves nothing", may_leave_nothing, "content is empty: the API refuses"),
    Mistake("drops every tool call", drops_every_call, "content has blocks ['text'], expected ['text', 'tool_use']"),
    Mistake("dumps the whole response", whole_response, "the message has extra keys"),
    Mistake("keeps only the text, as a string", first_text, "content is a str, expected a list of blocks"),
)

HINTS = (
    "The history is data: every block must be a plain dict, and a block that is cut off must not stay. "
    "Look at response.stop_reason and at each block's type.",
    "Convert each block with to_dict(block). If stop_reason is not 'tool_use', leave the tool_use "
    "blocks out: no tool will ever answer them.",
    "blocks = [to_dict(b) for b in response.content]; if stop_reason != 'tool_use', keep only the "
    "non-tool_use blocks; if nothing is left, put in one text block (e.g. '(no text)'); return "
    "{'role': 'assistant', 'content': blocks}.",
)

exercise = Exercise(name="assistant_message", task=TASK, starter=STARTER, reference=assistant_message,
                    cases=cases, hints=HINTS, mistakes=MISTAKES)
