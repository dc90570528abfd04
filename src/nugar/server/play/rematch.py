"""Rematches: after a game, a new game with the same rules and opponents and the seats swapped.

``POST /api/games/{id}/rematch`` (either player, once the game is over) creates the rematch,
or finds it when it was already made, so the two players asking meet in one game:

- its id is derived from the finished game's id and length (:func:`.session.rematch_id`), so every
  worker answers the same id without remembering anything, and a second request (the other
  player, a double click, another worker) finds the game instead of making another one;
- its seats open with the same secrets as before, swapped: the stored hashes of the two
  seats change places (hot-seat: one secret opens both; against the computer, the person
  takes the computer's old seat). No secret is made, sent or stored anew, so the opponent,
  whose browser still holds its secret of the finished game, can take its new seat with it;
- the finished game records the offer (its pending offer ``rematch``: the seat that asked)
  and announces it as the event ``rematch`` with ``{"game": id, "by": seat}``, so the
  opponent's page (and a spectator's) shows a link to the new game at once.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ...i18n import Text
from ..errors import ApiError
from ..storage.store import GameRow, StoredEvent
from . import offers
from .clocks import Clock
from .endings import rematch_id

if TYPE_CHECKING:
    from .rooms import Hub


def _swapped(row: GameRow, new_id: str, now: float, asker: int) -> GameRow:
    """The rematch of ``row`` asked for by the seat ``asker`` (0: hot-seat)."""
    new = GameRow(id=new_id, rules=row.rules, mode=row.mode, ai_level=row.ai_level,
                  ai_seat=None if row.ai_seat is None else 3 - row.ai_seat,
                  key_hash_1=row.key_hash_2, key_hash_2=row.key_hash_1, moves=[],
                  ending=None, offers={}, result=None, reason=None, version=1)
    old_clock = Clock.from_json(row.clock)
    if old_clock is not None:  # the same time control, both clocks full again
        first = new.ai_seat != 1  # the first player's first move is timed, unless the AI's
        # between two people (by link or from the lobby) the opponent may have left: the
        # rematch waits for him to open it; the asker is there (his new seat is 3 - asker)
        seen = ((True, True) if new.mode != "friend" or asker == 0
                else (asker == 2, asker == 1))
        clock = Clock.new(old_clock.control, now, 1 if first else None, seen=seen)
        new.clock, new.deadline = clock.to_json(), clock.deadline()
    return new


async def rematch(hub: Hub, game_id: str, key: str) -> dict[str, Any]:
    """Create (or find) the rematch of a finished game for the player whose secret is
    ``key``: ``{"id", "seat", "state"}``, ``seat`` being that player's seat in the new game
    (0 for hot-seat)."""
    room = await hub.room(game_id)
    session = room.session
    seat = room.seat_of(key)
    if seat is None:
        raise ApiError("bad_key", Text(
            "this secret does not open a seat of this game; spectators cannot ask for a rematch",
            domain="web"))
    if not session.over:
        raise ApiError("game_running", Text(
            "a rematch is offered once the game is over",
            domain="web"))
    row = room.row
    new_id = rematch_id(row.id, len(row.moves))
    if await asyncio.to_thread(hub.store.load, new_id) is None:
        new_row = _swapped(row, new_id, hub.clock(), seat)
        created: dict[str, Any] = {"rules": new_row.rules, "mode": new_row.mode,
                                   "rematch_of": row.id}
        if new_row.clock is not None:
            created["clock"] = new_row.clock["control"]
        first = StoredEvent(1, "created", created)
        try:
            await asyncio.to_thread(hub.store.create, new_row, first)
        except Exception:
            # made meanwhile by another request (another worker): that game is the rematch
            if await asyncio.to_thread(hub.store.load, new_id) is None:
                raise
    await room.act(lambda s: offers.rematch_asked(s, seat, new_id))
    new_room = await hub.room(new_id)
    return {"id": new_id, "seat": 0 if seat == 0 else 3 - seat, "state": new_room.state()}
