"""Random play for the tests: a seeded game of random legal moves, through the public API."""

from __future__ import annotations

import random

import nugar

#: enough decisions for any random game of the rule sets in ``rule_sets.py`` to end
UNTIL_THE_END = 100_000


def play_random(game: nugar.Game, rng: random.Random, moves: int) -> nugar.Game:
    """Play up to ``moves`` decisions chosen by ``rng`` among the legal moves, stopping early at
    the end of the game; return the game."""
    for _ in range(moves):
        if game.is_over:
            break
        game.play(rng.choice(game.legal_moves()))
    return game


def random_game(rules: str, seed: int, moves: int = UNTIL_THE_END) -> nugar.Game:
    """A new game of ``rules`` after up to ``moves`` random decisions (``random.Random(seed)``);
    by default played to its end."""
    return play_random(nugar.new_game(rules), random.Random(seed), moves)
