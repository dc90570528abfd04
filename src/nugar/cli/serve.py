"""``nugar serve``: run the web app (:mod:`nugar.server`).

Nothing heavy is imported here at module level, so ``nugar --help`` stays fast; FastAPI and
uvicorn are imported when the command runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import EXIT_FAILED, EXIT_OK, CliError, command


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``serve`` sub-command to an ``argparse`` subparsers object."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve", help="run the web app: play in the browser",
        description="Run the web app: play against the AI, against a friend by link, or "
        "hot-seat, with every game stored as it happens.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--db", default=None, metavar="URL",
                        help="SQLAlchemy database URL, e.g. sqlite:///games.db or "
                        "postgresql://user@host/db (default: a SQLite file in your data "
                        "directory)")
    parser.add_argument("--ai-time", type=float, default=1.0, metavar="SECONDS",
                        help="AI thinking time per decision (default 1.0)")
    parser.add_argument("--rate", type=float, default=30.0,
                        help="requests per second allowed per client address; 0 turns the "
                        "limit off (default 30)")
    parser.set_defaults(func=cmd_serve)
    return parser


@command("serve")
def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server until interrupted; returns the exit status."""
    if not 0 < args.port < 65536:
        raise CliError(f"--port must be 1..65535, not {args.port}")
    if not args.ai_time > 0:
        raise CliError(f"--ai-time must be positive, not {args.ai_time}")
    if args.rate < 0:
        raise CliError(f"--rate must be 0 or more, not {args.rate}")
    try:
        import uvicorn

        from ..server.app import create_app
    except ImportError as exc:
        raise CliError(f"the web extras are missing (fastapi, uvicorn, sqlalchemy: "
                       f"pip install 'nugar[web]'): {exc}", EXIT_FAILED) from None
    from ..warmup import WARMUP, line_reporter

    # a first run compiles the AI in the background from the start: progress on stderr
    WARMUP.subscribe(line_reporter("nugar serve: "))
    try:
        app = create_app(args.db, ai_time=args.ai_time, rate=args.rate or None, warm_up=True)
    except Exception as exc:  # a bad URL or an unreachable database
        raise CliError(f"cannot open the database {args.db!r}: {exc}", EXIT_FAILED) from None
    shown = app.state.store.engine.url.render_as_string(hide_password=True)
    print(f"nugar: serving on http://{args.host}:{args.port}/ (database: {shown})",
          file=sys.stderr)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning",
                ws_max_size=65536, timeout_keep_alive=30)
    return EXIT_OK
