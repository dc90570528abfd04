"""Kalah endgame databases: the exact value of every position with few seeds on the board.

In Kalah the seeds on the board never increase: a step either puts seeds into the mover's
store (sowing past it, or a capture) or only moves seeds along the mover's own holes. So the
value of a position depends only on positions with the same or fewer seeds on the board,
and the database is built level by level, ``n = 0, 1, ..., K`` seeds on the board.

Values. As in the solver's table (``kernels.py``) a Kalah value is the store difference plus
a part ``W`` that depends on the holes and the player to move only (stores only grow and the
leftovers rule never reads them). The database holds ``W`` from the mover's view, as an
``int8`` (``-n <= W <= n``), for the hole vector *mover's holes 1..P, then the opponent's
holes 1..P*: the same entry serves both players.

Index. The hole vectors with ``n`` seeds are numbered in lexicographic order by a
combinatorial ranking, after all vectors with fewer seeds: the array is dense, with
``C(K + 2P, 2P)`` entries for levels ``0..K``. The ranking (``db_index``, ``local_index``)
is compiled in ``kernels/endgames.py``, shared with the alpha-beta search that probes the
databases.

Steps inside one level. A step that keeps ``n`` ends in one of the mover's own holes
without a capture and never passes his store, so it moves seeds to higher-numbered holes of
his own side. The potential "sum over seeds of their hole number" then grows strictly, so no
position of a level can come back: a memoised depth-first search inside the level (explicit
stack, at most ``n * (P - 1) + 1`` frames) only meets finished positions of lower levels and
positions of its own level that it finishes first.

Moves come from the rules kernels (``kernels/sowing.py``): ``apply_action`` on a state whose
stores are empty, so the stores after the step are what it gained, and the kernels decide
the end of the game and its leftovers exactly as in play. Supported: every Kalah option
combination with ``leftovers`` ``owner`` or ``last_mover`` (both give the leftovers by a
rule that reads only the position and the step). ``last_capturer`` depends on the history
and Dracala on the stores (misère), so no database is built for them.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..kernels import sowing
from ..kernels.common import OUTCOME_RUNNING, ST_OUTCOME, ST_TO_MOVE
from ..kernels.endgames import db_index, local_index
from ..kernels.jit import kernel
from ..rules.options import RuleSet, SowingOptions

IntArray = npt.NDArray[np.int64]
ByteArray = npt.NDArray[np.int8]

UNKNOWN = -128           # an entry not computed yet (values lie in -127..127)
MAX_DB_SEEDS = 100       # int8 values, and the sizes grow far faster than this anyway
_NEG = -(1 << 30)


def supported(rules: RuleSet) -> bool:
    """Whether an endgame database gives exact values under ``rules``."""
    options = rules.options
    if not isinstance(options, SowingOptions):
        return False
    # the tables hold values of plain Kalah play: every non-empty hole a legal step, the
    # final margin the objective
    return (options.capture_duty == "none" and not options.misere
            and options.leftovers in ("owner", "last_mover"))


def binomials(pits: int, k: int) -> IntArray:
    """``binom[a, b] = C(a, b)`` for ``a <= k + 2 * pits``, ``b <= 2 * pits`` (0 for b > a)."""
    m = 2 * pits
    top = k + m + 1
    table = np.zeros((top, m + 1), dtype=np.int64)
    for a in range(top):
        table[a, 0] = 1
        for b in range(1, min(a, m) + 1):
            table[a, b] = table[a - 1, b - 1] + (table[a - 1, b] if b <= a - 1 else 0)
    return table


def entries(pits: int, k: int) -> int:
    """Positions (hole vectors) with at most ``k`` seeds on the board: ``C(k + 2P, 2P)``."""
    return int(binomials(pits, k)[k + 2 * pits, 2 * pits])


@kernel
def _load(params: IntArray, vec: IntArray, state: IntArray) -> None:
    """A fresh state: ``vec`` (mover's holes, then the opponent's), empty stores, player 1
    to move."""
    pits = params[sowing.P_PITS]
    state[:] = 0
    first = sowing.holes_at(pits, 1)
    second = sowing.holes_at(pits, 2)
    for i in range(pits):
        state[first + i] = vec[i]
        state[second + i] = vec[pits + i]
    state[ST_TO_MOVE] = 1
    state[sowing.fields_at(pits) + sowing.F_FIRST_DONE] = 1
    sowing.setup_state(params, state)


@kernel
def _load_child(params: IntArray, child: IntArray, vec: IntArray, state: IntArray) -> None:
    """``state`` = the position ``child`` seen from its player to move, stores emptied."""
    pits = params[sowing.P_PITS]
    mine = sowing.holes_at(pits, child[ST_TO_MOVE])
    theirs = sowing.holes_at(pits, 3 - child[ST_TO_MOVE])
    for i in range(pits):
        vec[i] = child[mine + i]
        vec[pits + i] = child[theirs + i]
    _load(params, vec, state)


@kernel
def unrank(binom: IntArray, n: int, k: int, vec: IntArray) -> None:
    """``vec`` = the ``k``-th vector with ``n`` seeds (lexicographic order)."""
    m = vec.shape[0]
    r = n
    for i in range(m - 1):
        length = m - 1 - i
        x = 0
        while True:
            count = binom[r - x + length - 1, length - 1]
            if k < count:
                break
            k -= count
            x += 1
        vec[i] = x
        r -= x
    vec[m - 1] = r


@kernel
def fill_range(params: IntArray, binom: IntArray, base: IntArray, db: ByteArray, n: int,
               start: int, stop: int, stats: IntArray) -> int:
    """Fill the entries ``start..stop-1`` of level ``n`` (lower levels done; other entries of
    the level may be filled on the way). Return the positions computed, or -1 on a cycle
    inside the level (impossible by the rules, checked anyway). ``stats[0]`` counts steps."""
    pits = params[sowing.P_PITS]
    m = 2 * pits
    own_holes = sowing.holes_at(pits, 1)  # the loaded positions have the first player to move
    size = params[sowing.P_STATE_SIZE]
    depth = n * pits + 2
    states = np.zeros((depth, size), dtype=np.int64)
    moves = np.zeros(depth, dtype=np.int64)
    best = np.zeros(depth, dtype=np.int64)
    where = np.zeros(depth, dtype=np.int64)
    child = np.zeros(size, dtype=np.int64)
    vec = np.zeros(m, dtype=np.int64)
    scratch = np.zeros(m, dtype=np.int64)
    done = 0
    if start >= stop:
        return 0
    unrank(binom, n, start, vec)
    for k in range(start, stop):
        if k > start:  # next vector in lexicographic order
            j = m - 1
            while vec[j] == 0:
                j -= 1
            rest = vec[j] - 1
            vec[j] = 0
            vec[j - 1] += 1
            vec[m - 1] = rest
        g = base[n] + k
        if db[g] != UNKNOWN:
            continue
        _load(params, vec, states[0])
        if states[0, ST_OUTCOME] != OUTCOME_RUNNING:
            db[g] = (states[0, sowing.store_at(pits, 1)]
                     - states[0, sowing.store_at(pits, 2)])
            done += 1
            continue
        sp = 1
        moves[0] = 0
        best[0] = _NEG
        where[0] = g
        while sp > 0:
            t = sp - 1
            st = states[t]
            j = moves[t]
            if j >= pits:
                db[where[t]] = best[t]
                done += 1
                sp -= 1
                continue
            if st[own_holes + j] == 0:
                moves[t] = j + 1
                continue
            child[:] = st
            sowing.apply_action(params, child, j)
            stats[0] += 1
            s1 = child[sowing.store_at(pits, 1)]
            s2 = child[sowing.store_at(pits, 2)]
            if child[ST_OUTCOME] != OUTCOME_RUNNING:
                v = s1 - s2
            else:
                on = n - s1 - s2
                ci = base[on] + local_index(params, binom, child, on)
                w = db[ci]
                if w == UNKNOWN:
                    if on != n or sp >= depth:
                        return -1
                    _load_child(params, child, scratch, states[sp])
                    moves[sp] = 0
                    best[sp] = _NEG
                    where[sp] = ci
                    sp += 1
                    continue
                v = s1 - s2 + (w if child[ST_TO_MOVE] == 1 else -w)
            if v > best[t]:
                best[t] = v
            moves[t] = j + 1
    return done


@kernel
def build_levels(params: IntArray, binom: IntArray, db: ByteArray, n_from: int, n_to: int,
                 stats: IntArray) -> int:
    """Fill ``db`` (every level in one array, level ``n`` from ``binom[n + 2P - 1, 2P]``) for
    the levels ``n_from..n_to`` (the lower ones must be done); return the number of
    positions computed, or -1 if a level had a cycle (impossible by the rules, checked
    anyway). ``stats[0]`` counts the steps played. Each level is one :func:`fill_range`,
    the kernel the disk database fills its files with."""
    m = 2 * params[sowing.P_PITS]
    base = np.zeros(n_to + 1, dtype=np.int64)
    for n in range(1, n_to + 1):
        base[n] = binom[n + m - 1, m]
    done = 0
    for n in range(n_from, n_to + 1):
        count = binom[n + m - 1, m - 1] if n > 0 else 1
        got = fill_range(params, binom, base, db, n, 0, count, stats)
        if got < 0:
            return -1
        done += got
    return done


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "nugar"


def rules_key(rules: RuleSet) -> str:
    """What the database depends on: every Kalah option except ``seeds``."""
    o = rules.sowing_options
    return (f"kalah-db-p{o.pits}-so{int(o.skip_origin)}-ec{o.empty_capture}-end{o.end}"
            f"-lo{o.leftovers}")


class EndgameDB:
    """Values of every position with at most ``seeds`` seeds on the board, for one Kalah
    rule set (``seeds`` per hole plays no part: one database serves every seed count).

    ``cache=True`` keeps a built database under ``$XDG_CACHE_HOME/nugar`` (or
    ``~/.cache/nugar``), written atomically, and loads it from there next time.
    ``build=False`` only allocates it: :meth:`build` then fills it level by level and can
    stop at a deadline; ``levels`` is the highest level done so far (-1: none), and the
    levels done are already exact.
    """

    def __init__(self, rules: RuleSet, seeds: int, *, cache: bool = False,
                 build: bool = True) -> None:
        if not supported(rules):
            raise ValueError(f"no endgame database for {rules.text} (Kalah with leftovers "
                             f"owner or last_mover only)")
        if not 0 <= seeds <= MAX_DB_SEEDS:
            raise ValueError(f"database seeds must be 0..{MAX_DB_SEEDS}, not {seeds}")
        from ..rules.sowing import SowingGame

        self.rules = rules
        self.seeds = seeds
        self.params = SowingGame(rules).params
        self.pits = int(self.params[sowing.P_PITS])
        self.binom = binomials(self.pits, max(seeds, 1))
        self.size = entries(self.pits, seeds)
        self.steps = 0
        self.loaded_from: Path | None = None
        self.cache = cache
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self.levels = -1
        table = self._cached() if cache else None
        if table is not None:
            self.levels = seeds
        else:
            table = np.full(self.size, UNKNOWN, dtype=np.int8)
        self.table: ByteArray = table
        if build:
            self.build()

    def build(self, deadline: float | None = None, upto: int | None = None) -> bool:
        """Fill the levels not done yet up to ``upto`` (default: all), lowest first; stop
        after the level during which ``deadline`` (a ``time.monotonic()`` instant) passed.
        True when those levels are done."""
        top = self.seeds if upto is None else min(upto, self.seeds)
        start = time.perf_counter()
        cpu = time.process_time()
        stats = np.zeros(1, dtype=np.int64)
        try:
            while self.levels < top:
                if deadline is not None and time.monotonic() >= deadline:
                    return False
                n = self.levels + 1
                if build_levels(self.params, self.binom, self.table, n, n, stats) < 0:
                    raise RuntimeError("endgame database: a level has a cycle")
                self.levels = n
            if self.cache and self.loaded_from is None and self.levels == self.seeds:
                self._save()
            return True
        finally:
            self.steps += int(stats[0])
            self.seconds += time.perf_counter() - start
            self.cpu_seconds += time.process_time() - cpu

    @property
    def nbytes(self) -> int:
        return int(self.table.nbytes)

    def _path(self) -> Path:
        digest = hashlib.sha1(rules_key(self.rules).encode()).hexdigest()[:8]
        return _cache_dir() / f"{rules_key(self.rules)}-k{self.seeds}-{digest}.npy"

    def _cached(self) -> ByteArray | None:
        path = self._path()
        try:
            table = np.load(path, allow_pickle=False)
        except (OSError, ValueError):
            return None
        if table.dtype != np.int8 or table.shape != (self.size,):
            return None
        self.loaded_from = path
        return table  # type: ignore[no-any-return]

    def _save(self) -> None:
        path = self._path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                np.save(fh, self.table, allow_pickle=False)
            os.replace(tmp, path)
        except OSError:
            return  # a cache that cannot be written is only slower next time

    def value(self, state: np.ndarray[Any, Any]) -> int:
        """``W`` of a running position with at most ``seeds`` seeds on the board."""
        on = int(sowing.seeds_on_board(self.pits, state))
        if on > self.levels:
            raise ValueError(f"{on} seeds on the board; the database covers {self.levels}")
        return int(self.table[db_index(self.params, self.binom, state, on)])
