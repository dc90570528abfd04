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
  ``protect_threes`` is on.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .alignment import (
    P_N,
    P_OFF_NB,
    P_PROTECT,
    P_W,
    ST_BOARD,
    ST_HAND1,
    ST_ON1,
    in_three,
    owns,
)
from .common import ST_TO_MOVE
from .jit import kernel

IntArray = npt.NDArray[np.int64]

W_MATERIAL = 0
W_HAND = 1
W_MOBILITY = 2
W_THREAT_ME = 3
W_THREAT_OPP = 4
W_BULL = 5
W_PROTECTED = 6
N_WEIGHTS = 7

#: tuned weights (docs/ai.md has how they were chosen)
DARA_WEIGHTS = np.array([100, 5, 3, 45, 30, 30, 8], dtype=np.int64)
DALA_WEIGHTS = np.array([100, 5, 3, 45, 30, 40, 4], dtype=np.int64)


@kernel
def _is_empty(params: IntArray, state: IntArray, sq: int) -> bool:
    w = params[P_W]
    i = ST_BOARD + sq // 63
    return (((state[i] | state[i + w]) >> (sq % 63)) & 1) == 0


@kernel
def _run_len(params: IntArray, state: IntArray, player: int, sq: int, d: int,
             skip: int) -> int:
    nb = params[P_OFF_NB]
    count = 0
    t = params[nb + 4 * sq + d]
    while t >= 0 and t != skip and owns(params, state, player, t):
        count += 1
        t = params[nb + 4 * t + d]
    return count


@kernel
def _would_form(params: IntArray, state: IntArray, player: int, target: int,
                origin: int) -> bool:
    """Whether ``player`` forms a three by moving the piece on ``origin`` (-1: a new piece)
    to the empty ``target``."""
    h = 1 + _run_len(params, state, player, target, 1, origin) + _run_len(
        params, state, player, target, 3, origin)
    if h == 3:
        return True
    v = 1 + _run_len(params, state, player, target, 0, origin) + _run_len(
        params, state, player, target, 2, origin)
    return v == 3


@kernel
def _features(params: IntArray, state: IntArray, player: int) -> tuple[int, int, int, int]:
    """Mobility, threats, bulls and pieces standing in a three of ``player``."""
    n = params[P_N]
    nb = params[P_OFF_NB]
    mobility = 0
    threats = 0
    bulls = 0
    protected = 0
    for sq in range(n):
        if not owns(params, state, player, sq):
            continue
        standing = in_three(params, state, player, sq)
        if standing:
            protected += 1
        for d in range(4):
            t = params[nb + 4 * sq + d]
            if t < 0 or not _is_empty(params, state, t):
                continue
            mobility += 1
            if _would_form(params, state, player, t, sq):
                threats += 1
                if standing:
                    bulls += 1
    return mobility, threats, bulls, protected


@kernel
def evaluate(params: IntArray, state: IntArray, weights: IntArray) -> int:
    """Score of a running position for the player to move (see the module notes)."""
    me = state[ST_TO_MOVE]
    opp = 3 - me
    mob_me, threat_me, bull_me, prot_me = _features(params, state, me)
    mob_opp, threat_opp, bull_opp, prot_opp = _features(params, state, opp)
    hand_me = state[ST_HAND1 + me - 1]
    hand_opp = state[ST_HAND1 + opp - 1]
    material = (state[ST_ON1 + me - 1] + hand_me) - (state[ST_ON1 + opp - 1] + hand_opp)
    score = (weights[W_MATERIAL] * material + weights[W_HAND] * (hand_me - hand_opp)
             + weights[W_MOBILITY] * (mob_me - mob_opp)
             + weights[W_THREAT_ME] * threat_me - weights[W_THREAT_OPP] * threat_opp
             + weights[W_BULL] * (bull_me - bull_opp))
    if params[P_PROTECT] != 0:
        score += weights[W_PROTECTED] * (prot_me - prot_opp)
    return int(score)
