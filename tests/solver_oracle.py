"""An exact value of a small sowing position by plain exhaustive minimax over the public Game
API, sharing nothing with the solver (no kernel call, no table, no bonus-step bookkeeping: one
fixed point of view, player 1, with ``to_move`` saying who picks), and what the solver's
tests run it on.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from nugar import new_game
from nugar.rules.sowing import SowingGame

Value = tuple[int, int]


def terminal(game: SowingGame) -> Value:
    """Player 1's objective at the end: (result, tie-break), compared as a tuple."""
    s1, s2 = game.score
    outcome = game.outcome
    assert outcome is not None
    if not game.rules.misere:
        return (0, s1 - s2)
    result = 0 if outcome.winner is None else (1 if outcome.winner == 1 else -1)
    return (result, s2 - s1)  # misère: win by many, lose by few


def minimax(game: SowingGame) -> Value:
    """Exact value for player 1: he maximises, player 2 minimises."""
    if game.outcome is not None:
        return terminal(game)
    values = []
    for action in game.legal_actions():
        game.push_action(action)
        values.append(minimax(game))
        game.undo()
    return max(values) if game.to_move == 1 else min(values)


def random_position(rules: str, max_on_board: int, seed: int) -> SowingGame:
    """Random legal play from the start until at most ``max_on_board`` seeds are in holes."""
    rng = random.Random(seed)
    game = new_game(rules)
    assert isinstance(game, SowingGame)
    while game.outcome is None and sum(map(sum, game.holes)) > max_on_board:
        game.push_action(rng.choice(game.legal_actions()))
    return game


def vectors(length: int, total: int) -> Iterator[tuple[int, ...]]:
    """Every vector of ``length`` counts >= 0 summing to ``total``."""
    if length == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in vectors(length - 1, total - first):
            yield (first, *rest)
