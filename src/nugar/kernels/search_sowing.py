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

from .common import HEADER, ST_TO_MOVE
from .jit import kernel_noalloc
from .sowing import P_PITS, step_result

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
    store_diff = state[mine + pits] - state[theirs + pits]
    return int(weights[W_STORE] * store_diff + weights[W_SIDE] * (side_me - side_opp)
               + weights[W_BONUS] * (bonus_me - bonus_opp)
               + weights[W_THREAT_OWN] * threat_me - weights[W_THREAT_OPP] * threat_opp)
