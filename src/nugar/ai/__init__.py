"""Computer players for every nugar game, behind one small interface.

>>> import nugar
>>> from nugar.ai import Limits, make_agent
>>> game = nugar.new_game("kalah")
>>> agent = make_agent("greedy:seed=1")
>>> move = agent.choose(game, Limits(time=0.1))
>>> move in game.legal_moves()
True

Agents: ``random``, ``greedy``, ``alphabeta`` (negamax with iterative deepening, compiled),
``mcts`` (UCT with compiled playouts), ``perfect`` (the exact solver of sowing games, in
``perfect.py`` with its opening book) and the levels ``level:N`` (``LEVEL_RANGE``). See
``docs/ai.md``.
"""

from __future__ import annotations

from .agents import (
    AGENT_NAMES,
    DEFAULT_LEVEL,
    LEVEL_RANGE,
    LEVEL_RANGE_TEXT,
    LEVELS,
    TOP_LEVEL,
    level_spec,
    make_agent,
)
from .base import Agent, Analysis, Limits
from .simple import GreedyAgent, RandomAgent

__all__ = [
    "AGENT_NAMES",
    "DEFAULT_LEVEL",
    "LEVELS",
    "LEVEL_RANGE",
    "LEVEL_RANGE_TEXT",
    "TOP_LEVEL",
    "Agent",
    "Analysis",
    "GreedyAgent",
    "Limits",
    "RandomAgent",
    "level_spec",
    "make_agent",
]
