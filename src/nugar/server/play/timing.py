"""What time does to a game, as decisions over a :class:`~.session.GameSession`: a flag that
fell, a first move that never came (an abort), a game left idle for good, and a seat opened
(which starts the first-move timers, :mod:`.clocks`).

Each returns the :class:`~.session.Change` to store, or ``None`` when there is nothing to
do (the game is over, or what was due is no longer due once the game's lock is held: the
callers pass what they read under it). The clocks' arithmetic and the watcher that asks for
these are :mod:`.clocks`.
"""

from __future__ import annotations

from typing import Any

from ...rules import Game
from .session import Change, GameSession


def missing_first_move(game: Game) -> int | None:
    """The player an abort of ``game`` names, if some player has not made his first move (a
    pass counts as a move): the player to move when he has not moved yet (his first move was
    due), else the other one (who never got to move); ``None`` once both players have moved.
    Every mode alike: the computer's seat too."""
    if game.has_moved(1) and game.has_moved(2):
        return None
    to_move = game.to_move
    return 3 - to_move if game.has_moved(to_move) else to_move


def abort(session: GameSession, player: int | None, **extra: Any) -> Change | None:
    """Abort the game, naming ``player`` (whose first move is overdue, or who never made
    it): no result, no winner, the change ``abort``. ``None`` if the game is over or no
    player is named."""
    if player is None or session.over:
        return None
    return session.abort(player, **extra)


def flag(session: GameSession, player: int | None) -> Change | None:
    """End the game on ``player``'s time, whose flag has fallen: a loss, or a draw when the
    opponent could not win (``Game.time_out``), the change ``flag``; a rated game too early
    to rate is aborted instead (:mod:`.rated`). ``None`` if the game is over or no player is
    named."""
    if player is None or session.over:
        return None
    if session.too_early():
        return session.abort(player, early="time")
    outcome = session.game.time_out(player)
    session.offers = {}
    return Change("flag", {"player": player, "termination": "time",
                           "winner": outcome.winner})


def expire(session: GameSession, idle_version: int, version: int) -> Change | None:
    """Close a game nobody played for too long. A game in which some player never made his
    first move (:func:`missing_first_move`) never got going: it is *aborted* as the
    first-move timer aborts one (no result, the change ``abort`` with ``expired: true``); a
    game both players have moved in is an adjudicated draw (the change ``expired``), unless
    it is rated: then the player to move left it and loses it (``expired`` with ``left``), or
    it is aborted when too early to rate (:mod:`.rated`). ``None``
    if the stored ``version`` is no longer the one found idle (someone acted meanwhile) or the
    game is over."""
    if version != idle_version or session.over:
        return None
    session.offers = {}
    player = missing_first_move(session.game)
    if player is not None:
        return abort(session, player, expired=True)
    if session.rated:  # the player to move left the game
        left = session.game.to_move
        if session.too_early():
            return session.abort(left, expired=True, early="expired")
        session.game.adjudicate(3 - left)
        return Change("expired", {"termination": "adjudication", "winner": 3 - left,
                                  "left": left})
    session.game.adjudicate(None)
    return Change("expired", {"termination": "adjudication", "winner": None})


def opened(session: GameSession, seats: list[int] | None) -> Change | None:
    """The seats ``seats`` have been opened for the first time (:meth:`.rooms.Hub.open_seat`):
    the change ``opened`` (``{seats}``); ``None`` if there are none or the game is over."""
    if session.over or not seats:
        return None
    return Change("opened", {"seats": seats})
