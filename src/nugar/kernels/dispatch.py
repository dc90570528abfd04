"""Code written once for both families: the switch between their rules kernels, and what is
built on it alone (perft, random playouts).

numba has no virtual calls, and a kernel that takes other compiled functions as arguments is
cached poorly; so code that plays games without knowing their family (the search, the batched
simulator, perft, playouts) takes a family code (``FAM_*``) and calls the small switches
``fam_*`` below, each of which calls the family's own kernel. The code is a plain argument:
LLVM inlines the switches, and the branch costs next to nothing.

Each family module (``alignment``, ``sowing``) provides ``num_actions``, ``initial_state``,
``legal_actions`` and ``apply_action`` with the same signatures; only the alignment family has
``note_position`` (sowing positions never recur: the stores only fill). A new family adds one
code here and one branch to each switch.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import alignment as _align
from . import rng
from . import sowing as _sow
from . import sowing_words as _words
from .common import OUTCOME_RUNNING, ST_OUTCOME
from .jit import kernel, kernel_held, kernel_noalloc

IntArray = npt.NDArray[np.int64]

FAM_ALIGNMENT = 0
FAM_SOWING = 1


@kernel_noalloc
def fam_num_actions(fam: int, params: IntArray) -> int:
    """Size of the family's flat action space for these params."""
    if fam == FAM_SOWING:
        return int(_sow.num_actions(params))
    return int(_align.num_actions(params))


@kernel
def fam_initial_state(fam: int, params: IntArray) -> IntArray:
    """The starting position."""
    if fam == FAM_SOWING:
        return _sow.initial_state(params)
    return _align.initial_state(params)


@kernel_noalloc
def fam_legal(fam: int, params: IntArray, state: IntArray, out: IntArray) -> int:
    """Write the legal action codes, ascending, into ``out[:n]`` and return ``n`` (0 once
    the game is over)."""
    if fam == FAM_SOWING:
        return int(_sow.legal_actions(params, state, out))
    return int(_align.legal_actions(params, state, out))


@kernel_noalloc
def fam_apply(fam: int, params: IntArray, state: IntArray, action: int) -> None:
    """Apply one decision in place, unchecked, and record any end of the game."""
    if fam == FAM_SOWING:
        _sow.apply_action(params, state, action)
    else:
        _align.apply_action(params, state, action)


# --- the game API's twins, keeping the GIL (``jit.kernel_held``) ------------------------------
@kernel_held
def fam_legal_held(fam: int, params: IntArray, state: IntArray, out: IntArray) -> int:
    """:func:`fam_legal`, keeping the GIL: the game API asks for the legal moves a few times
    per decision, a microsecond each (the searches call the family's kernel, which lets the
    GIL go while a search runs)."""
    return int(fam_legal(fam, params, state, out))


@kernel_held
def fam_apply_held(fam: int, params: IntArray, state: IntArray, action: int) -> None:
    """:func:`fam_apply`, keeping the GIL (the game API: one call per move)."""
    fam_apply(fam, params, state, action)


@kernel_noalloc
def fam_note_position(fam: int, params: IntArray, state: IntArray, history: IntArray,
                      count: int) -> int:
    """Record a turn-start position for the repetition rule and return the new count of
    ``history`` (see ``alignment.note_position``; call it on the start and after every
    decision). Sowing has no repetition: nothing is written and ``count`` comes back."""
    if fam == FAM_SOWING:
        return count
    return int(_align.note_position(params, state, history, count))


@kernel
def perft(fam: int, params: IntArray, state: IntArray, depth: int) -> int:
    """Decision sequences of exactly ``depth`` decisions from ``state`` (a line that ends the
    game early counts 0), by an explicit stack: no recursion, no allocation per node.

    Repetition is ignored (no history is kept); it cannot occur within the first turns of a
    game, where perft is used as a check (``tests/fixtures/perft.md``).
    """
    if depth <= 0:
        return 1
    if state[ST_OUTCOME] != OUTCOME_RUNNING:
        return 0
    states = np.empty((depth, state.shape[0]), dtype=np.int64)
    moves = np.empty((depth, fam_num_actions(fam, params)), dtype=np.int64)
    stack = np.zeros((depth, 2), dtype=np.int64)
    states[0, :] = state
    return _perft_walk(fam, params, states, moves, stack)


@kernel_noalloc
def _perft_walk(fam: int, params: IntArray, states: IntArray, moves: IntArray,
                stack: IntArray) -> int:
    """:func:`perft`'s walk over buffers made once (compiled without reference counting,
    which would cost more than the rules at every node). Level ``k`` of the walk holds its
    position in ``states[k]``, its legal actions in ``moves[k]``, their number in
    ``stack[k, 0]`` and the next one to play in ``stack[k, 1]``."""
    depth = states.shape[0]
    width = states.shape[1]
    stack[0, 0] = fam_legal(fam, params, states[0], moves[0])
    stack[0, 1] = 0
    if depth == 1:
        return int(stack[0, 0])
    total = 0
    level = 0
    while level >= 0:
        if stack[level, 1] >= stack[level, 0]:
            level -= 1
            continue
        action = moves[level, stack[level, 1]]
        stack[level, 1] += 1
        child = states[level + 1]
        for j in range(width):  # a loop: a slice copy may allocate (overlap check)
            child[j] = states[level, j]
        fam_apply(fam, params, child, action)
        n = fam_legal(fam, params, child, moves[level + 1])  # 0 if the game ended
        if level + 2 == depth:
            total += n
        else:
            level += 1
            stack[level, 0] = n
            stack[level, 1] = 0
    return total


@kernel
def play_random(fam: int, params: IntArray, state: IntArray, seed: int,
                max_plies: int) -> int:
    """Play uniformly random decisions on ``state`` **in place**, with every ending rule
    including repetition, until the game ends or ``max_plies`` decisions were made; return
    the outcome code (``OUTCOME_RUNNING``, 0, if the plies ran out). ``state`` starts a turn.
    The moves come from :mod:`rng` seeded with ``seed``."""
    if fam == FAM_SOWING and _words.fits(params, state):
        return int(_words.play_random(params, state, state, seed, max_plies))
    return _play_random_on(fam, params, state, np.empty(0, dtype=np.int64), seed, max_plies)


#: turn-start keys a random game holds before its history buffer must grow (it is cut at every
#: drop and capture: ``alignment.note_position``)
PLAYOUT_HISTORY = 128


@kernel
def _play_random_on(fam: int, params: IntArray, state: IntArray, copy_from: IntArray,
                    seed: int, max_plies: int) -> int:
    """:func:`play_random`, on a copy of ``copy_from`` if it is not empty (else on ``state``
    itself): the copy, the move list, the history and the walk's counters share one
    allocation."""
    n_moves = fam_num_actions(fam, params)
    size = copy_from.shape[0]
    work = np.empty(size + n_moves + 3 + PLAYOUT_HISTORY, dtype=np.int64)
    if size > 0:
        for j in range(size):
            work[j] = copy_from[j]
        state = work[:size]
    moves = work[size:size + n_moves]
    walk = work[size + n_moves:size + n_moves + 3]  # generator, history count, plies played
    history = work[size + n_moves + 3:]
    walk[0] = rng.seed_state(seed)
    walk[1] = fam_note_position(fam, params, state, history, 0)
    walk[2] = 0
    while not _random_walk(fam, params, state, moves, history, walk, max_plies):
        bigger = np.empty(2 * history.shape[0], dtype=np.int64)  # the history is full
        bigger[: history.shape[0]] = history
        history = bigger
    return int(state[ST_OUTCOME])


@kernel_noalloc
def _random_walk(fam: int, params: IntArray, state: IntArray, moves: IntArray,
                 history: IntArray, walk: IntArray, max_plies: int) -> bool:
    """:func:`play_random`'s loop, compiled without reference counting; ``False`` when it
    stopped early because ``history`` has no room for another key."""
    x = walk[0]
    count = walk[1]
    plies = walk[2]
    done = True
    while state[ST_OUTCOME] == OUTCOME_RUNNING and plies < max_plies:
        if count + 1 >= history.shape[0]:
            done = False
            break
        n = fam_legal(fam, params, state, moves)
        if n == 0:
            break
        x = rng.advance(x)
        fam_apply(fam, params, state, moves[rng.pick(x, n)])
        count = fam_note_position(fam, params, state, history, count)
        plies += 1
    walk[0] = x
    walk[1] = count
    walk[2] = plies
    return done


@kernel
def random_playout(fam: int, params: IntArray, state: IntArray, seed: int,
                   max_plies: int) -> int:
    """Play uniformly random decisions from ``state``, which is left unchanged, to the end of
    the game (or ``max_plies`` decisions) and return the outcome code: 1 or 2 the winner, 3 a
    draw, 0 if ``max_plies`` ran out. The same seed plays the same game. :func:`play_random`
    is the same on the caller's state, in place.

    ``max_plies`` has no default on purpose: an argument left out costs about 0.1 µs in
    every call from Python, a few per cent of a whole random game of Kalah.

    Small sowing boards are played on packed words (:mod:`sowing_words`): the same game,
    with no copy of the state and no allocation."""
    if fam == FAM_SOWING and _words.fits(params, state):
        return int(_words.play_random(params, state, state[:0], seed, max_plies))
    return _play_random_on(fam, params, state, state, seed, max_plies)
