"""The ``alphabeta`` agent: compiled negamax with iterative deepening.

The tree search itself is ``nugar.kernels.search_core`` (transposition table, killer and
history move ordering, principal-variation search, no negation between decisions of the same
player, search continued through pending captures and bonus steps). This module runs the
iterations, enforces the limits and turns action codes back into moves.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..kernels import search_core
from ..kernels.endgames import NO_ENDGAMES
from ..rules.base import Game, Move
from .base import Agent, Analysis, Limits, check_playable
from .options import (
    COUNT_MAX,
    AgentOptions,
    configure,
    float_option,
    int_option,
    seed_option,
    weights_option,
)
from .search_setup import (
    DEFAULT_TABLE_MB,
    Deadline,
    SearchBuffers,
    default_weights,
    kernels_for,
    turn_start_keys,
    warm_up,
)

#: the budget used when neither the agent's options nor the caller give any limit
DEFAULT_TIME = 1.0
#: the deepest iteration ever started
MAX_DEPTH = 64
#: the timer fires this early, leaving room to unwind and return within 5% of the limit
TIME_MARGIN = 0.9
#: seconds kept back from every limit for the work after the search (principal variation)
TIME_RESERVE = 0.003


def score_to_float(score: int) -> float:
    """Search score in pieces (alignment) or seeds (sowing); forced results stay beyond
    ``±9000`` (``10000 - plies to the end``); an exact final margin the Kalah databases
    gave (``search_core.EXACT``) is that margin in seeds."""
    if score > search_core.WIN_BOUND:
        return 10000.0 - (search_core.WIN - score)
    if score < -search_core.WIN_BOUND:
        return -10000.0 + (search_core.WIN + score)
    if score > search_core.EXACT_BOUND:
        return (score - search_core.EXACT) / 100.0
    if score < -search_core.EXACT_BOUND:
        return (score + search_core.EXACT) / 100.0
    return score / 100.0


#: the most ``noise`` and ``contempt`` (hundredths of a piece or seed): scores stay far below
#: the search's win bound
MAX_HANDICAP = 100_000


@dataclass(frozen=True)
class AlphaBetaOptions(AgentOptions):
    """``alphabeta:depth=6,time=0.5,nodes=100000,table=64,share=0.5,...``; the agent's
    docstring says what each does."""

    agent = "alphabeta"
    depth: int | None = int_option(None, 1, MAX_DEPTH, "search depth in decisions")
    time: float | None = float_option(None, 0.0, above=True, doc="seconds per decision")
    nodes: int | None = int_option(None, 1, COUNT_MAX, "positions searched per decision")
    table: float = float_option(float(DEFAULT_TABLE_MB), 0.0, above=True,
                                doc="transposition table in MB")
    share: float = float_option(1.0, 0.0, 1.0, above=True,
                                doc="the fraction of a time limit used")
    w: tuple[int, ...] | None = weights_option("evaluation weights")
    noise: int = int_option(0, 0, MAX_HANDICAP, "random offset of each leaf evaluation, "
                            "at most this many hundredths of a piece or seed")
    contempt: int = int_option(0, 0, MAX_HANDICAP, "what a draw costs, in hundredths")
    blunder: float = float_option(0.0, 0.0, 1.0,
                                  doc="the chance of a random other move at a decision")
    seed: int | None = seed_option()
    probe: int = int_option(0, 0, 1, "1: probe the endgame tables built on disk (Dara and "
                            "Dala tablebases, Kalah databases) below the root (level 8)")


class AlphaBetaAgent(Agent):
    """Negamax alpha-beta within the tighter of its own budget and the caller's limits.

    Options (``alphabeta:depth=6,time=0.5,nodes=100000,table=64,share=0.5``, declared in
    :class:`AlphaBetaOptions`): ``depth`` in decisions, ``time`` in seconds, ``nodes``
    searched, ``table`` the transposition table in MB (default 256), ``share`` the fraction
    of the time limit actually used (weaker levels), ``w`` the evaluation weights separated
    by ``/`` (for tuning; see docs/ai.md; weights left out at the end are 0), ``noise``
    the most each leaf evaluation is moved at random, in hundredths of a piece or seed
    (weaker levels: the offsets are drawn anew for each game, ``seed`` fixes them),
    ``contempt`` what a draw costs the agent, in the same unit (it plays on for a win
    unless it is behind by more than that), ``blunder`` the chance, at each decision with
    a choice, of playing a random other legal move instead of the searched one (weaker
    levels), ``probe=1`` that a position the endgame tables built on disk cover is a leaf
    of the search with its exact value (``nugar.ai.endgame.endgames_for``; level 8).
    """

    def __init__(self, options: AlphaBetaOptions | None = None, /, **changes: Any) -> None:
        self.options = opts = configure(AlphaBetaOptions, options, changes)
        self.spec = opts.spec
        self.budget = Limits(opts.time, opts.depth, opts.nodes)
        self.weights = None if opts.w is None else np.array(opts.w, dtype=np.int64)
        self._rng = random.Random(opts.seed)
        self._noise_seed = self._rng.randrange(1 << 31)
        self._last_player = 0  # the player the table's draw scores were searched for
        self._buffers: dict[str, SearchBuffers] = {}

    def _buffers_for(self, game: Game, n_actions: int) -> SearchBuffers:
        size = game.state.shape[0]
        key = game.rules.text
        buf = self._buffers.get(key)
        endgames = NO_ENDGAMES
        if self.options.probe:
            from .endgame import endgames_for

            endgames = endgames_for(game)  # mapped again when a level was built meanwhile
        if buf is None or not buf.fits(size, n_actions):
            self._buffers.clear()  # one table at a time: memory stays within `table`
            buf = SearchBuffers(size, n_actions, self.options.table, endgames)
            self._buffers[key] = buf
        elif buf.tables.endgames is not endgames:
            # the table's entries stay sound: a deeper reach only makes more leaves exact
            buf.tables = buf.tables._replace(endgames=endgames)
        return buf

    def reseed(self, value: int) -> None:
        """Seed the noise and blunders, and start afresh (see ``reset``)."""
        self._rng.seed(value)
        self.reset()

    def reset(self) -> None:
        """Forget the transposition table and move-ordering history and draw new noise
        offsets (a new game)."""
        for buf in self._buffers.values():
            buf.clear()
        self._noise_seed = self._rng.randrange(1 << 31)
        self._last_player = 0

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        check_playable(game)
        warm_up(game)
        start = time.perf_counter()
        opts = self.options
        lim = self.budget.merged(limits)
        if lim.is_empty:
            lim = Limits(time=DEFAULT_TIME)
        if opts.share != 1.0 and lim.time is not None:
            lim = Limits(lim.time * opts.share, lim.depth, lim.nodes)
        expected = default_weights(game.rules).shape[0]
        weights = self.weights
        if weights is not None and weights.shape[0] < expected:
            # weights left out at the end are 0 (the terms added later, in older specs)
            weights = np.concatenate([weights, np.zeros(expected - weights.shape[0],
                                                        dtype=np.int64)])
        fam = kernels_for(game, weights)
        if fam.weights.shape[0] != expected:
            raise ValueError(f"{self.spec}: {game.rules.game} evaluation takes at most "
                             f"{expected} weights, not {fam.weights.shape[0]}")
        buf = self._buffers_for(game, fam.n_actions)
        state = game.state
        legal = game.legal_actions()
        max_depth = min(lim.depth or MAX_DEPTH, MAX_DEPTH)
        if len(legal) == 1:
            max_depth = 1
        if opts.contempt and self._last_player not in (0, game.to_move):
            # draws in the table are scored for the other player: they would mislead
            buf.clear_table()
        self._last_player = game.to_move
        buf.new_search(turn_start_keys(game), lim.nodes)
        tables = buf.tables
        ctx = tables.ctx
        ctx[search_core.CX_NOISE] = opts.noise
        ctx[search_core.CX_NOISE_SEED] = self._noise_seed
        ctx[search_core.CX_CONTEMPT] = opts.contempt
        tables.stack[0] = state
        best = legal[0]
        best_score = 0
        reached = 0
        deadline = None if lim.time is None else max(0.0, lim.time * TIME_MARGIN - TIME_RESERVE)
        with Deadline(tables.stop, deadline):
            for depth in range(1, max_depth + 1):
                ctx[search_core.CX_ROOT_HINT] = best if reached > 0 else -1
                score = search_core.search_root(fam, tables, depth)
                aborted = ctx[search_core.CX_ABORTED] != 0
                if aborted:
                    # the best root move so far of an unfinished iteration is still sound
                    # when it differs from the last one: it was searched to the end
                    root_move = int(ctx[search_core.CX_ROOT_MOVE])
                    if root_move >= 0 and reached > 0 and root_move != best:
                        best = root_move
                        best_score = int(ctx[search_core.CX_ROOT_SCORE])
                    elif reached == 0 and root_move >= 0:
                        best = root_move
                        best_score = int(ctx[search_core.CX_ROOT_SCORE])
                    break
                best = int(ctx[search_core.CX_ROOT_MOVE])
                best_score = int(score)
                reached = depth
                if abs(best_score) > search_core.WIN_BOUND:
                    break  # a forced result: deeper search cannot change it
                if lim.time is not None and time.perf_counter() - start > 0.8 * lim.time:
                    break  # too little time left for the next iteration to change anything
                # otherwise go on: an unfinished iteration still improves the root move
        n_pv = search_core.principal_variation(fam, tables, state, best)
        searched = True
        if opts.blunder and len(legal) > 1 and self._rng.random() < opts.blunder:
            # a deliberate slip of a weaker level: any other legal move
            best = self._rng.choice([a for a in legal if a != best])
            n_pv = 0
            searched = False
        move = game.action_to_move(best)
        pv: list[Move] = [game.action_to_move(int(a)) for a in tables.pv[:n_pv]]
        if not pv or pv[0] != move:
            pv = [move]
        return Analysis(move, score_to_float(best_score), reached,
                        int(ctx[search_core.CX_NODES]), pv, time.perf_counter() - start,
                        searched)
