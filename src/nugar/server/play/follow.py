"""Following the changes other processes store: a process's rooms kept up with the store.

The store is the authority, the rooms are caches of it (:mod:`.rooms`). On a shared database
(PostgreSQL) every process hears the versions the others store (:mod:`.listen` calls
:meth:`Follower.heard`); a room holding an older version is marked behind (``Room.known``)
and is brought up to the stored game before its next use (:meth:`Follower.refresh`), at once
when someone is watching it, and the events it missed are passed on to its own websocket
listeners. The usual change, moves heard with their events, is played on the cached game
without reading the store (:meth:`Follower._follow_moves`); anything else reads the stored
row (:meth:`~.room.Room.apply_row`). A client that reconnects or asks what changed since a
version gets the events of the journal it missed (:meth:`Follower.catch_up`,
:meth:`Follower.changes`).

Whenever the stored journal is read to tell what happened between two versions, it is used
only if it is :func:`continuous` with what the room holds; otherwise the full state is sent.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from ..errors import ApiError
from ..storage.store import Store, StoredEvent, log_failure
from .room import LISTENER_QUEUE, Room
from .wire import Encoded, event_message

log = logging.getLogger("nugar.server")

#: most journal entries sent to a reconnecting client before it is told to resync instead
MAX_CATCH_UP = 500


def continuous(events: Sequence[StoredEvent], base: int, version: int) -> bool:
    """Whether ``events``, the stored journal read after version ``base`` (oldest first),
    are exactly the changes that lead from ``base`` to the room's ``version``: one event for
    each version ``base + 1`` to ``version``, in order. A journal with a gap, or one that
    does not end at the room's version (a history rewritten meanwhile, or read only in
    part), tells nothing reliable about what changed: the caller sends the full state."""
    if len(events) != version - base:
        return False
    return all(e.version == base + 1 + i for i, e in enumerate(events))


def moves_from_events(ply: int, events: Sequence[StoredEvent]) -> int:
    """How many of the current ``ply`` moves were already there, unchanged, before
    ``events`` (the journal entries after a base version, oldest first): walking back from
    now, a ``move`` event took moves away, an ``undo`` or ``takeback`` put them back; the
    lowest count met is the prefix every version since the base shares."""
    low = ply
    for e in reversed(events):
        n = len(e.data.get("moves", [])) if isinstance(e.data.get("moves"), list) else 0
        if e.type == "move":
            ply -= n
        elif e.type in ("undo", "takeback"):
            ply += n
        low = min(low, ply)
    return max(0, low)


class Follower:
    """Keeps the ``rooms`` of one process up with the ``store``: hears the versions stored
    elsewhere, refreshes the rooms behind them and passes their events on to the rooms'
    listeners, and answers what a client missed. ``fresh_room(game_id)`` is the room of a
    game brought up to the stored version (the Hub's, which also loads it and lets a clock's
    flag fall); a room that no longer replays is dropped from ``rooms``."""

    def __init__(self, store: Store, rooms: MutableMapping[str, Room],
                 fresh_room: Callable[[str], Awaitable[Room]]) -> None:
        self.store = store
        self.rooms = rooms
        self.fresh_room = fresh_room

    # --- hearing ----------------------------------------------------------------------------
    def behind(self, game_id: str, version: int) -> bool:
        """Whether this process holds the game at an older version than ``version`` (an
        announcement of anything else needs no reading)."""
        room = self.rooms.get(game_id)
        return room is not None and version > room.row.version

    def heard(self, game_id: str, version: int, event: StoredEvent | None = None) -> None:
        """Another process (or this one) stored ``version`` of a game (``event``: the change,
        when the announcement carried it): a room holding an older one is refreshed before
        its next use, at once if someone is watching it."""
        room = self.rooms.get(game_id)
        if room is None or version <= room.row.version:
            return
        if event is not None and len(room.heard_events) < LISTENER_QUEUE:
            room.heard_events[version] = event
        if version <= room.known:
            return
        room.known = version
        if room.listeners and (room.following is None or room.following.done()):
            room.following = asyncio.create_task(self._follow(room))

    def heard_all(self) -> None:
        """The announcements may have been missed (the listening connection was lost):
        every room is checked against the store before its next use."""
        for gid, room in list(self.rooms.items()):
            self.heard(gid, room.row.version + 1)

    async def _follow(self, room: Room) -> None:
        try:
            while room.stale and room.listeners and not room.closed:
                await self.refresh(room, if_stale=True)
        except Exception as exc:
            log_failure(f"following game {room.row.id}", exc)

    # --- refreshing -------------------------------------------------------------------------
    async def bring_up(self, room: Room, fresh: bool = False) -> None:
        """Refresh ``room`` if it is behind a version heard of; with ``fresh`` on a shared
        database, the stored version is asked for first (a read must not answer an old
        version)."""
        if fresh and self.store.shared:
            stored = await asyncio.to_thread(self.store.version, room.row.id)
            room.known = max(room.known, stored or 0)
        if room.stale:
            await self.refresh(room, if_stale=True)

    async def refresh(self, room: Room, *, if_stale: bool = False) -> bool:
        """Bring ``room`` to the stored game if another process changed it, and pass the
        events it missed to its listeners; ``True`` if the room changed. ``if_stale``: only
        if the room is still behind a version heard of once the lock is had (a change of
        this process, committed meanwhile, may have brought it there: its own announcement
        can arrive before the change's commit is seen here), without asking the store."""
        async with room.lock:
            if if_stale and not room.stale:
                return False
            return await self._refresh_locked(room)

    async def _refresh_locked(self, room: Room) -> bool:
        if self._follow_moves(room):
            return True
        row = await asyncio.to_thread(self.store.load, room.row.id)
        if row is None or row.version <= room.row.version:
            room.known = room.row.version
            return False
        base = room.row.version
        try:
            room.apply_row(row)
        except ApiError:
            room.closed = True  # the stored game no longer replays: reload it
            if self.rooms.get(row.id) is room:
                del self.rooms[row.id]
            raise
        if room.listeners:
            missed = await asyncio.to_thread(self.store.events_since, row.id, base,
                                             MAX_CATCH_UP, row.version)
            if continuous(missed, base, row.version):
                update = Encoded(room.update(base, moves_from_events(len(row.moves), missed)))
                for e in missed:
                    room.announce(event_message(e.type, e.version, e.data,
                                                update if e is missed[-1] else None))
            else:
                room.announce({"type": "sync", "v": row.version, "data": {},
                               "state": room.state()})
        return True

    def _follow_moves(self, room: Room) -> bool:
        """Bring ``room`` to its ``known`` version without reading the store, when every
        version in between was heard with its event and each is a move (the usual case):
        the moves are played on the cached game and the events passed on to its listeners.
        ``False`` (nothing changed) otherwise, or if a move does not apply (then the store is
        read). A game with a clock is always read from the store: the clocks another process
        stamped on its change are in the stored row, not in the event."""
        if room.clock is not None:
            room.heard_events.clear()
            return False
        base, target = room.row.version, room.known
        events = [room.heard_events.get(v) for v in range(base + 1, target + 1)]
        room.heard_events = {v: e for v, e in room.heard_events.items() if v > target}
        moves: list[str] = []
        for e in events:
            if e is None or e.type != "move" or not isinstance(e.data.get("moves"), list):
                return False
            moves += [str(t) for t in e.data["moves"]]
        session = room.session
        game = session.game
        if not events or session.over:
            return False
        try:
            for text in moves:
                game.play(text)
        except ValueError:
            while len(game.move_stack) > len(room.row.moves):
                game.undo()
            return False
        outcome = game.outcome
        human = any(not e.data.get("ai") for e in events if e is not None)
        old_moves = room.row.moves
        room.took(dataclasses.replace(
            room.row, moves=old_moves + moves, offers={} if human else dict(session.offers),
            result=None if outcome is None else outcome.result,
            reason=None if outcome is None else str(outcome.reason), version=target), game)
        if room.listeners:
            update = Encoded(room.update(base, len(old_moves)))
            for e in events:
                assert e is not None
                room.announce(event_message(e.type, e.version, e.data,
                                            update if e is events[-1] else None))
        return True

    # --- what a client missed ---------------------------------------------------------------
    async def catch_up(self, room: Room, since: int | None) -> list[dict[str, Any]]:
        """What a (re)connecting client needs: the events it missed, or a full state."""
        if self.store.shared:
            room = await self.fresh_room(room.row.id)
        async with room.lock:
            current = room.row.version
            if since is not None and 0 <= since <= current and current - since <= MAX_CATCH_UP:
                if since == current:
                    return [{"type": "uptodate", "v": current}]
                missed = await asyncio.to_thread(self.store.events_since, room.row.id,
                                                 since, MAX_CATCH_UP, current)
                if continuous(missed, since, current):
                    out: list[dict[str, Any]] = [
                        {"type": e.type, "v": e.version, "data": e.data, "update": None}
                        for e in missed]
                    out[-1]["update"] = room.update(
                        since, moves_from_events(len(room.row.moves), missed))
                    return out
            return [{"type": "sync", "v": current, "data": {}, "state": room.state()}]

    async def changes(self, game_id: str, since: int | None) -> dict[str, Any]:
        """``GET /api/games/{id}?since=V``: the update from version ``since`` (the full state
        without it, or when ``since`` is too old or not a version of the game)."""
        room = await self.fresh_room(game_id)
        async with room.lock:
            current = room.row.version
            if since is None or not 0 < since <= current or current - since > MAX_CATCH_UP:
                return room.state()
            if since == current:
                return room.update(since, len(room.row.moves))
            missed = await asyncio.to_thread(self.store.events_since, room.row.id, since,
                                             MAX_CATCH_UP, current)
            if not continuous(missed, since, current):
                return room.state()
            return room.update(since, moves_from_events(len(room.row.moves), missed))
