"""``perfect``: an agent that plays every sowing position optimally by solving it.

It keeps one :class:`~nugar.solver.core.Solver` per rule set for its whole life, so the
table filled while solving one move answers most of the next (positions along a game are
the subtrees already searched). The opening positions of the Dracala presets and of
standard Kalah(6, 4), the slow ones, come from the shipped book (``book.py``: every
position up to the AI profile's ``book_depth`` decisions in, and in Kalah then the perfect
player's own lines down to its ``book_seeds`` seeds on the board). The score it reports is the
solver's exact value for the player to move (``docs/solving.md``): in Kalah the final
margin; under misère rules (``misere=on``, Dracala) ``result * (2T + 1) + misère margin``,
so any win scores above every draw and loss.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from ..kernels.common import ST_OUTCOME
from ..rules.base import Game, Move
from ..rules.options import RuleSet
from ..rules.sowing import SowingGame
from ..solver.core import (
    DEFAULT_MEMORY_MB,
    Solution,
    SolveAborted,
    Solver,
    SolverError,
    check_solvable,
)
from ..solver.kernels import S_NODES
from .alphabeta import AlphaBetaAgent, AlphaBetaOptions
from .base import Agent, Analysis, Limits, check_playable
from .book import lookup
from .options import AgentOptions, configure, int_option

#: the quick search whose choice of reply the swindle expects of a fallible opponent
#: (``alphabeta:nodes=500``)
SWINDLE_MODEL = AlphaBetaOptions(nodes=500)


#: the largest table the agent may ask for, in MB (a terabyte: far beyond any machine here)
MAX_MEMORY_MB = 1 << 20


@dataclass(frozen=True)
class PerfectOptions(AgentOptions):
    """``perfect:memory=MB,swindle=1,build=0``."""

    agent = "perfect"
    memory: int = int_option(DEFAULT_MEMORY_MB, 1, MAX_MEMORY_MB, "the solver's table in MB")
    swindle: int = int_option(0, 0, 1, "1: where it cannot win, prefer the steps that give "
                              "the opponent the best chance to go wrong")
    build: int = int_option(1, 0, 1, "0: never build an endgame database in memory during a "
                            "move, only read those on disk (level 8 of Kalah)")


class PerfectAgent(Agent):
    """Plays optimally (``make_agent("perfect")``; options in :class:`PerfectOptions`).

    ``limits.time``, when given, is a safety net, not a budget: if the position cannot be
    solved in time the agent plays the table's best step found so far (or the first legal
    step) and reports ``depth=0``; a solved move reports ``depth`` = length of the principal
    variation. Depth and node limits are ignored: a partial solve means nothing.

    With ``swindle=1`` (``perfect:swindle=1``, level 8 of Dracala) it still never gives
    up a better result, but where it cannot win it chooses, among the steps that keep its
    result, the one that leaves the opponent the largest share of replies that throw the
    opponent's result away: a fallible opponent then errs more often. A won position is
    played as without it.
    """

    def __init__(self, options: PerfectOptions | None = None, /, **changes: Any) -> None:
        self.options = configure(PerfectOptions, options, changes)
        self.spec = self.options.spec
        self.swindle = bool(self.options.swindle)
        self._solvers: dict[str, Solver] = {}
        self._model: Agent | None = None
        #: the last exact value this agent learned (book or solve) and its player to move:
        #: the first guess of the next solve (the game's value changes only by the
        #: opponent's mistakes, so it is usually close; a wrong guess only costs time)
        self._last: tuple[str, int, int] | None = None
        #: the solver being opened in the background while the book answers (below)
        self._opening: threading.Thread | None = None

    def solver_for(self, game: Game) -> Solver:
        if self._opening is not None:
            self._opening.join()
            self._opening = None
        return self._open(game)

    def _open(self, game: Game) -> Solver:
        text = game.rules.text
        solver = self._solvers.get(text)
        if solver is None:
            check_solvable(game.rules)
            solver = Solver(game.rules, max_memory_mb=self.options.memory,
                            build_db=bool(self.options.build))
            self._solvers = {text: solver}  # one table at a time bounds the memory
        return solver

    def open_soon(self, game: Game, wait: float | None = None) -> bool:
        """Whether the solver for ``game``'s rules is open within ``wait`` seconds (``None``:
        however long opening takes), so that a solve can start. It opens in the background
        (as after the book's answers: with the compiled code in numba's cache, a few
        hundredths of a second; the first time, while the code compiles, minutes), and if
        it is not open in time, ``False``: level 8 searches meanwhile. An opening that
        failed in the background is tried again, and its error raised, by the next solve."""
        if self._opening is None and game.rules.text in self._solvers:
            return True
        self._open_in_background(game)
        opening = self._opening
        if opening is not None:
            opening.join(wait)
            if opening.is_alive():
                return False
            self._opening = None
        return True

    def _open_in_background(self, game: Game) -> None:
        """Open the solver for ``game``'s rules in a thread, if it is not open: opening
        checks the endgame databases on disk (a checksum of every file, timed in
        docs/solving.md, "Kalah endgame databases on disk") and loads the compiled search,
        which the book's answers need not wait for; the first solve joins the thread."""
        if self._opening is not None or game.rules.text in self._solvers:
            return

        state = game.state.copy()

        def work() -> None:
            try:
                solver = self._open(game)
                # one node of search loads the compiled search from numba's cache, which
                # the first solve would otherwise wait for; not where the search would
                # first build a database in memory
                if solver.disk is not None or solver.db_seeds <= 0:
                    solver.search(state, -1, 0, node_limit=int(solver.stats[0]) + 1)
            except Exception:  # SolveAborted after the one node, as meant; any other error
                pass           # comes again from the first solve, which reports it

        self._opening = threading.Thread(target=work, name="nugar-perfect-open", daemon=True)
        self._opening.start()

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        check_playable(game)
        start = time.perf_counter()
        found = self.attempt(game, None if limits is None else limits.time)
        if found is not None:
            return found
        assert isinstance(game, SowingGame)  # attempt checked that the solver covers it
        return self._fallback(game, self.solver_for(game), start)

    def attempt(self, game: Game, time_limit: float | None = None,
                max_nodes: int | None = None) -> Analysis | None:
        """The book's answer for ``game``, or else the solved answer found within
        ``time_limit`` seconds and ``max_nodes`` positions of the solver (``None``: no cap);
        ``None`` when the solver did not finish (its table keeps what it found, for the next
        attempt). Level 8 tries the solver this way before its search decides."""
        start = time.perf_counter()
        known = self.book_answer(game)
        if known is not None:
            return known
        assert isinstance(game, SowingGame)  # book_answer checked that the solver covers it
        try:
            solution, step = self.decide(game, time_limit, max_nodes)
        except SolveAborted:
            return None
        pv = _line_from(step, solution.pv)
        return Analysis(move=pv[0], score=float(solution.value), depth=len(solution.pv),
                        nodes=solution.nodes, pv=pv, seconds=time.perf_counter() - start)

    def book_answer(self, game: Game) -> Analysis | None:
        """The shipped opening book's answer for ``game``'s position (``None``: not in it);
        the solver starts opening in the background meanwhile."""
        check_playable(game)
        check_solvable(game.rules)
        start = time.perf_counter()
        assert isinstance(game, SowingGame)  # check_solvable passed
        entry = lookup(game.rules.text, game.params, game.state)
        if entry is not None and self.swindle and "swindle" not in entry \
                and entry["result"] != "win":
            entry = None  # a Kalah entry has no swindle step; only a won position needs none
        if entry is None:
            return None
        step = entry["swindle"] if self.swindle and "swindle" in entry else entry["pv"][0]
        self._last = (game.rules.text, game.to_move, int(entry["value"]))
        self._open_in_background(game)
        return Analysis(move=Move.sow(step + 1), score=float(entry["value"]),
                        depth=entry["length"], nodes=0,
                        pv=_line_from(step, [Move.sow(a + 1) for a in entry["pv"]]),
                        seconds=time.perf_counter() - start)

    def decide(self, game: SowingGame, time_limit: float | None = None,
               max_nodes: int | None = None) -> tuple[Solution, int]:
        """Solve ``game``'s position (without the book) and return the solution and the step
        (an action) this agent plays there: the solution's first step, or with ``swindle``
        in a drawn or lost position the swindle's choice. Raises ``SolveAborted`` when the
        position is not solved within ``time_limit`` seconds and ``max_nodes`` positions
        (the swindle's searches included; out of either there, the solution's step)."""
        start = time.perf_counter()
        solver = self.solver_for(game)
        nodes0 = int(solver.stats[S_NODES])
        guess = 0
        if self._last is not None and self._last[0] == game.rules.text:
            guess = self._last[2] if self._last[1] == game.to_move else -self._last[2]
        solution = solver.solve(game, time_limit=time_limit, max_nodes=max_nodes, guess=guess)
        self._last = (game.rules.text, game.to_move, solution.value)
        if not solution.pv:
            raise SolverError("the position has no legal step to play")
        best = solution.pv[0].hole - 1
        result = solver.result_of(game.state, solution.value)
        if not self.swindle or result >= 1:
            return solution, best
        deadline = None if time_limit is None else \
            time.monotonic() + max(0.0, time_limit - (time.perf_counter() - start))
        node_limit = None if max_nodes is None else nodes0 + max_nodes
        try:
            return solution, self._swindle_step(solver, game, result, best, deadline,
                                                node_limit)
        except SolveAborted:  # out of time: the solver's own step is as good
            return solution, best

    def _swindle_step(self, solver: Solver, game: SowingGame, result: int, best: int,
                      deadline: float | None, node_limit: int | None = None) -> int:
        """The step keeping ``result`` (for the player to move, below a win) that gives the
        opponent the best chance to throw its own result away; ``best`` (the solver's step)
        when no step gives any.

        A step's chance is first whether the reply a quick search prefers
        (``SWINDLE_MODEL``) is such a mistake, then the share of all replies that are."""
        me = game.to_move

        def result_for_me(position: SowingGame) -> int:
            r = solver.result(position.state, deadline=deadline, node_limit=node_limit)
            return r if position.to_move == me else -r

        steps = game.legal_actions()
        if len(steps) < 2:
            return best
        if self._model is None:
            self._model = AlphaBetaAgent(SWINDLE_MODEL)
        chosen, chosen_chance = best, (0, 0.0)
        for step in steps:
            child = game.copy()
            child.push_action(step)
            if int(child.state[ST_OUTCOME]) != 0 or child.to_move == me:
                continue  # over, or a bonus step: no reply of the opponent to weigh
            if result_for_me(child) != result:
                continue  # this step would lose ground
            replies = child.legal_actions()
            if len(replies) < 2:
                continue
            mistakes = set()
            for reply in replies:
                after = child.copy()
                after.push_action(reply)
                if result_for_me(after) > result:
                    mistakes.add(reply)
            if not mistakes:
                continue
            likely = self._model.analyse(child, Limits()).move
            chance = (int(child.move_to_action(likely) in mistakes),
                      len(mistakes) / len(replies))
            if chance > chosen_chance:
                chosen, chosen_chance = step, chance
        return chosen

    def _fallback(self, game: Game, solver: Solver, start: float) -> Analysis:
        legal = game.legal_actions()
        assert isinstance(game, SowingGame)
        move: Move = game.action_to_move(solver.table_move(game.state, legal))
        return Analysis(move=move, score=None, depth=0, nodes=0, pv=[move],
                        seconds=time.perf_counter() - start)


#: the reach of the endgame databases on disk recommended for perfect play of a 6-hole Kalah
#: board at about a second a move, with the opening book (docs/solving.md, "Perfect play of
#: Kalah(6, 4)", has their size and build time)
RECOMMENDED_DB_SEEDS = 26

#: boards with fewer seeds than this play perfectly fast enough without databases on disk
DB_NEEDED_FROM = 40

#: about how long building the recommended databases takes on two cores, in minutes
#: (docs/solving.md, "Perfect play of Kalah(6, 4)")
RECOMMENDED_DB_MINUTES = 40


def database_status(rules: RuleSet | str) -> dict[str, Any] | None:
    """What level 8 (and the perfect player) has of ``rules``' endgame databases, as data
    for a face to put in its own words: ``None`` where they play without them (no database
    for these rules, or a board small enough to solve quickly); else ``have`` (levels
    ``0..have`` on disk, -1: none), ``recommended`` (the reach for perfect play at about a
    second a move), its size in ``gigabytes``, about how many ``minutes`` it takes to
    build, the ``command`` that builds it, and ``auto``: the background build of the small
    levels (``solver.autodb.AutoStatus.as_dict``; its ``state`` is ``failed`` with the
    reason when ``NUGAR_AUTO_DB`` cannot be read)."""
    from ..rules.options import parse_rules
    from ..solver import autodb, db, egdb

    rules = parse_rules(rules)
    if not db.supported(rules):
        return None
    o = rules.sowing_options
    if 2 * o.pits * o.seeds < DB_NEEDED_FROM:
        return None
    k = RECOMMENDED_DB_SEEDS
    try:
        auto = autodb.status(rules).as_dict()
    except ValueError as exc:  # a bad NUGAR_AUTO_DB
        auto = autodb.AutoStatus("failed", error=str(exc)).as_dict()
    have = egdb.levels_on_disk(rules)
    return {"have": have, "recommended": k,
            "gigabytes": round(autodb.reach_bytes(o.pits, k) / 2**30, 1),
            "minutes": RECOMMENDED_DB_MINUTES,
            "command": f"nugar solve '{rules.text}' --build-db {k}", "auto": auto}


def database_note(rules: RuleSet | str, *,
                  without: str = "without them a move can take minutes") -> str | None:
    """``None`` when the perfect player has what it needs to play ``rules`` quickly; else
    one line saying how to build the Kalah endgame databases it lacks, ending with
    ``without`` (what happens without them; ``nugar play`` and the web app show it)."""
    from ..rules.options import parse_rules
    from ..solver import db, egdb

    rules = parse_rules(rules)
    if not db.supported(rules):
        return None
    o = rules.sowing_options
    pits, seeds = o.pits, o.seeds
    if 2 * pits * seeds < DB_NEEDED_FROM:
        return None
    k = RECOMMENDED_DB_SEEDS
    have = egdb.levels_on_disk(rules)
    if have >= k:
        return None
    size = sum(egdb.level_count(pits, n) for n in range(k + 1))
    return (f"the perfect player needs the endgame databases for {rules.text} (levels "
            f"0..{k}, {size / 2**30:.1f} GB; {max(have + 1, 0)} built): build them once with "
            f"`nugar solve '{rules.text}' --build-db {k}`; {without}")


def perfect_status(rules: RuleSet) -> dict[str, Any]:
    """``{"offered": ..., "ready": ..., "note": ..., "databases": ...}``: whether the
    perfect player plays ``rules`` at all (the sowing games), whether it has what it needs
    to play quickly, else how to get it (:func:`database_note`), and what it has of the
    databases (:func:`database_status`)."""
    from ..rules.family import family_of

    if not family_of(rules).solvable:
        return {"offered": False, "ready": False, "note": None, "databases": None}
    note = database_note(rules)
    return {"offered": True, "ready": note is None, "note": note,
            "databases": database_status(rules)}


def _line_from(step: int, line: list[Move]) -> list[Move]:
    """The line to report for playing ``step`` (an action): the solver's ``line`` when it
    starts with that step, else the step alone (a swindle step leaves the optimal line)."""
    return line if line and line[0].hole - 1 == step else [Move.sow(step + 1)]
