"""Storing a game's change: the row it makes, its clocks stamped, written with its event.

The :class:`GameWriter` is the ``write`` of every room of a :class:`~.rooms.Hub`
(:meth:`.room.Room.act`): given a room and the :class:`~.session.Change` its session just
decided, it makes the game's next row (moves, ending, offers, result, the next version) and,
in a timed game, stamps the change on a copy of the clocks (:class:`~.clocks.Clock`), then
writes the row and the change's event in one transaction (:meth:`~.store.Store.write`). The
store is the authority: the row is written only if the stored version is still the room's.
The writer changes nothing of the room; the room takes what was stored, then publishes it.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
from collections.abc import Callable

from ...i18n import Text
from ..errors import ApiError
from ..storage.store import (
    Store,
    StoredEvent,
    VersionConflict,
    failure_text,
    is_database_failure,
)
from .clocks import Clock
from .room import Room, Stored
from .session import Change, GameSession

log = logging.getLogger("nugar.server")


def time_first_moves(clock: Clock, session: GameSession, change: Change,
                     to_move: int | None, now: float) -> None:
    """Note on ``clock`` who has made his first move after ``change`` (a move: its player
    and the forced passes after it; an undo or takeback: read from the game again), and time
    the first move of ``to_move`` if he has not made it (unless he is the computer). A move
    opens its player's seat, as does the change ``opened`` (its ``seats``): the timers
    start once both seats are open (:meth:`Clock.see`)."""
    etype, data = change.type, change.data
    if etype == "move":
        for p in (data.get("player"), *data.get("passed", [])):
            if p in (1, 2):
                clock.played[p - 1] = True
        clock.see([data.get("player", 0)], now)
    elif etype == "opened":
        clock.see(data.get("seats", []), now)
    elif etype in ("undo", "takeback"):
        clock.played = [session.game.has_moved(1), session.game.has_moved(2)]
    waiting = (to_move if to_move is not None and to_move != session.ai_seat
               and not clock.played[to_move - 1] else None)
    clock.wait_for(waiting, now)


class GameWriter:
    """Writes the changes of the rooms of one server to ``store``; ``now()`` stamps the
    clocks."""

    def __init__(self, store: Store, now: Callable[[], float]) -> None:
        self.store = store
        self.now = now

    async def __call__(self, room: Room, change: Change) -> Stored:
        """Store ``change``, already applied to the room's session, as the game's next
        version. Nothing is stored if this raises: ``stale_room`` when another process
        stored the game meanwhile (the room is then refreshed and the request decided
        again), ``storage_failed`` when the database failed."""
        old = room.row
        session = room.session
        game = session.game
        played = change.data.get("moves") if change.type == "move" else None
        if isinstance(played, list) and game.ply == len(old.moves) + len(played):
            moves = old.moves + played  # the usual change: no need to write out every move
        else:
            moves = [str(m) for m in game.move_stack]
        row = copy.copy(old)  # the old row stays as it was until the write succeeds
        row.moves, row.ending, row.offers = moves, session.ending, dict(session.offers)
        row.result, row.reason, row.version = session.result, session.reason, old.version + 1
        clock = room.clock
        if clock is not None:  # the change is stamped on a copy of the clocks
            to_move = None if session.over else game.to_move
            now = self.now()
            passed = change.data.get("passed", []) if change.type == "move" else []
            clock = dataclasses.replace(clock, left=list(clock.left),
                                        played=list(clock.played))
            clock.settle(to_move, now, moved=change.type == "move", passed=passed)
            time_first_moves(clock, session, change, to_move, now)
            row.clock, row.deadline = clock.to_json(), clock.deadline()
        try:
            await self.store.write(row, StoredEvent(row.version, change.type, change.data))
        except VersionConflict as exc:
            # another process stored this game meanwhile: nothing was written
            raise ApiError("stale_room", Text(
                "the game changed on another server while this request was decided; nothing was "
                "changed, try again",
                domain="web")) from exc
        except Exception as exc:
            # the write changed nothing: the room's clocks were not touched (the change was
            # stamped on a copy)
            if is_database_failure(exc):  # one line: what failed, not where
                log.error("storing game %s failed: %s", row.id, failure_text(exc))
            else:
                log.exception("storing game %s failed", row.id)
            raise ApiError("storage_failed", Text(
                "the move could not be stored; nothing was changed, try again",
                domain="web")) from exc
        return Stored(row, clock)
