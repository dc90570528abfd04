"""The web app's websocket: ``/ws/games/{id}?since=V`` sends a game's events as they happen.

On connecting, the client gets what it missed (:meth:`~.rooms.Hub.catch_up`); then every
event of the game, in order, each once. It may send ``{"type": "sync", "since": V}``,
``{"type": "ping"}`` and ``{"type": "open", "key": K}``: a player names his seat by its
secret, which marks the seat opened exactly as ``POST /api/games/{id}/open`` does (the event
``opened``, the first time in a timed game by link: :meth:`~.rooms.Hub.open_seat`) and is
answered ``{"type": "seat", "seat": S, "v": V}`` (a key that opens no seat: an ``error``
message, nothing marked, the socket stays a spectator's). The key travels in a message, not
in the address, so that it never lands in an access log. More than 20 messages a second, or
one over 1000 characters, closes the socket. A client that falls
:data:`~.room.LISTENER_QUEUE` events behind is closed with code :data:`RESYNC_CLOSE` and
reconnects with ``?since=`` (the last version it has).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from ...i18n import Text, say
from ..errors import ApiError, status_of
from ..play.room import Listener, Room
from ..play.rooms import Hub
from ..play.wire import text_of
from .language import request_language
from .services import HubDep

log = logging.getLogger("nugar.server")

#: most messages a client may send in one second, and the longest one
MAX_MESSAGES_PER_SECOND = 20
MAX_MESSAGE_CHARS = 1000
#: the close code of a socket whose client fell too far behind: reconnect with ``?since=``
RESYNC_CLOSE = 4000

class BinaryFrame(Exception):
    """A client sent a binary websocket frame: the messages are JSON text (the socket is
    closed with 1003, in one log line)."""


async def text_frame(websocket: WebSocket) -> str:
    """The text of the client's next message (:class:`BinaryFrame` for a binary one;
    ``WebSocketDisconnect`` once the client went, as Starlette's ``receive_text``)."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    text = message.get("text")
    if not isinstance(text, str):
        raise BinaryFrame
    return text


async def refuse_binary(websocket: WebSocket, what: str) -> None:
    """Close ``websocket`` (``what``: which socket, for the log) after a binary frame."""
    log.warning("%s closed: a binary frame (the messages are JSON text)", what)
    with contextlib.suppress(Exception):
        await websocket.close(code=1003)


router = APIRouter()


@router.websocket("/ws/games/{game_id}")
async def ws_game(websocket: WebSocket, game_id: str, hub: HubDep) -> None:
    """A game's websocket (the module's text); the fast lane (:mod:`.fastlane`) calls it
    directly for a plain game id, FastAPI's routing for anything else."""
    await websocket.accept()
    lang = await request_language(websocket)
    try:
        room = await hub.room(game_id)
    except ApiError as exc:
        await websocket.send_json(_error(exc.code, exc.detail, lang))
        # 4000 + the HTTP status (4404 unknown, 4409 corrupt), the error code as the reason
        await websocket.close(code=4000 + status_of(exc), reason=exc.code)
        return
    await GameSocket(websocket, hub, room, lang).run(_since(websocket.query_params.get("since")))


def _error(code: str, detail: str, lang: str) -> dict[str, Any]:
    """A websocket's ``error`` message: the code as it is, the sentence in ``lang``."""
    return {"type": "error", "error": code, "detail": say(detail, lang, "web")}


def _since(text: Any) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


class GameSocket:
    """One client's websocket on one game: the live events and the replies to the client take
    turns on the socket, and no event is sent twice."""

    def __init__(self, websocket: WebSocket, hub: Hub, room: Room, lang: str = "en") -> None:
        self.websocket = websocket
        self.hub = hub
        self.room = room
        self.listener = Listener()
        self.last_sent = 0
        self.send_lock = asyncio.Lock()
        #: the language of the handshake (cookie, account, Accept-Language): the errors' words
        self.lang = lang

    async def send_all(self, messages: list[dict[str, Any]]) -> None:
        async with self.send_lock:
            for msg in messages:
                if msg["type"] == "uptodate":
                    self.last_sent = max(self.last_sent, msg["v"])
                elif msg["type"] != "sync" and msg["v"] <= self.last_sent:
                    continue  # already sent (a live event raced a catch-up)
                # an event's text was made once for every listener (:mod:`.wire`)
                await self.websocket.send_text(text_of(msg))
                self.last_sent = max(self.last_sent, msg["v"])

    async def reply(self, msg: dict[str, Any]) -> None:
        async with self.send_lock:
            await self.websocket.send_json(msg)

    async def pump(self) -> None:
        while True:
            msg = await self.listener.queue.get()
            await self.send_all([msg])

    async def run(self, since: int | None) -> None:
        room = self.room
        room.listeners.add(self.listener)
        tasks: list[asyncio.Task[None]] = []
        try:
            await self.send_all(await self.hub.catch_up(room, since))
            tasks = [asyncio.create_task(self.receive()), asyncio.create_task(self.pump()),
                     asyncio.create_task(self.wait_dropped())]
            done, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                if task not in done:
                    task.cancel()
            for task in done:
                task.result()  # raises what ended the socket
        except (WebSocketDisconnect, RuntimeError):
            pass
        except BinaryFrame:
            await refuse_binary(self.websocket, f"websocket for game {room.row.id}")
        except ApiError as exc:  # the stored game cannot be read (damaged, or no database)
            with contextlib.suppress(Exception):
                await self.websocket.send_json(_error(exc.code, exc.detail, self.lang))
                await self.websocket.close(code=4000 + status_of(exc), reason=exc.code)
        except Exception:  # anything else ends this socket, not the server
            log.warning("websocket for game %s closed on bad input", room.row.id, exc_info=True)
            with contextlib.suppress(Exception):
                await self.websocket.close(code=1003)
        finally:
            room.listeners.discard(self.listener)
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def wait_dropped(self) -> None:
        """Once the room drops this listener (its queue was full), close the socket with
        :data:`RESYNC_CLOSE`; the websocket library bounds the close handshake."""
        await self.listener.dropped.wait()
        await self.websocket.close(code=RESYNC_CLOSE,
                                   reason=f"fell behind; reconnect with ?since={self.last_sent}")

    async def receive(self) -> None:
        """Answer the client's messages until it goes or floods."""
        window_start, count = time.monotonic(), 0
        while True:
            text = await text_frame(self.websocket)
            now = time.monotonic()
            if now - window_start > 1.0:
                window_start, count = now, 0
            count += 1
            if count > MAX_MESSAGES_PER_SECOND or len(text) > MAX_MESSAGE_CHARS:
                await self.websocket.close(code=1008)
                return
            try:
                msg = json.loads(text)
            except (ValueError, RecursionError):  # not JSON, or nested past the parser
                msg = None
            if not isinstance(msg, dict):
                await self.reply(_error("bad_message", Text(
                    'send JSON objects such as {example}', domain="web",
                    example='{"type": "sync", "since": 3}'), self.lang))
            elif msg.get("type") == "sync":
                s = msg.get("since")
                await self.send_all(await self.hub.catch_up(self.room,
                                                            s if isinstance(s, int) else None))
            elif msg.get("type") == "ping":
                await self.reply({"type": "pong", "v": self.room.row.version})
            elif msg.get("type") == "open":
                await self.open_seat(msg.get("key"))
            else:
                await self.reply(_error("bad_message", Text(
                    "message types are sync, ping and open", domain="web"), self.lang))

    async def open_seat(self, key: Any) -> None:
        """The client names its seat by its secret: the seat is marked opened as by ``POST
        /api/games/{id}/open`` (:meth:`~.rooms.Hub.open_seat`: stored and announced as the
        event ``opened`` the first time, which this socket gets too, as a listener) and the
        client is told which seat it holds; a refusal (a key that opens no seat) is an
        ``error`` message and changes nothing."""
        if not isinstance(key, str) or not key:
            await self.reply(_error("bad_message", Text(
                "open names a seat by its secret: {example}", domain="web",
                example='{"type": "open", "key": "..."}'), self.lang))
            return
        try:
            state = await self.hub.open_seat(self.room.row.id, key)
        except ApiError as exc:
            await self.reply(_error(exc.code, exc.detail, self.lang))
            return
        await self.reply({"type": "seat", "seat": self.room.seat_of(key), "v": state["v"]})
