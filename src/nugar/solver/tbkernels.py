"""Compiled parts of the Dara and Dala endgame tablebases (``tablebase.py`` drives them).

A tablebase position is a movement-phase position of the alignment family: every piece
dropped, no capture owed, the side to move to step. It is stored from the mover's side: the
mover's squares ``M`` and the opponent's ``O`` (one-word bitboards, boards of up to 63
squares), with ``m`` and ``o`` pieces. Its *full index* ranks ``M`` among the ``m``-subsets
of the ``N`` squares and ``O`` among the ``o``-subsets of the squares ``M`` leaves free, both
in colex order (the rank of a set is the sum of ``C(square, i + 1)`` over its ``i``-th
lowest square)::

    full = rank(M) * C(N - m, o) + rank(O compressed to the free squares)

A position and its images under the board's symmetries (``sym_tables``) play alike; only the
smallest full index of each class is stored. A bitmap over the full indices marks those
representatives and a prefix count per 64-bit word turns a representative's full index into
its place in the table (:func:`table_id`).

The index functions themselves (``full_index``, ``transform``, ``canonical_index``,
``table_id``) are in ``kernels/endgames.py``, where the alpha-beta search probes the tables
with the same code.

The rules come from ``kernels/alignment.py`` alone: :func:`generate` sets up each position as
a kernel state and asks the kernels for its legal actions, applies each (and each capture
that follows) with ``apply_action`` and reads the result: the end of the game, a position of
a smaller material (a capture), or a position of this layer (a quiet step or a pass).
:func:`retrograde` then decides the layer from its exits and its edges, level by level.

Values are packed into one ``uint32`` per position: the low 16 bits ``4 * plies + value + 1``
(value 1 win, 0 draw, -1 loss for the mover; plies to the end of the game, turns of a step
and its capture), the high 16 bits the plies to the next capture or end of the game.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..kernels import alignment as al
from ..kernels.bits import lowest_square, popcount
from ..kernels.common import OUTCOME_DRAW, OUTCOME_RUNNING, ST_OUTCOME, ST_TO_MOVE
from ..kernels.endgames import canonical_index, table_id
from ..kernels.jit import kernel, kernel_inline

IntArray = npt.NDArray[np.int64]
I32Array = npt.NDArray[np.int32]
U32Array = npt.NDArray[np.uint32]
U8Array = npt.NDArray[np.uint8]

INF = 1 << 30           # no such exit
_TOP_BIT = np.int64(-(2**63))   # bit 63 of an int64 word (1 << 63 overflows in plain Python)
MAX_PLIES = (1 << 14) - 1


@kernel
def _bit(k: int) -> int:
    """The int64 word with bit ``k`` (0..63) set, alike compiled and interpreted."""
    if k == 63:
        return int(_TOP_BIT)
    return 1 << k


@kernel
def _word_count(word: int) -> int:
    """Bits set in an int64 word, bit 63 (its sign) included."""
    return int(popcount(word & 0x7FFFFFFFFFFFFFFF) + (1 if word < 0 else 0))


@kernel
def _next_subset(x: int) -> int:
    """The next larger integer with as many bits set (colex successor of a subset)."""
    c = x & -x
    r = x + c
    return int((((r ^ x) >> 2) // c) | r)


@kernel_inline
def _free_squares(n: int, mover: int, free: IntArray) -> None:
    """The squares of a board of ``n`` that ``mover`` leaves empty, in order, into ``free``."""
    k = 0
    for sq in range(n):
        if (mover >> sq) & 1 == 0:
            free[k] = sq
            k += 1


@kernel_inline
def _spread(c: int, free: IntArray) -> int:
    """The board of the subset ``c`` of the free squares (bit ``i`` of ``c``: ``free[i]``)."""
    other = 0
    b = c
    while b != 0:
        other |= 1 << free[lowest_square(b)]
        b &= b - 1
    return other


@kernel
def mark_classes(binom: IntArray, symtab: IntArray, nbytes: int, n: int, m: int, o: int,
                 r0: int, r1: int, mover0: int, bitmap: IntArray, word0: int) -> int:
    """Mark the class representatives among the positions whose mover set has colex rank
    ``r0..r1-1`` (``mover0`` the set of rank ``r0``): bit ``f - 64 * word0`` of ``bitmap``
    for full index ``f``. Return how many were marked."""
    free = np.zeros(n, dtype=np.int64)
    per = binom[n - m, o]
    count = 0
    f = r0 * per
    mover = mover0
    for _ in range(r0, r1):
        _free_squares(n, mover, free)
        c = (1 << o) - 1
        for _ in range(per):
            other = _spread(c, free)
            if canonical_index(binom, symtab, nbytes, n, m, o, mover, other) == f:
                g = f - 64 * word0
                bitmap[g >> 6] |= _bit(g & 63)
                count += 1
            f += 1
            c = _next_subset(c)
        mover = _next_subset(mover)
    return count


@kernel
def list_classes(binom: IntArray, n: int, m: int, o: int, r0: int, r1: int, mover0: int,
                 bitmap: IntArray, p0: int, movers: IntArray, others: IntArray) -> None:
    """Write the boards of the representatives marked in ``bitmap`` whose mover set has
    rank ``r0..r1-1``, in table order from place ``p0``."""
    free = np.zeros(n, dtype=np.int64)
    per = binom[n - m, o]
    f = r0 * per
    p = p0
    mover = mover0
    for _ in range(r0, r1):
        _free_squares(n, mover, free)
        c = (1 << o) - 1
        for _ in range(per):
            if (bitmap[f >> 6] >> (f & 63)) & 1 != 0:
                movers[p] = mover
                others[p] = _spread(c, free)
                p += 1
            f += 1
            c = _next_subset(c)
        mover = _next_subset(mover)


@kernel
def prefix_counts(bitmap: IntArray, prefix: IntArray) -> None:
    """``prefix[w]``: representatives in the words before ``w``."""
    total = 0
    for w in range(bitmap.shape[0]):
        prefix[w] = total
        total += _word_count(bitmap[w])


@kernel
def set_position(state: IntArray, mover: int, other: int) -> None:
    """Make ``state`` (an empty kernel state of a one-word board) the movement-phase position
    with the first player to move on ``mover`` and the second on ``other``."""
    state[:] = 0
    state[al.ST_LAST1] = -1
    state[al.ST_LAST1 + 1] = -1
    state[al.ST_LAST2] = -1
    state[al.ST_LAST2 + 1] = -1
    state[ST_TO_MOVE] = 1
    state[al.ST_BOARD] = mover
    state[al.ST_BOARD + 1] = other
    state[al.ST_ON1] = popcount(mover)
    state[al.ST_ON2] = popcount(other)


@kernel
def probe_code(binom: IntArray, symtab: IntArray, nbytes: int, n: int, bitmap: IntArray,
               prefix: IntArray, values: U32Array, mover: int, other: int) -> int:
    """The packed value of a position of a table (its material is the table's)."""
    m = popcount(mover)
    o = popcount(other)
    f = canonical_index(binom, symtab, nbytes, n, m, o, mover, other)
    return int(values[table_id(bitmap, prefix, f)])


@kernel
def generate(params: IntArray, binom: IntArray, symtab: IntArray, nbytes: int, lo: int,
             hi: int, movers: IntArray, others: IntArray, split: int,
             bm_a: IntArray, pf_a: IntArray, bm_b: IntArray, pf_b: IntArray, off_b: int,
             lbm_a: IntArray, lpf_a: IntArray, lval_a: U32Array,
             lbm_b: IntArray, lpf_b: IntArray, lval_b: U32Array,
             stride: int, edges: I32Array, outdeg: I32Array, ewin: I32Array,
             edraw: U8Array, eloss: I32Array) -> None:
    """Moves of the layer's positions ``lo..hi-1``, through the rules kernels.

    The layer holds material A = (m, o), positions ``0..split-1``, and B = (o, m) from
    ``off_b`` on (one table when m == o: ``split`` is then the layer's size, B is A and
    ``off_b`` is 0). A quiet step or a
    pass of an A position leads to a B position and back; a capture leads to the lower
    material ``lower_a`` = (o - 1, m) from an A position, ``lower_b`` = (m - 1, o) from a B
    one (empty arrays where that material has lost). For each position: its edges into the
    layer (``edges[p * stride ...]``, ``outdeg[p]`` of them, repeated where two moves lead to
    one class), its shortest won exit (``ewin``, plies), whether an exit draws (``edraw``),
    its longest lost exit (``eloss``, -1 none; 0 with no edge and no exit: a blocked player
    who loses).
    """
    n = params[al.P_N]
    size = al.ST_BOARD + 2
    state = np.zeros(size, dtype=np.int64)
    child = np.zeros(size, dtype=np.int64)
    after = np.zeros(size, dtype=np.int64)
    acts = np.zeros(6 * n + 1, dtype=np.int64)
    caps = np.zeros(6 * n + 1, dtype=np.int64)
    for p in range(lo, hi):
        in_a = p < split
        mover = movers[p]
        other = others[p]
        set_position(state, mover, other)
        m = state[al.ST_ON1]
        o = state[al.ST_ON2]
        deg = 0
        win = INF
        draw = 0
        loss = -1
        al.start_turn(params, state)
        count = 0
        if state[ST_OUTCOME] != OUTCOME_RUNNING:
            loss = 0  # blocked, and a blocked player loses
        else:
            count = al.legal_actions(params, state, acts)
        for i in range(count):
            child[:] = state
            al.apply_action(params, child, acts[i])
            ncap = 1
            if child[al.ST_PENDING] != 0:
                ncap = al.legal_actions(params, child, caps)
            for j in range(ncap):
                after[:] = child
                if child[al.ST_PENDING] != 0:
                    al.apply_action(params, after, caps[j])
                res = after[ST_OUTCOME]
                if res != OUTCOME_RUNNING:
                    if res == OUTCOME_DRAW:
                        draw = 1
                    elif res == 1:
                        win = min(win, 1)
                    else:
                        loss = max(loss, 1)
                    continue
                # the child from its mover's side: the second player now moves
                cm = after[al.ST_BOARD + 1]
                co = after[al.ST_BOARD]
                if after[al.ST_ON2] == o and after[al.ST_ON1] == m:
                    f = canonical_index(binom, symtab, nbytes, n, o, m, cm, co)
                    if in_a:
                        q = table_id(bm_b, pf_b, f) + off_b
                    else:
                        q = table_id(bm_a, pf_a, f)
                    edges[p * stride + deg] = q
                    deg += 1
                    continue
                if in_a:
                    code = probe_code(binom, symtab, nbytes, n, lbm_a, lpf_a, lval_a, cm, co)
                else:
                    code = probe_code(binom, symtab, nbytes, n, lbm_b, lpf_b, lval_b, cm, co)
                value = (code & 3) - 1
                plies = ((code & 0xFFFF) >> 2) + 1
                if value == 0:
                    draw = 1
                elif value < 0:
                    win = min(win, plies)
                else:
                    loss = max(loss, plies)
        outdeg[p] = deg
        ewin[p] = win
        edraw[p] = draw
        eloss[p] = loss


@kernel
def reverse_edges(edges: I32Array, outdeg: I32Array, stride: int, rev_ptr: IntArray,
                  rev: I32Array) -> None:
    """The predecessors of every position (``rev[rev_ptr[q]:rev_ptr[q + 1]]``), one entry
    per edge; ``rev_ptr`` has one more entry than there are positions."""
    size = outdeg.shape[0]
    rev_ptr[:] = 0
    for p in range(size):
        for k in range(outdeg[p]):
            rev_ptr[edges[p * stride + k] + 1] += 1
    for q in range(size):
        rev_ptr[q + 1] += rev_ptr[q]
    fill = rev_ptr[:-1].copy()
    for p in range(size):
        for k in range(outdeg[p]):
            q = edges[p * stride + k]
            rev[fill[q]] = p
            fill[q] += 1


@kernel
def retrograde(outdeg: I32Array, rev_ptr: IntArray, rev: I32Array, ewin: I32Array,
               edraw: U8Array, eloss: I32Array, dist: I32Array, val: npt.NDArray[np.int8]
               ) -> int:
    """Decide every position of a layer from its exits and edges; return the levels run.

    Level by level (plies 0, 1, 2, ...): a position is won in ``n`` when an exit wins in
    ``n`` or an edge leads to a position lost in ``n - 1``, and lost in ``n`` when every
    edge leads to a won position and no exit wins or draws, ``n`` being the longest of its
    lost exits and one more than its edges' plies. Positions never decided are draws
    (``val`` 0, ``dist`` -1): neither side can force the end, and repetition draws.
    """
    size = outdeg.shape[0]
    count = outdeg.copy()
    top = 0
    for p in range(size):
        if ewin[p] < INF:
            top = max(top, ewin[p])
        else:
            top = max(top, eloss[p])
    # positions decided at a known level ahead (a won exit; a lost one longer than every
    # edge), in one linked list per level: each position enters at most one list
    first = np.full(top + 2, -1, dtype=np.int32)
    after = np.full(size, -1, dtype=np.int32)
    queue = np.empty(size, dtype=np.int32)
    for p in range(size):
        dist[p] = -1
        val[p] = 0
        d = -1
        if ewin[p] < INF:
            d = ewin[p]
        elif count[p] == 0 and edraw[p] == 0:
            d = max(eloss[p], 0)
        if d >= 0:
            after[p] = first[d]
            first[d] = p
    head = 0
    tail = 0
    level = 0
    while True:
        if level <= top:
            p = first[level]
            while p >= 0:
                if dist[p] < 0:
                    dist[p] = level
                    val[p] = 1 if ewin[p] < INF else -1
                    queue[tail] = p
                    tail += 1
                p = after[p]
        end = tail
        if head == end and level >= top:
            break
        for i in range(head, end):
            q = queue[i]
            lost = val[q] < 0
            for j in range(rev_ptr[q], rev_ptr[q + 1]):
                p = rev[j]
                if dist[p] >= 0:
                    continue
                if lost:
                    dist[p] = level + 1
                    val[p] = 1
                    queue[tail] = p
                    tail += 1
                else:
                    count[p] -= 1
                    if count[p] == 0 and ewin[p] >= INF and edraw[p] == 0:
                        d = max(eloss[p], level + 1)
                        if d == level + 1:
                            dist[p] = d
                            val[p] = -1
                            queue[tail] = p
                            tail += 1
                        else:
                            after[p] = first[d]
                            first[d] = p
        head = end
        level += 1
    return level


@kernel
def pack(val: npt.NDArray[np.int8], dtm: I32Array, dtc: I32Array, out: U32Array) -> int:
    """Pack the values (see the module's docstring); return the longest distance seen."""
    longest = 0
    for p in range(val.shape[0]):
        d = int(dtm[p]) if val[p] != 0 else 0
        c = int(dtc[p]) if val[p] != 0 else 0
        longest = max(longest, max(d, c))
        out[p] = np.uint32((min(d, MAX_PLIES) * 4 + int(val[p]) + 1) | (min(c, 0xFFFF) << 16))
    return longest
