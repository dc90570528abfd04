"""``perfect``: an agent that plays every sowing position optimally by solving it.

It keeps one :class:`~nugar.solver.core.Solver` per rule set for its whole life, so the
table filled while solving one move answers most of the next (positions along a game are
the subtrees already searched). The starting positions of the Dracala presets, the only
slow ones (10 CPU seconds), come from the shipped book (``book.py``). The score it reports
is the solver's exact value for the player to move (``docs/solving.md``): in Kalah the
final margin; in Dracala ``result * (2T + 1) + misère margin``, so any win scores above
every draw and loss.
"""

from __future__ import annotations

import time

from ..ai.base import Agent, Analysis, Limits, check_playable, no_more_options, option_int
from ..rules.base import Game, Move
from ..rules.sowing import SowingGame
from .book import lookup
from .core import DEFAULT_MEMORY_MB, SolveAborted, Solver, SolverError, check_solvable


class PerfectAgent(Agent):
    """Plays optimally (``make_agent("perfect")`` once the lead registers it).

    ``limits.time``, when given, is a safety net, not a budget: if the position cannot be
    solved in time the agent plays the table's best step found so far (or the first legal
    step) and reports ``depth=0``; a solved move reports ``depth`` = length of the principal
    variation. Depth and node limits are ignored: a partial solve means nothing.
    """

    def __init__(self, max_memory_mb: float = DEFAULT_MEMORY_MB) -> None:
        self.max_memory_mb = max_memory_mb
        self.spec = "perfect" if max_memory_mb == DEFAULT_MEMORY_MB else \
            f"perfect:memory={max_memory_mb:g}"
        self._solvers: dict[str, Solver] = {}

    @classmethod
    def from_options(cls, spec: str, options: dict[str, str]) -> PerfectAgent:
        """Build from a parsed spec (``perfect`` or ``perfect:memory=MB``) for make_agent."""
        memory = option_int(spec, options, "memory", 1, DEFAULT_MEMORY_MB)
        no_more_options(spec, "perfect", options, ("memory",))
        assert memory is not None
        return cls(memory)

    def solver_for(self, game: Game) -> Solver:
        text = game.rules.text
        solver = self._solvers.get(text)
        if solver is None:
            check_solvable(game.rules)
            solver = Solver(game.rules, max_memory_mb=self.max_memory_mb)
            self._solvers = {text: solver}  # one table at a time bounds the memory
        return solver

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        check_playable(game)
        check_solvable(game.rules)
        solver = self.solver_for(game)
        start = time.perf_counter()
        assert isinstance(game, SowingGame)  # check_solvable passed
        entry = lookup(game.rules.text, game.params, game.state)
        if entry is not None:  # a starting position solved ahead of time
            pv = [Move.sow(a + 1) for a in entry["pv"]]
            return Analysis(move=pv[0], score=float(entry["value"]), depth=len(pv), nodes=0,
                            pv=pv, seconds=time.perf_counter() - start)
        time_limit = None if limits is None else limits.time
        try:
            solution = solver.solve(game, time_limit=time_limit)
        except SolveAborted:
            return self._fallback(game, solver, start)
        if not solution.pv:
            raise SolverError("the position has no legal step to play")
        return Analysis(move=solution.pv[0], score=float(solution.value),
                        depth=len(solution.pv), nodes=solution.nodes, pv=solution.pv,
                        seconds=time.perf_counter() - start)

    def _fallback(self, game: Game, solver: Solver, start: float) -> Analysis:
        legal = game.legal_actions()
        assert isinstance(game, SowingGame)
        move: Move = game.action_to_move(solver.table_move(game.state, legal))
        return Analysis(move=move, score=None, depth=0, nodes=0, pv=[move],
                        seconds=time.perf_counter() - start)
