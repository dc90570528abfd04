"""The web app: play in the browser against the AI, a friend by link, or hot-seat.

``create_app(config)`` builds the FastAPI application (``app.py``, with the settings of
``config.py``). The subpackages point down, each importing only those below it:

- ``http/``: the routers, the middleware, the move fast lane, the pages;
- ``play/``: the games (sessions, rooms, the hub, following, clocks, rematches, the lobby);
- ``players/`` (accounts, standings, lesson progress) and ``work/`` (the AI pool, the work
  pool, the analyses), independent of each other;
- ``storage/``: the store and its migrations;

and under them the modules every layer shares: ``clients.py`` (who is asking, the per-client
tables), ``ratings.py`` (Glicko-2 arithmetic) and ``errors.py`` (the refusals). ``nugar serve``
runs the app (``nugar.cli.serve``; ``worker.py``, one process of ``--workers N``). Each game is
played by a session that knows nothing of HTTP (``play/session.py``), held by one room that
stores its changes in order and announces them (``play/rooms.py``, through SQLAlchemy in
``storage/store.py``); boards are drawn by ``play/render.py`` and, in the page, from the board
data by ``static/board.js`` (the same markup). This package imports FastAPI only when
``create_app`` is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI

    from .config import ServerConfig


def create_app(config: ServerConfig | None = None, **kwargs: Any) -> FastAPI:
    """The web application with the settings of ``config`` (a :class:`.config.ServerConfig`;
    see :func:`.app.create_app`)."""
    from .app import create_app as _create_app

    return _create_app(config, **kwargs)


__all__ = ["create_app"]
