"""Exact solutions of the sowing games (Kalah, Dracala): values, principal variations and a
perfect-play agent. The method and the results are in ``docs/solving.md``."""

from __future__ import annotations

from .agent import PerfectAgent
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
    "PerfectAgent",
    "Progress",
    "Solution",
    "SolveAborted",
    "Solver",
    "SolverError",
    "check_solvable",
    "solve",
]
