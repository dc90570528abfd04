"""A signed-in player's games in progress (``GET /api/me/games``): every unfinished game with
his account on a seat, whatever its mode, each saying whose turn it is and, for a game with a
clock, the time left to the player to move; the games where it is his turn come first (the
one whose clock runs out soonest first), then the others, most recently changed first. The
count of games where it is his turn is the reminder the pages show once he is signed in.

Whose turn it is is not a column of the stored game: it is what its moves leave, so each game
is replayed (:func:`.session.restore`) once per stored version and the answer kept in a small
bounded cache (:data:`CACHE`), so the page loads that ask again cost one query. At most
:data:`MAX_ACTIVE` games (the most recently changed) are looked at, :data:`PAGE` a page.

The time left is read from the stored clock at the server's time (the hub's clock, which
tests replace): a game whose clock ran out shows no time left until the watcher
(:func:`.clocks.watch_clocks`) ends it, within its period.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from sqlalchemy import or_, select

from ..errors import ApiError
from ..players.standings import names_of
from ..storage.store import Store, games_table
from .clocks import Clock
from .endings import restore

#: games of a page of the list
PAGE = 20
#: the most unfinished games of one player the list looks at (the most recently changed)
MAX_ACTIVE = 200
#: (game id, version) -> the player to move, for this many stored versions
CACHE = 4096

_g = games_table
_to_move: OrderedDict[tuple[str, int], int | None] = OrderedDict()
_lock = threading.Lock()


def to_move(game_id: str, version: int, rules: str, moves: list[str],
            ending: dict[str, Any] | None) -> int | None:
    """The player to move in a stored game (``None``: none, the game is over as its moves
    left it), replayed once per version."""
    key = (game_id, version)
    with _lock:
        if key in _to_move:
            _to_move.move_to_end(key)
            return _to_move[key]
    game = restore(rules, moves, ending)
    mover = None if game.is_over else game.to_move
    with _lock:
        _to_move[key] = mover
        while len(_to_move) > CACHE:
            _to_move.popitem(last=False)
    return mover


def _mover_left(clock: Clock | None, mover: int | None, now: float) -> float | None:
    """Seconds left to the player to move: his first move's own timer while it is awaited,
    else his clock; ``None`` without a clock, or while the game waits for a seat to open."""
    if clock is None or mover is None or not clock.ready:
        return None
    if clock.awaiting == mover:
        first = clock.first_remaining(now)
        return None if first is None else round(first, 3)
    return round(clock.remaining(mover, now), 3)


def my_games(store: Store, account_id: int, now: float, page: int = 1) -> dict[str, Any]:
    """``GET /api/me/games`` of the account ``account_id`` at the server's time ``now``
    (blocking: run in a worker thread): ``games`` (a page), ``your_turn`` (how many of all
    the games looked at wait for his move), ``total``, ``page`` and ``more``."""
    mine = or_(_g.c.account_1 == account_id, _g.c.account_2 == account_id)
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(_g.c.id, _g.c.rules, _g.c.mode, _g.c.ai_level, _g.c.ai_seat, _g.c.moves,
                   _g.c.ending, _g.c.version, _g.c.updated, _g.c.clock, _g.c.account_1,
                   _g.c.account_2, _g.c.rated)
            .where(mine).where(_g.c.result.is_(None))
            .order_by(_g.c.updated.desc(), _g.c.id).limit(MAX_ACTIVE)).all()
    others = {a for r in rows for a in (r.account_1, r.account_2)
              if a is not None and a != account_id}
    names = names_of(store, others)
    games: list[dict[str, Any]] = []
    for r in rows:
        game = _entry(r, account_id, names, now)
        if game is not None:
            games.append(game)
    waiting = [g for g in games if g["your_turn"]]
    waiting.sort(key=lambda g: (g["left"] is None, g["left"] or 0.0))
    rest = [g for g in games if not g["your_turn"]]
    ordered = waiting + rest
    start = (page - 1) * PAGE
    return {"games": ordered[start:start + PAGE], "your_turn": len(waiting),
            "total": len(ordered), "page": page, "more": len(ordered) > start + PAGE}


def _entry(r: Any, account_id: int, names: dict[int, str], now: float
           ) -> dict[str, Any] | None:
    """One game of the list; ``None`` for a stored game that does not read (it is left out:
    opening it says what is wrong)."""
    try:
        moves = json.loads(r.moves)
        ending = json.loads(r.ending) if r.ending else None
        clock = Clock.from_json(json.loads(r.clock) if r.clock else None)
        mover = to_move(r.id, r.version, r.rules, moves, ending)
    except (ApiError, ValueError, TypeError, KeyError):
        return None
    # both seats his: a game by link whose two links he opened signed in (no opponent named)
    seats = [s for s, a in ((1, r.account_1), (2, r.account_2)) if a == account_id]
    other = r.account_2 if seats == [1] else r.account_1 if seats == [2] else None
    if r.mode == "ai":
        opponent: str | None = f"nugar AI level {r.ai_level}"
    else:
        opponent = names.get(other) if other is not None else None
    return {"id": r.id, "rules": r.rules, "mode": r.mode, "seat": seats[0],
            "opponent": opponent, "rated": bool(r.rated), "to_move": mover,
            "your_turn": mover in seats, "moves": len(moves),
            "clock": None if clock is None else {
                "control": clock.control.text, "kind": clock.control.kind,
                "describe": clock.control.describe()},
            "left": _mover_left(clock, mover, now), "updated": r.updated}
