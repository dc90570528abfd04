"""The web application: JSON API, websocket per game, and the browser UI's pages.

``create_app(config)`` assembles a FastAPI application, with the settings of one
:class:`~.config.ServerConfig`, over one :class:`~.store.Store`: the routers of the pages
(:mod:`.routes_pages`), the API (:mod:`.routes_api`) and the websocket (:mod:`.routes_ws`),
behind the middleware of :mod:`.middleware` and the move fast lane (:mod:`.fastlane`). Every
game's changes go through its room in :class:`~.rooms.Hub` and its
:class:`~.session.GameSession`. The OpenAPI schema is at ``/openapi.json``; the interactive
``/docs`` and ``/redoc`` (which load scripts from a CDN) are served only with ``api_docs``.
Every response carries the security headers of :class:`~.middleware.SecurityHeaders`.
Errors are always JSON ``{"error": code, "detail": sentence}`` with a 4xx status.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from .clients import Work
from .config import ServerConfig
from .http import (
    routes_accounts,
    routes_analysis,
    routes_api,
    routes_bot,
    routes_i18n,
    routes_lessons,
    routes_lobby,
    routes_pages,
    routes_puzzles,
    routes_ws,
    static_i18n,
)
from .http.crosssite import CrossSiteGuard
from .http.fastlane import MoveLane
from .http.middleware import (
    AccessLog,
    ASGIApp,
    Guard,
    Receive,
    Scope,
    SecurityHeaders,
    Send,
    add_error_handlers,
)
from .http.pages import RenderedPages
from .http.services import PuzzleBounds, Services
from .play.clocks import watch_clocks
from .play.listen import listen_forever
from .play.lobby_caps import CappedLobby
from .play.replays import prepare
from .play.rooms import Hub
from .players.accounts import Accounts, client_key, expire_forever
from .players.passwords import PasswordWork
from .storage.store import Store
from .work.ai_pool import Agents, AiPool
from .work.analyses import Analyses
from .work.work_pool import WorkPool

if TYPE_CHECKING:
    from ..warmup import Progress, Warmup


#: allocations between two collections of the youngest objects in ``nugar serve`` (Python's
#: default is 700): a server makes and drops many short-lived objects per request
GC_YOUNG = 10_000


class _App(FastAPI):
    """FastAPI with the server's own middleware (:attr:`front`) put around the whole
    application, FastAPI's own entry included (its telemetry check, its error layers and
    routing): a move answered by the fast lane then costs none of them, and a request that
    goes on to the routes passes through them all as before."""

    front: Callable[[ASGIApp], ASGIApp] | None = None
    _fronted: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.front is None or scope["type"] == "lifespan":
            await super().__call__(scope, receive, send)
            return
        fronted = self._fronted
        if fronted is None:
            fronted = self._fronted = self.front(functools.partial(FastAPI.__call__, self))
        scope["app"] = self  # what Starlette sets further in; the fast lane needs it first
        await fronted(scope, receive, send)


async def _freeze_after_warm_up(engine: Warmup, hub: Hub) -> None:
    """Once the AI's compiled code is loaded (the warm-up runs after the start and makes
    tens of thousands of objects), freeze again, if no game's room exists yet (a frozen room
    would never be collected: it holds cycles); else leave it."""
    loop = asyncio.get_running_loop()
    done = asyncio.Event()

    def heard(progress: Progress) -> None:  # in the warm-up's thread
        if progress.finished:
            loop.call_soon_threadsafe(done.set)

    unsubscribe = engine.subscribe(heard)
    try:
        if not engine.finished:
            await done.wait()
    finally:
        unsubscribe()
    if not hub.rooms:
        gc.collect()
        gc.freeze()


def _log_access() -> None:
    """Send the access log's lines to stderr (once per process; uvicorn's own logging,
    at ``warning``, leaves this logger alone)."""
    logger = logging.getLogger("nugar.access")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def create_app(config: ServerConfig | None = None, *, warmup: Warmup | None = None
               ) -> FastAPI:
    """The web application with the settings of ``config`` (:class:`~.config.ServerConfig`;
    default: its defaults, a SQLite file in the user's data directory).

    With ``config.warm_up``, what every AI level needs is compiled in the background at
    startup (``nugar serve``, with the process's own ``nugar.warmup.WARMUP``: while it
    compiles, requests run the kernels not compiled yet interpreted); without it, an AI move
    compiles what it needs first, as a plain call would. ``warmup`` replaces the compiling
    used (an object, not a setting: a test passes its own); ``GET /api/warmup`` gives its
    progress. Unfinished games idle for ``expire_days`` are closed at start and hourly: as
    adjudicated draws, or aborted when a player never made his first move. The clocks of
    games nobody asks about are checked by :func:`~.clocks.watch_clocks`. On PostgreSQL the
    app listens to the changes other processes store (:mod:`.listen`), so several processes
    can serve the same games. ``tune_gc``: once started, every object made so far is left out
    of Python's cyclic garbage collections (``gc.freeze``), so a full collection, which stalls
    every request in flight, walks far fewer objects; and the youngest objects are collected
    every :data:`GC_YOUNG` allocations instead of Python's 700 (measured: docs/benchmarks.md,
    "Web server: where a move's CPU goes")."""
    from ..warmup import WARMUP, Warmup, server_steps

    cfg = ServerConfig() if config is None else config

    if warmup is not None:
        engine = warmup
    else:
        engine = WARMUP if cfg.warm_up else Warmup(interpret=False)
    store = Store(cfg.db_url, create=cfg.create_tables)
    pool = AiPool(Agents(cfg.ai_time, engine, table=cfg.ai_table), workers=cfg.ai_workers,
                  queue=cfg.ai_queue, per_client=cfg.ai_per_client)
    hub = Hub(store, pool, expire_days=cfg.expire_days)
    lobby = CappedLobby(store, per_client=cfg.challenges_per_client)
    analyses = Analyses(store, pool, nodes=cfg.analysis_nodes, queue=cfg.analysis_queue,
                        per_client=cfg.analysis_per_client)
    accounts = Accounts(store)
    passwords = PasswordWork(cfg.hash_workers)
    work_pool = WorkPool(cfg.work_processes, prepare)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if cfg.warm_up:
            await asyncio.to_thread(engine.add, server_steps())
        tasks: list[asyncio.Task[None]] = []
        if store.shared:
            heard = asyncio.Event()
            tasks.append(asyncio.create_task(listen_forever(hub, store.listen_url(), heard,
                                                            lobby=lobby.heard)))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(heard.wait(), 10)  # else it goes on trying meanwhile
        if cfg.tune_gc:  # before any room exists: a frozen cycle is never collected
            gc.collect()
            gc.freeze()
            gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
            if cfg.warm_up:
                tasks.append(asyncio.create_task(_freeze_after_warm_up(engine, hub)))
        await hub.expire_idle()  # before resuming, so the computer does not wake them
        await hub.resume_all()
        tasks.append(asyncio.create_task(hub.expire_forever()))
        tasks.append(asyncio.create_task(watch_clocks(hub, cfg.clock_every)))
        tasks.append(asyncio.create_task(lobby.sweep_forever()))
        tasks.append(asyncio.create_task(expire_forever(accounts)))
        work_pool.open(start=cfg.warm_up)
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await work_pool.close()
            await analyses.close()
            await hub.close()
            pool.close()
            passwords.close()
            store.close()

    app = _App(title="nugar", version="1", lifespan=lifespan,
               docs_url="/docs" if cfg.api_docs else None,
               redoc_url="/redoc" if cfg.api_docs else None,
               description="Play Dara, Dala, Kalah and Dracala: against the AI, against a "
               "friend by link, or hot-seat. Errors are JSON {error, detail}.")
    app.state.services = Services(
        store=store, hub=hub, lobby=lobby, ai_pool=pool, analyses=analyses, accounts=accounts,
        passwords=passwords, pages=RenderedPages(),
        work=None if cfg.work_rate is None else Work(cfg.work_rate), work_pool=work_pool,
        warmup=engine, puzzles=PuzzleBounds(), public_url=cfg.public_url.rstrip("/"))
    # in front of FastAPI's own middleware (its error and telemetry layers): the access log
    # (when on) outermost, then the security headers, so refusals get them too; then the
    # size and rate guard; then the check of requests made with the session cookie from
    # other sites; then the move fast lane, inside both, so a plain move skips FastAPI's
    # routing
    if cfg.access_log:
        _log_access()

    def front(inner: ASGIApp) -> ASGIApp:
        guarded = SecurityHeaders(
            Guard(CrossSiteGuard(MoveLane(inner) if cfg.fast_lane else inner, cfg.public_url),
                  max_body=cfg.max_body, rate=cfg.rate, burst=cfg.burst,
                  body_timeout=cfg.body_timeout, sockets=cfg.client_sockets,
                  who=client_key(accounts)),
            docs=cfg.api_docs, https=cfg.public_url.startswith("https:"))
        return AccessLog(guarded) if cfg.access_log else guarded

    app.front = front
    add_error_handlers(app)
    app.mount("/static", StaticFiles(directory=static_i18n.STATIC), name="static")
    app.include_router(routes_pages.router)
    app.include_router(routes_i18n.router)
    app.include_router(routes_api.router)
    app.include_router(routes_ws.router)
    app.include_router(routes_lobby.router)
    app.include_router(routes_lessons.router)
    app.include_router(routes_puzzles.router)
    app.include_router(routes_analysis.router)
    app.include_router(routes_accounts.router)
    app.include_router(routes_bot.router)
    return app
