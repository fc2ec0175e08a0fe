"""python -m offline serve [--port N] [--context-window T] [--lesson-counts]

Serves the offline model on 127.0.0.1 (server.py) and prints one line with the
real address (so --port 0 tells which free port it got), then serves until Ctrl-C.
It counts the tool-use system prompt the API adds when tools are offered; `--lesson-counts` counts
tools as the lessons' own backend does (their JSON alone), for running the lessons against it.

Example: python -m offline serve --port 0
  -> offline model on http://127.0.0.1:40123 (context window 200,000 tokens); Ctrl-C stops

Not modeled: daemonising, logging requests (the server is quiet), TLS.
"""

from __future__ import annotations

import argparse
import sys

from .model import DEFAULT_CONTEXT_WINDOW, OfflineModel
from .serve.server import HOST, make_server


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offline",
                                     description="Serve the offline model on 127.0.0.1.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the Messages API on 127.0.0.1")
    serve.add_argument("--port", type=int, default=8765, help="port (default 8765, 0 = any free)")
    serve.add_argument("--context-window", type=int, default=DEFAULT_CONTEXT_WINDOW,
                       help="tokens the model accepts (default 200000)")
    serve.add_argument("--lesson-counts", action="store_true",
                       help="count tools as the lessons' backend does: their JSON, no tool-use system prompt")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be 0-65535, got {args.port}")
    if args.context_window < 1:
        parser.error(f"--context-window must be positive, got {args.context_window}")
    try:
        server = make_server(OfflineModel(args.context_window, tool_prompt=not args.lesson_counts), args.port)
    except OSError as exc:
        print(f"error: cannot listen on {HOST}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"offline model on http://{HOST}:{server.server_address[1]} "
          f"(context window {args.context_window:,} tokens); Ctrl-C stops", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
