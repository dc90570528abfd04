"""Batched simulation and observation kernels: many games stepped at once in compiled code.

Nothing here knows a rule: every legal action and every effect of an action comes from the
family kernels (``kernels/alignment.py``, ``kernels/sowing.py``) through ``dispatch``'s
switches, so the batch kernels are written once and take a family code (``dispatch.FAM_*``).
This module adds what learning code needs around the rules: fixed-size observations (one
encoder per family, ``docs/envs.md``), legal-action masks, rewards, automatic reset of
finished games, and the history of turn-start keys that repetition draws need.

Batch layout: ``states`` is ``(N, state_size)``; ``masks`` ``(N, num_actions)`` (bool);
``legal`` ``(N, num_actions)`` with ``num_legal`` ``(N,)`` (the codes, ascending); ``obs``
``(N, obs_size)`` float32, from the point of view of the player to decide; ``rewards``
``(N, 2)`` float32 for the first and the second player; ``history`` ``(N, history_size)`` and
``counts`` ``(N,)`` the turn-start keys of each game (never written for sowing games);
``steps`` ``(N,)`` the decisions played in each game since its start, for the step cap
``max_steps`` (0: none) that ends a game as truncated.

Every end of the rules (a win, a loss, a draw by any rule, repetition and the quiet limit
included) is reported as ``terminated``; ``truncated`` is the step cap alone.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import alignment, rng, sowing
from .common import (
    HEADER,
    OUTCOME_FIRST,
    OUTCOME_RUNNING,
    OUTCOME_SECOND,
    ST_OUTCOME,
    ST_TO_MOVE,
)
from .dispatch import FAM_SOWING, fam_apply, fam_legal, fam_note_position
from .jit import kernel_noalloc

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]

# --- sowing observations --------------------------------------------------------------------
# A vector of 2P + 6 numbers: the observer's holes 1..P and store, then the opponent's holes
# 1..P and store (each seed count divided by all seeds in play), then four flags: the observer
# is to move, a step has been played (the first-step exemption of capture_duty=maximal is
# over), the observer / the opponent was the last to put seeds into his store (for
# leftovers=last_capturer).
SOW_EXTRA = 4


@kernel_noalloc
def sowing_obs_size(params: IntArray) -> int:
    return int(sowing.cell_count(params[sowing.P_PITS]) + SOW_EXTRA)


@kernel_noalloc
def sowing_observe(params: IntArray, state: IntArray, player: int, out: FloatArray) -> None:
    """Write the observation of ``state`` for ``player`` (1 or 2) into ``out``."""
    pits = params[sowing.P_PITS]
    n_cells = sowing.cell_count(pits)
    ext = sowing.fields_at(pits)
    total = state[ext + sowing.F_TOTAL]
    scale = 1.0 / total if total > 0 else 0.0
    own = sowing.holes_at(pits, player) - HEADER  # the observer's hole 1 as a cell number
    for c in range(n_cells):
        src = own + c
        if src >= n_cells:
            src -= n_cells
        out[c] = state[HEADER + src] * scale
    out[n_cells] = 1.0 if state[ST_TO_MOVE] == player else 0.0
    out[n_cells + 1] = 1.0 if state[ext + sowing.F_FIRST_DONE] != 0 else 0.0
    capturer = state[ext + sowing.F_LAST_CAPTURER]
    out[n_cells + 2] = 1.0 if capturer == player else 0.0
    out[n_cells + 3] = 1.0 if capturer == 3 - player else 0.0


@kernel_noalloc
def _rewards_of(state: IntArray, rewards: FloatArray) -> None:
    outcome = state[ST_OUTCOME]
    if outcome == OUTCOME_FIRST:
        rewards[0] = 1.0
        rewards[1] = -1.0
    elif outcome == OUTCOME_SECOND:
        rewards[0] = -1.0
        rewards[1] = 1.0
    else:
        rewards[0] = 0.0
        rewards[1] = 0.0


# --- alignment observations ----------------------------------------------------------------
# ALIGN_PLANES planes of rows x cols (plane-major, then row, then column; row 0 is the first
# player's side, as in square numbering), from the observer's point of view:
AL_OWN = 0          # the observer's pieces
AL_OPP = 1          # the opponent's pieces
AL_OWN_HAND = 2     # every square: observer's pieces in hand / pieces
AL_OPP_HAND = 3     # every square: opponent's pieces in hand / pieces
AL_DROP_PHASE = 4   # every square: 1 during the drop phase
AL_TO_MOVE = 5      # every square: 1 if the observer decides now
AL_PENDING = 6      # every square: 1 if the player to decide owes a capture
AL_OWN_FROM = 7     # observer's last step: its origin (only where no_return is on)
AL_OWN_TO = 8       # ... and its target
AL_OPP_FROM = 9     # opponent's last step: origin (only where no_return is on)
AL_OPP_TO = 10      # ... and target
AL_QUIET = 11       # every square: quiet counter / quiet_limit (0 when quiet_limit is off)
AL_PASSED = 12      # every square: 1 if the turn just finished was a pass
ALIGN_PLANES = 13

#: keys of turn-start positions remembered per game when quiet_limit is off (with a limit
#: the history never needs more than quiet_limit + 2)
HISTORY_CAP = 4096


@kernel_noalloc
def alignment_observe(params: IntArray, state: IntArray, player: int, out: FloatArray) -> None:
    """Write the ALIGN_PLANES planes of ``state`` for ``player`` (1 or 2) into ``out``."""
    n = params[alignment.P_N]
    w = params[alignment.P_W]
    pieces = params[alignment.P_PIECES]
    other = 3 - player
    own_base = alignment.ST_BOARD + (player - 1) * w
    opp_base = alignment.ST_BOARD + (other - 1) * w
    for k in range(w):  # read the bitboards a word at a time
        own_word = state[own_base + k]
        opp_word = state[opp_base + k]
        lo = 63 * k
        hi = min(n, lo + 63)
        for sq in range(lo, hi):
            b = sq - lo
            out[AL_OWN * n + sq] = (own_word >> b) & 1
            out[AL_OPP * n + sq] = (opp_word >> b) & 1
    limit = params[alignment.P_QUIET]
    out[AL_OWN_HAND * n:(AL_OWN_HAND + 1) * n] = state[alignment.ST_HAND1 + player - 1] / pieces
    out[AL_OPP_HAND * n:(AL_OPP_HAND + 1) * n] = state[alignment.ST_HAND1 + other - 1] / pieces
    out[AL_DROP_PHASE * n:(AL_DROP_PHASE + 1) * n] = 1.0 if alignment.in_drop_phase(state) else 0.0
    out[AL_TO_MOVE * n:(AL_TO_MOVE + 1) * n] = 1.0 if state[ST_TO_MOVE] == player else 0.0
    out[AL_PENDING * n:(AL_PENDING + 1) * n] = 1.0 if state[alignment.ST_PENDING] != 0 else 0.0
    out[AL_OWN_FROM * n:(AL_OPP_TO + 1) * n] = 0.0
    out[AL_QUIET * n:(AL_QUIET + 1) * n] = (min(state[alignment.ST_QUIET], limit) / limit
                                           if limit > 0 else 0.0)
    out[AL_PASSED * n:(AL_PASSED + 1) * n] = 1.0 if state[alignment.ST_PASSED] != 0 else 0.0
    if params[alignment.P_NO_RETURN] != 0:
        own = alignment.ST_LAST1 + 2 * (player - 1)
        opp = alignment.ST_LAST1 + 2 * (other - 1)
        if state[own] >= 0:
            out[AL_OWN_FROM * n + state[own]] = 1.0
            out[AL_OWN_TO * n + state[own + 1]] = 1.0
        if state[opp] >= 0:
            out[AL_OPP_FROM * n + state[opp]] = 1.0
            out[AL_OPP_TO * n + state[opp + 1]] = 1.0


@kernel_noalloc
def turn_boards(n: int, players: IntArray, obs: FloatArray) -> None:
    """Turn half round, in place, the board planes of the rows ``i`` of ``obs`` (alignment
    observations, shape ``(N, planes * n)``) where ``players[i] == 2``: square ``sq`` of each
    plane and square ``n - 1 - sq`` change places. Turning twice gives the rows back."""
    planes = obs.shape[1] // n
    for i in range(obs.shape[0]):
        if players[i] != 2:
            continue
        for p in range(planes):
            base = p * n
            for k in range(n // 2):
                a = base + k
                b = base + n - 1 - k
                obs[i, a], obs[i, b] = obs[i, b], obs[i, a]


# --- the batch, for both families ---------------------------------------------------------


@kernel_noalloc
def obs_size(fam: int, params: IntArray) -> int:
    """Length of one observation (``ALIGN_PLANES`` planes of the board, or the sowing vector)."""
    if fam == FAM_SOWING:
        return int(sowing_obs_size(params))
    return int(ALIGN_PLANES * params[alignment.P_N])


@kernel_noalloc
def observe(fam: int, params: IntArray, state: IntArray, player: int, out: FloatArray) -> None:
    """Write the observation of ``state`` for ``player`` (1 or 2) into ``out``."""
    if fam == FAM_SOWING:
        sowing_observe(params, state, player, out)
    else:
        alignment_observe(params, state, player, out)


@kernel_noalloc
def history_size(fam: int, params: IntArray) -> int:
    """Turn-start keys to keep per game: with quiet_limit on, the history never needs more
    than ``quiet_limit + 2``; without it, ``HISTORY_CAP``; a sowing game keeps none (the
    buffer must still have two columns)."""
    if fam == FAM_SOWING:
        return 2
    limit = params[alignment.P_QUIET]
    return int(limit + 2) if limit > 0 else HISTORY_CAP


@kernel_noalloc
def _note(fam: int, params: IntArray, state: IntArray, history: IntArray, counts: IntArray,
          i: int) -> None:
    """``dispatch.fam_note_position`` for game ``i``, keeping room for one more key: when the
    buffer is full (possible only with quiet_limit off) the older half is forgotten."""
    count = counts[i]
    cap = history.shape[1]
    if count + 1 >= cap:
        half = cap // 2
        for j in range(half):
            history[i, j] = history[i, count - half + j]
        count = half
    counts[i] = fam_note_position(fam, params, state, history[i], count)


@kernel_noalloc
def _refresh(fam: int, params: IntArray, state: IntArray, legal: IntArray, mask: BoolArray,
             obs: FloatArray) -> int:
    n = fam_legal(fam, params, state, legal)
    mask[:] = False
    for j in range(n):
        mask[legal[j]] = True
    observe(fam, params, state, state[ST_TO_MOVE], obs)
    return n


@kernel_noalloc
def reset_batch(fam: int, params: IntArray, initial: IntArray, states: IntArray,
                history: IntArray, counts: IntArray, steps: IntArray, legal: IntArray,
                num_legal: IntArray, masks: BoolArray, obs: FloatArray) -> None:
    """Put every game of the batch at the start and fill masks and observations."""
    for i in range(states.shape[0]):
        for j in range(initial.shape[0]):  # a loop: a slice copy may allocate
            states[i, j] = initial[j]
        counts[i] = 0
        steps[i] = 0
        _note(fam, params, states[i], history, counts, i)
        num_legal[i] = _refresh(fam, params, states[i], legal[i], masks[i], obs[i])


@kernel_noalloc
def reset_games(fam: int, params: IntArray, initial: IntArray, states: IntArray,
                history: IntArray, counts: IntArray, steps: IntArray, legal: IntArray,
                num_legal: IntArray, masks: BoolArray, obs: FloatArray, rewards: FloatArray,
                terminated: BoolArray, truncated: BoolArray, which: BoolArray) -> None:
    """Put the games ``i`` with ``which[i]`` at the start (rewards and end flags cleared);
    the others are left as they are."""
    for i in range(states.shape[0]):
        if not which[i]:
            continue
        for j in range(initial.shape[0]):
            states[i, j] = initial[j]
        counts[i] = 0
        steps[i] = 0
        _note(fam, params, states[i], history, counts, i)
        num_legal[i] = _refresh(fam, params, states[i], legal[i], masks[i], obs[i])
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        terminated[i] = False
        truncated[i] = False


def step_cap(max_steps: int | None) -> int:
    """The kernels' form of a face's ``max_steps`` (0 for ``None``: no cap), or ``ValueError``
    saying what is allowed; every face (the batched simulator, Gymnasium, PettingZoo,
    ``nugar.jax``) checks its argument here."""
    if max_steps is None:
        return 0
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
        raise ValueError(f"max_steps must be None (no step cap, the default) or a whole "
                         f"number of decisions >= 1, not {max_steps!r}")
    return max_steps


@kernel_noalloc
def _cut(steps: IntArray, max_steps: int, i: int) -> bool:
    """Whether game ``i`` has reached the step cap (``max_steps`` 0: there is none)."""
    return bool(max_steps > 0 and steps[i] >= max_steps)


@kernel_noalloc
def step_batch(fam: int, params: IntArray, initial: IntArray, states: IntArray,
               history: IntArray, counts: IntArray, steps: IntArray, max_steps: int,
               actions: IntArray, legal: IntArray, num_legal: IntArray, masks: BoolArray,
               obs: FloatArray, rewards: FloatArray, terminated: BoolArray,
               truncated: BoolArray, auto_reset: bool) -> int:
    """Apply ``actions[i]`` to game ``i`` for every game, through ``dispatch.fam_apply`` and
    ``dispatch.fam_note_position`` (repetition).

    Returns -1, or the index of the first game whose action is not legal; then no game has
    been changed. The action -1 leaves a game as it is (rewards 0; the end flags of a
    finished game stay set): a finished game waiting for its reset (``auto_reset`` off), or
    a game the caller does not step now. A game that ends by the rules now gets its rewards
    and its ``terminated`` flag; one that reaches ``max_steps`` decisions (0: no cap) still
    running gets ``truncated`` (rewards 0) and, without ``auto_reset``, an empty mask. With
    ``auto_reset`` either starts again in the same call: its observation and mask are then
    those of the new game.
    """
    n_games = states.shape[0]
    n_act = masks.shape[1]
    for i in range(n_games):
        a = actions[i]
        if a == -1:
            continue
        if (states[i, ST_OUTCOME] != OUTCOME_RUNNING or _cut(steps, max_steps, i) or a < 0
                or a >= n_act or not masks[i, a]):
            return i
    for i in range(n_games):
        state = states[i]
        if actions[i] == -1:  # no action: the game waits as it is
            rewards[i, 0] = 0.0
            rewards[i, 1] = 0.0
            over = state[ST_OUTCOME] != OUTCOME_RUNNING
            terminated[i] = over
            truncated[i] = not over and _cut(steps, max_steps, i)
            continue
        fam_apply(fam, params, state, actions[i])
        _note(fam, params, state, history, counts, i)
        steps[i] += 1
        over = state[ST_OUTCOME] != OUTCOME_RUNNING
        cut = not over and _cut(steps, max_steps, i)
        if over:
            _rewards_of(state, rewards[i])
        else:
            rewards[i, 0] = 0.0
            rewards[i, 1] = 0.0
        terminated[i] = over
        truncated[i] = cut
        if (over or cut) and auto_reset:
            for j in range(initial.shape[0]):
                state[j] = initial[j]
            counts[i] = 0
            steps[i] = 0
            _note(fam, params, state, history, counts, i)
        num_legal[i] = _refresh(fam, params, state, legal[i], masks[i], obs[i])
        if cut and not auto_reset:  # cut off: the game waits for its reset, as a finished one
            num_legal[i] = 0
            masks[i, :] = False
    return -1


@kernel_noalloc
def random_legal_actions(legal: IntArray, num_legal: IntArray, seed: int,
                         out: IntArray) -> int:
    """Pick one legal action per game uniformly (the ``rng`` generator seeded by ``seed``); a
    game with no legal action gets -1. Returns the next seed, so calls can be chained."""
    x = rng.seed_state(seed)
    for i in range(legal.shape[0]):
        n = num_legal[i]
        if n == 0:
            out[i] = -1
            continue
        x = rng.advance(x)
        out[i] = legal[i, rng.pick(x, n)]
    return rng.continue_seed(x)


@kernel_noalloc
def random_steps(fam: int, params: IntArray, initial: IntArray, states: IntArray,
                 history: IntArray, counts: IntArray, game_steps: IntArray, max_steps: int,
                 legal: IntArray, num_legal: IntArray, masks: BoolArray, obs: FloatArray,
                 rewards: FloatArray, terminated: BoolArray, truncated: BoolArray,
                 actions: IntArray, steps: int, seed: int) -> int:
    """``steps`` batch steps with uniformly random legal actions, all in compiled code (the
    benchmark loop); returns the number of games finished."""
    finished = 0
    x = seed
    for _ in range(steps):
        x = random_legal_actions(legal, num_legal, x, actions)
        step_batch(fam, params, initial, states, history, counts, game_steps, max_steps,
                   actions, legal, num_legal, masks, obs, rewards, terminated, truncated, True)
        for i in range(states.shape[0]):
            if terminated[i] or truncated[i]:
                finished += 1
    return finished
