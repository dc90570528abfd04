"""Computer players for every nugar game, behind one small interface.

>>> import nugar
>>> from nugar.ai import Limits, make_agent
>>> game = nugar.new_game("kalah")
>>> agent = make_agent("greedy:seed=1")
>>> move = agent.choose(game, Limits(time=0.1))
>>> move in game.legal_moves()
True

Agents: ``random``, ``greedy``, ``alphabeta`` (negamax with iterative deepening, compiled),
``mcts`` (UCT with compiled playouts) and ``level:1`` .. ``level:8``. See ``docs/ai.md``.
"""

from __future__ import annotations

from typing import Any

from .agents import AGENT_NAMES, DEFAULT_LEVEL, LEVELS, TOP_LEVEL, make_agent
from .base import Agent, Analysis, Limits
from .simple import GreedyAgent, RandomAgent

__all__ = [
    "AGENT_NAMES",
    "DEFAULT_LEVEL",
    "LEVELS",
    "TOP_LEVEL",
    "Agent",
    "Analysis",
    "GreedyAgent",
    "Limits",
    "RandomAgent",
    "make_agent",
    "solve",
]


def __getattr__(name: str) -> Any:
    """``nugar.ai.solve``: the exact solver of sowing positions (``nugar.solver.solve``),
    imported on first use because the solver's agent itself builds on ``nugar.ai``."""
    if name == "solve":
        from ..solver import solve

        return solve
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
