"""Exact solutions of the sowing games (Kalah, Dracala): values and principal variations.
The method and the results are in ``docs/solving.md``. The player built on it (``perfect``)
and its opening book are agents, in ``nugar.ai.perfect``: this package imports nothing of
``nugar.ai``."""

from __future__ import annotations

from .core import (
    DEFAULT_MEMORY_MB,
    Progress,
    Solution,
    SolveAborted,
    Solver,
    SolverError,
    check_solvable,
    solve,
)

__all__ = [
    "DEFAULT_MEMORY_MB",
    "Progress",
    "Solution",
    "SolveAborted",
    "Solver",
    "SolverError",
    "check_solvable",
    "solve",
]
