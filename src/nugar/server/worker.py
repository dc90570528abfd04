"""One worker process of ``nugar serve --workers N``.

uvicorn's supervisor starts N processes (and starts a new one when one dies); each imports
this module and calls :func:`app_from_env`, which builds the application from the options the
``serve`` command put in the environment variable :data:`ENV` (its
:class:`~.config.ServerConfig` as JSON) before starting them. The
workers share nothing but the listening socket and the PostgreSQL database: a move is decided
by whichever worker receives it and ordered by the database (see :mod:`.rooms`).
"""

from __future__ import annotations

import dataclasses
import json
import os

from fastapi import FastAPI

from .config import ServerConfig

#: the environment variable that carries the application's options to the workers
ENV = "NUGAR_SERVE_WORKER"


def options_env(config: ServerConfig, header_timeout: float,
                client_connections: int | None = None) -> str:
    """The value of :data:`ENV` for ``create_app(config)``, a header timeout and a bound on
    the connections per client address (:mod:`.http_timeouts`; ``None``: no bound)."""
    return json.dumps({"app": dataclasses.asdict(config), "header_timeout": header_timeout,
                       "client_connections": client_connections})


def app_from_env() -> FastAPI:
    """The application of this worker, from :data:`ENV` (uvicorn calls it: ``factory``)."""
    from .app import create_app
    from .http.http_timeouts import set_header_timeout

    text = os.environ.get(ENV)
    if not text:
        raise RuntimeError(f"{ENV} is not set: workers are started by `nugar serve --workers`")
    opts = json.loads(text)
    set_header_timeout(float(opts["header_timeout"]), opts.get("client_connections"))
    return create_app(ServerConfig(**{**opts["app"], "create_tables": False}))
