"""``nugar serve``: run the web app (:mod:`nugar.server`).

Nothing heavy is imported here at module level, so ``nugar --help`` stays fast; FastAPI and
uvicorn are imported when the command runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import ipaddress
import socket
import sys
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, CliError, command

if TYPE_CHECKING:
    from ..server.config import ServeOptions, ServerConfig


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``serve`` sub-command to an ``argparse`` subparsers object: its flags are made
    from the fields of :class:`~nugar.server.config.ServeOptions` and
    :class:`~nugar.server.config.ServerConfig` (each setting written once, there)."""
    from ..server.config import ServeOptions, ServerConfig, add_arguments

    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve", help="run the web app: play in the browser",
        description="Run the web app: play against the AI, against a friend by link, or "
        "hot-seat, with every game stored as it happens.")
    add_arguments(parser, ServeOptions)
    add_arguments(parser, ServerConfig)
    parser.set_defaults(func=cmd_serve)
    return parser


@command("serve")
def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server until interrupted; returns the exit status."""
    from ..server.config import ServeOptions, ServerConfig, from_arguments

    try:
        opts = from_arguments(ServeOptions, args)
        config = from_arguments(ServerConfig, args)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if opts.workers > 1 and not (config.db_url or "").startswith("postgresql"):
        raise CliError(f"--workers {opts.workers} needs a PostgreSQL database (--db "
                       "postgresql+psycopg://USER@HOST/DB): SQLite takes one writing process, "
                       "so a SQLite database is served by one worker")
    public_url = check_public_url(opts.public_url) if opts.public_url else \
        default_public_url(opts.host, opts.port)
    proxies = check_proxies(opts.forwarded_allow_ips)
    check_port_free(opts.host, opts.port)
    try:
        import uvicorn

        from ..server.app import create_app
    except ImportError as exc:
        raise CliError(f"the web extras are missing (fastapi, uvicorn, sqlalchemy: "
                       f"pip install -e '.[web]' from a checkout): {exc}", EXIT_FAILED) from None
    from ..warmup import WARMUP, line_reporter

    config = dataclasses.replace(config, public_url=public_url)
    # the log level drops uvicorn's access lines anyway; off, it does not build them either
    # (the client's address and the quoted path, for every request)
    served = dict(host=opts.host, port=opts.port, log_level="warning", access_log=False,
                  h11_max_incomplete_event_size=16_384, ws_max_size=65536,
                  # an update is a few kB: compressing every message costs more CPU than the
                  # bytes it saves are worth
                  ws_per_message_deflate=False,
                  ws_ping_interval=20.0, ws_ping_timeout=20.0, timeout_keep_alive=5,
                  limit_concurrency=opts.limit_concurrency, **proxy_options(proxies))
    if opts.workers > 1:
        return serve_workers(opts, config, served)
    # a first run compiles the AI in the background from the start: progress on stderr
    WARMUP.subscribe(line_reporter("nugar serve: "))
    try:
        app = create_app(config)
    except Exception as exc:  # a bad URL or an unreachable database
        raise CliError(f"cannot open the database {config.db_url!r}: {database_problem(exc)}",
                       EXIT_FAILED) from None
    if opts.check_db:
        check_database(app.state.store)
    shown = app.state.store.engine.url.render_as_string(hide_password=True)
    print(f"nugar: serving on {default_public_url(opts.host, opts.port)}/ as {public_url}/ "
          f"(database: {shown})", file=sys.stderr)
    from ..server.http.http_timeouts import timed_protocol

    # uvloop and httptools (the server's dependencies) when installed: loop="auto" picks
    # uvloop itself; the HTTP protocol is ours, with the header timeout
    uvicorn.run(app, http=timed_protocol(opts.header_timeout, opts.client_connections),
                **served)
    return EXIT_OK


def serve_workers(opts: ServeOptions, config: ServerConfig, served: dict[str, Any]) -> int:
    """``--workers N``: the database is migrated here once (:mod:`nugar.server.storage.migrations`),
    then uvicorn's supervisor runs N worker processes (:mod:`nugar.server.worker`) on one
    socket and replaces any that dies."""
    import os

    import uvicorn

    from ..server.http.http_timeouts import protocol_path
    from ..server.storage.store import Store
    from ..server.worker import ENV, options_env

    try:
        store = Store(config.db_url)
        shown = store.engine.url.render_as_string(hide_password=True)
    except Exception as exc:  # a bad URL, an unreachable database, psycopg missing
        raise CliError(f"cannot open the database {config.db_url!r}: {database_problem(exc)}",
                       EXIT_FAILED) from None
    try:
        if opts.check_db:
            check_database(store)
    finally:
        store.close()
    os.environ[ENV] = options_env(config, opts.header_timeout, opts.client_connections)
    print(f"nugar: serving on {default_public_url(opts.host, opts.port)}/ as "
          f"{config.public_url}/ with {opts.workers} workers (database: {shown})",
          file=sys.stderr)
    uvicorn.run("nugar.server.worker:app_from_env", factory=True, workers=opts.workers,
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
