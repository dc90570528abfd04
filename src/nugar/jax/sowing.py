"""Kalah and Dracala in JAX: the sowing rules of ``kernels/sowing.py`` as array arithmetic.

The rules are those of the numba kernel, re-expressed without a branch on a traced value so
that ``jit`` and ``vmap`` take them: a step is computed in cells counted from the mover's hole
1 (his holes 0..P-1, his store P, the opponent's holes P+1..2P, the opponent's store 2P+1,
never sown), where a step of ``n`` seeds from hole ``a`` gives every sown cell ``laps`` seeds
and one more to each of the ``rest`` cells after ``a`` in sowing order (the kernel's lap-wise
sowing). Every option of ``SowingOptions`` is a Python value here, read when the environment
is made, so each rule set compiles to its own straight-line program.
``tests/test_jax.py`` plays random games here and in the kernels and compares every step.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp

from ..kernels.common import (
    OUTCOME_DRAW,
    OUTCOME_FIRST,
    OUTCOME_SECOND,
    REASON_EMPTY_SIDE,
    REASON_MAJORITY,
)
from ..rules.options import SowingOptions
from .state import Array, State, ending_fields, ratio_table, register

I32 = jnp.int32


@dataclass(frozen=True)
class SowingState(State):
    """A sowing position: ``_cells`` the ``2P + 2`` seed counts in the kernel's order (first
    player's holes, his store, second player's holes, his store); ``_to_move`` 1 or 2;
    ``_first_done`` a step has been played; ``_last_capturer`` 0, 1 or 2; ``_outcome`` and
    ``_reason`` the kernel's codes."""

    _cells: Array
    _to_move: Array
    _first_done: Array
    _last_capturer: Array
    _outcome: Array
    _reason: Array


register(SowingState)


class SowingRules:
    """The rules of one sowing rule set as functions of a :class:`SowingState`."""

    def __init__(self, options: SowingOptions) -> None:
        p = options.pits
        self.pits = p
        self.n_cells = 2 * p + 2
        self.total = 2 * p * options.seeds
        self.skip = bool(options.skip_origin)
        self.empty_single = options.empty_capture == "single"
        self.end_mover = options.end == "mover_empty"
        self.leftovers = options.leftovers
        self.duty = options.capture_duty == "maximal"
        self.misere = bool(options.misere)
        self.num_actions = p
        self.observation_shape: tuple[int, ...] = (self.n_cells + 4,)
        # seeds / all seeds, as kernels/batch.py's sowing_observe rounds it
        self._share = ratio_table(self.total, 1.0 / self.total)

    # --- positions -----------------------------------------------------------------------
    def initial(self) -> SowingState:
        p = self.pits
        cells = jnp.full(self.n_cells, 0, I32)
        holes = jnp.arange(self.n_cells) % (p + 1) != p
        cells = jnp.where(holes, self.total // (2 * p), cells).astype(I32)
        zero = jnp.zeros((), I32)
        return self.finish(SowingState(
            current_player=zero, observation=jnp.zeros(self.observation_shape, jnp.float32),
            rewards=jnp.zeros(2, jnp.float32), terminated=jnp.zeros((), bool),
            truncated=jnp.zeros((), bool),
            legal_action_mask=jnp.zeros(self.num_actions, bool), _step_count=zero,
            _cells=cells, _to_move=jnp.ones((), I32), _first_done=jnp.zeros((), bool),
            _last_capturer=zero, _outcome=zero, _reason=zero))

    def _relative(self, cells: Array, mover: Array) -> Array:
        """The cells counted from ``mover``'s hole 1."""
        base = jnp.where(mover == 1, 0, self.pits + 1)
        return cells[(jnp.arange(self.n_cells) + base) % self.n_cells]

    def _absolute(self, rel: Array, mover: Array) -> Array:
        """The inverse of :meth:`_relative` (turning by half the cells twice is no turn)."""
        base = jnp.where(mover == 1, 0, self.pits + 1)
        return rel[(jnp.arange(self.n_cells) + base) % self.n_cells]

    def _sow(self, rel: Array, hole: Array) -> tuple[Array, Array]:
        """Sow from relative ``hole`` (non-empty) and make the capture it makes: the cells
        after the step and the relative cell of the last seed."""
        p = self.pits
        ring = 2 * p + 1  # the sown cells: all but the opponent's store
        x = jnp.arange(self.n_cells)
        n = rel[hole]
        rel = jnp.where(x == hole, 0, rel)
        span = ring - (1 if self.skip else 0)
        laps = jnp.maximum(n - 1, 0) // span
        rest = n - laps * span
        sown = x < ring
        if self.skip:
            sown = sown & (x != hole)
        after = (x - hole - 1) % ring  # position of each cell in sowing order
        rel = rel + jnp.where(sown, laps, 0) + jnp.where((x < ring) & (after < rest), 1, 0)
        last = (hole + rest) % ring
        # the last seed alone in an own hole: it and the facing hole's seeds go to the store
        facing = 2 * p - last
        facing_seeds = rel[facing]
        lone = (last < p) & (rel[jnp.minimum(last, p - 1)] == 1)
        gain = jnp.where(facing_seeds > 0, facing_seeds + 1, 1 if self.empty_single else 0)
        take = lone & (gain > 0)
        rel = jnp.where(take & ((x == last) | (x == facing)), 0, rel)
        rel = rel.at[p].add(jnp.where(take, gain, 0))
        return rel, last

    def _legal(self, cells: Array, to_move: Array, first_done: Array,
               outcome: Array) -> Array:
        """The legal action mask (all false once the game is over)."""
        p = self.pits
        rel = self._relative(cells, to_move)
        filled = rel[:p] > 0
        if self.duty:
            # only the steps capturing the most; after the first step of the game, the
            # rightmost of those that give a bonus step, if one does
            holes = jnp.arange(p)
            before = rel[p]
            after, last = jax.vmap(self._sow, in_axes=(None, 0))(rel, holes)
            captures = jnp.where(filled, after[:, p] - before, -1)
            bonus = last == p
            best = jnp.max(captures)
            kept = filled & (captures == best)
            bonus_kept = kept & bonus
            rightmost = jnp.max(jnp.where(bonus_kept, holes, -1))
            only = jnp.any(bonus_kept) & first_done
            filled = jnp.where(only, holes == rightmost, kept)
        return filled & (outcome == 0)

    def _check_end(self, cells: Array, to_move: Array, mover: Array, capturer: Array,
                   ) -> tuple[Array, Array, Array]:
        """The end of the game after a step: cells, outcome and reason (kernel _check_end)."""
        p, total = self.pits, self.total
        s1, s2 = cells[p], cells[2 * p + 1]
        side1 = jnp.sum(cells[:p])
        side2 = jnp.sum(cells[p + 1:2 * p + 1])
        if self.end_mover:
            ended = jnp.where(to_move == 1, side1, side2) == 0
        else:
            ended = (side1 == 0) | (side2 == 0)
        if self.leftovers == "owner":
            f1, f2 = s1 + side1, s2 + side2
        else:
            taker = mover
            if self.leftovers == "last_capturer":
                taker = jnp.where(capturer != 0, capturer, mover)
            f1 = s1 + jnp.where(taker == 1, side1 + side2, 0)
            f2 = s2 + jnp.where(taker == 1, 0, side1 + side2)
        if self.misere:
            outcome = jnp.where(2 * f1 > total, OUTCOME_SECOND,
                                jnp.where(2 * f2 > total, OUTCOME_FIRST, OUTCOME_DRAW))
            reason = jnp.where(outcome == OUTCOME_DRAW, REASON_EMPTY_SIDE, REASON_MAJORITY)
        else:
            outcome = jnp.where(f1 > f2, OUTCOME_FIRST,
                                jnp.where(f2 > f1, OUTCOME_SECOND, OUTCOME_DRAW))
            reason = jnp.full((), REASON_EMPTY_SIDE)
        x = jnp.arange(self.n_cells)
        scored = jnp.where(x == p, f1, jnp.where(x == 2 * p + 1, f2, 0))
        new_cells = jnp.where(ended, scored, cells)
        outcome = jnp.where(ended, outcome, 0)
        reason = jnp.where(ended, reason, 0)
        if self.misere:
            # more than half of all seeds in one store loses at once, seeds left in place
            maj1 = 2 * s1 > total
            maj2 = 2 * s2 > total
            majority = maj1 | maj2
            new_cells = jnp.where(majority, cells, new_cells)
            outcome = jnp.where(maj1, OUTCOME_SECOND, jnp.where(maj2, OUTCOME_FIRST, outcome))
            reason = jnp.where(majority, REASON_MAJORITY, reason)
        return new_cells.astype(I32), outcome.astype(I32), reason.astype(I32)

    def finish(self, state: SowingState) -> SowingState:
        """Fill in the fields read from the position: mask, rewards, flags, player."""
        rewards, terminated, truncated = ending_fields(state._outcome, state._reason)
        mask = self._legal(state._cells, state._to_move, state._first_done, state._outcome)
        return state.replace(current_player=state._to_move - 1, rewards=rewards,
                             terminated=terminated, truncated=truncated,
                             legal_action_mask=mask)

    def apply(self, state: SowingState, action: Array) -> SowingState:
        """Play ``action`` (a legal hole code) and fill in the fields of the new position."""
        p = self.pits
        mover = state._to_move
        rel = self._relative(state._cells, mover)
        store_before = rel[p]
        rel, last = self._sow(rel, action)
        captured = rel[p] - store_before
        capturer = jnp.where(captured > 0, mover, state._last_capturer)
        to_move = jnp.where(last == p, mover, 3 - mover)
        cells = self._absolute(rel, mover)
        cells, outcome, reason = self._check_end(cells, to_move, mover, capturer)
        return self.finish(state.replace(
            _cells=cells, _to_move=to_move.astype(I32), _first_done=jnp.ones((), bool),
            _last_capturer=capturer.astype(I32), _outcome=outcome, _reason=reason))

    def observe(self, state: SowingState, player: Array) -> Array:
        """The observation vector of ``docs/envs.md`` for ``player`` (0 or 1)."""
        seat = player + 1
        rel = self._relative(state._cells, seat)
        share = self._share[jnp.clip(rel, 0, self.total)]
        flags = jnp.stack([state._to_move == seat, state._first_done,
                           state._last_capturer == seat,
                           state._last_capturer == 3 - seat]).astype(jnp.float32)
        return jnp.concatenate([share, flags])

