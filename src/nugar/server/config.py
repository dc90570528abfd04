"""What a web application is built with: one :class:`ServerConfig`.

:func:`~.app.create_app` takes one; ``nugar serve`` (:mod:`nugar.cli.serve`) builds it from
its arguments and hands it to its worker processes as JSON (:mod:`.worker`); the tests build
their own. The defaults are those of an application made in a test or a script:
``nugar serve`` turns on what only a long-running server wants (the warm-up, the garbage
collector's tuning).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ai.analysis import ANALYSIS_NODES
from .clients import CLIENT_SOCKETS, WORK_RATE
from .play.clocks import WATCH_EVERY
from .play.lobby_caps import CHALLENGES_PER_CLIENT
from .play.rooms import EXPIRE_DAYS
from .work.ai_pool import AI_PER_CLIENT
from .work.analyses import ANALYSIS_QUEUE


@dataclass(frozen=True)
class ServerConfig:
    """The settings of one web application (each field's comment says what it sets)."""

    #: the SQLAlchemy database URL (``None``: a SQLite file in the user's data directory)
    db_url: str | None = None
    #: the AI's thinking time per decision, in seconds
    ai_time: float = 1.0
    #: requests per second allowed per client address (``None``: no limit, e.g. load tests)
    rate: float | None = 30.0
    #: the requests a client address may make at once before ``rate`` applies
    burst: int = 120
    #: the largest request body in bytes (beyond it: 413)
    max_body: int = 256_000
    #: start compiling every AI level's code in the background at startup (``nugar serve``)
    warm_up: bool = False
    #: the address players reach the server at: a new game's links start with it (never
    #: with the request's ``Host`` header)
    public_url: str = "http://127.0.0.1:8000"
    #: serve FastAPI's interactive ``/docs`` and ``/redoc`` (their scripts come from a CDN)
    api_docs: bool = False
    #: seconds a request body may take to arrive (beyond them: 408)
    body_timeout: float = 10.0
    #: the AI agents thinking at once, shared by every game and hint
    ai_workers: int = 1
    #: the transposition table of each AI agent, in MB
    ai_table: float = 64.0
    #: the hints that may wait for an AI agent (more: ``503 ai_busy``)
    ai_queue: int = 8
    #: the AI requests (computer turns, hints, analyses) one client address may have waiting
    #: before its hints and new games against the AI get ``503 ai_busy``
    ai_per_client: int = AI_PER_CLIENT
    #: the websockets one client address may hold open at once (``None``: no bound)
    client_sockets: int | None = CLIENT_SOCKETS
    #: the CPU seconds of expensive requests (replaying a posted record, a past position)
    #: one client address may use per second (``None``: no bound); beyond it, and while one
    #: of its expensive requests runs, its next one gets ``429 too_much_work``
    work_rate: float | None = WORK_RATE
    #: the processes that run those expensive requests outside the serving process's
    #: interpreter (:mod:`.work_pool`; started by the first one); 0: in a worker thread of
    #: the serving process (``nugar serve``: :data:`~.work_pool.WORK_PROCESSES`)
    work_processes: int = 0
    #: the open lobby challenges one client address may have (more: ``429
    #: too_many_challenges``)
    challenges_per_client: int = CHALLENGES_PER_CLIENT
    #: the search nodes per decision of a game's analysis (:mod:`.analyses`)
    analysis_nodes: int = ANALYSIS_NODES
    #: the analyses that may wait for their turn (more: ``429 analysis_busy``)
    analysis_queue: int = ANALYSIS_QUEUE
    #: days after which an unfinished game without a change is closed (``None``: never)
    expire_days: float | None = EXPIRE_DAYS
    #: seconds between two checks of the clocks of games nobody asks about
    clock_every: float = WATCH_EVERY
    #: create the database's tables (``False``: whoever started the workers made them)
    create_tables: bool = True
    #: freeze the start-up's objects out of the garbage collector's walks (``nugar serve``)
    tune_gc: bool = False
    #: answer moves, state reads and websocket opens in :mod:`.fastlane`, before FastAPI's
    #: routing (``False``: every request through the routes, what the lane is measured against)
    fast_lane: bool = True
