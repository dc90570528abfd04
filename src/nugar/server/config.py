"""What a web application is built with: one :class:`ServerConfig`, and what ``nugar serve``
runs it with: one :class:`ServeOptions`. Each setting is written once, here.

Every field carries its :class:`Setting` (the flag of ``nugar serve``, its help, its bounds,
what ``0`` means on the command line, the value the command uses when it differs from the
library's default), so the command's arguments are made from the fields
(:func:`add_arguments`) and read back into the objects with their bounds checked
(:func:`from_arguments`), as the rules' options are made from their dataclass. A setting that
is not offered on the command line says so (``flag=""``).

:func:`~.app.create_app` takes a :class:`ServerConfig`; ``nugar serve``
(:mod:`nugar.cli.serve`) builds both from its arguments and hands the config to its worker
processes as JSON (:mod:`.worker`); the tests build their own. The defaults of
:class:`ServerConfig` are those of an application made in a test or a script: ``nugar serve``
turns on what only a long-running server wants (the warm-up, the garbage collector's tuning,
a work process), each field's ``serve`` value.

This module imports nothing of the server (it is the bottom of the server's layers): the
modules whose bounds these settings set read their defaults from :data:`DEFAULTS`, and
``nugar serve --help`` stays quick and works without the web extras installed.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from ..ai.analysis import ANALYSIS_NODES  # the analysis's own default, below the server

#: a field's value for ``nugar serve`` is its default (:attr:`Setting.serve`)
SAME = object()


@dataclass(frozen=True)
class Setting:
    """How one field is offered by ``nugar serve``."""

    #: what it sets, as the command's help says it (the default is added to it)
    help: str
    #: the value's kind on the command line (``str``, ``int``, ``float``, ``bool``: a switch)
    kind: type = str
    #: the command's flag; ``None``: ``--`` and the field's name with dashes; ``""``: none
    flag: str | None = None
    metavar: str | None = None
    #: bounds: at least ``low``, at most ``high``, above 0 when ``positive``
    low: float | None = None
    high: float | None = None
    positive: bool = False
    #: what ``0`` means on the command line (``"no bound"``, ``"never"``): the field is
    #: ``None`` then
    zero: str | None = None
    #: the value ``nugar serve`` uses where it differs from the field's default
    serve: Any = SAME
    #: shown in ``--help`` (a flag kept for measurements only is not)
    shown: bool = True


def setting(default: Any, help: str, **how: Any) -> Any:
    """A dataclass field with its default and its :class:`Setting` (the keywords)."""
    return dataclasses.field(default=default, metadata={"setting": Setting(help, **how)})


@dataclass(frozen=True)
class ServerConfig:
    """The settings of one web application (each field's help says what it sets)."""

    db_url: str | None = setting(
        None, "SQLAlchemy database URL, e.g. sqlite:///games.db or "
        "postgresql+psycopg://user@host/db (default: a SQLite file in your data directory)",
        flag="--db", metavar="URL")
    ai_time: float = setting(1.0, "AI thinking time per decision", kind=float,
                             metavar="SECONDS", positive=True)
    rate: float | None = setting(30.0, "requests per second allowed per client address",
                                 kind=float, low=0, zero="no limit")
    #: the requests a client address may make at once before ``rate`` applies
    burst: int = setting(120, "requests a client address may make at once before --rate "
                         "applies", kind=int, flag="")
    max_body: int = setting(256_000, "the largest request body in bytes (beyond it: 413)",
                            kind=int, flag="")
    warm_up: bool = setting(False, "start compiling every AI level's code in the background at "
                            "startup", kind=bool, flag="", serve=True)
    public_url: str = setting(
        "http://127.0.0.1:8000", "the address players reach the server at, e.g. "
        "https://games.example.org; game links start with it, never with the request's Host "
        "(default: http://HOST:PORT as served)", flag="", metavar="URL")
    api_docs: bool = setting(False, "also serve the interactive API docs at /docs and /redoc "
                             "(they load scripts from a CDN; /openapi.json is always served)",
                             kind=bool)
    body_timeout: float = setting(10.0, "time a request's body may take to arrive before it "
                                  "gets 408", kind=float, metavar="SECONDS", positive=True)
    ai_workers: int = setting(1, "agents thinking at the same time, shared by all games and "
                              "hints", kind=int, metavar="N", low=1, high=64)
    ai_table: float = setting(64.0, "transposition table of each AI worker in MB", kind=float,
                              metavar="MB", low=1, high=4096)
    ai_queue: int = setting(8, "hints that may wait for a worker; more are refused with 503 "
                            "ai_busy", kind=int, metavar="N", low=0, high=10000)
    ai_per_client: int = setting(
        4, "AI requests one client address may have waiting before its hints and "
        "new games against the AI get 503 ai_busy; the AI serves the addresses in turn",
        kind=int, metavar="N", low=1, high=10000)
    client_sockets: int | None = setting(
        16, "websockets one client address (as forwarded by a trusted proxy) may "
        "hold open at once; more are refused", kind=int, metavar="N", low=0, high=100_000,
        zero="no bound")
    work_rate: float | None = setting(
        0.1, "CPU seconds per second one client address may spend on expensive requests "
        "(replaying a record); while one of its expensive requests runs, its next one gets 429 "
        "too_much_work", kind=float, metavar="SECONDS", low=0, zero="no bound")
    work_processes: int = setting(
        0, "processes (per worker) that run the expensive requests, so a long replay never "
        "holds up other clients' requests; started with the server; 0: in a thread of the "
        "server", kind=int, metavar="N", low=0, high=64, serve=1)
    challenges_per_client: int = setting(
        3, "open lobby challenges one client address may have; more get "
        "429 too_many_challenges", kind=int, metavar="N", low=1, high=1000)
    analysis_nodes: int = setting(ANALYSIS_NODES, "search nodes per decision of a game's "
                                  "analysis", kind=int, flag="")
    analysis_queue: int = setting(4, "analyses that may wait for their turn "
                                  "(more: 429 analysis_busy)", kind=int, flag="")
    analysis_per_client: int = setting(
        2, "analyses one client address (or signed-in account) may have running or waiting "
        "(more: 429 analysis_busy); the waiting ones are computed in turn per client",
        kind=int, flag="")
    hash_workers: int = setting(
        1, "threads checking passwords at once (Argon2id, 64 MiB each); the others wait in "
        "turn per address, 64 at most, beyond them 503 sign_in_busy", kind=int, metavar="N",
        low=1, high=64)
    access_log: bool = setting(
        False, "one line per request on stderr: address, method, path (no query), status, "
        "milliseconds", kind=bool)
    expire_days: float | None = setting(
        30.0, "unfinished games without a move for this many days are closed (aborted "
        "if a player never moved, a rated game lost by the player who left, else adjudicated "
        "draws)", kind=float, metavar="DAYS", low=0, high=36500, zero="never")
    clock_every: float = setting(1.0, "seconds between two checks of the clocks of "
                                 "games nobody asks about", kind=float, flag="")
    create_tables: bool = setting(True, "create the database's tables (False: whoever "
                                  "started the workers made them)", kind=bool, flag="")
    tune_gc: bool = setting(False, "freeze the start-up's objects out of the garbage "
                            "collector's walks", kind=bool, flag="", serve=True)
    fast_lane: bool = setting(
        True, "answer moves, state reads and websocket opens before FastAPI's routing "
        "(off: every request through the routes, what the lane is measured against)",
        kind=bool, flag="--no-fast-lane", shown=False)


@dataclass(frozen=True)
class ServeOptions:
    """The settings of the ``nugar serve`` process around the application: where it listens,
    how many workers, and uvicorn's bounds on connections."""

    host: str = setting("127.0.0.1", "address to listen on (127.0.0.1: this machine only)")
    port: int = setting(8000, "port", kind=int, low=1, high=65535)
    workers: int = setting(
        1, "server processes sharing the port; more than one needs a PostgreSQL database, "
        "which orders the moves and tells every process of the others' changes; a worker "
        "that dies is replaced", kind=int, metavar="N", low=1, high=64)
    public_url: str | None = setting(
        None, "the address players reach the server at, e.g. https://games.example.org; game "
        "links start with it (default: http://HOST:PORT as served)", metavar="URL")
    forwarded_allow_ips: str | None = setting(
        None, "comma-separated addresses of the reverse proxies whose X-Forwarded-For/-Proto "
        "headers are trusted, e.g. 127.0.0.1 (default: none, the headers are ignored and the "
        "rate limit counts the connecting address)", metavar="IPS")
    limit_concurrency: int = setting(200, "most connections and tasks at once; beyond it new "
                                     "requests get 503", kind=int, metavar="N", low=1)
    header_timeout: float = setting(10.0, "time a request's headers may take to arrive before "
                                    "the connection is closed", kind=float,
                                    metavar="SECONDS", positive=True)
    client_connections: int | None = setting(
        32, "HTTP connections one client address may hold open at once; more are closed on "
        "arrival (trusted proxies are not bounded)", kind=int, metavar="N", low=0,
        high=100_000, zero="no bound")
    check_db: bool = setting(False, "check the database before serving (SQLite's "
                             "integrity_check, and every game's journal against its row); any "
                             "problem is listed and the server does not start", kind=bool)


T = TypeVar("T")


def settings(cls: type[Any]) -> list[tuple[dataclasses.Field[Any], Setting]]:
    """The fields of ``cls`` (:class:`ServerConfig`, :class:`ServeOptions`) with their
    settings, in order."""
    return [(f, f.metadata["setting"]) for f in dataclasses.fields(cls)]


def flag_of(f: dataclasses.Field[Any], s: Setting) -> str:
    """The command-line flag of a field (``""``: none)."""
    return ("--" + f.name.replace("_", "-")) if s.flag is None else s.flag


def serve_default(f: dataclasses.Field[Any], s: Setting) -> Any:
    """The value ``nugar serve`` gives a field when its flag is not given."""
    return f.default if s.serve is SAME else s.serve


def _shown(value: Any, s: Setting) -> str:
    if value is None:
        return "0" if s.zero else "none"
    return f"{value:g}" if isinstance(value, float) else str(value)


def add_arguments(parser: argparse.ArgumentParser, cls: type[Any],
                  skip: frozenset[str] = frozenset()) -> None:
    """Add the flags of ``cls``'s fields to ``parser`` (``--help`` says each default; the
    namespace's attribute is the field's name). Fields named in ``skip`` are left out (one
    the other class offers already)."""
    for f, s in settings(cls):
        flag = flag_of(f, s)
        if not flag or f.name in skip:
            continue
        default = serve_default(f, s)
        help_text = s.help if s.shown else argparse.SUPPRESS
        if s.kind is bool:
            negated = flag.startswith("--no-")
            parser.add_argument(flag, dest=f.name, action="store_false" if negated
                                else "store_true", default=default, help=help_text)
            continue
        if s.shown:
            zero = f"; 0: {s.zero}" if s.zero else ""
            if default is not None or s.zero:
                help_text = f"{s.help}{zero} (default {_shown(default, s)})"
        parser.add_argument(flag, dest=f.name, type=s.kind, metavar=s.metavar,
                            default=0 if default is None and s.zero else default,
                            help=help_text)


def check(flag: str, value: Any, s: Setting) -> None:
    """``ValueError`` saying what is allowed when ``value`` is outside the setting's bounds."""
    if s.kind is bool or value is None:
        return
    zero = f" (0: {s.zero})" if s.zero else ""
    if s.positive and not value > 0:
        raise ValueError(f"{flag} must be positive, not {_shown(value, s)}")
    low, high = s.low, s.high
    if low is not None and high is not None and not low <= value <= high:
        raise ValueError(f"{flag} must be {low:g}..{high:g}{zero}, not {_shown(value, s)}")
    if low is not None and high is None and not value >= low:
        raise ValueError(f"{flag} must be {low:g} or more{zero}, not {_shown(value, s)}")


def from_arguments(cls: type[T], args: argparse.Namespace | Mapping[str, Any],
                   **fixed: Any) -> T:
    """``cls`` with each field read from ``args`` (a namespace from :func:`add_arguments` or a
    mapping) and checked against its bounds (``ValueError``); a field not on the command line
    takes its ``serve`` value, and ``fixed`` overrides any field."""
    given = vars(args) if isinstance(args, argparse.Namespace) else dict(args)
    values: dict[str, Any] = {}
    for f, s in settings(cls):
        if f.name in fixed:
            values[f.name] = fixed[f.name]
            continue
        flag = flag_of(f, s)
        if not flag or f.name not in given:
            values[f.name] = serve_default(f, s)
            continue
        value = given[f.name]
        check(flag, value, s)
        values[f.name] = None if s.zero and value == 0 else value
    return cls(**values)


#: the library's defaults (a test's or a script's application), read by the modules whose
#: bounds they are, e.g. ``AI_PER_CLIENT = DEFAULTS.ai_per_client``
DEFAULTS = ServerConfig()
