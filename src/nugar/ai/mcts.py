"""The ``mcts`` agent: UCT with compiled random playouts (``nugar.kernels.search_core.mcts``).

Every node keeps the rewards of the player who moved into it, so several decisions in a row
by the same player need no special care. With ``cutoff=N`` a playout stops after ``N``
decisions and the family's evaluation, squashed into [0, 1], stands in for the result.
"""

from __future__ import annotations

import time

import numpy as np

from ..kernels import search_core as C
from ..rules.base import Game, Move
from .base import (
    Agent,
    Analysis,
    Limits,
    check_playable,
    no_more_options,
    option_float,
    option_int,
)
from .engine import Deadline, game_state, kernels_for, warm_up, zeroed

DEFAULT_PLAYOUTS = 2000
#: tree nodes kept at most (six int64 and one float64 each: 56 bytes)
DEFAULT_TREE_NODES = 1 << 20
TIME_MARGIN = 0.9
TIME_RESERVE = 0.003
#: width of the logistic curve that turns an evaluation into a win chance, per family
EVAL_SCALE = {"alignment": 150.0, "sowing": 400.0}


class MctsAgent(Agent):
    """Upper-confidence tree search with random playouts.

    Options (``mcts:playouts=2000,time=0.5,c=1.4,cutoff=0,seed=1,tree=1048576``):
    ``playouts`` per decision, ``time`` in seconds, ``c`` the exploration constant,
    ``cutoff`` decisions before a playout is cut short by the evaluation (0: play to the end),
    ``seed`` for the playouts, ``tree`` the most tree nodes kept. A caller's ``Limits``
    also apply: ``time`` as such, ``nodes`` as playouts; ``depth`` is ignored.
    """

    def __init__(self, playouts: int | None = None, time_limit: float | None = None,
                 exploration: float = 1.4, cutoff: int = 0, seed: int | None = None,
                 tree_nodes: int = DEFAULT_TREE_NODES) -> None:
        self.playouts = playouts
        self.time_limit = time_limit
        self.exploration = exploration
        self.cutoff = cutoff
        self.seed = seed
        self.tree_nodes = tree_nodes
        self._rng = np.random.default_rng(seed)
        self._nodes = np.zeros((0, C.ND_FIELDS), dtype=np.int64)
        self._values = np.zeros(0, dtype=np.float64)
        parts = [f"{k}={v:g}" for k, v in (("playouts", playouts), ("time", time_limit))
                 if v is not None]
        if exploration != 1.4:
            parts.append(f"c={exploration:g}")
        if cutoff:
            parts.append(f"cutoff={cutoff}")
        if seed is not None:
            parts.append(f"seed={seed}")
        self.spec = "mcts" + (":" + ",".join(parts) if parts else "")

    @classmethod
    def from_options(cls, spec: str, options: dict[str, str]) -> MctsAgent:
        playouts = option_int(spec, options, "playouts", 1, None)
        time_limit = option_float(spec, options, "time", 0.0, None)
        exploration = option_float(spec, options, "c", 0.0, 1.4, inclusive=True)
        cutoff = option_int(spec, options, "cutoff", 0, 0)
        seed = option_int(spec, options, "seed", 0, None)
        tree = option_int(spec, options, "tree", 16, DEFAULT_TREE_NODES)
        no_more_options(spec, "mcts", options,
                        ("playouts", "time", "c", "cutoff", "seed", "tree"))
        assert exploration is not None and cutoff is not None and tree is not None
        return cls(playouts, time_limit, exploration, cutoff, seed, tree)

    def reseed(self, value: int) -> None:
        """Seed the random playouts."""
        self._rng = np.random.default_rng(value)

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        check_playable(game)
        warm_up(game)
        start = time.perf_counter()
        playouts = self.playouts
        time_limit = self.time_limit
        if limits is not None:
            if limits.nodes is not None:
                playouts = limits.nodes if playouts is None else min(playouts, limits.nodes)
            if limits.time is not None:
                time_limit = (limits.time if time_limit is None
                              else min(time_limit, limits.time))
        if playouts is None and time_limit is None:
            playouts = DEFAULT_PLAYOUTS
        fam = kernels_for(game)
        state = game_state(game)
        legal = game.legal_actions()
        if len(legal) == 1:
            move = game.action_to_move(legal[0])
            return Analysis(move, None, 1, 0, [move], time.perf_counter() - start)
        if self._nodes.shape[0] != self.tree_nodes:
            # plain small pages: touched gradually during a timed search (see engine.zeroed)
            self._nodes = zeroed(self.tree_nodes * C.ND_FIELDS).reshape(self.tree_nodes,
                                                                         C.ND_FIELDS)
            self._values = zeroed(self.tree_nodes).view(np.float64)
        ctx = np.zeros(C.CX_SIZE, dtype=np.int64)
        ctx[C.CX_NODE_LIMIT] = 1 << 62
        stop = np.zeros(1, dtype=np.int64)
        seed = int(self._rng.integers(0, 2**62))
        budget = playouts if playouts is not None else 1 << 62
        deadline = (None if time_limit is None
                    else max(0.0, time_limit * TIME_MARGIN - TIME_RESERVE))
        with Deadline(stop, deadline):
            done = C.mcts(fam.fam, fam.params, fam.weights, state, self._nodes, self._values,
                          ctx, stop, fam.n_actions, int(budget), float(self.exploration),
                          int(self.cutoff), float(EVAL_SCALE[game.rules.family]), seed)
        pv_actions, value = self._principal_line()
        if not pv_actions:  # the limit ran out before the first playout
            pv_actions = [legal[0]]
        moves: list[Move] = [game.action_to_move(int(a)) for a in pv_actions]
        return Analysis(moves[0], value, len(moves), int(done), moves,
                        time.perf_counter() - start)

    def _principal_line(self) -> tuple[list[int], float]:
        """Most visited moves from the root down; the root choice's mean reward as score
        (the chance of winning, draws counting half, for the player to move)."""
        nodes = self._nodes
        line: list[int] = []
        node = 0
        value = 0.5
        while nodes[node, C.ND_NCHILD] > 0 and len(line) < 32:
            first = int(nodes[node, C.ND_CHILD])
            count = int(nodes[node, C.ND_NCHILD])
            visits = nodes[first:first + count, C.ND_VISITS]
            if visits.max() == 0:
                break
            best = first + int(np.argmax(visits))
            if not line:
                value = float(self._values[best] / max(1, nodes[best, C.ND_VISITS]))
            line.append(int(nodes[best, C.ND_ACTION]))
            node = best
        return line, value
