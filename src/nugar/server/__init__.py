"""The web app: play in the browser against the AI, a friend by link, or hot-seat.

``create_app(config)`` builds the FastAPI application (``app.py``, from the routers of
``routes_pages.py``, ``routes_api.py`` and ``routes_ws.py`` and ``middleware.py``);
``nugar serve`` runs it (``nugar.cli.serve``). Each game is played by a session that knows
nothing of HTTP (``session.py``), held by one room that stores its changes in order and
announces them (``rooms.py``, through SQLAlchemy in ``store.py``); boards are drawn by
``render.svg`` and, in the page, from the board data by ``static/board.js`` (the same
markup). This package imports FastAPI only when ``create_app`` is called.
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
