"""A game's endings as stored, and a stored game rebuilt.

The :class:`~nugar.rules.Game` is the only record of how a game ended: a resignation, an
agreed draw, an adjudication or a loss on time is applied to the game itself. A stored game
is its rule set, its move texts and its imposed ending (:func:`ending_of`), which
:func:`restore` applies again after the moves. A game *aborted* because a player did not make
his first move in time (:mod:`.clocks`), or never made it before the game was left idle for
good (:func:`.timing.expire`), has no result at all, so it is no ending of the game's rules:
the session alone holds it (``GameSession.aborted``, the player who did not move) and it is
stored as the ending ``{"termination": "aborted", "player": p}``, which :func:`restore`
leaves off the game and :func:`aborted_by` reads.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ...errors import IllegalMoveError
from ...i18n import Text
from ...rules import Game, Move, Outcome, Termination, new_game
from ..errors import ApiError

#: the reason (``state["reason"]``, the stored ``reason``) of an aborted game; its result is
#: ``*`` (none, as in a record of a game without one)
ABORTED = "aborted"


def rematch_id(game_id: str, ply: int) -> str:
    """The id of the rematch of game ``game_id`` ended after ``ply`` moves (16 hex digits,
    like every game id; :mod:`.rematch`)."""
    return hashlib.sha256(f"nugar rematch {game_id} {ply}".encode()).hexdigest()[:16]


# --- endings as stored -------------------------------------------------------------------------
def ending_of(game: Game) -> dict[str, Any] | None:
    """The ending imposed on ``game`` (a resignation, an agreed draw, an adjudication, a loss on
    time) as stored next to its moves: ``{"termination": "resigned", "winner": 1}``; ``None``
    while the game runs or when its rules ended it (the moves say so themselves)."""
    outcome = game.outcome
    if outcome is None or outcome.termination.by_rules:
        return None
    return {"termination": str(outcome.termination), "winner": outcome.winner}


def impose(game: Game, outcome: Outcome) -> None:
    """Apply an ending that the rules do not decide to the running ``game``."""
    t, winner = outcome.termination, outcome.winner
    if t is Termination.AGREEMENT:
        game.agree_draw()
    elif t is Termination.ADJUDICATION:
        game.adjudicate(winner)
    elif t is Termination.RESIGNATION and winner in (1, 2):
        game.resign(3 - winner)
    elif t is Termination.TIME and winner in (1, 2):
        game.lose_on_time(3 - winner)
    elif t is Termination.TIME and winner is None:
        game.draw_on_time()
    else:
        raise IllegalMoveError(Text("{outcome} is not an ending a player or an arbiter imposes",
                                    domain="web", outcome=str(outcome)))


def aborted_by(ending: dict[str, Any] | None) -> int | None:
    """The player who did not make his first move, if the stored ``ending`` is an abort."""
    if not ending or ending.get("termination") != ABORTED:
        return None
    player = ending.get("player")
    if player not in (1, 2):
        raise ValueError(f"the stored ending {ending!r} names no player 1 or 2")
    return int(player)


def stored_outcome(ending: dict[str, Any]) -> Outcome:
    """The imposed ending a stored ``ending`` describes; the forms written before endings
    belonged to the game, ``{"resigned": 2}`` and ``{"agreement": true}``, are read too."""
    if "termination" in ending:
        winner = ending.get("winner")
        return Outcome(None if winner is None else int(winner), str(ending["termination"]))
    if "resigned" in ending:
        return Outcome(3 - int(ending["resigned"]), Termination.RESIGNATION)
    if ending.get("agreement"):
        return Outcome(None, Termination.AGREEMENT)
    raise ValueError(f"unknown ending {ending!r}")


def restore(rules: str, moves: list[str], ending: dict[str, Any] | None) -> Game:
    """Rebuild a stored game: its moves in order, each checked by the engine, then its
    imposed ending (an abort is not one: the game stays as its moves left it). A game that
    does not replay is refused as ``corrupt_game``."""
    game = new_game(rules)
    for i, text in enumerate(moves):
        try:
            game.play(Move.parse(text))
        except ValueError as exc:
            raise ApiError("corrupt_game", Text(
                "stored move {i} ({text!r}) cannot be replayed: {exc}",
                domain="web", i=i + 1, text=text, exc=exc)) from None
    if ending:
        try:
            if aborted_by(ending) is None:
                impose(game, stored_outcome(ending))
        except ValueError as exc:
            raise ApiError("corrupt_game", Text(
                "the stored ending {ending!r} cannot be applied: {exc}",
                domain="web", ending=ending, exc=exc)) from None
    return game
