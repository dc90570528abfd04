"""What a search needs around the compiled search kernels: the family code, params and
evaluation weights of a game (asked from its family descriptor), the search's preallocated
buffers, the hard time limit, and warming the compiled code.

Importing this module imports numba and the kernels; ``nugar.ai`` itself only imports it
when a search agent is built.
"""

from __future__ import annotations

import mmap
import threading
import time
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from ..kernels import search_core
from ..kernels.endgames import NO_ENDGAMES, Endgames
from ..kernels.search_core import SearchGame, SearchTables, UctSettings, UctTree
from ..rules.base import Game
from ..rules.options import RuleSet

IntArray = npt.NDArray[np.int64]

#: default size of the transposition table (two int64 arrays, 16 bytes an entry)
DEFAULT_TABLE_MB = 256


def default_weights(rules: RuleSet) -> IntArray:
    """The tuned evaluation weights of a rule set (docs/ai.md): a copy of those of its AI
    profile (``RuleSet.ai_profile``)."""
    return rules.ai_profile.weights()


def kernels_for(game: Game, weights: IntArray | None = None) -> SearchGame:
    """What the search kernels take of ``game``: its family code, params, the evaluation
    weights (``weights``, else the rule set's defaults) and its number of action codes."""
    w = default_weights(game.rules) if weights is None else weights
    params = game.params
    parts = game.descriptor.parts
    return SearchGame(parts.code, params, w, int(parts.kernel.num_actions(params)))


def turn_start_keys(game: Game) -> list[int]:
    """Keys of the positions at the start of each turn so far, oldest first, the current
    position last when it starts a turn (``Game.repetition_keys``). The search scores a return
    to one as a draw; empty where the rules have no repetition draw."""
    return game.repetition_keys()


def zeroed(n: int) -> IntArray:
    """``n`` zeroed int64 on plain anonymous memory pages.

    NumPy asks for transparent huge pages on large arrays, which makes the first touch of each
    2 MB page cost a few hundred microseconds inside a timed search; small pages cost about
    one microsecond, and are committed only when touched.
    """
    if n < 65536:
        return np.zeros(n, dtype=np.int64)
    memory = mmap.mmap(-1, n * 8)
    return np.frombuffer(memory, dtype=np.int64)


class SearchBuffers:
    """Every array one search uses, allocated once per agent and family, as the record the
    search kernels take (``tables``; ``search_core.SearchTables`` says what each holds).

    The transposition table is a fixed pair of arrays of ``2**k`` entries (the largest power
    of two that fits in ``table_mb``), allocated zeroed: the operating system only commits the
    pages the search touches, and the search never allocates more. ``endgames``: the
    endgame tables the search probes (none by default).
    """

    def __init__(self, state_size: int, n_actions: int, table_mb: float,
                 endgames: Endgames = NO_ENDGAMES) -> None:
        entries = 1
        while entries * 2 * 16 <= table_mb * 1024 * 1024:
            entries *= 2
        self.table_entries = entries
        rows = search_core.MAX_PLY + 2
        self.tables = SearchTables(
            stack=np.zeros((rows, state_size), dtype=np.int64),
            moves=np.zeros((rows, n_actions), dtype=np.int64),
            order=np.zeros((rows, n_actions), dtype=np.int64),
            tt_keys=zeroed(entries),
            tt_data=zeroed(entries),
            killers=np.full((rows, 2), -1, dtype=np.int64),
            history=np.zeros((3, n_actions), dtype=np.int64),
            path=np.zeros(4096 + rows, dtype=np.int64),
            ctx=np.zeros(search_core.CX_SIZE, dtype=np.int64),
            stop=np.zeros(1, dtype=np.int64),
            pv=np.zeros(64, dtype=np.int64),
            endgames=endgames,
        )
        self.state_size = state_size
        self.n_actions = n_actions

    def fits(self, state_size: int, n_actions: int) -> bool:
        return self.state_size == state_size and self.n_actions == n_actions

    def clear_table(self) -> None:
        self.tables.tt_keys[:] = 0
        self.tables.tt_data[:] = 0

    def clear(self) -> None:
        """Forget everything learnt from earlier searches (table, killers, history), so
        that a new game plays the same wherever and after whatever it is played."""
        self.clear_table()
        self.tables.killers[:] = -1
        self.tables.history[:] = 0

    def new_search(self, keys: list[int], node_limit: int | None) -> None:
        """Reset counters, age the move-ordering tables and load the repetition path."""
        t = self.tables
        t.ctx[:] = 0
        t.ctx[search_core.CX_ROOT_HINT] = -1
        t.ctx[search_core.CX_NODE_LIMIT] = node_limit if node_limit is not None else 1 << 62
        t.stop[0] = 0
        t.history[:] >>= 2
        t.killers[:] = -1
        recent = keys[-4096:]
        t.path[: len(recent)] = recent
        t.ctx[search_core.CX_PATH_LEN] = len(recent)


class Deadline:
    """Sets ``stop[0]`` from a timer thread once ``seconds`` have passed (the search kernels
    release the GIL and poll the flag every 64 nodes)."""

    def __init__(self, stop: IntArray, seconds: float | None) -> None:
        self.stop = stop
        self.timer: threading.Timer | None = None
        if seconds is not None:
            self.timer = threading.Timer(max(seconds, 0.0), self._fire)
            self.timer.daemon = True

    def _fire(self) -> None:
        self.stop[0] = 1

    def __enter__(self) -> Deadline:
        if self.timer is not None:
            self.timer.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.timer is not None:
            self.timer.cancel()


_warm: set[str] = set()


def warm_up(game: Game, *, mcts: bool = False) -> float:
    """Compile (or load from numba's cache) the alpha-beta search kernels (with ``mcts``:
    the MCTS kernel instead), so the first real search is not charged for it; returns the
    seconds it took (0 if done before). One compiled search serves both families."""
    kind = "mcts" if mcts else "search"
    if kind in _warm or getattr(numba.config, "DISABLE_JIT", False):
        return 0.0
    start = time.perf_counter()
    fam = kernels_for(game)
    state = game.state
    buf = SearchBuffers(state.shape[0], fam.n_actions, 0.01)
    buf.new_search([], None)
    buf.tables.stack[0] = state
    if mcts:
        tree = UctTree(np.zeros((8, search_core.ND_FIELDS), dtype=np.int64),
                       np.zeros(8, dtype=np.float64), buf.tables.ctx, buf.tables.stop)
        search_core.mcts(fam, state, tree, UctSettings(1, 1.0, 0, 100.0, 1))
    else:
        search_core.search_root(fam, buf.tables, 1)
        search_core.principal_variation(fam, buf.tables, state, -1)
    _warm.add(kind)
    return time.perf_counter() - start
