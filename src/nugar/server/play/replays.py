"""The expensive requests' work, as plain functions of plain values: reading a posted record
(``POST /api/replay``) and drawing a game's past position (``GET /api/games/{id}/position``
and ``/svg`` with a past ``ply``).

Each takes what the request carries or the stored row holds (texts, numbers) and returns the
answer's JSON values, so that it can run in a process of the work pool (:mod:`.work_pool`),
where nothing of the server is: the routes (:mod:`.routes_api`) price it per client and hand
it there. :func:`prepare` is what such a process does first.
"""

from __future__ import annotations

from typing import Any

from ...i18n import Text
from ...rules import PRESETS, Game, Move, new_game
from ..errors import ApiError, reason
from .endings import restore
from .render import board_data, svg

#: the most moves a record sent to ``POST /api/replay`` may hold (reading stops beyond them)
MAX_REPLAY_MOVES = 5000
#: the longest record text ``POST /api/replay`` reads, in characters
MAX_REPLAY_CHARS = 200_000
#: a bound on the size of a ``POST /api/replay`` answer in bytes: the record's turns (their
#: texts are shorter than the record, with ~40 bytes of JSON each) and one position (its board
#: data and its SVG, under 400 KB on the largest board)
MAX_REPLAY_RESPONSE = 2 * MAX_REPLAY_CHARS + 40 * MAX_REPLAY_MOVES + 400_000


def last_turn(game: Game) -> tuple[list[Move], int | None]:
    """The moves of the game's last turn (the ones a drawing marks) and who played them."""
    turns = game.turn_list()
    return (list(turns[-1][1]), turns[-1][0]) if turns else ([], None)


def position(game: Game, ply: int) -> dict[str, Any]:
    """The answer of ``GET /api/games/{id}/position`` for ``game`` after ``ply`` moves."""
    last, mover = last_turn(game)
    return {"ply": ply, "board": board_data(game), "last_turn": [str(m) for m in last],
            "last_mover": mover, "svg": svg(game, last_move=last)}


def picture(game: Game) -> str:
    """The answer of ``GET /api/games/{id}/svg``: ``game``'s board, its last turn marked."""
    return svg(game, last_move=last_turn(game)[0])


def position_after(rules: str, moves: list[str]) -> dict[str, Any]:
    """:func:`position` after ``moves`` (a stored game's first moves) of ``rules``."""
    return position(restore(rules, moves, None), len(moves))


def picture_after(rules: str, moves: list[str]) -> str:
    """:func:`picture` after ``moves`` (a stored game's first moves) of ``rules``."""
    return picture(restore(rules, moves, None))


def replay(record: str, turn: int | None) -> dict[str, Any]:
    """The answer of ``POST /api/replay``: read the record (one game, at most
    :data:`MAX_REPLAY_MOVES` moves: reading stops at either bound) and draw the position
    after ``turn`` turns (``None``: the last)."""
    from ...record import load_one

    try:
        rec = load_one(record, max_moves=MAX_REPLAY_MOVES)
    except ValueError as exc:
        raise ApiError("bad_record", reason(exc)) from None
    game = rec.game
    turn_list = game.turn_list()
    turn = len(turn_list) if turn is None else turn
    if turn > len(turn_list):
        raise ApiError("bad_turn", Text(
            "turn must be between 0 and {count} for this record, not {turn}",
            domain="web", count=len(turn_list), turn=turn))
    view = new_game(game.rules)
    for _, moves in turn_list[:turn]:
        for m in moves:
            view.play(m)
    mover, last = turn_list[turn - 1] if turn else (None, [])
    outcome = game.outcome
    return {"rules": game.rules.text, "game": game.rules.game, "family": game.rules.family,
            "players": [game.player_name(1), game.player_name(2)],
            "tags": dict(rec.tags),
            "turns": [{"player": player, "text": text, "n": len(moves)}
                      for (player, moves), text in zip(turn_list, game.turns(), strict=True)],
            "position": {"turn": turn, "ply": len(view.move_stack), "board": board_data(view),
                         "last_turn": [str(m) for m in last], "last_mover": mover,
                         "svg": svg(view, last_move=last)},
            "result": None if outcome is None else outcome.result,
            "reason": None if outcome is None else outcome.reason,
            "winner": None if outcome is None else outcome.winner,
            "score": list(game.score), "misere": game.rules.misere}


def read_game(record: str) -> Game:
    """The game of a pasted record (at most :data:`MAX_REPLAY_CHARS` characters and
    :data:`MAX_REPLAY_MOVES` moves), for its analysis: a game pickles, so the work pool's
    process reads it and the server receives it whole."""
    from ...record import load_one

    try:
        return load_one(record, max_moves=MAX_REPLAY_MOVES).game
    except ValueError as exc:
        raise ApiError("bad_record", reason(exc)) from None


def prepare() -> None:
    """Load the compiled kernels the jobs use (every preset's rules, the drawing): what a
    work pool process does first, so that its first real job does not wait for them."""
    from ...record import dumps

    for name in PRESETS:
        game = new_game(name)
        for _ in range(6):
            if game.outcome is not None:
                break
            game.play(game.legal_moves()[0])
        replay(dumps(game, {}), None)
        position_after(name, [str(m) for m in game.move_stack])
