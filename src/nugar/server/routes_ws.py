"""The web app's websocket: ``/ws/games/{id}?since=V`` sends a game's events as they happen.

On connecting, the client gets what it missed (:meth:`~.rooms.Hub.catch_up`); then every
event of the game, in order, each once. It may send ``{"type": "sync", "since": V}`` and
``{"type": "ping"}``; more than 20 messages a second, or one over 1000 characters, closes the
socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from .rooms import Hub, Room
from .routes_api import HubDep
from .session import ApiError

log = logging.getLogger("nugar.server")

#: most messages a client may send in one second, and the longest one
MAX_MESSAGES_PER_SECOND = 20
MAX_MESSAGE_CHARS = 1000

router = APIRouter()


@router.websocket("/ws/games/{game_id}")
async def ws_game(websocket: WebSocket, game_id: str, hub: HubDep) -> None:
    await websocket.accept()
    try:
        room = await hub.room(game_id)
    except ApiError as exc:
        await websocket.send_json({"type": "error", "error": exc.code, "detail": exc.detail})
        await websocket.close(code=4404)
        return
    await GameSocket(websocket, hub, room).run(_since(websocket.query_params.get("since")))


def _since(text: Any) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


class GameSocket:
    """One client's websocket on one game: the live events and the replies to the client take
    turns on the socket, and no event is sent twice."""

    def __init__(self, websocket: WebSocket, hub: Hub, room: Room) -> None:
        self.websocket = websocket
        self.hub = hub
        self.room = room
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.last_sent = 0
        self.send_lock = asyncio.Lock()

    async def send_all(self, messages: list[dict[str, Any]]) -> None:
        async with self.send_lock:
            for msg in messages:
                if msg["type"] == "uptodate":
                    self.last_sent = max(self.last_sent, msg["v"])
                elif msg["type"] != "sync" and msg["v"] <= self.last_sent:
                    continue  # already sent (a live event raced a catch-up)
                await self.websocket.send_json(msg)
                self.last_sent = max(self.last_sent, msg["v"])

    async def reply(self, msg: dict[str, Any]) -> None:
        async with self.send_lock:
            await self.websocket.send_json(msg)

    async def pump(self) -> None:
        while True:
            msg = await self.queue.get()
            await self.send_all([msg])

    async def run(self, since: int | None) -> None:
        room = self.room
        room.listeners.add(self.queue)
        pump_task: asyncio.Task[None] | None = None
        try:
            await self.send_all(await self.hub.catch_up(room, since))
            pump_task = asyncio.create_task(self.pump())
            await self.receive()
        except (WebSocketDisconnect, RuntimeError):
            pass
        except Exception:  # a malformed frame (e.g. bytes) ends this socket, not the server
            log.warning("websocket for game %s closed on bad input", room.row.id, exc_info=True)
            with contextlib.suppress(Exception):
                await self.websocket.close(code=1003)
        finally:
            room.listeners.discard(self.queue)
            if pump_task is not None:
                pump_task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await pump_task

    async def receive(self) -> None:
        """Answer the client's messages until it goes or floods."""
        window_start, count = time.monotonic(), 0
        while True:
            text = await self.websocket.receive_text()
            now = time.monotonic()
            if now - window_start > 1.0:
                window_start, count = now, 0
            count += 1
            if count > MAX_MESSAGES_PER_SECOND or len(text) > MAX_MESSAGE_CHARS:
                await self.websocket.close(code=1008)
                return
            try:
                msg = json.loads(text)
            except ValueError:
                msg = None
            if not isinstance(msg, dict):
                await self.reply({"type": "error", "error": "bad_message",
                                  "detail": 'send JSON objects such as {"type": "sync", '
                                            '"since": 3}'})
            elif msg.get("type") == "sync":
                s = msg.get("since")
                await self.send_all(await self.hub.catch_up(self.room,
                                                            s if isinstance(s, int) else None))
            elif msg.get("type") == "ping":
                await self.reply({"type": "pong", "v": self.room.row.version})
            else:
                await self.reply({"type": "error", "error": "bad_message",
                                  "detail": "message types are sync and ping"})
