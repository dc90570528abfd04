"""Static evaluation of sowing positions (Kalah, Dracala) for the compiled search.

The score is from the point of view of the player to move, in hundredths of a seed:

* ``W_STORE`` x (own store - opponent's store): the result itself. Under misère rules (the
  ``dracala`` AI profile) the sign is reversed by the weights (a store past half of all seeds
  loses), see ``docs/ai.md``.
* ``W_SIDE`` x (seeds in own holes - seeds in the opponent's holes): seeds still to be sown
  on one's own side tend to end in one's own store (leftovers go to their owner in Kalah).
* ``W_BONUS`` x (holes giving a bonus step: own - opponent's).
* ``W_THREAT_OWN`` x the largest capture the player to move can make now, and
  ``W_THREAT_OPP`` x the largest the opponent could make if it were his turn.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import sowing_words as _words
from .bits import popcount
from .common import HEADER, ST_TO_MOVE
from .jit import kernel_noalloc
from .sowing import P_EMPTY_SINGLE, P_PITS, P_SKIP_ORIGIN, step_result

IntArray = npt.NDArray[np.int64]

W_STORE = 0
W_SIDE = 1
W_BONUS = 2
W_THREAT_OWN = 3
W_THREAT_OPP = 4
N_WEIGHTS = 5

#: tuned weights (docs/ai.md has how): Kalah and Dracala
KALAH_WEIGHTS = np.array([100, 18, 30, 40, 35], dtype=np.int64)
DRACALA_WEIGHTS = np.array([-100, 0, 10, -30, 30], dtype=np.int64)


@kernel_noalloc
def evaluate(params: IntArray, state: IntArray, weights: IntArray) -> int:
    """Score of a running position for the player to move (see the module notes)."""
    if _words.fits(params, state):
        return _evaluate_words(params, state, weights)
    return _evaluate_cells(params, state, weights)


@kernel_noalloc
def _evaluate_cells(params: IntArray, state: IntArray, weights: IntArray) -> int:
    """:func:`evaluate` cell by cell, for boards of any size."""
    pits = params[P_PITS]
    me = state[ST_TO_MOVE]
    opp = 3 - me
    mine = HEADER if me == 1 else HEADER + pits + 1
    theirs = HEADER + pits + 1 if me == 1 else HEADER
    side_me = 0
    side_opp = 0
    bonus_me = 0
    bonus_opp = 0
    threat_me = 0
    threat_opp = 0
    for h in range(pits):
        if state[mine + h] > 0:
            side_me += state[mine + h]
            c, b = step_result(params, state, me, h)
            if b:
                bonus_me += 1
            if c > threat_me:
                threat_me = c
        if state[theirs + h] > 0:
            side_opp += state[theirs + h]
            c, b = step_result(params, state, opp, h)
            if b:
                bonus_opp += 1
            if c > threat_opp:
                threat_opp = c
    return _score(weights, state[mine + pits] - state[theirs + pits], side_me - side_opp,
                  bonus_me - bonus_opp, threat_me, threat_opp)


@kernel_noalloc
def _evaluate_words(params: IntArray, state: IntArray, weights: IntArray) -> int:
    """:func:`evaluate` on packed words (``sowing_words``): every step of both players rated
    a side at a time, for boards whose sides fit in a word."""
    pits = params[P_PITS]
    skip = params[P_SKIP_ORIGIN]
    single = params[P_EMPTY_SINGLE]
    w1 = _words.pack(state, HEADER, pits)
    w2 = _words.pack(state, HEADER + pits + 1, pits)
    mine = w1 if state[ST_TO_MOVE] == 1 else w2
    theirs = w2 if state[ST_TO_MOVE] == 1 else w1
    _, bonus_me, best_me = _words.rate_all(mine, theirs, pits, skip, single)
    _, bonus_opp, best_opp = _words.rate_all(theirs, mine, pits, skip, single)
    threat_me = best_me - 1 if best_me > 0 else 0
    threat_opp = best_opp - 1 if best_opp > 0 else 0
    return _score(weights, _words.cell(mine, pits) - _words.cell(theirs, pits),
                  _words.side_seeds(mine, pits) - _words.side_seeds(theirs, pits),
                  popcount(bonus_me) - popcount(bonus_opp), threat_me, threat_opp)


@kernel_noalloc
def _score(weights: IntArray, store_diff: int, side_diff: int, bonus_diff: int,
           threat_me: int, threat_opp: int) -> int:
    """The weighted sum of the module notes, from the features of either way of counting."""
    return int(weights[W_STORE] * store_diff + weights[W_SIDE] * side_diff
               + weights[W_BONUS] * bonus_diff
               + weights[W_THREAT_OWN] * threat_me - weights[W_THREAT_OPP] * threat_opp)
