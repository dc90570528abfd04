"""Compiled exact search for the sowing games: fail-soft alpha-beta with a bounds table.

Values are exact game-theoretic values, never heuristic scores, so a table entry holds a
lower and an upper bound of the true value of a position (no search depth): any search that
meets an entry may narrow its window with it, and two searches of the same position merge
their bounds. Every value is from the point of view of the player to move in that position;
a bonus step keeps the same player to move, so its value is passed up without negation.

The objective (``docs/solving.md``):

* Kalah and its variants: the final margin, mover's final store minus the opponent's.
  Because stores only ever grow and end-of-game leftovers never depend on them, the value is
  ``(own store - other store) + W(holes, mover, ...)``; the table is keyed without the stores
  and holds ``W``, so positions that differ only in their stores share one entry.
* Misère rules (``misere=on``, Dracala): first the result (win 1, draw 0, loss -1), then
  the misère margin (opponent's final store minus the mover's: win by as many seeds, lose by
  as few, as possible), as ``result * (2T + 1) + misère_margin`` with ``T`` all seeds in
  play. The stores decide the misère rule, so they are part of the key.

Table layout: ``tt_keys[i]`` holds the 64-bit key of slot ``i`` (0 = empty), ``tt_data[i]``
packs the bounds (20 bits each, offset by ``2**19``), the best step (8 bits) and a work
estimate (log2 of the nodes below, 8 bits). Slots come in pairs: the first keeps the entry with
the most work, the second always takes the newest.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..kernels import sowing
from ..kernels.common import (
    HEADER,
    OUTCOME_DRAW,
    OUTCOME_FIRST,
    OUTCOME_RUNNING,
    ST_OUTCOME,
    ST_TO_MOVE,
)
from ..kernels.endgames import db_index
from ..kernels.jit import kernel

IntArray = npt.NDArray[np.int64]
ByteArray = npt.NDArray[np.int8]

INF = (1 << 19) - 1       # beyond every value; the packed bounds hold -INF..INF
_BOUND_OFFSET = 1 << 19
_BOUND_MASK = (1 << 20) - 1
MAX_PLY = 4096            # deepest line the search can follow (steps from the root)
_RANK_TOP = 1 << 50       # move order: ranks below it, smaller first (bonus, captures, hole)
_ENTER, _RETURN, _NEXT = 0, 1, 2  # phases of the unrolled search loop

# stats array (shared with the Python driver, which reads it while the search runs)
S_NODES = 0       # positions expanded (table cut-offs and terminal positions excluded)
S_PROBES = 1      # table look-ups
S_HITS = 2        # look-ups that found the position
S_STORES = 3      # entries written
S_USED = 4        # slots filled (never emptied)
S_LIMIT = 5       # stop when S_NODES reaches this (0: no limit)
S_STOP = 6        # set to 1 from outside to abort; the search then returns at once
S_ABORTED = 7     # 1 if the search stopped early (limit, stop, or a line over MAX_PLY)
S_TOO_DEEP = 8    # 1 if a line was longer than MAX_PLY
S_DB_HITS = 9     # positions answered by the endgame database (``db.py``)
S_ETC = 10        # enhanced transposition cut-offs (a child's bounds settled the node)
S_ETC_MIN = 11    # try those cut-offs only with at least this many seeds on the board above
                  # the database's reach (set from outside; large: never)
N_STATS = 12

# key tables made by make_keys: offsets
_K_SIDE = 0
_K_FIRST_DONE = 1
_K_CAPTURER = 2   # +1, +2
_K_CELLS = 5      # per cell, 256 keys: counts 0..255 (the Python layer refuses more seeds)


def make_keys(n_cells: int) -> IntArray:
    """Random 64-bit words for the solver's own position keys (not the rules' ``ST_KEY``,
    which also covers the stores and fields that do not change the value)."""
    rng = np.random.default_rng(0x501E_5EED)
    keys = rng.integers(-(2**63), 2**63 - 1, size=_K_CELLS + n_cells * 256, dtype=np.int64)
    for c in range(n_cells):
        keys[_K_CELLS + c * 256] = 0
    return keys


@kernel
def _cell(keys: IntArray, cell: int, count: int) -> int:
    return keys[_K_CELLS + cell * 256 + count]  # type: ignore[no-any-return]


@kernel
def position_key(params: IntArray, keys: IntArray, state: IntArray) -> int:
    """The solver's key: holes, player to move, and only what changes the value besides:
    the stores under misère, the first-step flag under the capture duty, the last capturer under
    ``leftovers=last_capturer``. Never 0 (0 marks an empty slot)."""
    pits = params[sowing.P_PITS]
    misere = sowing.misere(params)
    k = 0
    for c in range(sowing.cell_count(pits)):
        at = HEADER + c
        if at == sowing.store_at(pits, 1) or at == sowing.store_at(pits, 2):
            if not misere:
                continue
        k ^= _cell(keys, c, state[at])
    if state[ST_TO_MOVE] == 2:
        k ^= keys[_K_SIDE]
    ext = sowing.fields_at(pits)
    if sowing.capture_duty(params) and state[ext + sowing.F_FIRST_DONE] != 0:
        k ^= keys[_K_FIRST_DONE]
    if params[sowing.P_LEFTOVERS] == sowing.LEFT_LAST_CAPTURER:
        k ^= keys[_K_CAPTURER + state[ext + sowing.F_LAST_CAPTURER]]
    if k == 0:
        k = 1
    return k


@kernel
def store_offset(params: IntArray, state: IntArray) -> int:
    """What the table leaves out of a value: the store difference (mover's view) in Kalah,
    nothing under misère."""
    if sowing.misere(params):
        return 0
    pits = params[sowing.P_PITS]
    s1 = state[sowing.store_at(pits, 1)]
    s2 = state[sowing.store_at(pits, 2)]
    return int(s1 - s2) if state[ST_TO_MOVE] == 1 else int(s2 - s1)


@kernel
def terminal_value(params: IntArray, state: IntArray) -> int:
    """Value of an ended game for ``state[ST_TO_MOVE]`` (see the module docstring)."""
    pits = params[sowing.P_PITS]
    me = state[ST_TO_MOVE]
    mine = state[sowing.store_at(pits, me)]
    theirs = state[sowing.store_at(pits, 3 - me)]
    if not sowing.misere(params):
        return int(mine - theirs)
    total = sowing.seeds_in_play(pits, state)
    outcome = state[ST_OUTCOME]
    if outcome == OUTCOME_DRAW:
        result = 0
    elif (outcome == OUTCOME_FIRST) == (me == 1):
        result = 1
    else:
        result = -1
    return int(result * (2 * total + 1) + (theirs - mine))


@kernel
def _pack(lo: int, hi: int, move: int, work: int) -> int:
    return ((lo + _BOUND_OFFSET) | ((hi + _BOUND_OFFSET) << 20) | ((move + 1) << 40)
            | (work << 48))


@kernel
def _work_of(nodes: int) -> int:
    w = 0
    while nodes > 1 and w < 255:
        nodes >>= 1
        w += 1
    return w


@kernel
def _tt_store(tt_keys: IntArray, tt_data: IntArray, stats: IntArray, key: int, lo: int,
              hi: int, move: int, nodes: int) -> None:
    mask = tt_keys.shape[0] - 1
    i = key & mask & ~1
    work = _work_of(nodes)
    for j in range(i, i + 2):
        if tt_keys[j] == key:  # merge: both are true bounds of the same value
            d = tt_data[j]
            old_lo = (d & _BOUND_MASK) - _BOUND_OFFSET
            old_hi = ((d >> 20) & _BOUND_MASK) - _BOUND_OFFSET
            old_work = (d >> 48) & 255
            if old_lo > lo:
                lo = old_lo
            if old_hi < hi:
                hi = old_hi
            if move < 0:
                move = ((d >> 40) & 255) - 1
            if old_work > work:
                work = old_work
            tt_data[j] = _pack(lo, hi, move, work)
            stats[S_STORES] += 1
            return
    # new position: the first slot keeps the bigger piece of work, the second the newest
    j = i
    if tt_keys[i] != 0 and ((tt_data[i] >> 48) & 255) > work:
        j = i + 1
    if tt_keys[j] == 0:
        stats[S_USED] += 1
    elif j == i and tt_keys[i + 1] == 0:
        # demote the first slot's entry to the empty second slot instead of losing it
        tt_keys[i + 1] = tt_keys[i]
        tt_data[i + 1] = tt_data[i]
        stats[S_USED] += 1
    tt_keys[j] = key
    tt_data[j] = _pack(lo, hi, move, work)
    stats[S_STORES] += 1


@kernel
def tt_probe(tt_keys: IntArray, tt_data: IntArray, key: int) -> int:
    """Index of ``key``'s slot, or -1."""
    mask = tt_keys.shape[0] - 1
    i = key & mask & ~1
    if tt_keys[i] == key:
        return int(i)
    if tt_keys[i + 1] == key:
        return int(i + 1)
    return -1


@kernel
def search(params: IntArray, keys: IntArray, tt_keys: IntArray, tt_data: IntArray,
           stats: IntArray, root: IntArray, alpha: int, beta: int, db: ByteArray,
           binom: IntArray, db_base: IntArray, db_seeds: int) -> int:
    """Fail-soft alpha-beta value of ``root`` for its player to move, in ``(alpha, beta)``:
    a result ``<= alpha`` is an upper bound, ``>= beta`` a lower bound, else exact. Check
    ``stats[S_ABORTED]`` afterwards: when set, the result means nothing.

    A running Kalah position with at most ``db_seeds`` seeds on the board is not searched:
    its exact value is the store difference plus the endgame database's entry
    ``db[db_base[n] + k]`` for the ``k``-th hole vector with ``n`` seeds (``db.py`` in
    memory, ``egdb.py`` on disk; ``db_seeds = 0`` and empty arrays: no database).

    The recursion is unrolled onto explicit per-ply arrays: numba's on-disk cache does not
    reload self-recursive functions safely (a cached recursive version crashed here)."""
    pits = params[sowing.P_PITS]
    misere = sowing.misere(params)
    depth = MAX_PLY + 1
    states = np.empty((depth, root.shape[0]), dtype=np.int64)
    moves = np.empty((depth, pits), dtype=np.int64)
    caps = np.empty(pits, dtype=np.int64)
    bonus = np.empty(pits, dtype=np.int64)
    rank = np.empty(pits, dtype=np.int64)
    f_alpha = np.empty(depth, dtype=np.int64)    # window after the table narrowed it
    f_beta = np.empty(depth, dtype=np.int64)
    f_now = np.empty(depth, dtype=np.int64)      # alpha raised by the steps seen so far
    f_best = np.empty(depth, dtype=np.int64)
    f_best_move = np.empty(depth, dtype=np.int64)
    f_move = np.empty(depth, dtype=np.int64)     # step being searched
    f_count = np.empty(depth, dtype=np.int64)
    f_next = np.empty(depth, dtype=np.int64)
    f_same = np.empty(depth, dtype=np.int64)     # 1: the child has the same player to move
    f_offset = np.empty(depth, dtype=np.int64)
    f_key = np.empty(depth, dtype=np.int64)
    f_nodes = np.empty(depth, dtype=np.int64)
    states[0, :] = root
    stats[S_ABORTED] = 0
    ply = 0
    a_in = alpha
    b_in = beta
    ret = 0
    phase = _ENTER
    while True:
        if phase == _ENTER:
            # a new node at `ply`, window (a_in, b_in): settle it at once if possible
            state = states[ply]
            phase = _RETURN
            if state[ST_OUTCOME] != OUTCOME_RUNNING:
                ret = terminal_value(params, state)
                continue
            if stats[S_STOP] != 0 or (stats[S_LIMIT] > 0 and stats[S_NODES] >= stats[S_LIMIT]):
                stats[S_ABORTED] = 1
                return 0
            if ply + 1 >= depth:
                stats[S_ABORTED] = 1
                stats[S_TOO_DEEP] = 1
                return 0
            me = state[ST_TO_MOVE]
            offset = store_offset(params, state)
            if not misere:
                # stores only grow and every seed ends in a store: the margin is bounded
                total = sowing.seeds_in_play(pits, state)
                mine = state[sowing.store_at(pits, me)]
                theirs = state[sowing.store_at(pits, 3 - me)]
                top = total - 2 * theirs
                bottom = 2 * mine - total
                if top <= a_in:
                    ret = top
                    continue
                if bottom >= b_in:
                    ret = bottom
                    continue
                on_board = total - mine - theirs
                if on_board <= db_seeds:
                    stats[S_DB_HITS] += 1
                    first = binom[on_board + 2 * pits - 1, 2 * pits] if on_board > 0 else 0
                    ret = offset + db[db_base[on_board]
                                      + db_index(params, binom, state, on_board) - first]
                    continue
            key = position_key(params, keys, state)
            stats[S_PROBES] += 1
            slot = tt_probe(tt_keys, tt_data, key)
            tt_move = -1
            if slot >= 0:
                stats[S_HITS] += 1
                d = tt_data[slot]
                lo = (d & _BOUND_MASK) - _BOUND_OFFSET
                hi = ((d >> 20) & _BOUND_MASK) - _BOUND_OFFSET
                if lo > -INF:
                    lo += offset
                if hi < INF:
                    hi += offset
                tt_move = ((d >> 40) & 255) - 1
                if lo >= b_in or lo == hi:
                    ret = lo
                    continue
                if hi <= a_in:
                    ret = hi
                    continue
                if lo > a_in:
                    a_in = lo
                if hi < b_in:
                    b_in = hi
            stats[S_NODES] += 1
            row = moves[ply]
            n = sowing.legal_actions(params, state, row)
            if n > 1:
                # the table's best step first, then bonus steps, then the most captures,
                # and among equals the hole nearest the store first (a bonus step from
                # there leaves the others' seed counts as they were; the tie-break that
                # pays most, docs/solving.md, "Move order")
                sowing.step_captures(params, state, caps, bonus)
                for i in range(n):
                    m = row[i]
                    rank[i] = -1 if m == tt_move else \
                        _RANK_TOP - (bonus[m] << 40) - (caps[m] << 8) - m
                for i in range(1, n):  # insertion sort of at most `pits` steps
                    m = row[i]
                    r = rank[i]
                    j = i - 1
                    while j >= 0 and rank[j] > r:
                        row[j + 1] = row[j]
                        rank[j + 1] = rank[j]
                        j -= 1
                    row[j + 1] = m
                    rank[j + 1] = r
            stones = sowing.seeds_on_board(pits, state)
            if n > 1 and stones - db_seeds >= stats[S_ETC_MIN]:
                # enhanced transposition cut-off: a child whose value is known well enough
                # (game over, endgame database, or bounds in the table) may settle this
                # node before any subtree is searched
                cut = -INF
                child = states[ply + 1]
                for i in range(n):
                    child[:] = state
                    sowing.apply_action(params, child, row[i])
                    if child[ST_OUTCOME] != OUTCOME_RUNNING:
                        c_lo = terminal_value(params, child)
                        c_hi = c_lo
                    else:
                        c_off = store_offset(params, child)
                        c_on = sowing.seeds_on_board(pits, child)
                        if not misere and c_on <= db_seeds:
                            first = binom[c_on + 2 * pits - 1, 2 * pits] if c_on > 0 else 0
                            c_lo = c_off + db[db_base[c_on]
                                              + db_index(params, binom, child, c_on) - first]
                            c_hi = c_lo
                        else:
                            c_slot = tt_probe(tt_keys, tt_data,
                                              position_key(params, keys, child))
                            if c_slot < 0:
                                continue
                            d = tt_data[c_slot]
                            c_lo = (d & _BOUND_MASK) - _BOUND_OFFSET
                            c_hi = ((d >> 20) & _BOUND_MASK) - _BOUND_OFFSET
                            if c_lo > -INF:
                                c_lo += c_off
                            if c_hi < INF:
                                c_hi += c_off
                    bound = c_lo if child[ST_TO_MOVE] == me else -c_hi
                    if bound >= b_in:
                        cut = bound
                        tt_move = row[i]
                        break
                if cut > -INF:
                    stats[S_ETC] += 1
                    _tt_store(tt_keys, tt_data, stats, key, cut - offset, INF, tt_move, 1)
                    ret = cut
                    phase = _RETURN
                    continue
            f_alpha[ply] = a_in
            f_beta[ply] = b_in
            f_now[ply] = a_in
            f_best[ply] = -INF
            f_best_move[ply] = -1
            f_count[ply] = n
            f_next[ply] = 0
            f_offset[ply] = offset
            f_key[ply] = key
            f_nodes[ply] = stats[S_NODES]
            phase = _NEXT
        elif phase == _RETURN:
            # `ret` is the value of the node at `ply`: hand it to the parent
            if ply == 0:
                return ret
            ply -= 1
            v = ret if f_same[ply] == 1 else -ret
            if v > f_best[ply]:
                f_best[ply] = v
                f_best_move[ply] = f_move[ply]
            if v > f_now[ply]:
                f_now[ply] = v
            phase = _NEXT
        else:
            # the node at `ply` goes on with its next step, or is done
            if f_next[ply] < f_count[ply] and f_now[ply] < f_beta[ply]:
                m = moves[ply, f_next[ply]]
                f_next[ply] += 1
                f_move[ply] = m
                child = states[ply + 1]
                child[:] = states[ply]
                sowing.apply_action(params, child, m)
                if child[ST_TO_MOVE] == states[ply, ST_TO_MOVE]:
                    f_same[ply] = 1
                    a_in = f_now[ply]
                    b_in = f_beta[ply]
                else:
                    f_same[ply] = 0
                    a_in = -f_beta[ply]
                    b_in = -f_now[ply]
                ply += 1
                phase = _ENTER
                continue
            best = f_best[ply]
            offset = f_offset[ply]
            lo = -INF
            hi = INF
            if best <= f_alpha[ply]:
                hi = best - offset
            elif best >= f_beta[ply]:
                lo = best - offset
            else:
                lo = best - offset
                hi = lo
            _tt_store(tt_keys, tt_data, stats, f_key[ply], lo, hi, f_best_move[ply],
                      stats[S_NODES] - f_nodes[ply] + 1)
            ret = best
            phase = _RETURN
