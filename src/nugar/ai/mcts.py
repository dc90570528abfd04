"""The ``mcts`` agent: UCT with compiled random playouts (``nugar.kernels.search_core.mcts``).

Every node keeps the rewards of the player who moved into it, so several decisions in a row
by the same player need no special care. With ``cutoff=N`` a playout stops after ``N``
decisions and the family's evaluation, squashed into [0, 1] by a logistic curve as wide as the
AI profile's ``eval_scale``, stands in for the result.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..kernels import search_core
from ..rules.base import Game, Move
from .base import Agent, Analysis, Limits, check_playable
from .options import COUNT_MAX, AgentOptions, configure, float_option, int_option, seed_option
from .search_setup import Deadline, kernels_for, warm_up, zeroed

DEFAULT_PLAYOUTS = 2000
#: tree nodes kept at most (six int64 and one float64 each: 56 bytes)
DEFAULT_TREE_NODES = 1 << 20
TIME_MARGIN = 0.9
TIME_RESERVE = 0.003

#: the most tree nodes an agent may keep (56 bytes each: 120 GB)
MAX_TREE_NODES = 1 << 31
#: the longest playout cut-off, in decisions (far beyond any game's length)
MAX_CUTOFF = 100_000


@dataclass(frozen=True)
class MctsOptions(AgentOptions):
    """``mcts:playouts=2000,time=0.5,c=1.4,cutoff=0,seed=1,tree=1048576``; the agent's
    docstring says what each does."""

    agent = "mcts"
    playouts: int | None = int_option(None, 1, COUNT_MAX, "playouts per decision")
    time: float | None = float_option(None, 0.0, above=True, doc="seconds per decision")
    c: float = float_option(1.4, 0.0, doc="the exploration constant")
    cutoff: int = int_option(0, 0, MAX_CUTOFF, "decisions before the evaluation ends a "
                             "playout (0: play to the end)")
    seed: int | None = seed_option()
    tree: int = int_option(DEFAULT_TREE_NODES, 16, MAX_TREE_NODES, "the most tree nodes kept")


class MctsAgent(Agent):
    """Upper-confidence tree search with random playouts.

    Options (``mcts:playouts=2000,time=0.5,c=1.4,cutoff=0,seed=1,tree=1048576``, declared
    in :class:`MctsOptions`): ``playouts`` per decision, ``time`` in seconds, ``c`` the
    exploration constant, ``cutoff`` decisions before a playout is cut short by the
    evaluation (0: play to the end), ``seed`` for the playouts, ``tree`` the most tree nodes
    kept. A caller's ``Limits`` also apply: ``time`` as such, ``nodes`` as playouts;
    ``depth`` is ignored.
    """

    def __init__(self, options: MctsOptions | None = None, /, **changes: Any) -> None:
        self.options = configure(MctsOptions, options, changes)
        self.spec = self.options.spec
        self._rng = np.random.default_rng(self.options.seed)
        self._nodes = np.zeros((0, search_core.ND_FIELDS), dtype=np.int64)
        self._values = np.zeros(0, dtype=np.float64)

    def reseed(self, value: int) -> None:
        """Seed the random playouts."""
        self._rng = np.random.default_rng(value)

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        check_playable(game)
        warm_up(game, mcts=True)
        start = time.perf_counter()
        opts = self.options
        playouts = opts.playouts
        time_limit = opts.time
        if limits is not None:
            if limits.nodes is not None:
                playouts = limits.nodes if playouts is None else min(playouts, limits.nodes)
            if limits.time is not None:
                time_limit = (limits.time if time_limit is None
                              else min(time_limit, limits.time))
        if playouts is None and time_limit is None:
            playouts = DEFAULT_PLAYOUTS
        fam = kernels_for(game)
        state = game.state
        legal = game.legal_actions()
        if len(legal) == 1:
            move = game.action_to_move(legal[0])
            return Analysis(move, None, 1, 0, [move], time.perf_counter() - start)
        if self._nodes.shape[0] != opts.tree:
            # plain small pages: touched gradually during a timed search (see engine.zeroed)
            fields = search_core.ND_FIELDS
            self._nodes = zeroed(opts.tree * fields).reshape(opts.tree, fields)
            self._values = zeroed(opts.tree).view(np.float64)
        ctx = np.zeros(search_core.CX_SIZE, dtype=np.int64)
        ctx[search_core.CX_NODE_LIMIT] = 1 << 62
        stop = np.zeros(1, dtype=np.int64)
        seed = int(self._rng.integers(0, 2**62))
        budget = playouts if playouts is not None else 1 << 62
        deadline = (None if time_limit is None
                    else max(0.0, time_limit * TIME_MARGIN - TIME_RESERVE))
        with Deadline(stop, deadline):
            tree = search_core.UctTree(self._nodes, self._values, ctx, stop)
            settings = search_core.UctSettings(int(budget), float(opts.c), int(opts.cutoff),
                                               float(game.rules.ai_profile.eval_scale), seed)
            done = search_core.mcts(fam, state, tree, settings)
        pv_actions, value = self._principal_line()
        if not pv_actions:  # the limit ran out before the first playout
            pv_actions = [legal[0]]
        moves: list[Move] = [game.action_to_move(int(a)) for a in pv_actions]
        return Analysis(moves[0], value, len(moves), int(done), moves,
                        time.perf_counter() - start, root_visits=self._root_visits())

    def _root_visits(self) -> dict[int, int]:
        """Visits of each root action code in the tree just searched."""
        nodes = self._nodes
        first = int(nodes[0, search_core.ND_CHILD])
        count = int(nodes[0, search_core.ND_NCHILD])
        return {int(nodes[k, search_core.ND_ACTION]): int(nodes[k, search_core.ND_VISITS])
                for k in range(first, first + count)}

    def _principal_line(self) -> tuple[list[int], float]:
        """Most visited moves from the root down; the root choice's mean reward as score
        (the chance of winning, draws counting half, for the player to move)."""
        nodes = self._nodes
        line: list[int] = []
        node = 0
        value = 0.5
        while nodes[node, search_core.ND_NCHILD] > 0 and len(line) < 32:
            first = int(nodes[node, search_core.ND_CHILD])
            count = int(nodes[node, search_core.ND_NCHILD])
            visits = nodes[first:first + count, search_core.ND_VISITS]
            if visits.max() == 0:
                break
            best = first + int(np.argmax(visits))
            if not line:
                value = float(self._values[best] / max(1, nodes[best, search_core.ND_VISITS]))
            line.append(int(nodes[best, search_core.ND_ACTION]))
            node = best
        return line, value
