"""Static evaluation of alignment positions (Dara, Dala) for the compiled search.

The score is from the point of view of the player to move, in hundredths of a piece. For
each player it adds up (weights ``W_*``, tuned by self-play, see ``docs/ai.md``):

* material: pieces on the board plus pieces in hand (the game is lost at ``loss_at``);
* pieces in hand, once more: a piece still to be dropped can go where it is needed;
* mobility: steps to an empty neighbouring square (a blocked player passes or loses);
* threats: steps that would form a three right now (an "open two" with a piece ready to
  close it), weighted more for the player to move, who can carry one out at once;
* bulls: pieces standing in a three that can step to a square forming another three, so they
  shuttle between two threes and capture every turn (the Dala "bull");
* protected pieces: pieces standing in a three, which cannot be taken where
  ``protect_threes`` is on;
* where pieces stand (piece-square terms by class of square): own pieces minus the
  opponent's on the edge (not a corner), on the ring next to the edge and in the centre
  (two or more squares from every edge; corners are the reference), counted apart while
  pieces are still to be dropped and once they all are on the board;
* open twos: empty squares where one more own piece would make a three (however it gets
  there), for the player to move and for the opponent;
* blocked pieces: pieces with no empty neighbour, own minus the opponent's;
* by phase: while pieces are in hand, extra weights for mobility, threats and bulls (no step
  can be made yet); once all are on the board, a bonus when the player to move has a threat
  at all (he captures this turn) and penalties when the opponent has one, and two or more.

The kinds of terms after the protected pieces have weight 0 in a preset unless tuning showed
a gain at level 8 (see ``docs/scaling.md``); a weight list of an older, shorter spec ends in
zeros and so evaluates as it did.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .alignment import (
    P_BELOW_TOP,
    P_BLOCKED_LOSE,
    P_COLS,
    P_DROP_CAPTURE,
    P_FULL,
    P_N,
    P_NOT_LAST_COL,
    P_OFF_NB,
    P_PROTECT,
    P_ROWS,
    P_W,
    ST_BOARD,
    ST_HAND1,
    ST_ON1,
)
from .bits import popcount
from .common import ST_TO_MOVE
from .jit import kernel, kernel_noalloc

IntArray = npt.NDArray[np.int64]

W_MATERIAL = 0
W_HAND = 1
W_MOBILITY = 2
W_THREAT_ME = 3
W_THREAT_OPP = 4
W_BULL = 5
W_PROTECTED = 6
#: piece-square terms (edge, ring, centre) while pieces are in hand, then on the board
W_DROP_EDGE = 7
W_DROP_RING = 8
W_DROP_CENTRE = 9
W_MOVE_EDGE = 10
W_MOVE_RING = 11
W_MOVE_CENTRE = 12
W_OPEN_ME = 13
W_OPEN_OPP = 14
W_BLOCKED = 15
#: added to the mobility, threat and bull weights while pieces are in hand (a player cannot
#: step yet, so what steps could do counts for less)
W_DROP_MOBILITY = 16
W_DROP_THREAT_ME = 17
W_DROP_THREAT_OPP = 18
W_DROP_BULL = 19
#: once all pieces are on the board: the player to move has a step forming a three (he
#: captures at once), the opponent has one, the opponent has two or more (one block is not
#: enough); a count of threats alone prices the first one like the third
W_CAPTURE_NOW = 20
W_OPP_THREAT = 21
W_OPP_THREATS = 22
N_WEIGHTS = 23
#: how many numbers :func:`_features` and :func:`_features_one_word` return
N_COUNTS = 9

#: tuned weights (docs/ai.md has how they were chosen)
#: Dara's: fitted to depth-5 self-play with all 23 terms (docs/scaling.md); 64% at level 8
#: against the hand-set weights (100/5/3/45/30/30/8, the rest 0) over 400 games
DARA_WEIGHTS = np.array([100, 48, 3, 27, 10, 45, 4, 18, 23, 20, 14, 35, 35, 11, 7, 1,
                         8, -19, -4, -45, 106, 43, 29],
                        dtype=np.int64)
#: Dala's: the same (114,050 positions); 65% at level 8 against 100/5/3/45/30/40/4
DALA_WEIGHTS = np.array([100, 58, -24, 40, 37, 84, 4, 15, 85, 123, 117, 183, 230, 61, 25, -7,
                         12, 51, 17, -54, 232, 114, 23],
                        dtype=np.int64)


@kernel_noalloc
def _runs(params: IntArray, state: IntArray, player: int, runs: IntArray) -> None:
    """For every square: own pieces in a row ending there coming from the left (``runs[0]``),
    from the right (``runs[1]``), from below (``runs[2]``) and from above (``runs[3]``); 0 on
    squares ``player`` does not hold. Four sweeps replace a walk per piece and direction."""
    rows = params[P_ROWS]
    cols = params[P_COLS]
    base = ST_BOARD + (player - 1) * params[P_W]
    n = rows * cols
    # bit of each square, read once (a word per 63 squares; every preset fits in one)
    bit = runs[4]
    if params[P_W] == 1:
        word = state[base]
        for sq in range(n):
            bit[sq] = (word >> sq) & 1
    else:
        for sq in range(n):
            bit[sq] = (state[base + sq // 63] >> (sq % 63)) & 1
    for r in range(rows):
        run_l = 0
        run_r = 0
        row0 = r * cols
        for c in range(cols):
            sq = row0 + c
            run_l = run_l + 1 if bit[sq] else 0
            runs[0, sq] = run_l
            sq2 = row0 + cols - 1 - c
            run_r = run_r + 1 if bit[sq2] else 0
            runs[1, sq2] = run_r
    for c in range(cols):
        run_d = 0
        run_u = 0
        for r in range(rows):
            sq = r * cols + c
            run_d = run_d + 1 if bit[sq] else 0
            runs[2, sq] = run_d
            sq2 = (rows - 1 - r) * cols + c
            run_u = run_u + 1 if bit[sq2] else 0
            runs[3, sq2] = run_u


@kernel_noalloc
def _would_form(params: IntArray, runs: IntArray, target: int, origin: int) -> bool:
    """Whether moving the piece on ``origin`` to the empty ``target`` forms a three."""
    cols = params[P_COLS]
    n = params[P_N]
    col = target % cols
    left = runs[0, target - 1] if col > 0 and target - 1 != origin else 0
    right = runs[1, target + 1] if col < cols - 1 and target + 1 != origin else 0
    if left + right == 2:
        return True
    down = runs[2, target - cols] if target >= cols and target - cols != origin else 0
    up = runs[3, target + cols] if target + cols < n and target + cols != origin else 0
    return bool(down + up == 2)


@kernel_noalloc
def _square_class(params: IntArray, sq: int) -> int:
    """0 for a corner, 1 for the rest of the edge, 2 for the ring next to it, 3 deeper in."""
    rows = params[P_ROWS]
    cols = params[P_COLS]
    r = sq // cols
    c = sq % cols
    dr = min(r, rows - 1 - r)
    dc = min(c, cols - 1 - c)
    d = min(dr, dc)
    if d == 0:
        return 0 if dr == 0 and dc == 0 else 1
    return 2 if d == 1 else 3


@kernel_noalloc
def _features(params: IntArray, state: IntArray, player: int,
              runs: IntArray) -> tuple[int, int, int, int, int, int, int, int, int]:
    """Mobility, threats, bulls, pieces standing in a three, pieces on the edge, the ring
    and the centre, open twos and blocked pieces of ``player``."""
    n = params[P_N]
    nb = params[P_OFF_NB]
    w = params[P_W]
    _runs(params, state, player, runs)
    occupied = runs[5]
    if w == 1:
        both = state[ST_BOARD] | state[ST_BOARD + 1]
        for sq in range(n):
            occupied[sq] = (both >> sq) & 1
    else:
        for sq in range(n):
            i = ST_BOARD + sq // 63
            occupied[sq] = ((state[i] | state[i + w]) >> (sq % 63)) & 1
    mobility = 0
    threats = 0
    bulls = 0
    protected = 0
    edge = 0
    ring = 0
    centre = 0
    open_twos = 0
    blocked = 0
    for sq in range(n):
        if runs[0, sq] == 0:
            if occupied[sq] == 0 and _would_form(params, runs, sq, -1):
                open_twos += 1
            continue
        cls = _square_class(params, sq)
        if cls == 1:
            edge += 1
        elif cls == 2:
            ring += 1
        elif cls == 3:
            centre += 1
        standing = (runs[0, sq] + runs[1, sq] == 4) or (runs[2, sq] + runs[3, sq] == 4)
        if standing:
            protected += 1
        steps = 0
        for d in range(4):
            t = params[nb + 4 * sq + d]
            if t < 0:
                continue
            if occupied[t]:
                continue
            steps += 1
            if _would_form(params, runs, t, sq):
                threats += 1
                if standing:
                    bulls += 1
        mobility += steps
        if steps == 0:
            blocked += 1
    return mobility, threats, bulls, protected, edge, ring, centre, open_twos, blocked


@kernel_noalloc
def _features_one_word(params: IntArray, own: int, other: int
                       ) -> tuple[int, int, int, int, int, int, int, int, int]:
    """:func:`_features` on a board of one word, every square at once with shifts.

    For each square the masks ``l1, l2, l3`` say that the next 1, 2, 3 squares to its left
    hold own pieces (``r*`` to the right, ``d*`` below, ``u*`` above); ``lx2`` is "exactly
    two", and so on. A square whose own neighbours along a row add up to exactly two
    (``h2``) completes a three there; a step forms a three on an empty square when the
    neighbours that stay (the moving piece does not count) add up to two along its row or
    column. Pieces on ``h2 | v2`` stand in a three themselves, empty squares there are open
    twos. The classes of squares come from the masks of squares with a neighbour on both
    sides along a row (``nlc << 1 & nlc``) and along a column."""
    cols = params[P_COLS]
    nlc = params[P_NOT_LAST_COL]
    bt = params[P_BELOW_TOP]
    full = params[P_FULL]
    # squares whose left / right / lower / upper neighbour is in x
    l1 = (own & nlc) << 1
    l2 = l1 & ((l1 & nlc) << 1)
    l3 = l1 & ((l2 & nlc) << 1)
    r1 = (own >> 1) & nlc
    r2 = r1 & ((r1 >> 1) & nlc)
    r3 = r1 & ((r2 >> 1) & nlc)
    d1 = (own & bt) << cols
    d2 = d1 & ((d1 & bt) << cols)
    d3 = d1 & ((d2 & bt) << cols)
    u1 = own >> cols
    u2 = u1 & (u1 >> cols)
    u3 = u1 & (u2 >> cols)
    lx2 = l2 & ~l3
    rx2 = r2 & ~r3
    dx2 = d2 & ~d3
    ux2 = u2 & ~u3
    h2 = (lx2 & ~r1) | (l1 & ~l2 & r1 & ~r2) | (rx2 & ~l1)
    v2 = (dx2 & ~u1) | (d1 & ~d2 & u1 & ~u2) | (ux2 & ~d1)
    empty = full & ~(own | other)
    standing = own & (h2 | v2)
    # targets of a step from the left (right, below, above) that form a three
    from_l = empty & (rx2 | v2)
    from_r = empty & (lx2 | v2)
    from_d = empty & (ux2 | h2)
    from_u = empty & (dx2 | h2)
    mobility = (popcount(empty & l1) + popcount(empty & r1) + popcount(empty & d1)
                + popcount(empty & u1))
    threats = (popcount(from_l & l1) + popcount(from_r & r1) + popcount(from_d & d1)
               + popcount(from_u & u1))
    bulls = 0
    if standing != 0:
        bulls = (popcount(from_l & ((standing & nlc) << 1))
                 + popcount(from_r & ((standing >> 1) & nlc))
                 + popcount(from_d & ((standing & bt) << cols))
                 + popcount(from_u & (standing >> cols)))
    # classes of squares: inner1 has a neighbour on every side, inner2 only such neighbours
    both_h = nlc & (nlc << 1)
    both_v = bt & (bt << cols)
    inner1 = both_h & both_v
    inner2 = inner1 & (inner1 << 1) & (inner1 >> 1) & (inner1 << cols) & (inner1 >> cols)
    edge = full & ~inner1 & (both_h | both_v)
    next_to_empty = ((empty & nlc) << 1) | ((empty >> 1) & nlc) | ((empty & bt) << cols) | (
        empty >> cols)
    return (mobility, threats, bulls, popcount(standing), popcount(own & edge),
            popcount(own & inner1 & ~inner2), popcount(own & inner2),
            popcount(empty & (h2 | v2)), popcount(own & ~next_to_empty))


@kernel
def new_scratch(params: IntArray) -> IntArray:
    """The work space :func:`evaluate_with` needs (allocate it once per search)."""
    return np.empty((6, params[P_N]), dtype=np.int64)


@kernel
def evaluate(params: IntArray, state: IntArray, weights: IntArray) -> int:
    """Score of a running position for the player to move (see the module notes)."""
    return evaluate_with(params, state, weights, new_scratch(params))


@kernel_noalloc
def evaluate_with(params: IntArray, state: IntArray, weights: IntArray,
                  runs: IntArray) -> int:
    """:func:`evaluate` with a caller's ``(6, N)`` scratch array (no allocation per call)."""
    me = state[ST_TO_MOVE]
    opp = 3 - me
    if params[P_W] == 1:
        own = state[ST_BOARD + me - 1]
        other = state[ST_BOARD + opp - 1]
        (mob_me, threat_me, bull_me, prot_me, edge_me, ring_me, centre_me, open_me,
         blocked_me) = _features_one_word(params, own, other)
        (mob_opp, threat_opp, bull_opp, prot_opp, edge_opp, ring_opp, centre_opp, open_opp,
         blocked_opp) = _features_one_word(params, other, own)
    else:
        (mob_me, threat_me, bull_me, prot_me, edge_me, ring_me, centre_me, open_me,
         blocked_me) = _features(params, state, me, runs)
        (mob_opp, threat_opp, bull_opp, prot_opp, edge_opp, ring_opp, centre_opp, open_opp,
         blocked_opp) = _features(params, state, opp, runs)
    hand_me = state[ST_HAND1 + me - 1]
    hand_opp = state[ST_HAND1 + opp - 1]
    material = (state[ST_ON1 + me - 1] + hand_me) - (state[ST_ON1 + opp - 1] + hand_opp)
    score = (weights[W_MATERIAL] * material + weights[W_HAND] * (hand_me - hand_opp)
             + weights[W_MOBILITY] * (mob_me - mob_opp)
             + weights[W_THREAT_ME] * threat_me - weights[W_THREAT_OPP] * threat_opp
             + weights[W_BULL] * (bull_me - bull_opp)
             + weights[W_OPEN_ME] * open_me - weights[W_OPEN_OPP] * open_opp
             + weights[W_BLOCKED] * (blocked_me - blocked_opp))
    if params[P_PROTECT] != 0:
        score += weights[W_PROTECTED] * (prot_me - prot_opp)
    if hand_me + hand_opp > 0:
        pst = W_DROP_EDGE
        score += (weights[W_DROP_MOBILITY] * (mob_me - mob_opp)
                  + weights[W_DROP_THREAT_ME] * threat_me
                  - weights[W_DROP_THREAT_OPP] * threat_opp
                  + weights[W_DROP_BULL] * (bull_me - bull_opp))
    else:
        pst = W_MOVE_EDGE
        if threat_me > 0:
            score += weights[W_CAPTURE_NOW]
        if threat_opp > 0:
            score -= weights[W_OPP_THREAT]
        if threat_opp > 1:
            score -= weights[W_OPP_THREATS]
    score += (weights[pst] * (edge_me - edge_opp) + weights[pst + 1] * (ring_me - ring_opp)
              + weights[pst + 2] * (centre_me - centre_opp))
    return int(score)


# --- move ordering ---------------------------------------------------------------------------
@kernel_noalloc
def _has_own_neighbour(params: IntArray, own: int, sq: int) -> bool:
    nb = params[P_OFF_NB] + 4 * sq
    for d in range(4):
        t = params[nb + d]
        if t >= 0 and (own >> t) & 1:
            return True
    return False


@kernel_noalloc
def surely_quiet(params: IntArray, state: IntArray, action: int, me: int) -> bool:
    """Whether the decision ``action`` of ``me`` surely neither keeps the turn (forms a three
    with a capture to follow) nor ends the game in ``me``'s favour, so that move ordering
    need not play it to find out. A three needs an own piece next to the target, or (a
    line of four left behind) next to the origin; a drop forms none that counts without
    ``drop_capture``; with ``blocked=lose`` any move may win, and captures and passes are
    always played. ``False`` means "play it and see"."""
    n = params[P_N]
    if action >= 5 * n or params[P_W] != 1 or params[P_BLOCKED_LOSE] != 0:
        return False
    own = state[ST_BOARD + me - 1]
    if action < n:
        if params[P_DROP_CAPTURE] == 0:
            return True
        return not _has_own_neighbour(params, own, action)
    origin = (action - n) >> 2
    target = params[params[P_OFF_NB] + action - n]
    rest = own & ~(1 << origin)
    return not (_has_own_neighbour(params, rest, target)
                or _has_own_neighbour(params, rest, origin))
