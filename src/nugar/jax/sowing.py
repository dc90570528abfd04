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

import jax.numpy as jnp
import numpy as np

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

    def _picture(self, size: float, ink: str) -> tuple[str, float, float]:
        """The holes as a board seen from the first player's side: his holes 1..P along
        the bottom from the left, the second player's along the top from the right, each
        player's store at his right end; the seed counts written in."""
        cells = np.asarray(self._cells)
        p = (cells.shape[0] - 2) // 2
        out = []

        def cell(x: float, y: float, seeds: int, h: float) -> None:
            out.append(f'<rect x="{x:g}" y="{y:g}" width="{size:g}" height="{h:g}" '
                       f'fill="none" stroke="{ink}"/><text x="{x + size * 0.3:g}" '
                       f'y="{y + h / 2 + size * 0.15:g}" fill="{ink}" '
                       f'font-size="{size * 0.4:g}">{seeds}</text>')

        for k in range(p):
            cell((k + 1) * size, size, int(cells[k]), size)
            cell((p - k) * size, 0, int(cells[p + 1 + k]), size)
        cell((p + 1) * size, 0, int(cells[p]), 2 * size)
        cell(0, 0, int(cells[2 * p + 1]), 2 * size)
        out.append(f'<text x="0" y="{2.6 * size:g}" fill="{ink}" font-size="{size * 0.35:g}">'
                   f'to move: {int(self._to_move)}</text>')
        return "".join(out), (p + 2) * size, 3 * size


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

    def _own_holes(self, cells: Array, seat: Array) -> tuple[Array, Array]:
        """The holes of ``seat`` (1 or 2) and those of his opponent, each from hole 1."""
        p = self.pits
        first, second = cells[:p], cells[p + 1:2 * p + 1]
        return jnp.where(seat == 1, first, second), jnp.where(seat == 1, second, first)

    def _seen_from(self, cells: Array, seat: Array) -> Array:
        """All cells counted from ``seat``'s hole 1 (his holes, store, the opponent's)."""
        turned = jnp.concatenate([cells[self.pits + 1:], cells[:self.pits + 1]])
        return jnp.where(seat == 1, cells, turned)

    def _sow(self, cells: Array, mover: Array, hole: Array) -> tuple[Array, Array, Array]:
        """Sow from ``mover``'s ``hole`` (0-based, non-empty) and make the capture it makes:
        the cells after the step, the relative cell of the last seed and the seeds the step
        put into the mover's store. Cells are addressed by one-hot comparisons rather than
        gathers (cheap on every backend at these sizes)."""
        p, n = self.pits, self.n_cells
        ring = 2 * p + 1  # the sown cells, counted from the mover's hole 1: all but 2P + 1
        span = ring - (1 if self.skip else 0)
        base = jnp.where(mover == 1, 0, p + 1)
        j = jnp.arange(n, dtype=I32)
        rel = j - base
        rel = jnp.where(rel < 0, rel + n, rel)  # each cell's number from the mover's hole 1
        origin = rel == hole
        seeds = jnp.sum(jnp.where(origin, cells, 0))
        cells = jnp.where(origin, 0, cells)
        laps = jnp.maximum(seeds - 1, 0) // span
        rest = seeds - laps * span
        sown = rel < ring
        if self.skip:
            sown = sown & ~origin
        after = rel - hole - 1  # place of each cell in sowing order after the hole
        after = jnp.where(after < 0, after + ring, after)
        cells = cells + jnp.where(sown, laps, 0) + jnp.where((rel < ring) & (after < rest), 1, 0)
        last = hole + rest
        last = jnp.where(last >= ring, last - ring, last)
        # the last seed alone in an own hole: it and the facing hole's seeds go to the store
        at_last = rel == last
        at_facing = rel == 2 * p - last
        facing_seeds = jnp.sum(jnp.where(at_facing, cells, 0))
        lone = (last < p) & (jnp.sum(jnp.where(at_last, cells, 0)) == 1)
        gain = jnp.where(facing_seeds > 0, facing_seeds + 1, 1 if self.empty_single else 0)
        gain = jnp.where(lone, gain, 0)
        cells = jnp.where((gain > 0) & (at_last | at_facing), 0, cells)
        cells = cells + jnp.where(rel == p, gain, 0)
        stored = laps + jnp.where(p - hole <= rest, 1, 0) + gain
        return cells, last, stored

    def _duty_mask(self, own: Array, opp: Array, first_done: Array) -> Array:
        """The steps ``capture_duty=maximal`` allows: those capturing the most, then (after
        the first step of the game) the rightmost of them that gives a bonus step. Every
        hole's captures are computed without playing it, as the kernel's step_result does."""
        p = self.pits
        ring = 2 * p + 1
        span = ring - (1 if self.skip else 0)
        h = jnp.arange(p, dtype=I32)
        filled = own > 0
        laps = jnp.maximum(own - 1, 0) // span
        rest = own - laps * span
        captures = laps + jnp.where(p - h <= rest, 1, 0)
        last = h + rest
        last = jnp.where(last >= ring, last - ring, last)
        bonus = last == p
        # the own hole the last seed falls in (when it does) and the hole facing it
        pick = h[None, :] == last[:, None]
        before = jnp.where(last == h, 0, jnp.sum(jnp.where(pick, own[None, :], 0), axis=1))
        facing = h[None, :] == (p - 1 - last)[:, None]  # opponent hole 2P - last, from 0
        facing_seeds = (jnp.sum(jnp.where(facing, opp[None, :], 0), axis=1)
                        + jnp.where(2 * p - last - h <= rest, 1, 0))
        lone = (last < p) & (laps == 0) & (before == 0)
        gain = jnp.where(facing_seeds > 0, facing_seeds + 1, 1 if self.empty_single else 0)
        captures = jnp.where(filled, captures + jnp.where(lone, gain, 0), -1)
        kept = filled & (captures == jnp.max(captures))
        bonus_kept = kept & bonus
        rightmost = jnp.max(jnp.where(bonus_kept, h, -1))
        only = jnp.any(bonus_kept) & first_done
        return jnp.where(only, h == rightmost, kept)

    def _legal(self, cells: Array, to_move: Array, first_done: Array,
               outcome: Array) -> Array:
        """The legal action mask (all false once the game is over)."""
        own, opp = self._own_holes(cells, to_move)
        mask = self._duty_mask(own, opp, first_done) if self.duty else own > 0
        return mask & (outcome == 0)

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
        rewards, terminated = ending_fields(state._outcome)
        mask = self._legal(state._cells, state._to_move, state._first_done, state._outcome)
        return state.replace(current_player=state._to_move - 1, rewards=rewards,
                             terminated=terminated,
                             legal_action_mask=mask)

    def apply(self, state: SowingState, action: Array) -> SowingState:
        """Play ``action`` (a legal hole code) and fill in the fields of the new position."""
        mover = state._to_move
        cells, last, stored = self._sow(state._cells, mover, action)
        capturer = jnp.where(stored > 0, mover, state._last_capturer)
        to_move = jnp.where(last == self.pits, mover, 3 - mover)
        cells, outcome, reason = self._check_end(cells, to_move, mover, capturer)
        return self.finish(state.replace(
            _cells=cells, _to_move=to_move.astype(I32), _first_done=jnp.ones((), bool),
            _last_capturer=capturer.astype(I32), _outcome=outcome, _reason=reason))

    def observe(self, state: SowingState, player: Array) -> Array:
        """The observation vector of ``docs/envs.md`` for ``player`` (0 or 1)."""
        seat = player + 1
        share = self._share[jnp.clip(self._seen_from(state._cells, seat), 0, self.total)]
        flags = jnp.stack([state._to_move == seat, state._first_done,
                           state._last_capturer == seat,
                           state._last_capturer == 3 - seat]).astype(jnp.float32)
        return jnp.concatenate([share, flags])

