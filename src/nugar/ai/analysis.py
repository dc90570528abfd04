"""Analysis of a whole game: every position evaluated at a fixed effort, each turn marked by
how much it lost.

The effort is counted in positions searched, never in seconds, so an analysis comes out the
same on any machine: level 8's search (``alphabeta``, without the contempt of Dara's level 8,
so that a draw scores 0 for both sides) with :data:`ANALYSIS_NODES` nodes per decision and a
table of :data:`ANALYSIS_TABLE_MB`; and on the boards the exact solver covers (Kalah,
Dracala), the solver first, with :data:`EXACT_NODES` nodes per position: where it answers in
time the position's value is exact (``exact``), else the search decides. In Dara and Dala the
endgame tablebases built under the user's data folder (``solver/tablebase.py``) give every
position they cover exactly: its value, the plies to the end and to the next capture
(``tablebase``), the tables' best turn and line.

Evaluations (``eval``) are given from the first player's point of view: positive is good for
the first player. A turn's loss is what the position after it is worth to its mover less what
the position before it was worth (the engine's best turn kept it); the AI profile of the
rules (``AiProfile.marks``) says from which loss a turn is an inaccuracy, a mistake or a
blunder. When both values are exact, the mark is exact. docs/ai.md ("Analysis of a game")
gives the method, the units and the thresholds.

:class:`GameAnalyser` works one position at a time (:meth:`GameAnalyser.step`), so that a
server can run each position as one job of its AI pool; :func:`analyse_game` runs them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..rules import new_game
from ..rules.base import Game, Move
from ..rules.family import family_of

if TYPE_CHECKING:
    from ..solver.core import Solver
    from ..solver.tablebase import Tablebase
    from .alphabeta import AlphaBetaAgent

#: nodes the search spends on each decision (level 8's search with a node budget)
ANALYSIS_NODES = 100_000
#: the search's transposition table, in MB (part of the effort: the same on every machine)
ANALYSIS_TABLE_MB = 64.0
#: nodes the exact solver may spend on one position before the search decides instead
EXACT_NODES = 400_000
#: the exact solver's table, in MB
EXACT_MEMORY_MB = 64.0
#: turns of the principal variation kept for each position
PV_TURNS = 8
#: the marks, from the smallest loss up, and their signs in a move list
MARKS: tuple[str, str, str] = ("inaccuracy", "mistake", "blunder")
SYMBOLS: dict[str, str] = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
#: the score of a decided game (a forced result found by the search, or a finished game):
#: what the search reports beyond its win bound, and what a loss is capped at when a value
#: is compared with one that is not on the same scale
WIN_SCORE = 10000.0
WIN_CAP = 1000.0

#: called after each position: (positions done, positions in all)
ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class PositionEval:
    """What the analysis found in one position (after ``ply`` turns)."""

    #: the value, first player's point of view (search units, or the exact scale)
    value: float
    #: from the exact solver (or a finished game)
    exact: bool
    #: the result known for the first player: 1 won, 0 drawn, -1 lost, None not known
    result: int | None
    #: the engine's best turn here (empty once the game is over)
    best: list[Move] = field(default_factory=list)
    #: the engine's line from here, in turn texts, the best turn first
    pv: list[str] = field(default_factory=list)
    #: the tablebases' entry where they cover the position (:func:`tablebase_json`)
    tablebase: dict[str, int] | None = None

    def seen_by(self, player: int) -> float:
        return self.value if player == 1 else -self.value


@dataclass(frozen=True)
class PlyAnalysis:
    """One turn of the game and what the analysis says of it (``ply`` 0: the start)."""

    ply: int
    move: str | None
    player: int | None
    eval: float
    best: str | None
    mark: str | None
    loss: float
    exact: bool
    pv: list[str]
    #: the tablebases' entry of the position after the turn, where they cover it
    #: (:func:`tablebase_json`; ``None`` elsewhere)
    tablebase: dict[str, int] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"ply": self.ply, "move": self.move, "player": self.player,
                "eval": round(self.eval, 2), "best": self.best, "mark": self.mark,
                "loss": round(self.loss, 2), "exact": self.exact, "pv": list(self.pv),
                "tablebase": None if self.tablebase is None else dict(self.tablebase)}


def tablebase_json(to_move: int, value: int, plies: int, to_capture: int) -> dict[str, int]:
    """A tablebase entry as the analysis gives it: for the player ``to_move`` (1 or 2) in
    the position, ``value`` 1 won, 0 drawn, -1 lost, with the plies (turns) to the end of
    the game and to the next capture under best play (0 for a draw), as
    ``Tablebase.probe`` gives them."""
    return {"to_move": to_move, "value": value, "plies": plies, "to_capture": to_capture}


def mark_of(loss: float, thresholds: tuple[float, float, float]) -> str | None:
    """The mark of a turn that lost ``loss`` (``None``: not marked)."""
    out = None
    for name, threshold in zip(MARKS, thresholds, strict=True):
        if loss >= threshold:
            out = name
    return out


def loss_of(before: PositionEval, after: PositionEval, mover: int) -> float:
    """What the turn from ``before`` to ``after`` cost ``mover`` (at least 0).

    Two exact values are compared as they are, unless one is the tablebases' (a result with
    a distance, not a margin). Otherwise two known results are compared by result (a forced
    win kept is no loss, however many turns longer it gets), and else each value counts as
    at most :data:`WIN_CAP`, a known result as that cap."""
    tables = before.tablebase is not None or after.tablebase is not None
    if before.exact and after.exact and not tables:
        return max(0.0, before.seen_by(mover) - after.seen_by(mover))
    sign = 1 if mover == 1 else -1
    if before.result is not None and after.result is not None:
        return WIN_CAP * max(0, sign * (before.result - after.result))

    def capped(e: PositionEval) -> float:
        if e.result is not None:
            return sign * e.result * WIN_CAP
        return max(-WIN_CAP, min(WIN_CAP, e.seen_by(mover)))

    return max(0.0, capped(before) - capped(after))


def _turn_texts(game: Game, moves: list[Move], limit: int = PV_TURNS) -> list[str]:
    """``moves`` played from ``game`` (at a turn's start), as turn texts; stops at the first
    move that is not legal (a line read from a table may run into another position)."""
    line = game.copy()
    done = len(line.turn_list())
    for m in moves:
        if line.is_over or not line.is_legal(m):
            break
        line.play(m)
    return [game.descriptor.join_turn(ms) for _, ms in line.turn_list()[done:done + limit]]


class GameAnalyser:
    """The analysis of one game, a position at a time.

    ``game``: the game to analyse (its turns are replayed from the rules' start); ``nodes``:
    search nodes per decision; ``exact_nodes``: the solver's nodes per position (0: never
    the solver); ``tablebase``: the Dara or Dala tables to read (default: those built under
    the user's data folder, ``ai/endgame.py``)."""

    def __init__(self, game: Game, *, nodes: int = ANALYSIS_NODES,
                 exact_nodes: int = EXACT_NODES, tablebase: Tablebase | None = None) -> None:
        self.rules = game.rules
        self.turns = game.turn_list()
        self.texts = game.turns()
        self.nodes = nodes
        self.exact_nodes = exact_nodes
        self.thresholds = game.rules.ai_profile.marks
        self.evals: list[PositionEval] = []
        self._position = new_game(game.rules)
        self._agent: AlphaBetaAgent | None = None
        self._solver: Solver | None = None
        self._solvable = exact_nodes > 0 and family_of(game.rules).solvable and \
            _solver_covers(game)
        self._tables = tablebase if tablebase is not None else _tables_of(game)

    @property
    def total(self) -> int:
        """Positions to evaluate: the start and the position after each turn."""
        return len(self.turns) + 1

    @property
    def done(self) -> bool:
        return len(self.evals) >= self.total

    def step(self) -> bool:
        """Evaluate the next position; ``True`` while more remain."""
        if self.done:
            return False
        i = len(self.evals)
        if i > 0:
            for m in self.turns[i - 1][1]:
                self._position.play(m)
        self.evals.append(self._evaluate(self._position))
        return not self.done

    def run(self, progress: ProgressCallback | None = None) -> list[PlyAnalysis]:
        """Every position, then the annotated turns."""
        while self.step():
            if progress is not None:
                progress(len(self.evals), self.total)
        if progress is not None:
            progress(len(self.evals), self.total)
        return self.plies()

    def plies(self) -> list[PlyAnalysis]:
        """The turns analysed so far, the start (``ply`` 0) first."""
        out: list[PlyAnalysis] = []
        for k, e in enumerate(self.evals):
            if k == 0:
                out.append(PlyAnalysis(0, None, None, e.value, None, None, 0.0, e.exact, [],
                                   e.tablebase))
                continue
            before = self.evals[k - 1]
            mover = self.turns[k - 1][0]
            played = self.texts[k - 1]
            best = before.pv[0] if before.pv else None
            loss = 0.0 if played == best else loss_of(before, e, mover)
            out.append(PlyAnalysis(k, played, mover, e.value, best,
                                   mark_of(loss, self.thresholds), loss,
                                   e.exact and before.exact, list(before.pv), e.tablebase))
        return out

    # --- one position --------------------------------------------------------------------
    def _evaluate(self, game: Game) -> PositionEval:
        if self._tables is not None:
            exact = self._from_tables(self._tables, game)
            if exact is not None:
                return exact
        if self._solvable:
            exact = self._exact(game)
            if exact is not None:
                return exact
        if game.is_over:
            outcome = game.outcome
            assert outcome is not None
            result = 0 if outcome.winner is None else (1 if outcome.winner == 1 else -1)
            return PositionEval(result * WIN_SCORE, True, result)
        return self._search(game)

    def _search(self, game: Game) -> PositionEval:
        from .alphabeta import AlphaBetaAgent

        if self._agent is None:
            self._agent = AlphaBetaAgent(nodes=self.nodes, table=ANALYSIS_TABLE_MB)
        mover = game.to_move
        first = self._agent.analyse(game)
        assert first.score is not None
        # the rest of the best turn: the line where it reaches, else another search
        line = game.copy()
        best: list[Move] = []
        for m in first.pv:
            if line.is_over or line.to_move != mover or not line.is_legal(m):
                break
            line.play(m)
            best.append(m)
        if not best:
            line.play(first.move)
            best.append(first.move)
        while not line.is_over and line.to_move == mover:
            m = self._agent.analyse(line).move
            line.play(m)
            best.append(m)
        rest = first.pv[len(best):] if first.pv[:len(best)] == best else []
        pv = _turn_texts(game, best + rest)
        value = first.score if mover == 1 else -first.score
        result = None
        if abs(first.score) > WIN_SCORE - 1000:
            result = 1 if value > 0 else -1
        return PositionEval(value, False, result, best, pv)

    def _from_tables(self, tables: Tablebase, game: Game) -> PositionEval | None:
        """The tablebases' value of a position they cover (``None`` elsewhere): a win
        ``WIN_SCORE - plies`` for its winner (the search's scale of a forced result), a draw
        0; the best turn and line are the tables' decisions (``Tablebase.decide``: the
        shortest win whose next capture comes within the quiet limit)."""
        entry = tables.probe(game)
        if entry is None:
            return None
        me = game.to_move
        line = game.copy()
        moves: list[Move] = []
        best: list[Move] = []
        for turn in range(PV_TURNS):
            choice = None if line.is_over else tables.decide(line)
            if choice is None:
                break
            for a in choice.actions:    # a turn: a step, and the capture it makes
                m = line.action_to_move(a)
                line.play(m)
                moves.append(m)
            if turn == 0:
                best = list(moves)
        sign = 1 if me == 1 else -1
        scaled = 0.0 if entry.value == 0 else sign * entry.value * (WIN_SCORE - entry.plies)
        return PositionEval(scaled, True, sign * entry.value, best,
                            _turn_texts(game, moves),
                            tablebase_json(me, entry.value, entry.plies, entry.to_capture))

    def _exact(self, game: Game) -> PositionEval | None:
        from ..kernels.common import ST_OUTCOME
        from ..solver import kernels as S
        from ..solver.core import SolveAborted, Solver

        if self._solver is None:
            self._solver = Solver(self.rules, max_memory_mb=EXACT_MEMORY_MB, db_seeds=0)
        solver = self._solver
        state = game.state.copy()
        me = game.to_move
        if int(state[ST_OUTCOME]) != 0:
            value = int(S.terminal_value(solver.params, state))
            return self._exact_eval(solver, state, value, me, [], [])
        limit = int(solver.stats[S.S_NODES]) + self.exact_nodes
        try:
            value = solver.value(state, node_limit=limit)
            line, _ = solver.principal_variation(state, value, node_limit=limit)
        except SolveAborted:
            return None
        moves = [game.action_to_move(a) for a in line]
        best: list[Move] = []
        probe = game.copy()
        for m in moves:
            if probe.is_over or probe.to_move != me:
                break
            probe.play(m)
            best.append(m)
        return self._exact_eval(solver, state, value, me, best, _turn_texts(game, moves))

    def _exact_eval(self, solver: Solver, state: Any, value: int, me: int,
                    best: list[Move], pv: list[str]) -> PositionEval:
        result = solver.result_of(state, value)
        scaled = float(exact_scale(value, result, solver.misere, self.thresholds))
        sign = 1 if me == 1 else -1
        return PositionEval(sign * scaled, True, sign * result, best, pv)


def exact_scale(value: int, result: int, misere: bool,
                thresholds: tuple[float, float, float]) -> int:
    """An exact value of the solver (``docs/solving.md``, "The objective") on the scale the
    marks compare, for the player to move: in Kalah the value itself (the final margin in
    seeds); under misère (Dracala) the value stretched at each change of result by the
    blunder threshold, so that a turn that gives away a win or a draw is always a blunder
    (next to each other a win and a draw may differ by a single unit of the objective)."""
    if not misere:
        return value
    return value + result * (int(thresholds[2]) - 1)


def _tables_of(game: Game) -> Tablebase | None:
    """The tablebases built under the user's data folder for ``game``'s rules (``None``
    where none can cover them: not Dara or Dala)."""
    if family_of(game.rules).solvable:
        return None
    from .endgame import tablebase_for

    return tablebase_for(game)


def _solver_covers(game: Game) -> bool:
    from ..solver.core import SolverError, check_solvable

    try:
        check_solvable(game.rules)
    except SolverError:
        return False
    return True


def analyse_game(game: Game, *, nodes: int = ANALYSIS_NODES, exact_nodes: int = EXACT_NODES,
                 progress: ProgressCallback | None = None) -> list[PlyAnalysis]:
    """Every position of ``game`` evaluated and every turn marked (see the module's text);
    ``progress(done, total)`` after each position."""
    return GameAnalyser(game, nodes=nodes, exact_nodes=exact_nodes).run(progress)


def comment_of(ply: PlyAnalysis) -> str:
    """What a record says of an analysed turn, as one comment: ``+1.25 ?? best 3, line 3 4-1``
    (the evaluation from the first player's view, ``exact`` where the solver gave it)."""
    words = [f"{ply.eval:+.2f}" + (" exact" if ply.exact else "")]
    if ply.mark is not None:
        words.append(f"{SYMBOLS[ply.mark]} {ply.mark}, best {ply.best}")
        if ply.pv:
            words.append("line " + " ".join(ply.pv))
    return ", ".join(words)


def record_comments(plies: list[PlyAnalysis]) -> dict[int, list[str]]:
    """The comments of an annotated record (``nugar.record.dumps``): after each turn (index
    ``ply - 1``), and the start's evaluation before the first turn (index ``-1``)."""
    out: dict[int, list[str]] = {}
    for p in plies:
        out[p.ply - 1] = [("start " if p.ply == 0 else "") + comment_of(p)]
    return out


__all__ = ["ANALYSIS_NODES", "EXACT_NODES", "MARKS", "SYMBOLS", "GameAnalyser", "PlyAnalysis",
           "PositionEval", "analyse_game", "comment_of", "exact_scale", "loss_of", "mark_of",
           "record_comments", "tablebase_json"]
