"""A small terminal REPL for any stage's Agent: `python -m sNN_name`.

Example: python -m s01_loop --workspace /tmp/demo   then type: Run `ls`
Commands: an empty line or `exit` / `quit` / Ctrl-D leaves; Ctrl-C while the agent works stops
that turn (the agent answers its open tool calls "interrupted by the user") and keeps the session.
A bad setting (LESSONS_BACKEND=bogus, no key) is one line on stderr and exit code 2.

Not modeled: history editing, multi-line prompts, saving the session.
"""

from __future__ import annotations

import argparse
import sys


def main(agent_class, stage: str, argv=None) -> int:
    """Build the stage's agent on the configured backend and chat with it."""
    from .client import ConfigError, backend_name, make_client

    parser = argparse.ArgumentParser(prog=f"python -m {agent_class.__module__.split('.')[0]}",
                                     description=f"Chat with the {stage} agent.")
    parser.add_argument("--workspace", default=".", help="folder the agent works in (default: .)")
    parser.add_argument("--context-window", type=int, default=None,
                        help="offline model's context window in tokens")
    args = parser.parse_args(argv)
    try:
        backend = backend_name()
        client = make_client(context_window=args.context_window)
        agent = agent_class(client, workspace=args.workspace)
    except (ConfigError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{stage} agent on the {backend} backend, model {agent.model}, in {agent.workspace}. "
          "Empty line or 'exit' leaves.")
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
            print(agent.ask(prompt, messages))
        except KeyboardInterrupt:  # Ctrl-C stops this turn (its command is killed), not the session
            print("(interrupted: the next prompt goes on from here)", file=sys.stderr)
        except Exception as exc:  # noqa: BLE001 - an API error ends this turn, not the session
            print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
