"""``nugar serve``: run the web app (:mod:`nugar.server`).

Nothing heavy is imported here at module level, so ``nugar --help`` stays fast; FastAPI and
uvicorn are imported when the command runs.
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import socket
import sys
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, CliError, command

if TYPE_CHECKING:
    from ..server.config import ServerConfig


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
                        "postgresql+psycopg://user@host/db (default: a SQLite file in your "
                        "data directory)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="server processes sharing the port (default 1); more than one "
                        "needs a PostgreSQL database, which orders the moves and tells every "
                        "process of the others' changes; a worker that dies is replaced")
    parser.add_argument("--ai-time", type=float, default=1.0, metavar="SECONDS",
                        help="AI thinking time per decision (default 1.0)")
    parser.add_argument("--ai-workers", type=int, default=1, metavar="N",
                        help="agents thinking at the same time, shared by all games and "
                        "hints (default 1)")
    parser.add_argument("--ai-table", type=float, default=64.0, metavar="MB",
                        help="transposition table of each AI worker in MB (default 64)")
    parser.add_argument("--ai-queue", type=int, default=8, metavar="N",
                        help="hints that may wait for a worker; more are refused with 503 "
                        "ai_busy (default 8)")
    parser.add_argument("--rate", type=float, default=30.0,
                        help="requests per second allowed per client address; 0 turns the "
                        "limit off (default 30)")
    parser.add_argument("--public-url", default=None, metavar="URL",
                        help="the address players reach the server at, e.g. "
                        "https://games.example.org; game links start with it (default: "
                        "http://HOST:PORT as served)")
    parser.add_argument("--forwarded-allow-ips", default=None, metavar="IPS",
                        help="comma-separated addresses of the reverse proxies whose "
                        "X-Forwarded-For/-Proto headers are trusted, e.g. 127.0.0.1 "
                        "(default: none, the headers are ignored and the rate limit counts "
                        "the connecting address)")
    parser.add_argument("--api-docs", action="store_true",
                        help="also serve the interactive API docs at /docs and /redoc (they "
                        "load scripts from a CDN; /openapi.json is always served)")
    parser.add_argument("--limit-concurrency", type=int, default=200, metavar="N",
                        help="most connections and tasks at once; beyond it new requests "
                        "get 503 (default 200)")
    parser.add_argument("--header-timeout", type=float, default=10.0, metavar="SECONDS",
                        help="time a request's headers may take to arrive before the "
                        "connection is closed (default 10)")
    parser.add_argument("--body-timeout", type=float, default=10.0, metavar="SECONDS",
                        help="time a request's body may take to arrive before it gets 408 "
                        "(default 10)")
    parser.add_argument("--expire-days", type=float, default=30.0, metavar="DAYS",
                        help="unfinished games without a move for this many days are closed "
                        "(aborted if a player never moved, else adjudicated draws); 0 keeps "
                        "them forever (default 30)")
    parser.add_argument("--client-connections", type=int, default=32, metavar="N",
                        help="HTTP connections one client address may hold open at once; "
                        "more are closed on arrival (trusted proxies are not bounded); 0: no "
                        "bound (default 32)")
    parser.add_argument("--client-sockets", type=int, default=16, metavar="N",
                        help="websockets one client address (as forwarded by a trusted proxy) "
                        "may hold open at once; more are refused; 0: no bound (default 16)")
    parser.add_argument("--ai-per-client", type=int, default=4, metavar="N",
                        help="AI requests one client address may have waiting before its "
                        "hints and new games against the AI get 503 ai_busy; the AI serves "
                        "the addresses in turn (default 4)")
    parser.add_argument("--work-rate", type=float, default=0.1, metavar="SECONDS",
                        help="CPU seconds per second one client address may spend on "
                        "expensive requests (replaying a record); 0: no bound (default 0.1)")
    parser.add_argument("--work-processes", type=int, default=1, metavar="N",
                        help="processes (per worker) that run the expensive requests, so a "
                        "long replay never holds up other clients' requests; started with "
                        "the server; 0: in a thread of the server (default 1)")
    parser.add_argument("--challenges-per-client", type=int, default=3, metavar="N",
                        help="open lobby challenges one client address may have; more get "
                        "429 too_many_challenges (default 3)")
    parser.add_argument("--check-db", action="store_true",
                        help="check the database before serving (SQLite's integrity_check, "
                        "and every game's journal against its row); any problem is listed "
                        "and the server does not start")
    # hidden: every request through FastAPI's routes, to measure the fast lane against
    # (benchmarks/load_server.py --no-fast-lane)
    parser.add_argument("--no-fast-lane", dest="fast_lane", action="store_false",
                        help=argparse.SUPPRESS)
    parser.set_defaults(func=cmd_serve)
    return parser


@command("serve")
def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server until interrupted; returns the exit status."""
    if not 0 < args.port < 65536:
        raise CliError(f"--port must be 1..65535, not {args.port}")
    if not args.ai_time > 0:
        raise CliError(f"--ai-time must be positive, not {args.ai_time}")
    if not 1 <= args.ai_workers <= 64:
        raise CliError(f"--ai-workers must be 1..64, not {args.ai_workers}")
    if not 1 <= args.ai_table <= 4096:
        raise CliError(f"--ai-table must be 1..4096 MB, not {args.ai_table}")
    if not 0 <= args.ai_queue <= 10000:
        raise CliError(f"--ai-queue must be 0..10000, not {args.ai_queue}")
    if args.rate < 0:
        raise CliError(f"--rate must be 0 or more, not {args.rate}")
    if not 0 <= args.expire_days <= 36500:
        raise CliError(f"--expire-days must be 0..36500 (0: never), not {args.expire_days}")
    if not 1 <= args.workers <= 64:
        raise CliError(f"--workers must be 1..64, not {args.workers}")
    if args.workers > 1 and not (args.db or "").startswith("postgresql"):
        raise CliError(f"--workers {args.workers} needs a PostgreSQL database (--db "
                       "postgresql+psycopg://USER@HOST/DB): SQLite takes one writing process, "
                       "so a SQLite database is served by one worker")
    for name in ("client_connections", "client_sockets"):
        if not 0 <= getattr(args, name) <= 100_000:
            raise CliError(f"--{name.replace('_', '-')} must be 0..100000 (0: no bound), "
                           f"not {getattr(args, name)}")
    if not 1 <= args.ai_per_client <= 10000:
        raise CliError(f"--ai-per-client must be 1..10000, not {args.ai_per_client}")
    if not 1 <= args.challenges_per_client <= 1000:
        raise CliError(f"--challenges-per-client must be 1..1000, not "
                       f"{args.challenges_per_client}")
    if args.work_rate < 0:
        raise CliError(f"--work-rate must be 0 or more, not {args.work_rate}")
    if not 0 <= args.work_processes <= 64:
        raise CliError(f"--work-processes must be 0..64, not {args.work_processes}")
    if args.limit_concurrency < 1:
        raise CliError(f"--limit-concurrency must be 1 or more, not {args.limit_concurrency}")
    for name in ("header_timeout", "body_timeout"):
        if not getattr(args, name) > 0:
            raise CliError(f"--{name.replace('_', '-')} must be positive seconds, "
                           f"not {getattr(args, name)}")
    public_url = check_public_url(args.public_url) if args.public_url else \
        default_public_url(args.host, args.port)
    proxies = check_proxies(args.forwarded_allow_ips)
    check_port_free(args.host, args.port)
    try:
        import uvicorn

        from ..server.app import create_app
    except ImportError as exc:
        raise CliError(f"the web extras are missing (fastapi, uvicorn, sqlalchemy: "
                       f"pip install -e '.[web]' from a checkout): {exc}", EXIT_FAILED) from None
    from ..server.config import ServerConfig
    from ..warmup import WARMUP, line_reporter

    config = ServerConfig(
        db_url=args.db, ai_time=args.ai_time, rate=args.rate or None, warm_up=True,
        public_url=public_url, api_docs=args.api_docs, body_timeout=args.body_timeout,
        ai_workers=args.ai_workers, ai_table=args.ai_table, ai_queue=args.ai_queue,
        expire_days=args.expire_days or None, tune_gc=True, fast_lane=args.fast_lane,
        ai_per_client=args.ai_per_client, client_sockets=args.client_sockets or None,
        work_rate=args.work_rate or None, challenges_per_client=args.challenges_per_client,
        work_processes=args.work_processes)
    # the log level drops uvicorn's access lines anyway; off, it does not build them either
    # (the client's address and the quoted path, for every request)
    served = dict(host=args.host, port=args.port, log_level="warning", access_log=False,
                  h11_max_incomplete_event_size=16_384, ws_max_size=65536,
                  # an update is a few kB: compressing every message costs more CPU than the
                  # bytes it saves are worth
                  ws_per_message_deflate=False,
                  ws_ping_interval=20.0, ws_ping_timeout=20.0, timeout_keep_alive=5,
                  limit_concurrency=args.limit_concurrency, **proxy_options(proxies))
    if args.workers > 1:
        return serve_workers(args, config, served)
    # a first run compiles the AI in the background from the start: progress on stderr
    WARMUP.subscribe(line_reporter("nugar serve: "))
    try:
        app = create_app(config)
    except Exception as exc:  # a bad URL or an unreachable database
        raise CliError(f"cannot open the database {args.db!r}: {database_problem(exc)}",
                       EXIT_FAILED) from None
    if args.check_db:
        check_database(app.state.store)
    shown = app.state.store.engine.url.render_as_string(hide_password=True)
    print(f"nugar: serving on {default_public_url(args.host, args.port)}/ as {public_url}/ "
          f"(database: {shown})", file=sys.stderr)
    from ..server.http.http_timeouts import timed_protocol

    # uvloop and httptools (the server's dependencies) when installed: loop="auto" picks
    # uvloop itself; the HTTP protocol is ours, with the header timeout
    uvicorn.run(app, http=timed_protocol(args.header_timeout, args.client_connections or None),
                **served)
    return EXIT_OK


def serve_workers(args: argparse.Namespace, config: ServerConfig, served: dict[str, Any]
                  ) -> int:
    """``--workers N``: the database is migrated here once (:mod:`nugar.server.storage.migrations`),
    then uvicorn's supervisor runs N worker processes (:mod:`nugar.server.worker`) on one
    socket and replaces any that dies."""
    import os

    import uvicorn

    from ..server.http.http_timeouts import protocol_path
    from ..server.storage.store import Store
    from ..server.worker import ENV, options_env

    try:
        store = Store(args.db)
        shown = store.engine.url.render_as_string(hide_password=True)
    except Exception as exc:  # a bad URL, an unreachable database, psycopg missing
        raise CliError(f"cannot open the database {args.db!r}: {database_problem(exc)}",
                       EXIT_FAILED) from None
    try:
        if args.check_db:
            check_database(store)
    finally:
        store.close()
    os.environ[ENV] = options_env(config, args.header_timeout, args.client_connections or None)
    print(f"nugar: serving on {default_public_url(args.host, args.port)}/ as "
          f"{config.public_url}/ with {args.workers} workers (database: {shown})",
          file=sys.stderr)
    uvicorn.run("nugar.server.worker:app_from_env", factory=True, workers=args.workers,
                http=protocol_path(), **served)
    return EXIT_OK


def check_port_free(host: str, port: int) -> None:
    """A :class:`CliError` (exit status 2) when ``host:port`` cannot be listened on, above all
    when another program holds the port: said in one line before anything starts, instead of
    uvicorn's log lines after the warm-up has begun. Bound and let go at once, with the
    ``SO_REUSEADDR`` uvicorn sets too, so a port left in ``TIME_WAIT`` still counts as free."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise CliError(f"--host {host!r} is not an address of this machine: {exc.strerror}",
                       EXIT_USAGE) from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise CliError(f"port {port} on {host} is in use (another nugar serve?): "
                               "stop it or choose another with --port", EXIT_USAGE) from None
            raise CliError(f"cannot listen on {host} port {port}: {exc.strerror or exc}",
                           EXIT_USAGE) from None


def database_problem(exc: BaseException) -> str:
    """What went wrong opening a database, in one line: the driver's message without
    SQLAlchemy's "(Background on this error at: ...)" link line."""
    lines = [line.strip() for line in str(exc).splitlines()]
    kept = [line for line in lines if line and not line.startswith("(Background on this error")]
    return "; ".join(kept) or type(exc).__name__


def check_database(store: Any) -> None:
    """``--check-db``: the database's problems (:meth:`~nugar.server.storage.store.Store.check`) on
    stderr and a :class:`CliError` if there is any; a line saying so when there is none."""
    problems = store.check()
    if problems:
        for line in problems[:50]:
            print(f"nugar: --check-db: {line}", file=sys.stderr)
        more = " (the first 50 shown)" if len(problems) > 50 else ""
        raise CliError(f"the database has {len(problems)} problem(s){more}; not serving",
                       EXIT_FAILED)
    print("nugar: --check-db: the database and every game's journal are intact",
          file=sys.stderr)


def default_public_url(host: str, port: int) -> str:
    """``http://HOST:PORT``, with an IPv6 address in brackets."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def check_public_url(text: str) -> str:
    """``text`` as a base URL without its trailing slash, or a :class:`CliError`."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
            or parts.fragment or "@" in parts.netloc:
        raise CliError(f"--public-url must be http(s)://HOST[:PORT][/PATH] with no query, "
                       f"fragment or user, not {text!r}")
    try:
        parts.port  # noqa: B018 (reading it checks the port)
    except ValueError:
        raise CliError(f"--public-url has a bad port: {text!r}") from None
    return text.strip().rstrip("/")


def check_proxies(text: str | None) -> list[str]:
    """The addresses or networks of ``--forwarded-allow-ips`` (none when not given)."""
    if text is None:
        return []
    found = [t.strip() for t in text.split(",") if t.strip()]
    if not found:
        raise CliError("--forwarded-allow-ips needs at least one address, e.g. 127.0.0.1")
    for item in found:
        if item == "*":
            continue
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise CliError(f"--forwarded-allow-ips: {item!r} is not an IP address or network "
                           f"(give addresses like 127.0.0.1 or 10.0.0.0/8, or *)") from None
    return found


def proxy_options(proxies: list[str]) -> dict[str, Any]:
    """uvicorn's options for ``proxies``: forwarded headers are trusted only from them (with
    none, uvicorn's proxy-header handling is off, whatever its default)."""
    if not proxies:
        return {"proxy_headers": False, "forwarded_allow_ips": ""}
    return {"proxy_headers": True, "forwarded_allow_ips": ",".join(proxies)}
