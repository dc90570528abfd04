"""Agents that need no search: ``random`` and ``greedy``.

Both work through the public :class:`~nugar.rules.base.Game` API alone (legal actions,
unchecked ``push_action`` and ``undo``), so they run with any rules engine.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .base import Agent, Analysis, Limits, check_playable
from .options import AgentOptions, configure, float_option, seed_option

if TYPE_CHECKING:
    from ..rules.base import Game

#: a value beyond any material difference, for a move that wins the game outright
WIN_VALUE = 1_000_000.0


@dataclass(frozen=True)
class RandomOptions(AgentOptions):
    """``random:seed=N``."""

    agent = "random"
    seed: int | None = seed_option()


class RandomAgent(Agent):
    """Plays a legal move chosen uniformly at random."""

    def __init__(self, options: RandomOptions | None = None, /, **changes: Any) -> None:
        self.options = configure(RandomOptions, options, changes)
        self.spec = self.options.spec
        self.rng = random.Random(self.options.seed)

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        check_playable(game)
        start = time.perf_counter()
        actions = game.legal_actions()
        action = self.rng.choice(actions)
        move = game.action_to_move(action)
        return Analysis(move, None, 0, len(actions), [move], time.perf_counter() - start,
                        searched=False)


def _balance(game: Game, player: int) -> float:
    """Material (alignment: pieces left) or store (sowing) of ``player`` minus the opponent's.

    Under misère rules (Dracala) the goal is reversed (a store holding more than half of all
    seeds loses), so there the balance is the opponent's store minus the player's.
    """
    first, second = game.score
    balance = float(first - second) if player == 1 else float(second - first)
    return -balance if game.rules.misere else balance


@dataclass(frozen=True)
class GreedyOptions(AgentOptions):
    """``greedy:noise=0.3,seed=N``."""

    agent = "greedy"
    noise: float = float_option(0.0, 0.0, 1.0, doc="the chance of a random move instead")
    seed: int | None = seed_option()


class GreedyAgent(Agent):
    """Takes the move with the best immediate gain, ties broken at random.

    The gain is the change in material (alignment: pieces on board and in hand) or in the
    store difference (sowing; reversed in Dracala, where capturing more than half loses) once
    the mover's own run of decisions is over: a step that forms
    a three counts the best capture it allows, a sowing step that earns a bonus step counts the
    best follow-up (up to ``chain`` decisions). A move that ends the game counts as winning or
    losing outright; a draw counts as no gain. With ``noise`` > 0 it plays a random move with
    that probability instead (the weakest level uses this).
    """

    #: the most decisions of the mover's own run followed after a move
    chain = 4

    def __init__(self, options: GreedyOptions | None = None, /, **changes: Any) -> None:
        self.options = configure(GreedyOptions, options, changes)
        self.spec = self.options.spec
        self.rng = random.Random(self.options.seed)
        self._nodes = 0

    def _value_after(self, game: Game, player: int, base: float, depth: int) -> float:
        """Gain for ``player`` in the position reached, following his own further decisions."""
        self._nodes += 1
        outcome = game.outcome
        if outcome is not None:
            if outcome.winner is None:
                return 0.0
            return WIN_VALUE if outcome.winner == player else -WIN_VALUE
        if game.to_move != player or depth >= self.chain:
            return _balance(game, player) - base
        best = -WIN_VALUE * 2
        for action in game.legal_actions():
            game.push_action(action)
            best = max(best, self._value_after(game, player, base, depth + 1))
            game.undo()
        return best

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        check_playable(game)
        start = time.perf_counter()
        actions = game.legal_actions()
        self._nodes = 0
        noise = self.options.noise
        if noise and self.rng.random() < noise:
            move = game.action_to_move(self.rng.choice(actions))
            return Analysis(move, None, 0, len(actions), [move], time.perf_counter() - start,
                            searched=False)
        player = game.to_move
        base = _balance(game, player)
        best_value = -WIN_VALUE * 4
        best: list[int] = []
        for action in actions:
            game.push_action(action)
            value = self._value_after(game, player, base, 1)
            game.undo()
            if value > best_value:
                best_value, best = value, [action]
            elif value == best_value:
                best.append(action)
        move = game.action_to_move(self.rng.choice(best))
        return Analysis(move, best_value, 1, self._nodes, [move], time.perf_counter() - start)
