"""A short way through for the request the server answers most: a well-formed move.

``POST /api/games/{id}/move`` is most of a busy server's traffic, and FastAPI's routing,
dependency solving and body model cost more CPU than deciding and storing the move. The
:class:`MoveLane` middleware (inside the size and rate guard, so every bound still applies;
it takes the body the guard read) answers a move whose body is plainly well formed itself: a
JSON object with a text ``move`` (at most 64 characters), an optional text ``key`` (at most
200) and an optional whole ``v`` (1 or more), and nothing else. It calls the same
:meth:`~.rooms.Hub.move` as the route and answers the same JSON (an update, or ``{"error",
"detail"}`` with the same status). Anything else (another path or method, another content
type, a body that is not such an object) goes on to the FastAPI route unchanged, which
validates it and refuses it as it always did; the route also documents the call in the
OpenAPI schema.

The lane also answers ``GET /api/games/{id}`` with no query or a plain ``?since=V`` (the
state a page loads, and what a client that missed versions asks for) through the same
:meth:`~.rooms.Hub.changes` as its route; any other query goes on to the route. And it opens
a game's websocket (``/ws/games/{id}`` with a plain id) with the route's own function, without
FastAPI's routing and dependency solving on every connection.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket

from .errors import ApiError, status_of
from .middleware import BODY, replaying
from .routes_ws import ws_game
from .wire import text_of

if TYPE_CHECKING:
    from .middleware import ASGIApp, Receive, Scope, Send
    from .rooms import Hub

MOVE_PATH = re.compile(r"/api/games/([A-Za-z0-9]{1,32})/move")
STATE_PATH = re.compile(r"/api/games/([A-Za-z0-9]{1,32})")
SOCKET_PATH = re.compile(r"/ws/games/([A-Za-z0-9]{1,32})")
#: the queries the lane answers itself: none, or ``since`` a whole number written plainly
SINCE = re.compile(rb"(?:since=(0|[1-9][0-9]{0,8}))?")


def plain_move(body: bytes) -> tuple[str, str, int | None] | None:
    """``(key, move, v)`` of a body the move route would accept as it is, else ``None``."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or not set(data) <= {"key", "move", "v"}:
        return None
    key = data.get("key", "")
    move = data.get("move")
    v = data.get("v")
    if not (isinstance(move, str) and len(move) <= 64 and isinstance(key, str)
            and len(key) <= 200):
        return None
    if v is not None and not (type(v) is int and v >= 1):
        return None
    return key, move, v


def _json_body(scope: Scope) -> bool:
    """Whether the request declares a JSON body (its first ``content-type`` header)."""
    for name, value in scope.get("headers") or ():
        if name == b"content-type":
            return bool(value.startswith(b"application/json"))
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
                              scope["app"].state.hub)
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
        parsed = plain_move(body)
        if parsed is None:
            await self.app(scope, replaying(body, receive), send)
            return
        key, move, v = parsed
        hub: Hub = scope["app"].state.hub
        extra: list[tuple[bytes, bytes]] = []
        status = 200
        try:
            answer: dict[str, Any] = await hub.move(found.group(1), key, move, expect=v)
        except ApiError as exc:
            status = status_of(exc)
            answer = {"error": exc.code, "detail": exc.detail}
            retry = getattr(exc, "retry_after", None)
            if retry is not None:
                extra.append((b"retry-after", str(retry).encode()))
        await _answer(send, status, answer, extra)

    async def _state(self, scope: Scope, receive: Receive, send: Send) -> None:
        """``GET /api/games/{id}[?since=V]`` answered here, or handed on to the route."""
        found = STATE_PATH.fullmatch(scope.get("path", ""))
        query = SINCE.fullmatch(scope.get("query_string", b"")) if found else None
        if found is None or query is None:
            await self.app(scope, receive, send)
            return
        hub: Hub = scope["app"].state.hub
        since = None if query.group(1) is None else int(query.group(1))
        try:
            answer = await hub.changes(found.group(1), since)
        except ApiError as exc:
            await _answer(send, status_of(exc), {"error": exc.code, "detail": exc.detail}, [])
            return
        await _answer(send, 200, answer, [])


async def _answer(send: Send, status: int, answer: dict[str, Any],
                  extra: list[tuple[bytes, bytes]]) -> None:
    """Send ``answer`` as the JSON response (FastAPI's encoding; an update comes encoded,
    :mod:`.wire`)."""
    out = text_of(answer).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-length", str(len(out)).encode()),
                            (b"content-type", b"application/json"), *extra]})
    await send({"type": "http.response.body", "body": out})
