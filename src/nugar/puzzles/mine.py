"""Mining puzzles: positions from engine games where exactly one turn is best, proven when the
puzzle is made.

- **Kalah and Dracala** (every rule set the exact solver takes, :mod:`nugar.solver`): games
  between a greedy player and a random one (each step one or the other, by a seeded
  generator) give positions with few seeds on the board; each is solved exactly, step by step
  along the turn (:meth:`Solver.step_values`). A turn is best when each of its steps keeps
  the position's value, so the best turn is unique exactly when, at every step of it, one
  step alone keeps the value; the best value among the other turns is the best value of the
  other steps met on the way. The puzzle is kept when that value is strictly lower
  (``only-win`` / ``only-draw`` when the result itself is lower, ``best-margin`` when only
  the seeds are).
- **Dara and Dala** (:mod:`nugar.solver.tablebase`, tables built on disk by ``nugar solve
  RULES --build-tb N``): random positions of the movement phase with the materials built;
  every turn of one (each step with each capture it may take) is valued by the tables
  (:meth:`Tablebase.choices`), and the position is kept when exactly one turn wins, within
  :data:`MAX_WIN_PLIES` plies.

Each puzzle's starting rating comes from an engine ladder (:func:`ladder_depth`): the
shallowest alpha-beta search (depths :data:`LADDER`, in decisions) whose choice is the
solution; a puzzle none of them solves is the hardest class. Mining is deterministic for a
seed; :func:`mine` takes one batch (a seed and a count), so batches run in parallel (threads
here, Ray tasks in :mod:`nugar.scale.puzzles_ray`) and merge by id.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..ai import Limits, make_agent
from ..ai.base import Agent
from ..kernels import sowing
from ..kernels.common import ST_OUTCOME, ST_TO_MOVE
from ..rules import Game, new_game
from ..rules.options import RuleSet, parse_rules
from ..solver import Solver
from ..solver.core import SolverError, check_solvable
from .model import Puzzle, puzzle_id

#: the alpha-beta depths (decisions) of the difficulty ladder, easiest first
LADDER = (1, 2, 4, 6)
#: the starting rating of a puzzle the ladder's rung ``i`` solves (the last: none does)
LADDER_RATINGS = (1000, 1250, 1500, 1750, 2000)
#: the longest win (plies, both players' turns) a Dara or Dala puzzle may ask for
MAX_WIN_PLIES = 9
#: the seeds on the board of a sowing position worth a puzzle: few enough for the solver to
#: prove it in well under a second, enough for a choice to matter
SOWING_SEEDS = (6, 30)
#: the fewest seeds by which the best turn must beat every other when the result is the same
MIN_MARGIN_GAP = 4
#: a sowing position with this few seeds on the board is an endgame
ENDGAME_SEEDS = 12


@dataclass(frozen=True)
class Batch:
    """What one batch of mining found and what it cost."""

    puzzles: list[Puzzle]
    positions: int
    seconds: float


def solvable(rules: RuleSet) -> bool:
    """Whether the exact solver takes ``rules`` (else the tablebases are asked)."""
    try:
        check_solvable(rules)
    except SolverError:
        return False
    return True


def mine(rules: RuleSet | str, count: int, seed: int, *, seconds: float | None = None,
         tb_root: Path | None = None, ladder: bool = True,
         progress: Callable[[int, int], None] | None = None) -> Batch:
    """Up to ``count`` puzzles of ``rules`` from a generator seeded with ``seed``, stopping
    early after ``seconds``; ``progress(found, positions)`` after each position tried."""
    rs = parse_rules(rules)
    deadline = None if seconds is None else time.monotonic() + seconds
    miner = _SowingMiner(rs) if solvable(rs) else _TablebaseMiner(rs, tb_root)
    rng = random.Random(seed)
    found: dict[str, Puzzle] = {}
    tried = 0
    start = time.monotonic()
    for game in miner.positions(rng):
        if len(found) >= count or (deadline is not None and time.monotonic() > deadline):
            break
        tried += 1
        made = miner.puzzle(game)
        if made is not None and made.id not in found:
            if ladder:
                made = _rated(made, game)
            found[made.id] = made
        if progress is not None:
            progress(len(found), tried)
    return Batch(list(found.values()), tried, time.monotonic() - start)


# ------------------------------------------------------------------------------ Kalah, Dracala
class _SowingMiner:
    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.solver = Solver(rules, max_memory_mb=64, db_seeds=0, disk_db=False)
        self.greedy = make_agent("greedy")

    def positions(self, rng: random.Random) -> Any:
        """Turn starts of greedy-against-random games with few seeds on the board."""
        lo, hi = SOWING_SEEDS
        while True:
            game = new_game(self.rules)
            self.greedy.reseed(rng.randrange(1 << 30))
            while not game.is_over:
                on_board = _on_board(game)
                if on_board <= hi and on_board >= lo and rng.random() < 0.5 \
                        and len(game.legal_moves()) > 1:
                    yield game.copy()
                mover = game.to_move
                while not game.is_over and game.to_move == mover:
                    moves = game.legal_moves()
                    move = (rng.choice(moves) if rng.random() < 0.5
                            else self.greedy.choose(game))
                    game.play(move)

    def puzzle(self, game: Game) -> Puzzle | None:
        return sowing_puzzle(self.solver, game)


def _on_board(game: Game) -> int:
    pits = int(game.params[sowing.P_PITS])
    return int(sowing.seeds_on_board(pits, game.state))


def sowing_puzzle(solver: Solver, game: Game) -> Puzzle | None:
    """The puzzle at ``game``'s position when one turn alone is best by the exact solver,
    else ``None``. The proof: the best value, the best value of any other turn, both as
    results, and the legal first steps."""
    state = game.state.copy()
    me = int(state[ST_TO_MOVE])
    line = game.copy()
    best_other: int | None = None
    best: int | None = None
    first = len(game.legal_actions())
    steps = 0
    captured = False
    while True:
        values = solver.step_values(state)
        top = max(v for _, v, _ in values)
        if best is None:
            best = top
        keep = [a for a, v, _ in values if v == top]
        if len(keep) != 1:
            return None
        others = [v for a, v, _ in values if v != top]
        if others:
            best_other = max(others) if best_other is None else max(best_other, *others)
        before = _opponent_holes(solver.pits, state, me)
        line.push_action(keep[0])
        steps += 1
        sowing.apply_action(solver.params, state, keep[0])
        # sowing only adds to the opponent's holes; one emptied is a capture (unless the
        # game ended and the leftovers went to the stores)
        after = _opponent_holes(solver.pits, state, me)
        if int(state[ST_OUTCOME]) == 0 and any(b > a for b, a in zip(before, after, strict=True)):
            captured = True
        if int(state[ST_OUTCOME]) != 0 or int(state[ST_TO_MOVE]) != me:
            break
    if best_other is None:  # one legal turn: no choice to make
        return None
    turn = line.move_stack[len(game.move_stack):]
    solution = game.descriptor.join_turn(list(turn))
    result, other_result = solver.result_of(game.state, best), solver.result_of(
        game.state, best_other)
    if other_result < result:
        themes = ["only-win" if result == 1 else "only-draw"]
    elif result >= 0 and best - best_other >= MIN_MARGIN_GAP:
        themes = ["best-margin"]
    else:  # a lost position, or a gap of a seed or so: a poor puzzle
        return None
    if steps > 1:
        themes.append("store")
    themes.append("capture" if captured else "quiet")
    if _on_board(game) <= ENDGAME_SEEDS:
        themes.append("endgame")
    if solver.misere:
        themes.append("misere")
    position = game.position_text()
    proof = {"by": "solver", "value": best, "other": best_other, "result": result,
             "other_result": other_result, "first_steps": first}
    return Puzzle(id=puzzle_id(solver.rules.text, position), rules=solver.rules.text,
                  position=position, solution=solution, themes=tuple(themes), rating=0,
                  proof=proof)


def _opponent_holes(pits: int, state: Any, me: int) -> list[int]:
    first = int(sowing.holes_at(pits, 3 - me))
    return [int(x) for x in state[first:first + pits]]


# ------------------------------------------------------------------------------ Dara, Dala
class _TablebaseMiner:
    def __init__(self, rules: RuleSet, root: Path | None) -> None:
        from ..solver.tablebase import Geometry, Tablebase

        self.rules = rules
        self.tb = Tablebase(rules, root)
        self.geo = Geometry(rules)
        self.materials = [mo for mo in self.geo.materials(8) if self.tb.table(*mo) is not None]
        if not self.materials:
            raise SolverError(f"no tablebase of {rules.text} is built (nugar solve "
                              f"{rules.text} --build-tb 6 builds 3 against 3)")

    def positions(self, rng: random.Random) -> Any:
        """Random movement-phase positions of the materials built, either player to move."""
        from ..solver.tablebase import game_of

        n = self.geo.n
        while True:
            m, o = rng.choice(self.materials)
            squares = rng.sample(range(n), m + o)
            mover = sum(1 << s for s in squares[:m])
            other = sum(1 << s for s in squares[m:])
            game = game_of(self.rules, mover, other, rng.choice((1, 2)))
            if not game.is_over:
                yield game

    def puzzle(self, game: Game) -> Puzzle | None:
        return tablebase_puzzle(self.tb, game)


def tablebase_puzzle(tb: Any, game: Game) -> Puzzle | None:
    """The puzzle at ``game``'s position when the tables give exactly one winning turn, won
    within :data:`MAX_WIN_PLIES` plies, else ``None``."""
    entry = tb.probe(game)
    if entry is None or entry.value != 1 or entry.plies > MAX_WIN_PLIES:
        return None
    choices = tb.choices(game)
    wins = [c for c in choices if c.value == 1]
    if len(wins) != 1 or len(choices) < 2:
        return None
    win = wins[0]
    others = [c for c in choices if c is not win]
    turns = (win.plies + 1) // 2  # the plies count the solution's own turn

    themes = ["only-win", "capture" if "x" in win.turn else "quiet", "endgame"]
    themes.append(f"win-in-{turns}" if turns <= 3 else "long")
    position = game.position_text()
    proof = {"by": "tablebase", "value": 1, "plies": win.plies,
             "other_result": max(c.value for c in others), "turns": len(choices)}
    return Puzzle(id=puzzle_id(tb.rules.text, position), rules=tb.rules.text,
                  position=position, solution=win.turn, themes=tuple(themes), rating=0,
                  proof=proof)


# ------------------------------------------------------------------------------ difficulty
_AGENTS: dict[int, Agent] = {}


def ladder_depth(game: Game, solution: str) -> int:
    """The index in :data:`LADDER` of the shallowest alpha-beta depth that plays
    ``solution`` at ``game``'s position, or ``len(LADDER)`` when none does."""
    for i, depth in enumerate(LADDER):
        agent = _AGENTS.setdefault(depth, make_agent(f"alphabeta:depth={depth}"))
        line = game.copy()
        mover = line.to_move
        while not line.is_over and line.to_move == mover:
            line.play(agent.choose(line, Limits(depth=depth)))
        if game.descriptor.join_turn(line.move_stack[len(game.move_stack):]) == solution:
            return i
    return len(LADDER)


def _rated(p: Puzzle, game: Game) -> Puzzle:
    rung = ladder_depth(game, p.solution)
    steps = len(p.answer(p.solution).moves)
    rating = LADDER_RATINGS[rung] + 25 * min(4, steps - 1)
    return Puzzle(p.id, p.rules, p.position, p.solution, p.themes, rating,
                  {**p.proof, "ladder": rung})
