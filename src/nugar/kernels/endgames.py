"""The indexes of the endgame tables, compiled once for their builders and the search.

Two kinds of table give exact values of endgame positions: the Dara and Dala tablebases of
the movement phase (``solver/tablebase.py``, built by ``solver/tbkernels.py``) and the Kalah
endgame databases (``solver/db.py`` in memory, ``solver/egdb.py`` on disk). Their builders
live in the solver; the index functions that turn a position into its place in a table live
here, below the search, so that the builders, the exact solver and the alpha-beta search
(``search_core``, which probes the tables at its leaves) share one implementation of each.

:class:`Endgames` is the record of the tables the alpha-beta search probes (``NO_ENDGAMES``:
none); :func:`tablebase_probe` and :func:`database_margin` are its probes, which give the
value of a tablebase position (with the quiet limit) and the exact final margin of a Kalah
position.

**Tablebase index** (``solver/tbkernels.py`` describes it in full). A movement-phase position
is seen from the mover's side: the mover's squares ``M`` and the opponent's ``O`` (one-word
bitboards), ``m`` and ``o`` pieces. Its full index is ``rank(M) * C(N - m, o) + rank(O
compressed to the squares M leaves free)`` in colex order; the smallest full index among its
images under the board's symmetries stands for its class, and a bitmap of those
representatives with a prefix count per 64-bit word gives its place in the table.

**Database index** (``solver/db.py``). A Kalah position's hole vector (mover's holes 1..P,
then the opponent's) with ``n`` seeds on the board is ranked lexicographically after every
vector of fewer seeds (:func:`db_index`), or among the vectors of ``n`` seeds alone
(:func:`local_index`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from . import alignment as al
from . import sowing
from .bits import lowest_square, popcount
from .common import ST_TO_MOVE
from .jit import kernel_inline, kernel_noalloc

IntArray = npt.NDArray[np.int64]
U32Array = npt.NDArray[np.uint32]
ByteArray = npt.NDArray[np.int8]

# --- the tablebase index -------------------------------------------------------------------


@kernel_noalloc
def full_index(binom: IntArray, n: int, m: int, o: int, mover: int, other: int) -> int:
    """The full index of the position (``mover``, ``other``) of material (``m``, ``o``)."""
    r = 0
    i = 0
    b = mover
    while b != 0:
        sq = lowest_square(b)
        i += 1
        r += binom[sq, i]
        b &= b - 1
    ro = 0
    i = 0
    b = other
    while b != 0:
        sq = lowest_square(b)
        below = mover & ((1 << sq) - 1)
        i += 1
        ro += binom[sq - popcount(below), i]
        b &= b - 1
    return int(r * binom[n - m, o] + ro)


@kernel_noalloc
def transform(symtab: IntArray, s: int, nbytes: int, b: int) -> int:
    """The image of board ``b`` under symmetry ``s`` (byte look-up tables)."""
    out = 0
    for k in range(nbytes):
        out |= symtab[s, k, (b >> (8 * k)) & 255]
    return int(out)


@kernel_noalloc
def canonical_index(binom: IntArray, symtab: IntArray, nbytes: int, n: int, m: int, o: int,
                    mover: int, other: int) -> int:
    """The smallest full index among the position's images: its class's representative."""
    best = full_index(binom, n, m, o, mover, other)
    for s in range(1, symtab.shape[0]):
        f = full_index(binom, n, m, o, transform(symtab, s, nbytes, mover),
                       transform(symtab, s, nbytes, other))
        if f < best:
            best = f
    return best


@kernel_noalloc
def table_id(bitmap: IntArray, prefix: IntArray, f: int) -> int:
    """Place in the table of the representative with full index ``f`` (-1: not one)."""
    w = f >> 6
    bit = f & 63
    word = bitmap[w]
    if (word >> bit) & 1 == 0:
        return -1
    return int(prefix[w] + popcount(word & ((1 << bit) - 1)))


# --- the database index --------------------------------------------------------------------


@kernel_noalloc
def db_index(params: IntArray, binom: IntArray, state: IntArray, n: int) -> int:
    """Index of ``state``'s hole vector (mover's holes first) with ``n`` seeds on the board."""
    pits = params[sowing.P_PITS]
    m = 2 * pits
    mine = sowing.holes_at(pits, state[ST_TO_MOVE])
    theirs = sowing.holes_at(pits, 3 - state[ST_TO_MOVE])
    idx = binom[n + m - 1, m] if n > 0 else 0
    r = n
    for i in range(m - 1):
        x = state[mine + i if i < pits else theirs + i - pits]
        if x > 0:
            length = m - 1 - i
            idx += binom[r + length, length] - binom[r - x + length, length]
            r -= x
            if r == 0:
                break
    return int(idx)


@kernel_noalloc
def local_index(params: IntArray, binom: IntArray, state: IntArray, n: int) -> int:
    """Index of ``state``'s hole vector (mover's holes first) among the vectors with ``n``
    seeds on the board."""
    m = 2 * params[sowing.P_PITS]
    first = binom[n + m - 1, m] if n > 0 else 0
    return int(db_index(params, binom, state, n) - first)


# --- the tables the search probes ----------------------------------------------------------

EG_NONE = 0        # no tables: the search probes nothing
EG_TABLEBASE = 1   # Dara and Dala tablebases
EG_DATABASE = 2    # Kalah endgame databases

# columns of ``Endgames.slots``, one row per material ``m * slot_width + o``
SL_BITMAP = 0      # offset of the material's bitmap in ``words`` (-1: no table)
SL_PREFIX = 1      # offset of its prefix counts in ``words``
SL_VALUES = 2      # offset of its packed values in ``codes``
SL_FIELDS = 3


class Endgames(NamedTuple):
    """The endgame tables an alpha-beta search probes (made by ``nugar.ai.endgame``; the
    kernels only read them).

    Tablebases (``kind == EG_TABLEBASE``): every table file is mapped into one stretch of
    memory, seen as ``int64`` words (``words``: the bitmaps and prefix counts) and as
    ``uint32`` (``codes``: the packed values); ``slots`` gives each material's offsets,
    ``binom`` and ``symtab`` the index's binomials and symmetry tables. ``reach``: the most
    pieces on the board of any table.

    Databases (``kind == EG_DATABASE``): ``db`` holds levels ``0..reach`` (seeds on the
    board), level ``n`` from ``db[db_base[n]]`` on; ``binom`` the index's binomials.
    """

    kind: int
    reach: int
    nbytes: int           # bytes of a board in the symmetry tables (tablebases)
    slot_width: int       # materials per row of ``slots`` (tablebases)
    binom: IntArray
    symtab: IntArray      # (symmetries, nbytes, 256)
    slots: IntArray       # (rows, SL_FIELDS)
    words: IntArray
    codes: U32Array
    db: ByteArray
    db_base: IntArray


def no_endgames() -> Endgames:
    """The record of no tables (the search probes nothing)."""
    return Endgames(EG_NONE, -1, 0, 0, np.zeros((1, 1), dtype=np.int64),
                    np.zeros((1, 1, 1), dtype=np.int64),
                    np.full((1, SL_FIELDS), -1, dtype=np.int64), np.zeros(1, dtype=np.int64),
                    np.zeros(1, dtype=np.uint32), np.zeros(1, dtype=np.int8),
                    np.zeros(1, dtype=np.int64))


NO_ENDGAMES = no_endgames()


@kernel_inline
def tablebase_code(eg: Endgames, params: IntArray, state: IntArray) -> int:
    """The packed entry (``solver/tbkernels.py``: value, plies, plies to the next capture)
    of a running position for its player to move, or -1 where it is no tablebase position
    (pieces in hand, a capture owed) or its material has no table."""
    if (state[al.ST_PENDING] != 0 or state[al.ST_HAND1] != 0 or state[al.ST_HAND2] != 0):
        return -1
    me = state[ST_TO_MOVE]
    m = state[al.ST_ON1 + me - 1]
    o = state[al.ST_ON1 + 2 - me]
    if m + o > eg.reach or m >= eg.slot_width or o >= eg.slot_width:
        return -1
    row = m * eg.slot_width + o
    at = eg.slots[row, SL_BITMAP]
    if at < 0:
        return -1
    mover = state[al.ST_BOARD + me - 1]
    other = state[al.ST_BOARD + 2 - me]
    n = params[al.P_N]
    f = canonical_index(eg.binom, eg.symtab, eg.nbytes, n, m, o, mover, other)
    w = f >> 6
    word = eg.words[at + w]
    place = eg.words[eg.slots[row, SL_PREFIX] + w] + popcount(word & ((1 << (f & 63)) - 1))
    return int(eg.codes[eg.slots[row, SL_VALUES] + place])


@kernel_inline
def tablebase_probe(eg: Endgames, params: IntArray, state: IntArray) -> tuple[bool, int, int]:
    """``(True, value, plies)`` of a running tablebase position for its player to move
    (value 1 win, 0 draw, -1 loss; plies to the end), ``(False, 0, 0)`` where no table
    holds it.

    The tables leave the quiet limit out; here a win or a loss whose next capture (the
    entry's capture distance, counted as the kernels count ``ST_QUIET``) comes after the
    limit draws the game from this position's counter, so it is a draw: the loser keeps the
    next capture beyond the limit. A win whose capture fits is a win, trusting the rest of
    it to fit from the fresh counter after that capture."""
    code = tablebase_code(eg, params, state)
    if code < 0:
        return False, 0, 0
    value = (code & 3) - 1
    plies = (code & 0xFFFF) >> 2
    limit = params[al.P_QUIET]
    if value != 0 and limit > 0 and (code >> 16) > limit - state[al.ST_QUIET]:
        value = 0
    return True, value, plies


@kernel_inline
def store_margin(params: IntArray, state: IntArray, player: int) -> int:
    """``player``'s store less the opponent's (a Kalah game's margin once it is over)."""
    pits = params[sowing.P_PITS]
    return int(state[sowing.store_at(pits, player)] - state[sowing.store_at(pits, 3 - player)])


@kernel_inline
def database_margin(eg: Endgames, params: IntArray, state: IntArray) -> tuple[bool, int]:
    """``(True, margin)``: the exact final margin (mover's store less the opponent's at the
    end of best play) of a running Kalah position with at most ``eg.reach`` seeds on the
    board, the store difference plus the database's entry; ``(False, 0)`` beyond it."""
    pits = params[sowing.P_PITS]
    on = sowing.seeds_on_board(pits, state)
    if on > eg.reach:
        return False, 0
    w = eg.db[eg.db_base[on] + local_index(params, eg.binom, state, on)]
    return True, int(store_margin(params, state, state[ST_TO_MOVE]) + w)
