"""s04 exercise 2 (build): a new hook, redact_secrets, that keeps secrets out of what the model reads.

    agent.register_hook("PostToolUse", redact_secrets)
    redact_secrets(call, result) -> None                  nothing to hide: the result stands as it is
                                 -> {"content": ..., ...}  the result the model reads instead

      a secret is an API key (sk- then letters, digits, - and _) anywhere in the text, or the value
      of a NAME=value line whose NAME says KEY, TOKEN, SECRET or PASSWORD (any case)
      each one becomes [redacted]; the rest of the text stays as it was, is_error too
      the content may be a string or a list of blocks (an earlier hook may have made it one)

Each case runs the student's hook where the agent runs it: registered on a real s04 agent (the
offline client, a workspace made for the check), the model's call run through `agent.run_tool`,
so a hook that raises or returns what is not a result fails closed as the agent makes it fail
(the output withheld), and the verdict reads the tool_result the model would read.

The starter is a plausible first try: one regex for `sk-\\w+` (a key with a dash in it leaks its
tail), the first match only, the content taken for a string, and a result returned even when
nothing changed.

Example: redact_exercise.check(redact_secrets) -> ✓ redact_secrets: 8/8 cases pass

Reference: redact_secrets below (s04 has none: the student adds it).
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from pathlib import Path

from lessonkit.i18n import tr
from s01_loop import ToolError
from s02_tools import Tool

from .. import Case, Exercise, Mistake

KEY = re.compile(r"sk-[A-Za-z0-9_-]+")                       # an API key, wherever it is
ASSIGNED = re.compile(r"(?im)^(\s*[\w.-]*(?:key|token|secret|password)[\w.-]*\s*[=:]\s*)(\S.*?)\s*$")
MARK = "[redacted]"


def redact_text(text: str) -> str:
    """Every secret of a text as [redacted]. Example: "API_KEY=abc\\nDEBUG=1" -> "API_KEY=[redacted]\\nDEBUG=1" """
    text = ASSIGNED.sub(lambda m: m.group(1) + MARK, text)  # the value of a KEY/TOKEN/SECRET/PASSWORD line
    return KEY.sub(MARK, text)                               # and every key anywhere else


def redact_secrets(call: dict, result: dict) -> dict | None:
    """A PostToolUse hook: the result with every secret as [redacted], or None when it holds none.

    Example: redact_secrets(call, {"content": "token sk-abc-1"}) -> {"content": "token [redacted]"}
    """
    content = result.get("content")
    if isinstance(content, str):
        new = redact_text(content)
    elif isinstance(content, list):  # an earlier hook (or a tool) made it a list of blocks: text only
        new = [{**b, "text": redact_text(b["text"])} if b.get("type") == "text" else b for b in content]
    else:
        return None
    if new == content:
        return None  # nothing to hide: the result stands (and no rewrite is reported)
    return {**{k: v for k, v in result.items() if k not in ("type", "tool_use_id")}, "content": new}


STARTER = '''\
import re


def redact_secrets(call, result):
    """A PostToolUse hook: the result with every secret as [redacted], or None when it holds none."""
    text = result["content"]
    match = re.search(r"sk-\\w+", text)
    if match:
        text = text.replace(match.group(0), "[redacted]")
    return {"content": text}
'''

TASK = """Build a PostToolUse hook redact_secrets(call, result): return None when the result holds no
secret, else {"content": ...} with every secret as [redacted] and the rest as it was (is_error too).
A secret is an API key (sk- then letters, digits, - and _) anywhere, or the value of a NAME=value
line whose NAME says KEY, TOKEN, SECRET or PASSWORD (any case). The content may be a string or a
list of blocks."""

ENV = "API_KEY=sk-live-7Hq2_xZ\nDEBUG=true\ndb_password = hunter2\nNAME=shop\n"
TWO = "first key: sk-ant-api03-AbC_dE-fG\nsecond key: sk-proj-99-zz\n"
CLEAN = "x = 1\nprint('no secret here')\n"
FAILS = "deploy failed: the server refused token sk-deploy-42 (401)"


@contextlib.contextmanager
def agent_box():
    """An s04 agent on the offline client in a workspace with files to read, and a `deploy` tool that
    fails with a key in its error; the hook under test is added to it case by case."""
    from offline import OfflineModel, offline_client
    from s03_permissions import always_approve
    from s04_hooks import Agent

    def deploy(workspace):
        raise ToolError(FAILS)

    with tempfile.TemporaryDirectory(prefix="lk-s04-hook-") as tmp:
        ws = Path(tmp).resolve()
        for name, text in (("config.env", ENV), ("keys.txt", TWO), ("app.py", CLEAN)):
            (ws / name).write_text(text, encoding="utf-8")
        agent = Agent(offline_client(OfflineModel(), max_retries=0), workspace=ws, approve=always_approve)
        agent.registry.add(Tool("deploy", "Deploy the app.", {"type": "object", "properties": {}}, deploy))
        yield agent


def as_blocks(call, result):
    """A hook before the student's: the output as a list of text blocks, with a note after it."""
    return {"content": [{"type": "text", "text": result["content"]}, {"type": "text", "text": "(read by a hook)"}]}


class Seen:
    """The tool_result the model reads, and whether the hook reported a rewrite."""

    def __init__(self, result: dict, rewrote: bool, failed: str):
        self.result, self.rewrote, self.failed = result, rewrote, failed

    @property
    def text(self) -> str:
        content = self.result.get("content")
        return content if isinstance(content, str) else "\n".join(
            b.get("text", "") for b in content or [] if isinstance(b, dict))


def run_with(fn, agent):
    """The student's hook as the cases call it: (tool, input, first) -> Seen, the hook registered after
    `first` (another PostToolUse hook, or None), the call run by the agent as the model's would be."""
    def run(tool, tool_input, first=None):
        for hook in list(agent.hooks["PostToolUse"]):
            agent.hooks.unregister("PostToolUse", hook)
        for hook in (first, fn):
            if hook is not None:
                agent.register_hook("PostToolUse", hook)
        events = []
        agent.on_event = lambda kind, data: events.append((kind, data))
        result = agent.run_tool({"type": "tool_use", "id": "toolu_check", "name": tool, "input": tool_input})
        rewrote = any(k == "hook" and d.get("outcome") == "rewrote" and d.get("hook") != "as_blocks"
                      for k, d in events)
        failed = next((str(d["error"]) for k, d in events if k == "error"), "")
        return Seen(result, rewrote, failed)
    return run


def _failure(text: str) -> str:
    """What the agent says of a failed hook, with the exception's own words left out.
    Example: "PostToolUse hook redact_secrets failed: TypeError: expected string ..." -> that, up to TypeError"""
    head, sep, rest = text.partition(" failed: ")
    return f"{head}{sep}{rest.split(':', 1)[0]}" if sep else _short(text)


def _short(text: str) -> str:
    text = repr(text)
    return text if len(text) <= 100 else text[:99] + "…"


def hides(secrets: tuple, kept: tuple, *, error: bool = False):
    """A verdict: none of `secrets` reaches the model, every text of `kept` does, is_error as it was."""
    def verdict(got: Seen) -> str | None:
        if got.failed:
            return tr("the agent withheld the output: {error}", error=_failure(got.failed))
        tail = re.search(re.escape(MARK) + r"[-_][A-Za-z0-9_-]+", got.text)
        if tail:  # a key's tail after the mark: the pattern stopped at a '-'
            return tr("the model reads {text}: a key goes on after a '-' or '_' (sk-ant-api03-…): \\w+ stops at "
                      "the first '-'; match [A-Za-z0-9_-]+", text=_short(tail.group(0)))
        leaked = [s for s in secrets if s in got.text]
        if leaked:
            secret = leaked[0]
            problem = tr("the model reads {secret}", secret=_short(secret))
            if not secret.startswith("sk-"):
                line = next((line for line in got.text.splitlines() if secret in line), secret)
                return tr("{problem}: {line} is a NAME=value line whose NAME says KEY, TOKEN, SECRET or PASSWORD (in "
                          "any case): its value is a secret too", problem=problem, line=_short(line.strip()))
            if MARK in got.text:
                return tr("{problem}: one secret was hidden, not every one: replace every match (re.sub)",
                          problem=problem)
            return tr("{problem}: an API key (sk-…) must never reach the model", problem=problem)
        lost = [k for k in kept if k not in got.text]
        if lost:
            return tr("the model no longer reads {text}: hide the secret only, keep the rest of the line",
                      text=_short(lost[0]))
        if bool(got.result.get("is_error")) != error:
            return tr("is_error became {got}: the call failed, and the model must still read that it did: keep the "
                      "result's other fields", got=bool(got.result.get("is_error")))
        return None
    return verdict


def untouched(text: str):
    """A verdict: a result with no secret comes back as it was, and no rewrite is reported."""
    def verdict(got: Seen) -> str | None:
        if got.failed:
            return tr("the agent withheld the output: {error}", error=_failure(got.failed))
        if got.text != text:
            return tr("the model reads {got}, expected the output as it was", got=_short(got.text))
        if got.rewrote:
            return tr("it returned a result for an output with no secret: return None when nothing changes (the "
                      "agent reports every returned result as a rewrite, and later hooks see a copy)")
        return None
    return verdict


def cases(agent=None) -> list[Case]:
    """No case carries a fixed `why`: the verdict says it from what the model reads."""
    return [
        Case("an .env file", ("read_file", {"path": "config.env"}),
             hides(("sk-live-7Hq2_xZ", "hunter2"), ("API_KEY=", "DEBUG=true", "db_password = ", "NAME=shop"))),
        Case("two keys with dashes in them", ("read_file", {"path": "keys.txt"}),
             hides(("sk-ant-api03-AbC_dE-fG", "sk-proj-99-zz", "-fG", "-zz"), ("first key: ", "second key: "))),
        Case("a file with no secret", ("read_file", {"path": "app.py"}), untouched(CLEAN)),
        Case("a failed call with a key in its error", ("deploy", {}),
             hides(("sk-deploy-42",), ("deploy failed", "(401)"), error=True)),
        Case("after a hook that made the content a list", ("read_file", {"path": "config.env"}, as_blocks),
             hides(("sk-live-7Hq2_xZ", "hunter2"), ("DEBUG=true", "(read by a hook)"))),
        Case("a lower-case name", ("read_file", {"path": "config.env"}),
             hides(("hunter2",), ("db_password",))),
    ]


# ---- plausible wrong answers ---------------------------------------------------------------

def first_only(call, result):
    """Hides the first secret only (re.search + replace, or count=1)."""
    text = result["content"] if isinstance(result["content"], str) else ""
    match = KEY.search(text) or ASSIGNED.search(text)
    if not match:
        return None
    return {**result, "content": text.replace(match.group(match.lastindex or 0), MARK, 1)}


def word_keys(call, result):
    """sk-\\w+: a key stops at its first '-'."""
    content = result["content"]
    if not isinstance(content, str):
        return None
    new = ASSIGNED.sub(lambda m: m.group(1) + MARK, re.sub(r"sk-\w+", MARK, content))
    return None if new == content else {**result, "content": new}


def drops_is_error(call, result):
    """Right text, but returns {"content": ...} alone: a failed call reads as a success."""
    new = redact_secrets(call, result)
    return None if new is None else {"content": new["content"]}


def strings_only(call, result):
    """Takes the content for a string: a list of blocks raises TypeError."""
    new = redact_text(result["content"])
    return None if new == result["content"] else {**result, "content": new}


def always_rewrites(call, result):
    """Right, but returns a result every time, also when nothing changed."""
    return redact_secrets(call, result) or {**result}


def upper_names(call, result):
    """NAME=value only for upper-case names: db_password = hunter2 leaks."""
    content = result["content"]
    if not isinstance(content, str):
        return None
    new = KEY.sub(MARK, re.sub(r"(?m)^([A-Z_]*(?:KEY|TOKEN|SECRET|PASSWORD)[A-Z_]*=)(.+)$",
                               lambda m: m.group(1) + MARK, content))
    return None if new == content else {**result, "content": new}


def whole_lines(call, result):
    """Drops every line with a secret: the names and the rest of the line go too."""
    content = result["content"]
    if not isinstance(content, str):
        return None
    kept = [line for line in content.split("\n") if redact_text(line) == line]
    new = "\n".join(kept)
    return None if new == content else {**result, "content": new}


MISTAKES = (
    Mistake("the first secret only", first_only, "one secret was hidden, not every one"),
    Mistake("sk-\\w+", word_keys, "a key goes on after a '-' or '_'"),
    Mistake("is_error dropped", drops_is_error, "is_error became False"),
    Mistake("the content taken for a string", strings_only, "the agent withheld the output"),
    Mistake("a result when nothing changed", always_rewrites, "return None when nothing changes"),
    Mistake("upper-case names only", upper_names, "is a NAME=value line whose NAME says KEY, TOKEN"),
    Mistake("whole lines dropped", whole_lines, "hide the secret only, keep the rest of the line"),
)

HINTS = (
    "A PostToolUse hook gets (call, result) and returns None (keep the result) or a new one. Find every "
    "secret, not the first; keep everything else the model needs, is_error included; and expect the "
    "content to be a string or a list of blocks.",
    "re.sub replaces every match: a key is r'sk-[A-Za-z0-9_-]+' (\\w stops at '-'); a NAME=value line is "
    "r'(?im)^(\\s*[\\w.-]*(?:key|token|secret|password)[\\w.-]*\\s*[=:]\\s*)(\\S.*?)\\s*$', keep group 1. For "
    "a list, redact each text block's text.",
    "If the new content equals the old one, return None; else return {**result, 'content': new} without "
    "its 'type' and 'tool_use_id' (the agent puts those back).",
)


redact_exercise = Exercise(name="redact_secrets", task=TASK, starter=STARTER, reference=redact_secrets,
                           cases=cases, setup=agent_box, adapt=run_with, hints=HINTS, mistakes=MISTAKES,
                           solution=(redact_secrets, redact_text))
