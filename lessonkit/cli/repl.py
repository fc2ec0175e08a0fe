"""A small terminal REPL for any stage's Agent, that shows its work: `python -m sNN_name`.

    you >> prompt ──> agent.ask ──> on_event ──> Narrator prints, as it happens:
                                      request   "request 3: 1,234 tokens of 3,000 (41%), 7 messages"
                                      tool      "tool read_file {"path": "app_01.py"} -> 41 lines"
                                      compact   "compact auto: 11 -> 1 messages, 1,330 -> 340 tokens of messages"
                                      error     "refused: prompt is too long: 3,112 tokens > 3,000 maximum"
                                      hook      "hook PreToolUse blocked bash: ..."
                      SDK retries (its "Retrying request" log) "retry: the SDK sends /v1/messages again in 500 ms"
                ──> the answer, or ONE line: what went wrong and what the stage does about it

Options on every stage: --workspace DIR, --window N (or --context-window N: the lesson
window on any backend), --backend offline|anthropic, --quiet (only answers and errors).
An empty line or `exit` / `quit` / Ctrl-D leaves; Ctrl-C while the agent works stops that turn
(the agent answers its open tool calls "interrupted by the user") and keeps the session. A bad
setting (LESSONS_BACKEND=bogus, no key) is one line on stderr and exit code 2.

Example: python -m s06_compact --window 3000 --workspace demo
         s06 >> Read every Python file in this folder, one at a time

Not modeled: history editing, multi-line prompts, saving the session, streaming the text.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys

from ..exercises.checks import translated
from ..i18n import tr

RETRY_LOGGER = "anthropic._base_client"  # the SDK logs each retry there ("Retrying request to ...")
SHORT = 60                               # characters of a tool input or result shown
TOO_LONG = re.compile(r"prompt is too long: (\d+) tokens > (\d+) maximum")


def short(text: str, width: int = SHORT) -> str:
    """One line of at most `width` characters. Example: short('a\\nb') -> 'a b'"""
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def result_line(result: dict) -> str:
    """A tool_result in a few words, its lines counted as the offline model counts them (a final
    newline ends a line, it does not start one). Example: 41 lines of code -> '41 lines, 1,182
    characters'; 'hello\\n' -> 'hello'; an error -> 'error: ...'"""
    content = result.get("content")
    if isinstance(content, list):
        content = " ".join(b.get("text", "") for b in content if isinstance(b, dict))
    content = str(content or "")
    if result.get("is_error"):
        return tr("error: {message}", message=short(content))
    lines = len(content.splitlines())
    return (tr("{lines} lines, {chars} characters", lines=f"{lines:,}", chars=f"{len(content):,}") if lines > 1
            else short(content))


def api_message(error) -> str:
    """The API's own message for an SDK error (or the exception's text), on one line."""
    from ..backends.errors import api_message as message  # imports the SDK: only once there is an error

    return message(error)


class Narrator:
    """An agent's `on_event` observer that prints each step on one line. Example: Narrator(print, 3_000)"""

    def __init__(self, write=print, window: int | None = None):
        self.write, self.window = write, window
        self.agent = None   # set once the agent exists: its system prompt counts in each request
        self.requests = 0

    def __call__(self, kind: str, data: dict) -> None:
        handler = getattr(self, "_on_" + kind, None)
        if handler:
            handler(data)

    def tokens_of(self, data: dict) -> int:
        """Input tokens of a request as the kit counts them (what the offline model bills)."""
        from .. import tokens

        system = getattr(self.agent, "system", None)
        return tokens.count_request({"system": system, "tools": data.get("tools"),
                                     "messages": data.get("messages") or []})

    def _on_request(self, data) -> None:
        self.requests += 1
        n, count = len(data.get("messages") or []), self.tokens_of(data)
        fields = {"request": self.requests, "tokens": f"{count:,}", "n": n}
        if self.window:
            fields.update(window=f"{self.window:,}", share=f"{count / self.window:.0%}")
            line = (tr("request {request}: {tokens} tokens of {window} ({share}), 1 message", **fields) if n == 1
                    else tr("request {request}: {tokens} tokens of {window} ({share}), {n} messages", **fields))
        else:
            line = (tr("request {request}: {tokens} tokens, 1 message", **fields) if n == 1
                    else tr("request {request}: {tokens} tokens, {n} messages", **fields))
        self.write("  " + line)

    def _on_response(self, data) -> None:
        response = data.get("response")
        if getattr(response, "stop_reason", None) == "max_tokens":
            out = getattr(getattr(response, "usage", None), "output_tokens", "?")
            self.write("  " + tr("answer cut off at max_tokens ({out} output tokens)", out=out))

    def _on_tool(self, data) -> None:
        call, result = data.get("call") or {}, data.get("result") or {}
        arg = json.dumps(call.get("input") or {}, ensure_ascii=False)
        self.write("  " + tr("tool {name} {input} -> {result}", name=call.get("name"), input=short(arg),
                             result=result_line(result)))

    def _on_compact(self, data) -> None:
        self.write("  " + tr("compact {layer}: {before} -> {after} messages, {t_before} -> {t_after} tokens of "
                             "messages", layer=data.get("layer"), before=data.get("messages_before"),
                             after=data.get("messages_after"), t_before=f"{data.get('tokens_before') or 0:,}",
                             t_after=f"{data.get('tokens_after') or 0:,}"))

    def _on_error(self, data) -> None:
        error = data.get("error")
        message = api_message(error)
        self.write("  " + (tr("refused: {message}", message=message) if TOO_LONG.search(message)
                           else tr("error: {message}", message=message)))

    def _on_hook(self, data) -> None:
        detail = data.get("detail")
        self.write("  " + tr("hook {event} {outcome} ({hook}): {detail}", event=data.get("event"),
                             outcome=data.get("outcome"), hook=data.get("hook"),
                             detail=short(detail if isinstance(detail, str) else json.dumps(detail, default=str))))


class RetryLog(logging.Handler):
    """The SDK's "Retrying request to /v1/messages in 0.43 seconds" log lines, as narration."""

    def __init__(self, write):
        super().__init__(logging.INFO)
        self.write = write

    def emit(self, record) -> None:
        if record.msg.startswith("Retrying request"):
            url, seconds = record.args
            wait = f"{float(seconds):.1f} s" if float(seconds) >= 1 else f"{float(seconds) * 1000:.0f} ms"
            self.write("  " + tr("retry: the SDK sends {url} again in {wait}", url=url, wait=wait))


def failure_line(error, requests: int, refused: str) -> str:
    """The one line a failed turn ends with: what happened, and what the stage does about it."""
    import anthropic

    from ..backends.errors import EndpointUnreachable, KeyRefused, ModelNotFound

    if isinstance(error, (EndpointUnreachable, KeyRefused, ModelNotFound)):
        return tr("error: {message}", message=error)  # already one line naming the setting to change
    message = api_message(error)
    if isinstance(error, anthropic.BadRequestError) and TOO_LONG.search(message):
        sent, maximum = map(int, TOO_LONG.search(message).groups())
        return tr("error: request {request} was refused: prompt is too long ({sent} tokens > {maximum} maximum). "
                  "{then}", request=requests, sent=f"{sent:,}", maximum=f"{maximum:,}", then=translated(refused))
    if isinstance(error, anthropic.BadRequestError):
        return tr("error: request {request} was refused (400): {message}. This turn stops; the history is kept.",
                  request=requests, message=message)
    if isinstance(error, anthropic.APIStatusError):
        return tr("error: request {request} failed ({status}): {message}, after the SDK's retries. This turn "
                  "stops; the history is kept: try again.", request=requests, status=error.status_code,
                  message=message)
    return tr("error: {message}", message=f"{type(error).__name__}: {short(error, 300)}")


def main(agent_class, stage: str, argv=None, *, options=None,
         refused: str = "This stage does not compact: the turn stops here; the history is kept.") -> int:
    """Build the stage's agent on the chosen backend and chat with it, showing each step.

    options(window) -> extra keyword arguments for the agent (e.g. s06's threshold for a small
    window); refused: what the stage does when a request is too long, said after the error.
    """
    from ..backends.client import ConfigError, backend_name, make_client
    from ..console import tolerant_console

    tolerant_console()  # a non-UTF-8 console shows '?' for what it cannot encode, never crashes

    parser = argparse.ArgumentParser(prog=f"python -m {agent_class.__module__.split('.')[0]}",
                                     description=f"Chat with the {stage} agent, and watch what it does.")
    parser.add_argument("--workspace", default=".", help="folder the agent works in (default: .)")
    parser.add_argument("--window", "--context-window", dest="window", type=int, default=None, metavar="N",
                        help="the lesson's context window in tokens, on any backend (default: the model's)")
    parser.add_argument("--backend", choices=("offline", "anthropic"), default=None,
                        help="offline (default) or anthropic (LESSONS_BACKEND)")
    parser.add_argument("--quiet", action="store_true", help="print only the answers and errors")
    args = parser.parse_args(argv)
    say = (lambda line: None) if args.quiet else (lambda line: print(line, flush=True))
    narrator = Narrator(say, args.window)
    try:
        backend = args.backend or backend_name()
        client = make_client(backend, context_window=args.window)
        extra = options(args.window) if options else {}
        agent = agent_class(client, workspace=args.workspace, on_event=narrator, **extra)
    except (ConfigError, ValueError) as exc:
        print(tr("error: {message}", message=exc), file=sys.stderr)
        return 2
    narrator.agent = agent
    from ..backends.window import window_of

    window = window_of(client)
    narrator.window = window
    settings = "".join(f", {k} {v:,}" for k, v in extra.items() if isinstance(v, int))
    where = dict(stage=stage, backend=backend, model=agent.model, workspace=agent.workspace, settings=settings)
    print(tr("{stage} agent on the {backend} backend, model {model}, in {workspace}, window {window} tokens"
             "{settings}. Empty line or 'exit' leaves.", window=f"{window:,}", **where) if window else
          tr("{stage} agent on the {backend} backend, model {model}, in {workspace}{settings}. Empty line or "
             "'exit' leaves.", **where))
    retries = logging.getLogger(RETRY_LOGGER)
    handler = RetryLog(say)
    retries.addHandler(handler)
    level = retries.level
    if retries.getEffectiveLevel() > logging.INFO:  # the SDK logs each retry at INFO
        retries.setLevel(logging.INFO)
    try:
        return _chat(agent, stage, narrator, refused)
    finally:
        retries.removeHandler(handler)
        retries.setLevel(level)


def _chat(agent, stage: str, narrator: Narrator, refused: str) -> int:
    messages: list = []
    while True:
        try:
            prompt = input(f"{stage} >> ").strip()
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        if prompt in ("", "exit", "quit", "q"):
            return 0
        try:
            print(agent.ask(prompt, messages), flush=True)
        except KeyboardInterrupt:  # Ctrl-C stops this turn (its command is killed), not the session
            print(tr("(interrupted: the next prompt goes on from here)"), file=sys.stderr, flush=True)
        except Exception as exc:  # noqa: BLE001 - an API error ends this turn, not the session
            print(failure_line(exc, narrator.requests, refused), file=sys.stderr, flush=True)
