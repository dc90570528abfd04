"""Compiled rules of the alignment family (Dara, Dala): drops, steps, threes, captures, ends.

Every alignment rule and option of the rules page (``nugar/docs/rules.md``, "Alignment
family") is decided here, once; ``nugar.rules.alignment.AlignmentGame`` and the search and
simulators call these functions. Sources of the rules: the Wikipedia articles "Dara (game)" and
"Dala (game)" and the rule sheet of a commercial Dara set.

Layout (see ``docs/architecture.md``): the state is the common header followed by the fields
``ST_HAND1`` ... ``ST_BOARD``; occupancy is one bitboard per player in ``W`` words of 63 bits
(square ``sq`` is bit ``sq % 63`` of word ``sq // 63``). Action codes, with ``N = rows*cols``:
``sq`` drop, ``N + 4*sq + d`` step (d: 0 up, 1 right, 2 down, 3 left), ``5N + sq`` capture,
``6N`` pass.

Whether a move formed a three is decided by walking a precomputed neighbour table from the
squares the move touched: a move only creates or breaks the lines through those squares. Legal
drops and steps are found with whole-board bit operations on boards of up to 63 squares (every
preset), and square by square on larger boards; tests check that both give the same moves.

Repetition needs the positions of earlier turns, which one state does not hold: the caller
keeps an ``int64`` history buffer and calls :func:`note_position` after each decision (see
there). ``nugar.kernels.dispatch`` builds perft and random playouts on these kernels.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .bits import lowest_square
from .common import (
    OUTCOME_DRAW,
    OUTCOME_RUNNING,
    REASON_BLOCKED,
    REASON_PIECES,
    REASON_QUIET_LIMIT,
    REASON_REPETITION,
    ST_KEY,
    ST_OUTCOME,
    ST_PLY,
    ST_REASON,
    ST_TO_MOVE,
)
from .jit import kernel, kernel_held, kernel_noalloc

IntArray = NDArray[np.int64]

# --- state fields after the common header ----------------------------------------------------
ST_HAND1 = 5       # pieces in hand, first player
ST_HAND2 = 6       # pieces in hand, second player
ST_PENDING = 7     # 1 while the player to move owes a capture decision
ST_LAST1 = 8       # first player's last step: origin square (-1 none); ST_LAST1 + 1: target
ST_LAST2 = 10      # second player's last step, origin and target
ST_QUIET = 12      # move-phase turns since the last capture (or since the move phase began)
ST_PASSED = 13     # 1 when the turn just finished was a pass
ST_ON1 = 14        # pieces on the board, first player
ST_ON2 = 15        # pieces on the board, second player
ST_BOARD = 16      # bitboards: first player's W words, then the second player's W words

# --- params (the array is made by nugar.rules.alignment.make_params) -------------------------
P_ROWS = 0
P_COLS = 1
P_N = 2            # rows * cols
P_W = 3            # 63-bit words per bitboard
P_PIECES = 4
P_CENTRE_FIRST = 5
P_DROP_CAPTURE = 6
P_DROP_MAX = 7     # longest line a drop may put the dropped piece in
P_STEP_MAX = 8     # longest line a step may put the moved piece in
P_PROTECT = 9
P_TAKE_ANY = 10
P_NO_RETURN = 11
P_BLOCKED_LOSE = 12
P_LOSS_AT = 13
P_REPETITION = 14  # 0: off
P_QUIET = 15       # 0: off
P_CENTRE = 16      # four centre squares, -1 where the board has none
P_OFF_NB = 20      # offset of the neighbour table: 4 entries per square, -1 off the board
P_OFF_ZPIECE = 21  # offset of piece keys: (player - 1) * N + sq
P_OFF_ZHAND = 22   # offset of hand keys: 2 players x 2 digits x 64 values
P_OFF_ZLAST = 23   # offset of last-step keys: 2 players x (origin N, target N)
P_Z_SIDE = 24      # key of "second player to move"
P_Z_PENDING = 25   # key of "a capture decision is owed"
P_FULL = 26        # boards of one word (N <= 63): every square's bit
P_NOT_LAST_COL = 28   # ... every square but those of the last column
P_CENTRE_MASK = 29    # ... the centre squares
P_BELOW_TOP = 30      # ... every square but those of the top row
P_FIXED = 32

UNLIMITED = 1 << 40
NUM_DIRECTIONS = 4


@kernel_noalloc
def num_actions(params: IntArray) -> int:
    """Size of the flat action space: N drops, 4N steps, N captures and a pass."""
    return int(6 * params[P_N] + 1)


# --- small helpers ---------------------------------------------------------------------------
@kernel_noalloc
def owns(params: IntArray, state: IntArray, player: int, sq: int) -> bool:
    """Whether ``player`` (1 or 2) has a piece on ``sq``."""
    word = state[ST_BOARD + (player - 1) * params[P_W] + sq // 63]
    return bool(((word >> (sq % 63)) & 1) != 0)


@kernel_noalloc
def _empty(params: IntArray, state: IntArray, sq: int) -> bool:
    w = params[P_W]
    i = ST_BOARD + sq // 63
    b = sq % 63
    return bool((((state[i] | state[i + w]) >> b) & 1) == 0)


@kernel_noalloc
def _hand_key(params: IntArray, player: int, hand: int) -> int:
    base = params[P_OFF_ZHAND] + (player - 1) * 128
    return int(params[base + (hand & 63)] ^ params[base + 64 + ((hand >> 6) & 63)])


@kernel_noalloc
def _flip(params: IntArray, state: IntArray, player: int, sq: int) -> None:
    """Put a piece of ``player`` on an empty ``sq`` or take it off (bit and key)."""
    i = ST_BOARD + (player - 1) * params[P_W] + sq // 63
    state[i] ^= 1 << (sq % 63)
    state[ST_KEY] ^= params[params[P_OFF_ZPIECE] + (player - 1) * params[P_N] + sq]


@kernel_noalloc
def _set_hand(params: IntArray, state: IntArray, player: int, hand: int) -> None:
    i = ST_HAND1 + player - 1
    state[ST_KEY] ^= _hand_key(params, player, state[i]) ^ _hand_key(params, player, hand)
    state[i] = hand


@kernel_noalloc
def _last_key(params: IntArray, player: int, origin: int, target: int) -> int:
    if origin < 0:
        return 0
    n = params[P_N]
    base = params[P_OFF_ZLAST] + (player - 1) * 2 * n
    return int(params[base + origin] ^ params[base + n + target])


@kernel_noalloc
def _set_last(params: IntArray, state: IntArray, player: int, origin: int, target: int) -> None:
    """Record ``player``'s last step (-1, -1: none); in the key only where no_return counts."""
    i = ST_LAST1 + 2 * (player - 1)
    if params[P_NO_RETURN] != 0:
        state[ST_KEY] ^= (_last_key(params, player, state[i], state[i + 1])
                          ^ _last_key(params, player, origin, target))
    state[i] = origin
    state[i + 1] = target


@kernel_noalloc
def _run(params: IntArray, state: IntArray, player: int, sq: int, d: int, skip: int) -> int:
    """Own pieces in a row from ``sq`` (exclusive) in direction ``d``, stopping at ``skip``."""
    nb = params[P_OFF_NB]
    count = 0
    t = params[nb + 4 * sq + d]
    if params[P_W] == 1:  # one word: test the bits of the player's word directly
        own = state[ST_BOARD + player - 1]
        while t >= 0 and t != skip and (own >> t) & 1 != 0:
            count += 1
            t = params[nb + 4 * t + d]
        return count
    while t >= 0 and t != skip and owns(params, state, player, t):
        count += 1
        t = params[nb + 4 * t + d]
    return count


@kernel_noalloc
def _longest_through(params: IntArray, state: IntArray, player: int, sq: int,
                     skip: int) -> int:
    """Longer of the row and column lines ``player`` would have through ``sq`` (own piece
    assumed on ``sq``), treating ``skip`` as empty."""
    h = 1 + _run(params, state, player, sq, 1, skip) + _run(params, state, player, sq, 3, skip)
    v = 1 + _run(params, state, player, sq, 0, skip) + _run(params, state, player, sq, 2, skip)
    return h if h > v else v


@kernel_noalloc
def in_three(params: IntArray, state: IntArray, player: int, sq: int) -> bool:
    """Whether the piece on ``sq`` stands in a three (a maximal row or column line of 3)."""
    if params[P_W] == 1:
        return bool((_threes(params, state[ST_BOARD + player - 1]) >> sq) & 1 != 0)
    return _in_three_walk(params, state, player, sq)


@kernel_noalloc
def _in_three_walk(params: IntArray, state: IntArray, player: int, sq: int) -> bool:
    """:func:`in_three` by walking the lines from ``sq`` (boards of any size)."""
    if 1 + _run(params, state, player, sq, 1, -1) + _run(params, state, player, sq, 3, -1) == 3:
        return True
    return 1 + _run(params, state, player, sq, 0, -1) + _run(params, state, player, sq, 2, -1) == 3


@kernel_noalloc
def _step_forms_three(params: IntArray, state: IntArray, player: int, origin: int,
                      target: int) -> bool:
    """After ``player``'s piece stepped from ``origin`` to ``target``: whether the step formed
    a three. New threes can only run through the target, or be what a line through the
    origin left behind (stepping off the end of a four, Dala seed); every other line is as it
    was."""
    if params[P_W] != 1:
        return bool(_in_three_walk(params, state, player, target)
                    or _forms_by_leaving(params, state, player, origin, target))
    rows3, cols3 = _threes_by_axis(params, state[ST_BOARD + player - 1])
    tb = 1 << target
    if ((rows3 | cols3) & tb) != 0:
        return True
    # a three left behind along a row (column) ends next to the origin in that row (column)
    ob = 1 << origin
    nlc = params[P_NOT_LAST_COL]
    cols = params[P_COLS]
    beside = (((ob & nlc) << 1) | ((ob >> 1) & nlc)) & ~tb
    above_below = (((ob & params[P_BELOW_TOP]) << cols) | (ob >> cols)) & ~tb
    return bool((rows3 & beside) != 0 or (cols3 & above_below) != 0)


@kernel_noalloc
def _forms_by_leaving(params: IntArray, state: IntArray, player: int, origin: int,
                      target: int) -> bool:
    """After a piece left ``origin`` for ``target``: whether a line that ran through
    ``origin`` left a three behind (stepping off the end of a four, Dala seed); walks the
    lines, on boards of any size."""
    nb = params[P_OFF_NB]
    for d in range(NUM_DIRECTIONS):
        t = params[nb + 4 * origin + d]
        if t >= 0 and t != target and owns(params, state, player, t):
            if 1 + _run(params, state, player, t, d, -1) == 3:
                return True
    return False


@kernel_noalloc
def in_drop_phase(state: IntArray) -> bool:
    """The drop phase lasts until the second player's hand is empty (rules page, phases)."""
    return bool(state[ST_HAND2] > 0)


@kernel_noalloc
def _centre_only(params: IntArray, state: IntArray) -> bool:
    """Whether drops are restricted to the centre now (``centre_first``)."""
    if params[P_CENTRE_FIRST] == 0:
        return False
    made = 2 * params[P_PIECES] - state[ST_HAND1] - state[ST_HAND2]
    if made >= 4:
        return False
    for k in range(4):
        c = params[P_CENTRE + k]
        if c >= 0 and _empty(params, state, c):
            return True
    return False


@kernel_noalloc
def _drop_ok(params: IntArray, state: IntArray, player: int, sq: int, centre: bool) -> bool:
    if not _empty(params, state, sq):
        return False
    if centre:
        inside = False
        for k in range(4):
            if params[P_CENTRE + k] == sq:
                inside = True
        if not inside:
            return False
    limit = params[P_DROP_MAX]
    return bool(limit >= UNLIMITED or _longest_through(params, state, player, sq, -1) <= limit)


@kernel_noalloc
def _step_target(params: IntArray, state: IntArray, player: int, sq: int, d: int) -> int:
    """Target of the step from ``sq`` in direction ``d`` if it is legal, else -1."""
    t = params[params[P_OFF_NB] + 4 * sq + d]
    if t < 0 or not _empty(params, state, t):
        return -1
    if params[P_NO_RETURN] != 0:
        i = ST_LAST1 + 2 * (player - 1)
        if state[i + 1] == sq and state[i] == t:
            return -1
    limit = params[P_STEP_MAX]
    if limit < UNLIMITED and _longest_through(params, state, player, t, sq) > limit:
        return -1
    return int(t)


@kernel_noalloc
def _turn_moves_any_board(params: IntArray, state: IntArray, out: IntArray,
                          first_only: bool) -> int:
    """Drops or steps of the player to move, ascending codes (walks squares one by one)."""
    n = params[P_N]
    player = state[ST_TO_MOVE]
    count = 0
    if in_drop_phase(state):
        if state[ST_HAND1 + player - 1] <= 0:
            return 0
        centre = _centre_only(params, state)
        for sq in range(n):
            if _drop_ok(params, state, player, sq, centre):
                if first_only:
                    return 1
                out[count] = sq
                count += 1
        return count
    for sq in range(n):
        if owns(params, state, player, sq):
            for d in range(NUM_DIRECTIONS):
                if _step_target(params, state, player, sq, d) >= 0:
                    if first_only:
                        return 1
                    out[count] = n + 4 * sq + d
                    count += 1
    return count


# --- one-word boards: whole-board bit operations ----------------------------------------------
# On boards of up to 63 squares (every preset) the legal drops and steps are found for all
# squares at once with shifts; a square's run of own pieces in one direction is read from
# masks R1, R2, R3 ("the next 1, 2, 3 squares that way are own").
@kernel_noalloc
def _shift(params: IntArray, b: int, d: int) -> int:
    """The squares one step from those of ``b`` in direction ``d`` (one-word boards)."""
    # bits that would leave the board are cleared before a left shift, so that the result
    # never needs more than N bits (plain Python ints do not wrap as int64 does)
    if d == 0:
        return int((b & params[P_BELOW_TOP]) << params[P_COLS])
    if d == 1:
        return int((b & params[P_NOT_LAST_COL]) << 1)
    if d == 2:
        return int(b >> params[P_COLS])
    return int((b >> 1) & params[P_NOT_LAST_COL])


@kernel_noalloc
def _runs(params: IntArray, own: int, d: int) -> tuple[int, int, int]:
    """Masks of the squares whose next 1, 2, 3 squares in direction ``d`` are all in ``own``."""
    back = d ^ 2
    r1 = _shift(params, own, back)
    r2 = r1 & _shift(params, r1, back)
    r3 = r1 & _shift(params, r2, back)
    return r1, r2, r3


@kernel_noalloc
def _line_at_least(params: IntArray, own: int, d: int, m: int) -> int:
    """Squares whose own neighbours on both sides along the axis of ``d`` number ``m`` (2 or
    3) or more: a piece put there stands in a line of ``m + 1`` or more."""
    a1, a2, a3 = _runs(params, own, d)
    b1, b2, b3 = _runs(params, own, d ^ 2)
    if m <= 2:
        return a2 | b2 | (a1 & b1)
    return a3 | b3 | (a1 & b2) | (a2 & b1)


@kernel_noalloc
def _threes_by_axis(params: IntArray, own: int) -> tuple[int, int]:
    """Squares of ``own`` (a one-word board) standing in a maximal row line of exactly three,
    and those in a maximal column line of exactly three.

    A line is found at its first square (left end, lowest row): an own square whose
    neighbour before it is not own, whose next two squares are own and the third not."""
    cols = params[P_COLS]
    nlc = params[P_NOT_LAST_COL]
    # rows: r1, r2, r3 = the next 1, 2, 3 squares to the right are own
    r1 = (own >> 1) & nlc
    r2 = r1 & ((r1 >> 1) & nlc)
    r3 = r1 & ((r2 >> 1) & nlc)
    first = own & ~((own & nlc) << 1) & r2 & ~r3
    # the three squares of each line stay in its row, so these shifts keep below N bits
    rows3 = first | (first << 1) | (first << 2)
    # columns: u1, u2, u3 = the next 1, 2, 3 squares upwards are own
    u1 = own >> cols
    u2 = u1 & (u1 >> cols)
    u3 = u1 & (u2 >> cols)
    first = own & ~((own & params[P_BELOW_TOP]) << cols) & u2 & ~u3
    cols3 = first | (first << cols) | (first << (2 * cols))
    return rows3, cols3


@kernel_noalloc
def _threes(params: IntArray, own: int) -> int:
    """Squares of ``own`` (a one-word board) standing in a three, in a row or a column."""
    rows3, cols3 = _threes_by_axis(params, own)
    return rows3 | cols3


@kernel_noalloc
def _turn_moves_one_word(params: IntArray, state: IntArray, out: IntArray,
                         first_only: bool) -> int:
    """As :func:`_turn_moves_any_board`, with bit operations on a one-word board."""
    n = params[P_N]
    player = state[ST_TO_MOVE]
    own = state[ST_BOARD + player - 1]
    empty = params[P_FULL] & ~(state[ST_BOARD] | state[ST_BOARD + 1])
    count = 0
    if in_drop_phase(state):
        if state[ST_HAND1 + player - 1] <= 0:
            return 0
        ok = empty
        if _centre_only(params, state):
            ok &= params[P_CENTRE_MASK]
        limit = params[P_DROP_MAX]
        if limit < UNLIMITED:
            ok &= ~(_line_at_least(params, own, 1, limit) | _line_at_least(params, own, 0, limit))
        if first_only:
            return 1 if ok != 0 else 0
        while ok != 0:
            sq = lowest_square(ok)
            out[count] = sq
            count += 1
            ok ^= 1 << sq
        return count
    cols = params[P_COLS]
    nlc = params[P_NOT_LAST_COL]
    bt = params[P_BELOW_TOP]
    # targets of the steps up, right, down and left: empty squares next to an own piece
    up = ((own & bt) << cols) & empty
    right = ((own & nlc) << 1) & empty
    down = (own >> cols) & empty
    left = ((own >> 1) & nlc) & empty
    if params[P_STEP_MAX] < UNLIMITED:
        # squares whose next 1, 2, 3 squares to the right (r), left (l), above (u) and below
        # (d) are own; a piece arriving on a square stands in a row of four or more where
        # `row4`, in a column of four or more where `col4`; the origin of a step lies behind
        # the target, so along the step only the squares beyond it count
        r1 = (own >> 1) & nlc
        r2 = r1 & ((r1 >> 1) & nlc)
        r3 = r1 & ((r2 >> 1) & nlc)
        l1 = (own & nlc) << 1
        l2 = l1 & ((l1 & nlc) << 1)
        l3 = l1 & ((l2 & nlc) << 1)
        u1 = own >> cols
        u2 = u1 & (u1 >> cols)
        u3 = u1 & (u2 >> cols)
        d1 = (own & bt) << cols
        d2 = d1 & ((d1 & bt) << cols)
        d3 = d1 & ((d2 & bt) << cols)
        row4 = r3 | l3 | (r1 & l2) | (r2 & l1)
        col4 = u3 | d3 | (u1 & d2) | (u2 & d1)
        up &= ~(u3 | row4)
        down &= ~(d3 | row4)
        right &= ~(r3 | col4)
        left &= ~(l3 | col4)
    # origins of those steps: each target shifted back (it stays on the board)
    origins0 = up >> cols
    origins1 = right >> 1
    origins2 = down << cols
    origins3 = left << 1
    if params[P_NO_RETURN] != 0:
        # the one step no_return forbids: back from the last target to the last origin
        i = ST_LAST1 + 2 * (player - 1)
        last_target = state[i + 1]
        if last_target >= 0:
            # the direction from the last target back to the last origin, by their difference
            # (selects, not a chain of branches; on a one-column board "right" and "left"
            # steps do not exist, so banning them as well as "up" or "down" changes nothing)
            bit = 1 << last_target
            diff = state[i] - last_target
            origins0 &= ~(bit if diff == cols else 0)
            origins1 &= ~(bit if diff == 1 else 0)
            origins2 &= ~(bit if diff == -cols else 0)
            origins3 &= ~(bit if diff == -1 else 0)
    every = origins0 | origins1 | origins2 | origins3
    if first_only:
        return 1 if every != 0 else 0
    # every code is written, and kept (the count moves on) only if the step is legal: no
    # branch to mispredict; the writes stay below 4N, inside `out`
    while every != 0:
        sq = lowest_square(every)
        every &= every - 1
        base = n + 4 * sq
        out[count] = base
        count += (origins0 >> sq) & 1
        out[count] = base + 1
        count += (origins1 >> sq) & 1
        out[count] = base + 2
        count += (origins2 >> sq) & 1
        out[count] = base + 3
        count += (origins3 >> sq) & 1
    return int(count)


@kernel_noalloc
def _turn_moves(params: IntArray, state: IntArray, out: IntArray, first_only: bool) -> int:
    """Drops or steps of the player to move (no captures, no pass), ascending codes."""
    if params[P_W] == 1:
        return _turn_moves_one_word(params, state, out, first_only)
    return _turn_moves_any_board(params, state, out, first_only)


@kernel_noalloc
def _captures(params: IntArray, state: IntArray, out: IntArray, first_only: bool) -> int:
    """Opponent pieces the player to move may take now, as capture codes, ascending."""
    if params[P_W] != 1:
        return _captures_any_board(params, state, out, first_only)
    victim = 3 - state[ST_TO_MOVE]
    pieces = state[ST_BOARD + victim - 1]
    takeable = pieces
    if params[P_PROTECT] != 0:
        takeable = pieces & ~_threes(params, pieces)
        if takeable == 0 and params[P_TAKE_ANY] != 0:
            takeable = pieces
    if first_only:
        return 1 if takeable != 0 else 0
    base = 5 * params[P_N]
    count = 0
    while takeable != 0:
        out[count] = base + lowest_square(takeable)
        count += 1
        takeable &= takeable - 1
    return count


@kernel_noalloc
def _captures_any_board(params: IntArray, state: IntArray, out: IntArray,
                        first_only: bool) -> int:
    """:func:`_captures` square by square, with line walks (boards of any size)."""
    n = params[P_N]
    victim = 3 - state[ST_TO_MOVE]
    if state[ST_ON1 + victim - 1] == 0:
        return 0
    protect = params[P_PROTECT] != 0
    count = 0
    for sq in range(n):
        if owns(params, state, victim, sq):
            if protect and _in_three_walk(params, state, victim, sq):
                continue
            if first_only:
                return 1
            out[count] = 5 * n + sq
            count += 1
    if count == 0 and protect and params[P_TAKE_ANY] != 0:
        for sq in range(n):
            if owns(params, state, victim, sq):
                if first_only:
                    return 1
                out[count] = 5 * n + sq
                count += 1
    return count


@kernel_noalloc
def legal_actions(params: IntArray, state: IntArray, out: IntArray) -> int:
    """Write the legal action codes, ascending, into ``out[:n]`` and return ``n``."""
    if state[ST_OUTCOME] != OUTCOME_RUNNING:
        return 0
    if state[ST_PENDING] != 0:
        return _captures(params, state, out, False)
    count = _turn_moves(params, state, out, False)
    if count == 0:
        out[0] = 6 * params[P_N]
        count = 1
    return count


@kernel_noalloc
def _finish(state: IntArray, outcome: int, reason: int) -> None:
    state[ST_OUTCOME] = outcome
    state[ST_REASON] = reason


@kernel_noalloc
def _check_pieces(params: IntArray, state: IntArray, mover: int) -> bool:
    """Piece-count loss (board plus hand at or below loss_at); the opponent is checked first
    because only he can have just lost a piece."""
    loss_at = params[P_LOSS_AT]
    other = 3 - mover
    if state[ST_ON1 + other - 1] + state[ST_HAND1 + other - 1] <= loss_at:
        _finish(state, mover, REASON_PIECES)
        return True
    if state[ST_ON1 + mover - 1] + state[ST_HAND1 + mover - 1] <= loss_at:
        _finish(state, other, REASON_PIECES)
        return True
    return False


@kernel_noalloc
def start_turn(params: IntArray, state: IntArray) -> None:
    """Decide a blocked player at the start of his turn: he loses (``blocked=lose``); with
    ``blocked=pass`` he must pass, and if the turn before was a pass too the game is drawn."""
    if state[ST_OUTCOME] != OUTCOME_RUNNING or state[ST_PENDING] != 0:
        return
    # with first_only set nothing is written to `out`, so the state stands in (no allocation)
    if _turn_moves(params, state, state, True) > 0:
        return
    if params[P_BLOCKED_LOSE] != 0:
        _finish(state, 3 - state[ST_TO_MOVE], REASON_BLOCKED)
    elif state[ST_PASSED] != 0:
        _finish(state, OUTCOME_DRAW, REASON_BLOCKED)


@kernel_noalloc
def _end_turn(params: IntArray, state: IntArray, mover: int, removed: bool, counted: bool,
              passed: bool) -> None:
    """Close ``mover``'s turn: piece count, quiet counter, hand over, blocked check.

    Repetition, which comes between the piece count and ``quiet_limit``, is checked by
    :func:`note_position`, which overrides a quiet or blocked ending it finds first.
    """
    if removed:
        state[ST_QUIET] = 0
    elif counted:
        state[ST_QUIET] += 1
    state[ST_TO_MOVE] = 3 - mover
    state[ST_KEY] ^= params[P_Z_SIDE]
    state[ST_PASSED] = 1 if passed else 0
    if _check_pieces(params, state, mover):
        return
    limit = params[P_QUIET]
    if limit > 0 and state[ST_QUIET] >= limit:
        _finish(state, OUTCOME_DRAW, REASON_QUIET_LIMIT)
        return
    start_turn(params, state)


@kernel_noalloc
def _capture_follows(params: IntArray, state: IntArray, mover: int) -> bool:
    """After ``mover`` formed a three: whether a capture decision follows; if so, owe it."""
    if _captures(params, state, state, True) == 0:  # first_only: `out` is not written
        return False
    state[ST_PENDING] = 1
    state[ST_KEY] ^= params[P_Z_PENDING]
    return True


@kernel_noalloc
def apply_action(params: IntArray, state: IntArray, action: int) -> None:
    """Apply one decision in place, unchecked, and record any end of the game in the header."""
    n = params[P_N]
    player = state[ST_TO_MOVE]
    state[ST_PLY] += 1
    if action < n:  # drop
        _flip(params, state, player, action)
        state[ST_ON1 + player - 1] += 1
        _set_hand(params, state, player, state[ST_HAND1 + player - 1] - 1)
        _set_last(params, state, player, -1, -1)
        if params[P_DROP_CAPTURE] != 0 and in_three(params, state, player, action):
            if _capture_follows(params, state, player):
                return
        _end_turn(params, state, player, False, False, False)
    elif action < 5 * n:  # step
        origin = (action - n) >> 2
        target = params[params[P_OFF_NB] + action - n]
        _flip(params, state, player, origin)
        _flip(params, state, player, target)
        _set_last(params, state, player, origin, target)
        if _step_forms_three(params, state, player, origin, target):
            if _capture_follows(params, state, player):
                return
        _end_turn(params, state, player, False, True, False)
    elif action < 6 * n:  # capture
        victim = 3 - player
        _flip(params, state, victim, action - 5 * n)
        state[ST_ON1 + victim - 1] -= 1
        state[ST_PENDING] = 0
        state[ST_KEY] ^= params[P_Z_PENDING]
        _end_turn(params, state, player, True, False, False)
    else:  # pass
        _set_last(params, state, player, -1, -1)
        _end_turn(params, state, player, False, not in_drop_phase(state), True)


@kernel_noalloc
def compute_key(params: IntArray, state: IntArray) -> int:
    """The position key computed from scratch (the kernels keep ``ST_KEY`` incrementally)."""
    key = 0
    n = params[P_N]
    for player in range(1, 3):
        for sq in range(n):
            if owns(params, state, player, sq):
                key ^= params[params[P_OFF_ZPIECE] + (player - 1) * n + sq]
        key ^= _hand_key(params, player, state[ST_HAND1 + player - 1])
        if params[P_NO_RETURN] != 0:
            i = ST_LAST1 + 2 * (player - 1)
            key ^= _last_key(params, player, state[i], state[i + 1])
    if state[ST_TO_MOVE] == 2:
        key ^= params[P_Z_SIDE]
    if state[ST_PENDING] != 0:
        key ^= params[P_Z_PENDING]
    return key


@kernel
def empty_state(params: IntArray) -> IntArray:
    """A state with an empty board, empty hands and the first player to move (no key yet)."""
    state = np.zeros(ST_BOARD + 2 * params[P_W], dtype=np.int64)
    state[ST_TO_MOVE] = 1
    for i in range(ST_LAST1, ST_LAST2 + 2):
        state[i] = -1
    return state


@kernel_noalloc
def finish_setup(params: IntArray, state: IntArray) -> None:
    """Complete a state whose board, hands, player to move, owed capture, quiet counter and
    last steps were filled in: count pieces, compute the key, and decide the endings a turn's
    end decides, in its order (piece count, ``quiet_limit``, blocked player)."""
    n = params[P_N]
    for player in range(1, 3):
        on = 0
        for sq in range(n):
            if owns(params, state, player, sq):
                on += 1
        state[ST_ON1 + player - 1] = on
    state[ST_KEY] = compute_key(params, state)
    state[ST_OUTCOME] = OUTCOME_RUNNING
    state[ST_REASON] = 0
    if _check_pieces(params, state, 3 - state[ST_TO_MOVE]):
        return
    limit = params[P_QUIET]
    if limit > 0 and state[ST_QUIET] >= limit and state[ST_PENDING] == 0:
        _finish(state, OUTCOME_DRAW, REASON_QUIET_LIMIT)
        return
    start_turn(params, state)


@kernel
def initial_state(params: IntArray) -> IntArray:
    """The starting position: empty board, every piece in hand, the first player to move."""
    state = empty_state(params)
    state[ST_HAND1] = params[P_PIECES]
    state[ST_HAND2] = params[P_PIECES]
    finish_setup(params, state)
    return state


# --- repetition ------------------------------------------------------------------------------
@kernel_noalloc
def note_position(params: IntArray, state: IntArray, history: IntArray, count: int) -> int:
    """Record a turn-start position and draw the game on its ``repetition``-th occurrence.

    Call it on the starting state and after every ``apply_action``; ``history[:count]`` holds
    the keys recorded so far and the new count is returned (unchanged in the middle of a turn
    or after a piece-count loss). ``history`` needs room for one more key. Only positions since
    the last drop or capture can be equal (pieces on the board and in hand never come back),
    and ``ST_QUIET`` counts exactly the turns since then, so older keys are dropped: the count
    restarts at the first turn after each such change. The check comes before ``quiet_limit``
    and the blocked rule (rules page), so it overrides an ending they just recorded.
    """
    if state[ST_PENDING] != 0:
        return count
    if state[ST_OUTCOME] != OUTCOME_RUNNING and state[ST_REASON] == REASON_PIECES:
        return count
    quiet = state[ST_QUIET]
    if quiet == 0 or in_drop_phase(state):
        count = 0
    key = state[ST_KEY]
    limit = params[P_REPETITION]
    if limit > 0:
        seen = 1
        lo = count - quiet
        if lo < 0:
            lo = 0
        # turns alternate, so only every other key has the same player to move (part of the
        # key): the others are skipped
        for i in range(count - 2, lo - 1, -2):
            if history[i] == key:
                seen += 1
        if seen >= limit:
            _finish(state, OUTCOME_DRAW, REASON_REPETITION)
    history[count] = key
    return count + 1



@kernel_held
def note_position_held(params: IntArray, state: IntArray, history: IntArray,
                       count: int) -> int:
    """:func:`note_position`, keeping the GIL (``jit.kernel_held``: the game API calls it
    once per move; :func:`~.dispatch.fam_legal_held` has the others)."""
    return note_position(params, state, history, count)
