"""The sowing rules on packed words: a fast path for random playouts of small boards.

A side of the board (a player's holes 1..P, then his store) fits in one machine word, one
byte a cell, when ``P <= 6`` and no cell can hold 128 seeds or more (fewer than 128 seeds in
play). A step then needs no loop over seeds or cells: the seeds of the starting hole are
taken out with a mask, the whole laps are added to every cell of the cycle at once (a
multiplication of the word of ones), and the last partial lap is a contiguous run of cells
on the mover's side, the opponent's side and again the mover's side, each run a mask of
ones ``((1 << 8 (b + 1)) - (1 << 8 a)) & ONES``. The cell the last seed lands in, the capture
of the facing hole and the end of the game (``sowing.end_of_game``, the rule the array
kernels use too: a side's holes all empty is a zero test, the seeds on a side the bytes
added up by halves) follow from a few shifts. The capture
duty rates all holes of a side together in the same way (:func:`rate_all`).

The rules are those of ``sowing.apply_action`` and ``sowing.legal_actions`` (the rules page
describes them); :func:`play_random` plays the same game as the generic loop in
``dispatch.play_random`` for the same seed (the k-th non-empty hole, counted from hole 1, is
the k-th legal action there too), which ``tests/test_sowing_words.py`` checks over random
games of every option. The generic array kernels remain the rules for the search, the API
and larger boards; this module serves the random playouts, whose whole game stays in a few
registers with no key to keep up (the key is computed once at the end), and the search's
evaluation of small boards (``search_sowing``), which rates every step of both sides.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from . import rng
from .bits import byte_reverse, lowest_square, popcount
from .common import (
    OUTCOME_RUNNING,
    ST_KEY,
    ST_OUTCOME,
    ST_PLY,
    ST_REASON,
    ST_TO_MOVE,
)
from .jit import kernel_inline, kernel_noalloc
from .sowing import (
    F_FIRST_DONE,
    F_LAST_CAPTURER,
    F_LAST_CAPTURES,
    F_LAST_MOVER,
    F_TOTAL,
    P_PITS,
    SowingRules,
    byte_sum,
    compute_key,
    end_of_game,
    fields_at,
    holes_at,
    rules_of,
    seeds_in_play,
)

IntArray = npt.NDArray[np.int64]

#: largest board a side of which fits in a word here (holes and store: 7 bytes of 8)
MAX_PITS = 6
#: the seeds in play must stay below this, so that no byte (nor a byte sum) reaches 128
MAX_SEEDS = 128
# Every constant and every sum below keeps byte 7 (the sign byte) below 0x80: the words are
# signed 64-bit numbers, and a signed overflow is undefined behaviour to the compiler (it
# showed as wrong answers once a board size was a constant).
ONES = 0x0101010101010101     # 1 in every byte (only in masks, never multiplied)
ONES7 = 0x0001010101010101    # 1 in bytes 0..6 (the multiplier of a byte value)
LOW7 = 0x007F7F7F7F7F7F7F     # the low seven bits of bytes 0..6
HIGH = 0x0080808080808080     # the top bit of bytes 0..6
INDEX = 0x0006050403020100    # each of bytes 0..6 holds its own index


@kernel_noalloc
def fits(params: IntArray, state: IntArray) -> bool:
    """Whether the position can be played on packed words (board and seeds small enough)."""
    pits = params[P_PITS]
    return bool(pits <= MAX_PITS and seeds_in_play(pits, state) < MAX_SEEDS)


@kernel_noalloc
def ones(k: int) -> int:
    """A word with 1 in bytes ``0 .. k - 1`` (``0 <= k <= 7``)."""
    return ((1 << (8 * k)) - 1) & ONES


@kernel_noalloc
def cell(word: int, i: int) -> int:
    """The seeds in byte ``i`` of a side's word."""
    return (word >> (8 * i)) & 0xFF


@kernel_noalloc
def side_seeds(word: int, pits: int) -> int:
    """The seeds in a side's holes (its store left out): the bytes added up by halves (no
    byte sum reaches 128, so no carry leaves its byte)."""
    return byte_sum(word & holes_of(pits))


@kernel_inline
def holes_of(pits: int) -> int:
    """The mask of a side's hole bytes (its store left out)."""
    return (1 << (8 * pits)) - 1


@kernel_inline
def zero_bytes(x: int) -> int:
    """The top bit of every zero byte among bytes 0..6 of ``x`` (byte 7 below 0x80)."""
    return ~(((x & LOW7) + LOW7) | x) & HIGH


@kernel_noalloc
def nonempty(word: int, pits: int) -> int:
    """The top bit of every byte of a non-empty hole (the store left out)."""
    return (((word & LOW7) + LOW7) | word) & HIGH & holes_of(pits)


@kernel_noalloc
def pack(state: IntArray, first: int, pits: int) -> int:
    """The word of a side whose holes start at state index ``first`` (store after them)."""
    w = 0
    for i in range(pits + 1):
        w |= state[first + i] << (8 * i)
    return w


@kernel_noalloc
def unpack(word: int, state: IntArray, first: int, pits: int) -> None:
    """Write a side's word back into the state's cells from index ``first``."""
    for i in range(pits + 1):
        state[first + i] = (word >> (8 * i)) & 0xFF


@kernel_inline
def sow(mine: int, theirs: int, hole: int, pits: int, skip: int,
        empty_single: int) -> tuple[int, int, int]:
    """Sow the mover's hole ``hole`` (0-based, non-empty) and make its capture.

    ``mine`` and ``theirs`` are the words of the mover's and the opponent's sides. Returns
    the two words after the step and the relative cell of the last seed (``0..P - 1`` an own
    hole, ``P`` the own store: a bonus step, ``P + 1 ..`` the opponent's holes)."""
    shift = 8 * hole
    n = (mine >> shift) & 0xFF
    mine &= ~(0xFF << shift)
    span = 2 * pits + 1 - skip
    laps = 0 if n <= span else (n - 1) // span  # no division in the usual case
    rest = n - laps * span
    if laps > 0:
        mine += laps * (ones(pits + 1) - (skip << shift))
        theirs += laps * ones(pits)
    end = hole + rest
    # the partial lap: own cells hole+1 .. min(end, P), the opponent's holes 0 .. end-P-1,
    # then own holes 0 .. end-2P-1
    a_end = end if end < pits else pits
    mine += ((1 << (8 * (a_end + 1))) - (1 << (shift + 8))) & ONES
    b = end - pits
    theirs += ones(b if b < pits else pits) if b > 0 else 0
    c = end - 2 * pits
    if c > 0:
        mine += ones(c)
        last = c - 1
    else:
        last = end
    if last < pits and ((mine >> (8 * last)) & 0xFF) == 1:
        fshift = 8 * (pits - 1 - last)
        facing = (theirs >> fshift) & 0xFF
        gain = facing + 1 if facing > 0 else empty_single
        if gain > 0:
            mine = (mine & ~(0xFF << (8 * last))) + (gain << (8 * pits))
            theirs &= ~(0xFF << fshift)
    return mine, theirs, last


@kernel_inline
def rate(mine: int, theirs: int, hole: int, pits: int, skip: int,
         empty_single: int) -> tuple[int, bool]:
    """Captures of the mover's step from ``hole`` (non-empty) and whether it gives a bonus
    step, without playing it (``sowing.step_result`` on words)."""
    n = (mine >> (8 * hole)) & 0xFF
    span = 2 * pits + 1 - skip
    laps = 0 if n <= span else (n - 1) // span
    rest = n - laps * span
    captures = laps + (1 if pits - hole <= rest else 0)
    end = hole + rest
    last = end if end <= 2 * pits else end - 2 * pits - 1
    if last == pits:
        return captures, True
    if last < pits and laps == 0:
        before = 0 if last == hole else (mine >> (8 * last)) & 0xFF
        if before == 0:
            fi = pits - 1 - last
            facing = 2 * pits - last
            facing_seeds = ((theirs >> (8 * fi)) & 0xFF) + (1 if facing - hole <= rest else 0)
            if facing_seeds > 0:
                captures += facing_seeds + 1
            elif empty_single == 1:
                captures += 1
    return captures, False


@kernel_inline
def capture_values(mine: int, theirs: int, pits: int, single: int) -> int:
    """For each own hole ``t``: the seeds a step ending there without going round the board
    captures (its own seed and the facing hole's; ``single`` when that is empty), 0 if ``t``
    is not empty. One byte a hole; no loop."""
    holes = holes_of(pits)
    empty = (zero_bytes(mine & holes) & holes) >> 7
    facing = byte_reverse((theirs & holes) << (8 * (8 - pits))) & holes  # byte t: the hole facing t
    some = nonempty(facing, pits) >> 7
    gains = facing + ONES7 if single == 1 else (facing + ONES7) & (some * 0xFF)
    return gains & (empty * 0xFF)


@kernel_inline
def rate_all(mine: int, theirs: int, pits: int, skip: int,
             single: int) -> tuple[int, int, int]:
    """Every step of the mover rated without playing it (:func:`rate` for each hole):
    returns ``(ratings, bonus, best)``: byte ``h`` of ``ratings`` is the captures of the step
    from hole ``h`` plus one (0 for an empty hole), ``bonus`` has the top bit of the byte of
    each step giving a bonus step, ``best`` is the largest byte of ``ratings``.

    The holes are rated together, a byte each: the last seed's cell is the hole's index
    plus its seeds, a step passes the store where that is at least ``P`` and gives a bonus
    step where it equals ``P``, and each own hole with a capture value
    (:func:`capture_values`, usually none to two) adds it to the holes whose step ends
    there. A step going round the board (its last seed back on the own side, or whole laps)
    is then rated alone by :func:`rate`."""
    values = capture_values(mine, theirs, pits, single)
    holes = holes_of(pits)
    n = mine & holes
    live = nonempty(n, pits)
    ends = n + (INDEX & holes)
    passes = (((ends + (128 - pits) * ONES7) & HIGH) >> 7) & holes
    at_store = ends ^ (pits * ONES7)
    bonus = zero_bytes(at_store) & live
    targets = nonempty(values, pits)
    while targets != 0:
        t = lowest_square(targets) >> 3
        targets &= targets - 1
        landing = zero_bytes(ends ^ (t * ONES7)) & live
        passes += (landing >> 7) * ((values >> (8 * t)) & 0xFF)
    ratings = (passes + ONES7) & ((live >> 7) * 0xFF)
    rounds = (ends + (127 - 2 * pits) * ONES7) & live  # steps going round the board
    while rounds != 0:
        h = lowest_square(rounds) >> 3
        rounds &= rounds - 1
        c, b = rate(mine, theirs, h, pits, skip, single)
        ratings = (ratings & ~(0xFF << (8 * h))) | ((c + 1) << (8 * h))
        bonus |= (1 if b else 0) << (8 * h + 7)
    best = 0
    for h in range(pits):
        best = max(best, (ratings >> (8 * h)) & 0xFF)
    return ratings, bonus, best


@kernel_inline
def duty_choices(mine: int, theirs: int, pits: int, skip: int, single: int,
                 first_done: int) -> int:
    """The capture duty (``sowing.legal_actions``): of the mover's non-empty holes, those
    capturing the most; then, after the game's first step, only the rightmost of them giving
    a bonus step if one does. Returned as the top bit of each chosen hole's byte: the zero
    bytes of the ratings XOR the best rating in every byte."""
    ratings, bonus, best = rate_all(mine, theirs, pits, skip, single)
    chosen = zero_bytes(ratings ^ (best * ONES7)) & holes_of(pits)
    top = bonus & chosen
    if top != 0 and first_done != 0:
        while top & (top - 1):
            top &= top - 1
        return top
    return chosen


class Walk(NamedTuple):
    """The variables of a game on packed words (what :func:`play_random` keeps in registers
    instead of a state array): the two sides' words, then the state fields of the same
    names, and the plies played."""

    w1: int             # the first player's side
    w2: int             # the second player's side
    to_move: int
    outcome: int
    reason: int
    first_done: int     # F_FIRST_DONE
    capturer: int       # F_LAST_CAPTURER
    last_mover: int     # F_LAST_MOVER
    last_captures: int  # F_LAST_CAPTURES
    total: int          # F_TOTAL
    plies: int          # steps played by the walk


@kernel_inline
def to_words(params: IntArray, state: IntArray) -> Walk:
    """A state's game on packed words (:func:`fits` must hold)."""
    pits = params[P_PITS]
    ext = fields_at(pits)
    return Walk(pack(state, holes_at(pits, 1), pits), pack(state, holes_at(pits, 2), pits),
                state[ST_TO_MOVE], state[ST_OUTCOME], state[ST_REASON], state[ext + F_FIRST_DONE],
                state[ext + F_LAST_CAPTURER], state[ext + F_LAST_MOVER],
                state[ext + F_LAST_CAPTURES], state[ext + F_TOTAL], 0)


@kernel_noalloc
def from_words(params: IntArray, game: Walk, ply: int, out: IntArray) -> None:
    """Write a game on packed words into the state ``out``, ``ply`` plies into the game, and
    give it its key."""
    pits = params[P_PITS]
    ext = fields_at(pits)
    unpack(game.w1, out, holes_at(pits, 1), pits)
    unpack(game.w2, out, holes_at(pits, 2), pits)
    out[ST_TO_MOVE] = game.to_move
    out[ST_OUTCOME] = game.outcome
    out[ST_REASON] = game.reason
    out[ST_PLY] = ply
    out[ext + F_FIRST_DONE] = game.first_done
    out[ext + F_LAST_CAPTURER] = game.capturer
    out[ext + F_LAST_MOVER] = game.last_mover
    out[ext + F_LAST_CAPTURES] = game.last_captures
    out[ext + F_TOTAL] = game.total
    out[ST_KEY] = compute_key(params, out)


@kernel_inline
def _walk(rules: SowingRules, game: Walk, pits: int, seed: int, max_plies: int) -> Walk:
    """:func:`play_random`'s loop over the game's variables, ``pits`` being ``rules.pits``
    (inlined, so that a constant there is a constant to the compiler). Returns them with
    the plies played."""
    w1, w2, to_move, outcome, reason = game.w1, game.w2, game.to_move, game.outcome, game.reason
    first_done, capturer = game.first_done, game.capturer
    last_mover, last_captures, total = game.last_mover, game.last_captures, game.total
    skip = rules.skip
    single = rules.single
    holes = holes_of(pits)
    x = rng.seed_state(seed)
    plies = 0
    while outcome == OUTCOME_RUNNING and plies < max_plies:
        mover = to_move
        mine = w1 if mover == 1 else w2
        theirs = w2 if mover == 1 else w1
        if rules.duty:
            legal = duty_choices(mine, theirs, pits, skip, single, first_done)
        else:
            legal = nonempty(mine, pits)
        n = popcount(legal)
        x = rng.advance(x)
        k = rng.pick(x, n)
        for _ in range(k):
            legal &= legal - 1
        hole = lowest_square(legal) >> 3
        store_before = (mine >> (8 * pits)) & 0xFF
        mine, theirs, last = sow(mine, theirs, hole, pits, skip, single)
        captured = ((mine >> (8 * pits)) & 0xFF) - store_before
        first_done = 1
        last_mover = mover
        last_captures = captured
        if captured > 0:
            capturer = mover
        plies += 1
        if last != pits:
            to_move = 3 - mover
        if mover == 1:
            w1 = mine
            w2 = theirs
        else:
            w1 = theirs
            w2 = mine
        end, why, s1, s2, swept = end_of_game(
            rules, (w1 >> (8 * pits)) & 0xFF, (w2 >> (8 * pits)) & 0xFF, w1 & holes, w2 & holes,
            True, to_move, mover, capturer, total)
        if end != OUTCOME_RUNNING:
            outcome = end
            reason = why
            if swept:
                w1 = s1 << (8 * pits)
                w2 = s2 << (8 * pits)
    return Walk(w1, w2, to_move, outcome, reason, first_done, capturer, last_mover,
                last_captures, total, plies)


@kernel_noalloc
def play_random(params: IntArray, state: IntArray, out: IntArray, seed: int,
                max_plies: int) -> int:
    """Play uniformly random steps from ``state`` to the end of the game (or ``max_plies``
    steps) and return the outcome code (0 if ``max_plies`` ran out). ``state`` is only
    read; the final position is written into ``out`` when it is not empty (it may be
    ``state`` itself). The same seed plays the same game as ``dispatch.play_random``.
    The position must :func:`fits`."""
    rules = rules_of(params)
    game = to_words(params, state)
    # the walk is inlined twice: for Kalah's and Dracala's six holes, every shift and mask
    # then a constant, and for any board (a single call under numba's literal_unroll was
    # slower: docs/benchmarks.md, "Records instead of argument lists")
    if rules.pits == 6:
        game = _walk(rules, game, 6, seed, max_plies)
    else:
        game = _walk(rules, game, rules.pits, seed, max_plies)
    if out.shape[0] > 0:
        from_words(params, game, state[ST_PLY] + game.plies, out)
    return int(game.outcome)
