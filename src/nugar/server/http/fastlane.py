"""A short way through for the request the server answers most: a well-formed move.

``POST /api/games/{id}/move`` is most of a busy server's traffic, and FastAPI's routing and
dependency solving cost more CPU than deciding and storing the move (measured with the lane
on and off: docs/benchmarks.md, "The move fast lane, measured"). The :class:`MoveLane`
middleware (inside the size and rate guard, so every bound still applies; it takes the body
the guard read) answers a move whose JSON body the route's own model accepts
(:class:`~.routes_api.MoveBody`, with its limits: pydantic reads it here as the route would).
It calls the same :meth:`~.rooms.Hub.move` as the route, and a refusal is written by the
same :func:`~.middleware.api_refusal` as the route's, in the same language
(:func:`~.language.request_language`). Anything else (another path or method,
another content type, a body the model refuses) goes on to the FastAPI route unchanged,
which refuses it as it always did; the route also documents the call in the OpenAPI schema.

The lane also answers ``GET /api/games/{id}`` with no query or a plain ``?since=V`` (the
state a page loads, and what a client that missed versions asks for) through the same
:meth:`~.rooms.Hub.changes` as its route; any other query goes on to the route. And it opens
a game's websocket (``/ws/games/{id}`` with a plain id) with the route's own function, without
FastAPI's routing and dependency solving on every connection.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocket

from ..errors import ApiError
from ..play.rooms import GAME_ID
from ..play.wire import text_of
from .language import request_language
from .middleware import BODY, api_refusal, in_language, replaying
from .models import MoveBody
from .routes_ws import ws_game
from .services import services

if TYPE_CHECKING:
    from ..play.rooms import Hub
    from .middleware import ASGIApp, Receive, Scope, Send

MOVE_PATH = re.compile(rf"/api/games/({GAME_ID.pattern})/move")
STATE_PATH = re.compile(rf"/api/games/({GAME_ID.pattern})")
SOCKET_PATH = re.compile(rf"/ws/games/({GAME_ID.pattern})")
#: the queries the lane answers itself: none, or ``since`` a whole number written plainly
SINCE = re.compile(rb"(?:since=(0|[1-9][0-9]{0,8}))?")


def move_body(body: bytes) -> MoveBody | None:
    """The move ``body`` as the route reads it (its model, :class:`~.routes_api.MoveBody`),
    or ``None`` when the model refuses it (the route then answers, with its 422)."""
    try:
        return MoveBody.model_validate_json(body)
    except ValidationError:
        return None


def _json_body(scope: Scope) -> bool:
    """Whether the request declares a JSON body: its first ``content-type`` header is
    ``application/json``, parameters aside (the route reads such a body as JSON too)."""
    for name, value in scope.get("headers") or ():
        if name == b"content-type":
            return bool(value.partition(b";")[0].strip().lower() == b"application/json")
    return False


class MoveLane:
    """See the module's text."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            if scope["type"] == "http" and scope.get("method") == "GET":
                await self._state(scope, receive, send)
            elif scope["type"] == "websocket" and (
                    found := SOCKET_PATH.fullmatch(scope.get("path", ""))) is not None:
                await ws_game(WebSocket(scope, receive, send), found.group(1),
                              services(scope["app"]).hub)
            else:
                await self.app(scope, receive, send)
            return
        found = MOVE_PATH.fullmatch(scope.get("path", ""))
        if found is None or not _json_body(scope):
            await self.app(scope, receive, send)
            return
        body: bytes | None = scope.get(BODY)  # the guard in front has read it whole
        if body is None:  # no guard in front: the route reads the body itself
            await self.app(scope, receive, send)
            return
        parsed = move_body(body)
        if parsed is None:
            await self.app(scope, replaying(body, receive), send)
            return
        hub: Hub = services(scope["app"]).hub
        try:
            answer = await hub.move(found.group(1), parsed.key, parsed.move, expect=parsed.v)
        except ApiError as exc:
            lang = await request_language(HTTPConnection(scope))
            await api_refusal(in_language(exc, lang))(scope, receive, send)
            return
        await _answer(send, answer)

    async def _state(self, scope: Scope, receive: Receive, send: Send) -> None:
        """``GET /api/games/{id}[?since=V]`` answered here, or handed on to the route."""
        found = STATE_PATH.fullmatch(scope.get("path", ""))
        query = SINCE.fullmatch(scope.get("query_string", b"")) if found else None
        if found is None or query is None:
            await self.app(scope, receive, send)
            return
        hub: Hub = services(scope["app"]).hub
        since = None if query.group(1) is None else int(query.group(1))
        try:
            answer = await hub.changes(found.group(1), since)
        except ApiError as exc:
            lang = await request_language(HTTPConnection(scope))
            await api_refusal(in_language(exc, lang))(scope, receive, send)
            return
        await _answer(send, answer)


async def _answer(send: Send, answer: dict[str, Any]) -> None:
    """Send ``answer`` as the 200 JSON response (FastAPI's encoding; an update comes encoded,
    :mod:`.wire`)."""
    out = text_of(answer).encode("utf-8")
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", str(len(out)).encode()),
                            (b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": out})
