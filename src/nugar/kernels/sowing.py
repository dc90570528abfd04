"""Compiled rules of the sowing family: Kalah and Dracala (rules page nugar/docs/rules.md).

Layout (``docs/architecture.md``): the state is the common header, then the ``2P + 2`` cells
of the usual Kalah array (first player's holes 1..P, his store, second player's holes 1..P,
his store), then the sowing fields ``F_*`` below. The action code of a step from the mover's
hole ``k`` is ``k - 1``.

Sowing is computed lap-wise rather than seed by seed: a step of ``n`` seeds over a cycle of
``L`` cells makes ``(n - 1) // L`` whole laps (every cell of the cycle gets that many) and a
last partial lap of ``1..L`` seeds. Working in cells numbered from the mover's own hole 1
("relative" cells: holes 0..P-1, store P, the opponent's holes P+1..2P, the opponent's store
2P+1 which is never sown) makes the result of a step a little arithmetic, which the capture
duty (``capture_duty=maximal``) uses to rate every step without playing it.

Dracala's rules follow the Mancala World page "Dracala" and are two options (``P_VARIANT``):
under ``capture_duty=maximal`` captures are the seeds a step puts into the mover's store and
only maximal captures are legal, then bonus-giving steps, then the rightmost of those (not on
the very first step of the game); under ``misere=on`` a store with more than half of all seeds
loses at once. The params array is made by ``nugar.rules.sowing.make_params``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .common import (
    HEADER,
    OUTCOME_DRAW,
    OUTCOME_FIRST,
    OUTCOME_RUNNING,
    OUTCOME_SECOND,
    REASON_EMPTY_SIDE,
    REASON_MAJORITY,
    ST_KEY,
    ST_OUTCOME,
    ST_PLY,
    ST_REASON,
    ST_TO_MOVE,
)
from .jit import kernel, kernel_inline, kernel_noalloc

IntArray = npt.NDArray[np.int64]

# --- params (the array is made by nugar.rules.sowing.make_params) ---------------------------
P_PITS = 0           # holes per player
P_SEEDS = 1          # seeds per hole at the start
P_SKIP_ORIGIN = 2    # 1: laps pass over the emptied starting hole
P_EMPTY_SINGLE = 3   # 1: empty_capture=single (a lone last seed is stored)
P_END_MOVER = 4      # 1: end=mover_empty, 0: end=any_side_empty
P_LEFTOVERS = 5      # LEFT_* below
P_VARIANT = 6        # VARIANT_* below: the capture duty and misère options
P_STATE_SIZE = 7     # length of a state array
P_ZOBRIST = 8        # start of the key tables (see make_params)
ZOB_SIDE = 0         # offsets inside the key tables: second player to move
ZOB_FIRST_DONE = 1   # the first step of the game has been played
ZOB_CAPTURER = 2     # +1 / +2: last capturer is the first / second player
ZOB_CELLS = 5        # per cell, 64 keys for the count's low six bits, then 64 for the next six

LEFT_OWNER = 0
LEFT_LAST_MOVER = 1
LEFT_LAST_CAPTURER = 2

# P_VARIANT: capture_duty=maximal and misere=on together are 1, the code of the single Dracala
# flag this field once was (compiled code cached from then still reads Dracala right)
VARIANT_PLAIN = 0
VARIANT_DUTY_MISERE = 1
VARIANT_DUTY = 2
VARIANT_MISERE = 3

# --- state fields after the cells (index = fields_at(P) + F_*) ------------------------------
F_FIRST_DONE = 0     # 1 once a step has been played (Dracala's first-step exemption)
F_LAST_CAPTURER = 1  # last player whose step put seeds into his store; 0 if none yet
F_LAST_MOVER = 2     # player who made the last step (before it: the player not to move)
F_LAST_CAPTURES = 3  # seeds the last step put into the mover's store (leftovers excluded)
F_TOTAL = 4          # all seeds in play (the Dracala majority is more than half of this)
N_FIELDS = 5


@kernel_noalloc
def capture_duty(params: IntArray) -> bool:
    """Whether a step must capture as many seeds as possible (``capture_duty=maximal``)."""
    v = params[P_VARIANT]
    return bool(v == VARIANT_DUTY_MISERE or v == VARIANT_DUTY)


@kernel_noalloc
def misere(params: IntArray) -> bool:
    """Whether more than half of all seeds in one's store loses (``misere=on``)."""
    v = params[P_VARIANT]
    return bool(v == VARIANT_DUTY_MISERE or v == VARIANT_MISERE)


class SowingRules(NamedTuple):
    """The rule options of a params array as one record of plain values (:func:`rules_of`),
    for the kernels that keep them in registers (``sowing_words``, :func:`end_of_game`)."""

    pits: int          # holes per player
    skip: int          # 1: laps pass over the emptied starting hole
    single: int        # 1: empty_capture=single
    duty: bool         # capture_duty=maximal
    misere: bool       # misere=on
    end_mover: bool    # end=mover_empty (else any_side_empty)
    leftovers: int     # LEFT_*


@kernel_inline
def rules_of(params: IntArray) -> SowingRules:
    """The record of ``params``' rule options."""
    return SowingRules(params[P_PITS], params[P_SKIP_ORIGIN], params[P_EMPTY_SINGLE],
                       capture_duty(params), misere(params), params[P_END_MOVER] == 1,
                       params[P_LEFTOVERS])


@kernel_noalloc
def num_actions(params: IntArray) -> int:
    """Size of the flat action space: one code per hole of the mover."""
    return int(params[P_PITS])


# --- the board's geometry (the layout of the module doc), named once ------------------------
# Every index into a state's cells goes through these: ``pits`` is the holes per player
# (``params[P_PITS]``), ``player`` 1 or 2. Cells are also numbered 0 .. 2P + 1 from
# ``HEADER`` (the first player's hole 1 is cell 0, the second player's store cell 2P + 1).


@kernel_inline
def cell_count(pits: int) -> int:
    """The board's cells: both players' holes and stores, ``2P + 2``."""
    return 2 * pits + 2


@kernel_inline
def holes_at(pits: int, player: int) -> int:
    """State index of ``player``'s hole 1 (his holes 1..P follow it, then his store)."""
    return HEADER if player == 1 else HEADER + pits + 1


@kernel_inline
def store_at(pits: int, player: int) -> int:
    """State index of ``player``'s store (the first player's is cell P, the last cell the
    second player's)."""
    return HEADER + pits if player == 1 else HEADER + 2 * pits + 1


@kernel_inline
def fields_at(pits: int) -> int:
    """State index of the first ``F_*`` field, right after the last cell."""
    return HEADER + 2 * pits + 2


@kernel_inline
def opposite(pits: int, cell: int) -> int:
    """The cell facing the hole in ``cell`` (a cell number from ``HEADER``, not a store):
    hole ``k`` of one player faces hole ``P + 1 - k`` of the other."""
    return 2 * pits - cell


@kernel_inline
def seeds_in_play(pits: int, state: IntArray) -> int:
    """All seeds of the position, stores included (the ``F_TOTAL`` field)."""
    return state[fields_at(pits) + F_TOTAL]  # type: ignore[no-any-return]


@kernel_inline
def seeds_on_board(pits: int, state: IntArray) -> int:
    """The seeds in holes: all seeds in play less the two stores."""
    return (seeds_in_play(pits, state)  # type: ignore[no-any-return]
            - state[store_at(pits, 1)] - state[store_at(pits, 2)])


@kernel_noalloc
def fields_start(params: IntArray) -> int:
    """Index of the first ``F_*`` field in a state (:func:`fields_at` from the params)."""
    return int(fields_at(params[P_PITS]))


@kernel_noalloc
def _cell_key(params: IntArray, cell: int, count: int) -> int:
    """Key of ``count`` seeds in ``cell`` (0 for an empty cell): one random word for the
    count's low six bits, XORed with one for the next six from 64 seeds on."""
    base = P_ZOBRIST + ZOB_CELLS + cell * 128
    high = params[base + 64 + ((count >> 6) & 63)] if count >= 64 else 0
    return params[base + (count & 63)] ^ high  # type: ignore[no-any-return]


@kernel_noalloc
def compute_key(params: IntArray, state: IntArray) -> int:
    """The Zobrist-style key of a state, from scratch."""
    pits = params[P_PITS]
    ext = fields_at(pits)
    k = 0
    for c in range(cell_count(pits)):
        k ^= _cell_key(params, c, state[HEADER + c])
    if state[ST_TO_MOVE] == 2:
        k ^= params[P_ZOBRIST + ZOB_SIDE]
    if state[ext + F_FIRST_DONE] != 0:
        k ^= params[P_ZOBRIST + ZOB_FIRST_DONE]
    capturer = state[ext + F_LAST_CAPTURER]
    if capturer != 0:
        k ^= params[P_ZOBRIST + ZOB_CAPTURER + capturer]
    return k


@kernel_inline
def byte_sum(word: int) -> int:
    """The bytes of ``word`` added up by halves, for a word of at most seven bytes whose
    sum stays below 256 (a side's holes on packed words, ``sowing_words``)."""
    s = word + (word >> 32)
    s += s >> 16
    s += s >> 8
    return s & 0xFF


@kernel_inline
def end_of_game(rules: SowingRules, store1: int, store2: int, side1: int, side2: int,
                packed: bool, to_move: int, last_mover: int, last_capturer: int,
                total: int) -> tuple[int, int, int, int, bool]:
    """The end of the game and who gets the leftovers, on plain numbers: the one rule both
    the array kernels (:func:`apply_action`) and the packed words (``sowing_words``) use.

    ``store1`` / ``store2`` are the stores and ``side1`` / ``side2`` each player's holes
    after a step by ``last_mover``: their seeds, or (``packed``, a constant of the caller)
    the words of their holes, a byte a hole, added up only when the game ends. ``to_move``
    moves next, ``last_capturer`` is the ``F_LAST_CAPTURER`` field, ``total`` all seeds in
    play. Returns ``(outcome, reason, store1, store2, swept)``: ``OUTCOME_RUNNING`` if the
    game goes on; ``swept`` when the seeds left in holes went to the stores given (the
    holes are then to be emptied); a misère majority before that ends the game with the
    seeds where they are."""
    if rules.misere:
        # misère: more than half of all seeds loses at once; seeds stay where they are
        if 2 * store1 > total:
            return OUTCOME_SECOND, REASON_MAJORITY, store1, store2, False
        if 2 * store2 > total:
            return OUTCOME_FIRST, REASON_MAJORITY, store1, store2, False
    if rules.end_mover:
        ended = (side1 if to_move == 1 else side2) == 0
    else:
        ended = side1 == 0 or side2 == 0
    if not ended:
        return OUTCOME_RUNNING, 0, store1, store2, False
    if packed:
        side1 = byte_sum(side1)
        side2 = byte_sum(side2)
    if rules.leftovers == LEFT_OWNER:
        store1 += side1
        store2 += side2
    else:
        taker = last_mover
        if rules.leftovers == LEFT_LAST_CAPTURER and last_capturer != 0:
            taker = last_capturer
        if taker == 1:
            store1 += side1 + side2
        else:
            store2 += side1 + side2
    if rules.misere and 2 * store1 > total:
        return OUTCOME_SECOND, REASON_MAJORITY, store1, store2, True
    if rules.misere and 2 * store2 > total:
        return OUTCOME_FIRST, REASON_MAJORITY, store1, store2, True
    if rules.misere or store1 == store2:
        return OUTCOME_DRAW, REASON_EMPTY_SIDE, store1, store2, True
    if store1 > store2:
        return OUTCOME_FIRST, REASON_EMPTY_SIDE, store1, store2, True
    return OUTCOME_SECOND, REASON_EMPTY_SIDE, store1, store2, True


@kernel_noalloc
def _check_end(params: IntArray, state: IntArray, last_mover: int) -> None:
    """Record the end of the game, if the position after a step (or a setup) is one
    (:func:`end_of_game` on the state's numbers)."""
    pits = params[P_PITS]
    first = holes_at(pits, 1)
    second = holes_at(pits, 2)
    side1 = 0
    side2 = 0
    for i in range(pits):
        side1 += state[first + i]
        side2 += state[second + i]
    ext = fields_at(pits)
    outcome, reason, s1, s2, swept = end_of_game(
        rules_of(params), state[store_at(pits, 1)], state[store_at(pits, 2)], side1, side2,
        False, state[ST_TO_MOVE], last_mover, state[ext + F_LAST_CAPTURER], state[ext + F_TOTAL])
    if outcome == OUTCOME_RUNNING:
        return
    if swept:
        for i in range(pits):
            state[first + i] = 0
            state[second + i] = 0
        state[store_at(pits, 1)] = s1
        state[store_at(pits, 2)] = s2
    state[ST_OUTCOME] = outcome
    state[ST_REASON] = reason


@kernel
def initial_state(params: IntArray) -> IntArray:
    """The starting position: ``seeds`` in every hole, empty stores, first player to move."""
    pits = params[P_PITS]
    seeds = params[P_SEEDS]
    state = np.zeros(params[P_STATE_SIZE], dtype=np.int64)
    state[ST_TO_MOVE] = 1
    first = holes_at(pits, 1)
    second = holes_at(pits, 2)
    for i in range(pits):
        state[first + i] = seeds
        state[second + i] = seeds
    ext = fields_at(pits)
    state[ext + F_LAST_MOVER] = 2
    state[ext + F_TOTAL] = 2 * pits * seeds
    state[ST_KEY] = compute_key(params, state)
    return state


@kernel_noalloc
def setup_state(params: IntArray, state: IntArray) -> None:
    """Finish a hand-made position whose cells, player to move and ``F_FIRST_DONE`` /
    ``F_LAST_CAPTURER`` fields are filled in: total, last mover, end of game and key."""
    pits = params[P_PITS]
    ext = fields_at(pits)
    total = 0
    for c in range(cell_count(pits)):
        total += state[HEADER + c]
    state[ext + F_TOTAL] = total
    state[ext + F_LAST_MOVER] = 3 - state[ST_TO_MOVE]
    state[ext + F_LAST_CAPTURES] = 0
    state[ST_OUTCOME] = OUTCOME_RUNNING
    state[ST_REASON] = 0
    _check_end(params, state, 3 - state[ST_TO_MOVE])
    state[ST_KEY] = compute_key(params, state)


@kernel_noalloc
def step_result(params: IntArray, state: IntArray, mover: int, hole: int) -> tuple[int, bool]:
    """Captures of the step from ``mover``'s ``hole`` (0-based, non-empty; either player, not
    only the one to move) and whether it gives a bonus step, computed without playing it."""
    pits = params[P_PITS]
    mb = holes_at(pits, mover) - HEADER  # the mover's hole 1 as a cell number
    n = state[HEADER + mb + hole]
    span = 2 * pits + 1 - params[P_SKIP_ORIGIN]
    laps = 0 if n <= span else (n - 1) // span  # no division in the usual case
    rest = n - laps * span
    captures = laps + (1 if pits - hole <= rest else 0)
    end = hole + rest
    last = end if end <= 2 * pits else rest - (2 * pits - hole) - 1
    if last == pits:
        return captures, True
    if last < pits and laps == 0:
        before = 0 if last == hole else state[HEADER + mb + last]
        if before == 0:
            facing = 2 * pits - last  # relative cell of the facing hole
            fa = opposite(pits, mb + last)
            facing_seeds = state[HEADER + fa] + (1 if facing - hole <= rest else 0)
            if facing_seeds > 0:
                captures += facing_seeds + 1
            elif params[P_EMPTY_SINGLE] == 1:
                captures += 1
    return captures, False


@kernel_noalloc
def step_captures(params: IntArray, state: IntArray, captures: IntArray,
                  bonus: IntArray) -> None:
    """For each hole of the player to move: ``captures[h]`` = seeds a step from hole ``h + 1``
    would put into his store (-1 for an empty hole), ``bonus[h]`` = 1 if it gives a bonus
    step. Leftovers of a game ending on that step are not counted (rules page, Dracala)."""
    pits = params[P_PITS]
    mover = state[ST_TO_MOVE]
    base = holes_at(pits, mover)
    for h in range(pits):
        if state[base + h] == 0:
            captures[h] = -1
            bonus[h] = 0
        else:
            c, b = step_result(params, state, mover, h)
            captures[h] = c
            bonus[h] = 1 if b else 0


@kernel_noalloc
def legal_actions(params: IntArray, state: IntArray, out: IntArray) -> int:
    """Write the legal action codes, ascending, into ``out[:n]`` and return ``n``."""
    if state[ST_OUTCOME] != OUTCOME_RUNNING:
        return 0
    pits = params[P_PITS]
    mover = state[ST_TO_MOVE]
    base = holes_at(pits, mover)
    count = 0
    if not capture_duty(params):
        # every hole is written and kept only if it holds seeds: no branch to mispredict
        for h in range(pits):
            out[count] = h
            count += 1 if state[base + h] != 0 else 0
        return count
    # capture duty: only the steps capturing the most; then (after the first step of the game)
    # the rightmost bonus-giving one, if any gives a bonus step
    best = -1
    bonus_hole = -1
    for h in range(pits):
        if state[base + h] == 0:
            continue
        c, b = step_result(params, state, mover, h)
        if c > best:
            best = c
            count = 0
            bonus_hole = -1
        if c == best:
            out[count] = h
            count += 1
            if b:
                bonus_hole = h
    if bonus_hole >= 0 and state[fields_at(pits) + F_FIRST_DONE] != 0:
        out[0] = bonus_hole
        return 1
    return count


@kernel_noalloc
def apply_action(params: IntArray, state: IntArray, action: int) -> None:
    """Sow from the mover's hole ``action + 1`` (unchecked) and record any end of game.

    The key is updated cell by cell as seeds move (recomputed only when the game ends)."""
    pits = params[P_PITS]
    n_cells = cell_count(pits)
    ext = fields_at(pits)
    mover = state[ST_TO_MOVE]
    mb = holes_at(pits, mover) - HEADER  # the mover's hole 1 as a cell number
    n = state[HEADER + mb + action]
    state[HEADER + mb + action] = 0
    key = state[ST_KEY] ^ _cell_key(params, mb + action, n)
    store = mb + pits
    store_before = state[HEADER + store]
    skip = params[P_SKIP_ORIGIN]
    span = 2 * pits + 1 - skip
    laps = 0 if n <= span else (n - 1) // span  # no division in the usual case
    rest = n - laps * span
    if laps > 0:
        for x in range(2 * pits + 1):
            if skip == 1 and x == action:
                continue
            a = x + mb
            if a >= n_cells:
                a -= n_cells
            v = state[HEADER + a]
            key ^= _cell_key(params, a, v) ^ _cell_key(params, a, v + laps)
            state[HEADER + a] = v + laps
    # the last partial lap: cells action+1 .. action+rest counted from the mover's hole 1,
    # with the opponent's store (relative cell 2P+1) left out
    end = action + rest
    last = end if end <= 2 * pits else rest - (2 * pits - action) - 1
    for x in range(action + 1, min(end, 2 * pits) + 1):
        a = x + mb
        if a >= n_cells:
            a -= n_cells
        v = state[HEADER + a]
        key ^= _cell_key(params, a, v) ^ _cell_key(params, a, v + 1)
        state[HEADER + a] = v + 1
    if end > 2 * pits:
        for x in range(last + 1):
            a = mb + x
            v = state[HEADER + a]
            key ^= _cell_key(params, a, v) ^ _cell_key(params, a, v + 1)
            state[HEADER + a] = v + 1
    if last < pits and state[HEADER + mb + last] == 1:
        la = mb + last
        fa = opposite(pits, la)
        facing = state[HEADER + fa]
        gain = facing + 1 if facing > 0 else params[P_EMPTY_SINGLE]
        if gain > 0:
            v = state[HEADER + store]
            key ^= (_cell_key(params, la, 1) ^ _cell_key(params, fa, facing)
                    ^ _cell_key(params, store, v) ^ _cell_key(params, store, v + gain))
            state[HEADER + store] = v + gain
            state[HEADER + fa] = 0
            state[HEADER + la] = 0
    captured = state[HEADER + store] - store_before
    if state[ext + F_FIRST_DONE] == 0:
        state[ext + F_FIRST_DONE] = 1
        key ^= params[P_ZOBRIST + ZOB_FIRST_DONE]
    state[ext + F_LAST_MOVER] = mover
    state[ext + F_LAST_CAPTURES] = captured
    if captured > 0 and state[ext + F_LAST_CAPTURER] != mover:
        old = state[ext + F_LAST_CAPTURER]
        if old != 0:
            key ^= params[P_ZOBRIST + ZOB_CAPTURER + old]
        key ^= params[P_ZOBRIST + ZOB_CAPTURER + mover]
        state[ext + F_LAST_CAPTURER] = mover
    state[ST_PLY] += 1
    if last != pits:
        state[ST_TO_MOVE] = 3 - mover
        key ^= params[P_ZOBRIST + ZOB_SIDE]
    state[ST_KEY] = key
    _check_end(params, state, mover)
    if state[ST_OUTCOME] != OUTCOME_RUNNING:
        state[ST_KEY] = compute_key(params, state)

