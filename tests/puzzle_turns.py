"""Every whole turn of a position, through the ``Game`` API alone: what the puzzles' tests
check the miner's proofs against (``test_puzzles.py``, ``test_puzzles_server.py``,
``test_browser_puzzles.py``)."""

from __future__ import annotations

from nugar.rules import Game
from nugar.rules.moves import Move


def all_turns(game: Game) -> list[tuple[str, Game]]:
    """Every whole turn of the player to move, with the game after it."""
    mover = game.to_move
    out: list[tuple[str, Game]] = []

    def walk(g: Game, moves: list[Move]) -> None:
        for move in g.legal_moves():
            nxt = g.copy()
            nxt.play(move)
            line = [*moves, move]
            if nxt.is_over or nxt.to_move != mover:
                out.append((game.descriptor.join_turn(line), nxt))
            else:
                walk(nxt, line)
    walk(game, [])
    return out
