"""The web application: JSON API, websocket per game, and the browser UI's pages.

``create_app(db_url)`` assembles a FastAPI application over one :class:`~.store.Store`: the
routers of the pages (:mod:`.routes_pages`), the API (:mod:`.routes_api`) and the websocket
(:mod:`.routes_ws`), behind the middleware of :mod:`.middleware`. Every game's changes go
through its room in :class:`~.rooms.Hub` and its :class:`~.session.GameSession`. The OpenAPI
schema is at ``/openapi.json``; the interactive ``/docs`` and ``/redoc`` (which load scripts
from a CDN) are served only with ``api_docs=True``. Every response carries the security
headers of :class:`~.middleware.SecurityHeaders`. Errors are always JSON
``{"error": code, "detail": sentence}`` with a 4xx status.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from . import routes_api, routes_pages, routes_ws
from .middleware import Guard, SecurityHeaders, add_error_handlers
from .rooms import Hub
from .session import Agents
from .store import Store

if TYPE_CHECKING:
    from ..warmup import Warmup


def create_app(db_url: str | None = None, *, ai_time: float = 1.0, rate: float | None = 30.0,
               burst: int = 120, max_body: int = 256_000, warm_up: bool = False,
               warmup: Warmup | None = None, public_url: str = "http://127.0.0.1:8000",
               api_docs: bool = False) -> FastAPI:
    """The web application over the database at ``db_url`` (default: SQLite in the user's
    data directory). ``ai_time`` is the AI's thinking time per decision in seconds.
    ``warm_up`` starts compiling what every AI level needs in the background at startup
    (``nugar serve``, with the process's own ``nugar.warmup.WARMUP``: while it compiles,
    requests run the kernels not compiled yet interpreted); without it, an AI move compiles
    what it needs first, as a plain call would. ``warmup`` replaces the compiling used;
    ``GET /api/warmup`` gives its progress. ``public_url`` is the address the players reach
    the server at: the links of a new game start with it (never with the request's ``Host``
    header). ``api_docs`` serves FastAPI's ``/docs`` and ``/redoc``."""
    from ..warmup import WARMUP, Warmup, server_steps

    if warmup is not None:
        engine = warmup
    else:
        engine = WARMUP if warm_up else Warmup(interpret=False)
    store = Store(db_url)
    hub = Hub(store, Agents(ai_time, engine))

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if warm_up:
            await asyncio.to_thread(engine.add, server_steps())
        await hub.resume_all()
        try:
            yield
        finally:
            await hub.close()
            store.close()

    app = FastAPI(title="nugar", version="1", lifespan=lifespan,
                  docs_url="/docs" if api_docs else None,
                  redoc_url="/redoc" if api_docs else None,
                  description="Play Dara, Dala, Kalah and Dracala: against the AI, against a "
                  "friend by link, or hot-seat. Errors are JSON {error, detail}.")
    app.state.hub = hub
    app.state.store = store
    app.state.warmup = engine
    app.state.public_url = public_url.rstrip("/")
    app.add_middleware(Guard, max_body=max_body, rate=rate, burst=burst)
    app.add_middleware(SecurityHeaders, docs=api_docs)  # outermost: refusals get them too
    add_error_handlers(app)
    app.mount("/static", StaticFiles(directory=routes_pages.STATIC), name="static")
    app.include_router(routes_pages.router)
    app.include_router(routes_api.router)
    app.include_router(routes_ws.router)
    return app
