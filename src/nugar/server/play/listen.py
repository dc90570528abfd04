"""Hearing the changes other server processes store, through PostgreSQL's LISTEN/NOTIFY.

Every change written to a PostgreSQL store sends ``NOTIFY nugar_events, '<game id> <version>
<type> <data>'`` in its own transaction (:mod:`.store`; the event is left out when too long),
so it is heard once it is committed and never before. :func:`listen_forever` keeps one
connection per process listening on that channel and hands each announcement to
:meth:`~.rooms.Hub.heard`, which refreshes the rooms this process holds (playing the moves it
heard, or reading the store) and passes the events to its websocket listeners. When the
connection is lost, every room is marked to be checked against the store
(:meth:`~.rooms.Hub.heard_all`) and the connection is opened again, waiting up to
:data:`MAX_BACKOFF` seconds between tries. No other service is needed.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..storage.store import CHANNEL, LOBBY_NOTE, StoredEvent

if TYPE_CHECKING:
    from .rooms import Hub

log = logging.getLogger("nugar.server")

#: the longest wait between two tries to open the listening connection again, in seconds
MAX_BACKOFF = 5.0


def parse(payload: str) -> tuple[str, int, StoredEvent | None] | None:
    """``(game id, version, event)`` from an announcement's payload (the event when it came
    with it), or ``None`` if malformed."""
    parts = payload.split(" ", 3)
    if len(parts) < 2 or not parts[0] or not parts[1].isdigit():
        return None
    version = int(parts[1])
    event = None
    if len(parts) == 4:
        try:
            data = json.loads(parts[3])
        except ValueError:
            data = None
        if isinstance(data, dict):
            event = StoredEvent(version, parts[2], data)
    return parts[0], version, event


def _head(payload: str) -> tuple[str, int]:
    """The game id and version an announcement names, without reading its event (version 0
    when malformed: never behind)."""
    game_id, _, rest = payload.partition(" ")
    version = rest.split(" ", 1)[0]
    return game_id, int(version) if version.isdigit() else 0


async def listen_forever(hub: Hub, url: str, ready: asyncio.Event | None = None, *,
                         lobby: Callable[[], None] | None = None) -> None:
    """Listen on :data:`~.store.CHANNEL` at the PostgreSQL database ``url`` (a libpq address)
    until cancelled; ``ready`` is set once the first LISTEN is in place. The announcement
    :data:`~.store.LOBBY_NOTE` (the lobby's challenges changed) calls ``lobby``."""
    import psycopg

    backoff = 0.2
    while True:
        try:
            conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
            async with conn:
                await conn.execute(f"LISTEN {CHANNEL}")
                if ready is not None:
                    ready.set()
                hub.heard_all()  # anything stored while nobody listened is looked up
                if lobby is not None:
                    lobby()
                backoff = 0.2
                async for note in conn.notifies():
                    if note.payload == LOBBY_NOTE:
                        if lobby is not None:
                            lobby()
                        continue
                    if not hub.behind(*_head(note.payload)):
                        continue  # its own change, or a game this process does not hold
                    heard = parse(note.payload)
                    if heard is not None:
                        hub.heard(*heard)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("listening to the database's announcements failed (%s); trying again "
                        "in %.1f s", exc, backoff)
        await asyncio.sleep(backoff)
        backoff = min(MAX_BACKOFF, backoff * 2)
