"""Dara and Dala in JAX: the alignment rules of ``kernels/alignment.py`` as board arithmetic.

A board is a ``(rows, cols)`` bool array per player, and the kernel's whole-board bit
operations become shifts of those arrays: the squares whose next 1, 2, 3 squares in a
direction are own give the length of the line a piece stands in (capped at four, all any rule
needs), from which the threes, the drop and step limits and the protected pieces follow for
every square at once. A decision is applied without a branch: the effects of a drop, a step, a
capture and a pass are each computed and the one the action code names is kept.

Repetition compares the kernel's own position keys (``rules/alignment.py`` make_params: the same
random tables, each 64-bit key kept as two uint32 halves, since JAX computes in 32 bits by
default), in a per-game history of turn-start keys kept as ``kernels/batch.py`` keeps it:
``quiet_limit + 2`` keys, or ``HISTORY_CAP`` with ``quiet_limit=off`` (the older half
forgotten when it fills). Every option is a Python value here, read when the environment is
made. ``tests/test_jax.py`` plays random games here and in the kernels and compares every step.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from ..kernels import alignment as K
from ..kernels.batch import ALIGN_PLANES, HISTORY_CAP
from ..kernels.common import (
    OUTCOME_DRAW,
    REASON_BLOCKED,
    REASON_PIECES,
    REASON_QUIET_LIMIT,
    REASON_REPETITION,
)
from ..rules.alignment import make_params
from ..rules.options import AlignmentOptions
from .state import Array, State, ending_fields, quotient_table, register, select

I32 = jnp.int32
U32 = jnp.uint32
# direction codes of the action space: 0 up (row + 1), 1 right, 2 down, 3 left
UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3


@dataclass(frozen=True)
class AlignmentState(State):
    """An alignment position: ``_board`` ``(2, rows, cols)`` the first and the second player's
    pieces; ``_to_move`` 1 or 2; ``_hands``, ``_on`` pieces in hand and on the board per
    player; ``_pending`` a capture is owed; ``_passed`` the last turn was a pass; ``_quiet``
    the kernel's quiet counter; ``_last`` ``(2, 2)`` each player's last step (origin, target,
    -1 for none); ``_outcome``, ``_reason`` the kernel's codes; ``_history`` ``(H, 2)`` uint32
    turn-start keys and ``_count`` how many are kept (repetition)."""

    _board: Array
    _to_move: Array
    _hands: Array
    _on: Array
    _pending: Array
    _passed: Array
    _quiet: Array
    _last: Array
    _outcome: Array
    _reason: Array
    _history: Array
    _count: Array

    def _picture(self, size: float, ink: str) -> tuple[str, float, float]:
        """The board with row 1 at the bottom: the first player's pieces filled, the
        second's rings; under it the pieces in hand and the player to move."""
        board = np.asarray(self._board)
        rows, cols = board.shape[1:]
        out = []
        for r in range(rows):
            for c in range(cols):
                x, y = c * size, (rows - 1 - r) * size
                out.append(f'<rect x="{x:g}" y="{y:g}" width="{size:g}" height="{size:g}" '
                           f'fill="none" stroke="{ink}"/>')
                for who, fill in ((0, ink), (1, "none")):
                    if board[who, r, c]:
                        out.append(f'<circle cx="{x + size / 2:g}" cy="{y + size / 2:g}" '
                                   f'r="{size * 0.35:g}" fill="{fill}" stroke="{ink}" '
                                   f'stroke-width="2"/>')
        hands = np.asarray(self._hands)
        out.append(f'<text x="0" y="{rows * size + size * 0.6:g}" fill="{ink}" '
                   f'font-size="{size * 0.35:g}">in hand {int(hands[0])} / {int(hands[1])}, '
                   f'to move: {int(self._to_move)}</text>')
        return "".join(out), cols * size, (rows + 1) * size


register(AlignmentState)


def _shift(b: Array, d: int) -> Array:
    """The squares one step from those of ``b`` in direction ``d``."""
    if d == UP:
        return jnp.concatenate([jnp.zeros_like(b[:1]), b[:-1]], axis=0)
    if d == DOWN:
        return jnp.concatenate([b[1:], jnp.zeros_like(b[:1])], axis=0)
    if d == RIGHT:
        return jnp.concatenate([jnp.zeros_like(b[:, :1]), b[:, :-1]], axis=1)
    return jnp.concatenate([b[:, 1:], jnp.zeros_like(b[:, :1])], axis=1)


def _run(own: Array, d: int) -> Array:
    """For every square, how many squares in a row from its neighbour in direction ``d`` are
    in ``own``, capped at 3."""
    back = d ^ 2
    r1 = _shift(own, back)
    r2 = r1 & _shift(r1, back)
    r3 = r1 & _shift(r2, back)
    return r1.astype(I32) + r2.astype(I32) + r3.astype(I32)


def _lines(own: Array) -> tuple[Array, Array]:
    """For every square, the length of the row line and of the column line an own piece there
    would stand in (at least 1; a length of four or more may read as any value over 3)."""
    return 1 + _run(own, RIGHT) + _run(own, LEFT), 1 + _run(own, UP) + _run(own, DOWN)


def _threes(own: Array) -> tuple[Array, Array]:
    """The own pieces standing in a row line of exactly three, and those in a column one."""
    row, col = _lines(own)
    return own & (row == 3), own & (col == 3)


def _xor_all(values: Array) -> Array:
    """XOR of ``values`` ``(..., 2)`` over all leading axes: one uint32 pair."""
    flat = values.reshape(-1, 2)
    out: Array = jax.lax.reduce(flat, np.uint32(0), jax.lax.bitwise_xor, (0,))
    return out


def _halves(keys: np.ndarray) -> Array:
    """int64 keys as ``(..., 2)`` uint32 halves (low, high): XOR acts on each half alone."""
    u = np.asarray(keys, dtype=np.int64).view(np.uint64)
    lo = (u & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    hi = (u >> np.uint64(32)).astype(np.uint32)
    return jnp.asarray(np.stack([lo, hi], axis=-1))


class AlignmentRules:
    """The rules of one alignment rule set as functions of an :class:`AlignmentState`."""

    def __init__(self, options: AlignmentOptions) -> None:
        params = make_params(options)
        rows, cols = options.rows, options.cols
        n = rows * cols
        self.rows, self.cols, self.n = rows, cols, n
        self.pieces = options.pieces
        self.centre_first = options.centre_first
        self.drop_capture = options.drop_capture
        self.drop_max = int(params[K.P_DROP_MAX])
        self.step_max = int(params[K.P_STEP_MAX])
        self.protect = options.protect_threes
        self.take_any = options.all_protected == "take_any"
        self.no_return = options.no_return
        self.blocked_lose = options.blocked == "lose"
        self.loss_at = options.loss_at
        self.repetition = options.repetition or 0
        self.quiet_limit = options.quiet_limit or 0
        self.num_actions = 6 * n + 1
        self.observation_shape: tuple[int, ...] = (ALIGN_PLANES, rows, cols)
        self.history = (self.quiet_limit + 2 if self.quiet_limit else HISTORY_CAP
                        ) if self.repetition else 1
        nb = params[params[K.P_OFF_NB]:params[K.P_OFF_NB] + 4 * n].reshape(n, 4)
        self._nb = jnp.asarray(nb, I32)
        centre = np.zeros(n, bool)
        for c in params[K.P_CENTRE:K.P_CENTRE + 4]:
            if c >= 0:
                centre[c] = True
        self._centre = jnp.asarray(centre.reshape(rows, cols))
        z = params[K.P_OFF_ZPIECE]
        self._z_piece = _halves(params[z:z + 2 * n].reshape(2, rows, cols))
        z = params[K.P_OFF_ZHAND]
        self._z_hand = _halves(params[z:z + 2 * 128].reshape(2, 2, 64))
        z = params[K.P_OFF_ZLAST]
        self._z_last = _halves(params[z:z + 4 * n].reshape(2, 2, n))
        self._z_side = _halves(params[K.P_Z_SIDE])
        self._z_pending = _halves(params[K.P_Z_PENDING])
        self._hand_share = quotient_table(self.pieces, self.pieces)
        self._quiet_share = quotient_table(max(self.quiet_limit, 1), max(self.quiet_limit, 1))

    # --- moves -------------------------------------------------------------------------------
    def _drops(self, state: AlignmentState, own: Array, empty: Array) -> Array:
        """Legal drops of the player to move, ``(rows, cols)``."""
        ok = empty
        if self.centre_first:
            made = 2 * self.pieces - state._hands[0] - state._hands[1]
            centre_only = (made < 4) & jnp.any(self._centre & empty)
            ok = ok & (self._centre | ~centre_only)
        if self.drop_max < K.UNLIMITED:
            row, col = _lines(own)
            ok = ok & (row <= self.drop_max) & (col <= self.drop_max)
        hand = jnp.where(state._to_move == 1, state._hands[0], state._hands[1])
        return ok & (hand > 0)

    def _steps(self, state: AlignmentState, own: Array, empty: Array) -> Array:
        """Legal steps of the player to move, ``(rows, cols, 4)`` by origin and direction."""
        runs = [_run(own, d) for d in range(4)] if self.step_max < K.UNLIMITED else []
        origins = []
        for d in range(4):
            targets = _shift(own, d) & empty
            if runs:
                # along the step only the squares beyond the target count (the origin
                # empties); across it, both sides
                side = (d + 1) % 4
                along = 1 + runs[d]
                across = 1 + runs[side] + runs[side ^ 2]
                targets = targets & (along <= self.step_max) & (across <= self.step_max)
            origins.append(_shift(targets, d ^ 2))
        steps = jnp.stack(origins, axis=-1)
        if self.no_return:
            # the one step back from the last target to the last origin
            last = jnp.where(state._to_move == 1, state._last[0], state._last[1])
            squares = jnp.arange(self.n)[:, None]
            back = (squares == last[1]) & (self._nb == last[0]) & (last[1] >= 0)
            steps = steps & ~back.reshape(self.rows, self.cols, 4)
        return steps

    def _takeable(self, victim: Array) -> Array:
        """The opponent pieces that may be captured, ``(rows, cols)``."""
        if not self.protect:
            return victim
        rows3, cols3 = _threes(victim)
        free = victim & ~(rows3 | cols3)
        if self.take_any:
            free = jnp.where(jnp.any(free), free, victim)
        return free

    def _boards(self, state: AlignmentState) -> tuple[Array, Array]:
        """The pieces of the player to move and of his opponent."""
        first = state._to_move == 1
        own = jnp.where(first, state._board[0], state._board[1])
        opp = jnp.where(first, state._board[1], state._board[0])
        return own, opp

    def _turn_moves(self, state: AlignmentState) -> tuple[Array, Array]:
        """Legal drops and steps of the player to move (the drops only in the drop phase,
        the steps only after it)."""
        own, opp = self._boards(state)
        empty = ~(own | opp)
        drop_phase = state._hands[1] > 0
        drops = self._drops(state, own, empty) & drop_phase
        steps = self._steps(state, own, empty) & ~drop_phase
        return drops, steps

    def _legal(self, state: AlignmentState, turn: Array, captures: Array) -> Array:
        """The legal action mask (all false once the game is over), from the drops and steps
        of the player to move (``turn``, flat) and the pieces he may capture: the caller
        has them at hand, so they are not computed twice."""
        blocked = ~jnp.any(turn)
        pending = state._pending
        mask = jnp.concatenate([
            turn & ~pending, captures.reshape(-1) & pending, (blocked & ~pending)[None]])
        return mask & (state._outcome == 0)

    # --- keys and repetition -----------------------------------------------------------------
    def _key(self, state: AlignmentState) -> Array:
        """The kernel's position key (``kernels/alignment.py`` compute_key) as uint32 halves."""
        parts = [_xor_all(jnp.where(state._board[..., None], self._z_piece, 0))]
        for i in range(2):
            hand = state._hands[i]
            parts.append(self._z_hand[i, 0, hand & 63] ^ self._z_hand[i, 1, (hand >> 6) & 63])
            if self.no_return:
                origin, target = state._last[i, 0], state._last[i, 1]
                last = (self._z_last[i, 0, jnp.maximum(origin, 0)]
                        ^ self._z_last[i, 1, jnp.maximum(target, 0)])
                parts.append(jnp.where(origin >= 0, last, 0))
        parts.append(jnp.where(state._to_move == 2, self._z_side, 0))
        parts.append(jnp.where(state._pending, self._z_pending, 0))
        return _xor_all(jnp.stack(parts))

    def _note(self, state: AlignmentState) -> AlignmentState:
        """Record a turn-start key and draw on the ``repetition``-th occurrence
        (``kernels/batch.py`` _note and ``kernels/alignment.py`` note_position)."""
        if not self.repetition:
            return state
        history, count = state._history, state._count
        cap = self.history
        half = cap // 2
        full = count + 1 >= cap
        shifted = history[(jnp.arange(cap) + count - half) % cap]
        history = jnp.where(full, shifted, history)
        count = jnp.where(full, half, count)
        skip = state._pending | ((state._outcome != 0) & (state._reason == REASON_PIECES))
        drop_phase = state._hands[1] > 0
        start = jnp.where((state._quiet == 0) | drop_phase, 0, count)
        key = self._key(state)
        i = jnp.arange(cap)
        lo = jnp.maximum(start - state._quiet, 0)
        earlier = (i >= lo) & (i <= start - 2) & ((start - i) % 2 == 0)
        same = jnp.all(history == key, axis=-1)
        seen = 1 + jnp.sum(earlier & same)
        repeated = ~skip & (seen >= self.repetition)
        new_history = jnp.where((i == start)[:, None], key, history)
        return state.replace(
            _history=jnp.where(skip, history, new_history),
            _count=jnp.where(skip, count, start + 1).astype(I32),
            _outcome=jnp.where(repeated, OUTCOME_DRAW, state._outcome).astype(I32),
            _reason=jnp.where(repeated, REASON_REPETITION, state._reason).astype(I32))

    # --- turns -------------------------------------------------------------------------------
    def _end_turn(self, state: AlignmentState, mover: Array) -> tuple[AlignmentState, Array]:
        """Piece count, quiet limit, blocked player (kernel _end_turn's checks after the
        hand-over, and finish_setup's); also returns the drops and steps of the player to move
        now, flat (his legal moves unless the game ended)."""
        loss_at = self.loss_at
        other = 3 - mover
        left = state._on + state._hands
        other_out = jnp.where(other == 1, left[0], left[1]) <= loss_at
        mover_out = jnp.where(mover == 1, left[0], left[1]) <= loss_at
        outcome = jnp.where(other_out, mover, jnp.where(mover_out, other, 0))
        reason = jnp.where(outcome != 0, REASON_PIECES, 0)
        if self.quiet_limit:
            quiet_draw = (outcome == 0) & (state._quiet >= self.quiet_limit)
            outcome = jnp.where(quiet_draw, OUTCOME_DRAW, outcome)
            reason = jnp.where(quiet_draw, REASON_QUIET_LIMIT, reason)
        drops, steps = self._turn_moves(state)
        turn = jnp.concatenate([drops.reshape(-1), steps.reshape(-1)])
        blocked = (outcome == 0) & ~state._pending & ~jnp.any(turn)
        if self.blocked_lose:
            outcome = jnp.where(blocked, 3 - state._to_move, outcome)
            reason = jnp.where(blocked, REASON_BLOCKED, reason)
        else:
            drawn = blocked & state._passed
            outcome = jnp.where(drawn, OUTCOME_DRAW, outcome)
            reason = jnp.where(drawn, REASON_BLOCKED, reason)
        return state.replace(_outcome=outcome.astype(I32), _reason=reason.astype(I32)), turn

    def initial(self) -> AlignmentState:
        zero = jnp.zeros((), I32)
        state = AlignmentState(
            current_player=zero, observation=jnp.zeros(self.observation_shape, jnp.float32),
            rewards=jnp.zeros(2, jnp.float32), terminated=jnp.zeros((), bool),
            truncated=jnp.zeros((), bool),
            legal_action_mask=jnp.zeros(self.num_actions, bool), _step_count=zero,
            _board=jnp.zeros((2, self.rows, self.cols), bool), _to_move=jnp.ones((), I32),
            _hands=jnp.full(2, self.pieces, I32), _on=jnp.zeros(2, I32),
            _pending=jnp.zeros((), bool), _passed=jnp.zeros((), bool), _quiet=zero,
            _last=jnp.full((2, 2), -1, I32), _outcome=zero, _reason=zero,
            _history=jnp.zeros((self.history, 2), U32), _count=zero)
        state, turn = self._end_turn(state, jnp.full((), 2, I32))
        return self.finish(self._note(state), turn, jnp.zeros((self.rows, self.cols), bool))

    def finish(self, state: AlignmentState, turn: Array, captures: Array) -> AlignmentState:
        """Fill in the fields read from the position: mask, rewards, flags, player."""
        rewards, terminated = ending_fields(state._outcome)
        return state.replace(current_player=state._to_move - 1, rewards=rewards,
                             terminated=terminated,
                             legal_action_mask=self._legal(state, turn, captures))

    def apply(self, state: AlignmentState, action: Array) -> AlignmentState:
        """Play ``action`` (a legal code) and fill in the fields of the new position."""
        n = self.n
        mover = state._to_move
        first = mover == 1
        own, opp = self._boards(state)
        is_drop = action < n
        is_step = (action >= n) & (action < 5 * n)
        is_capture = (action >= 5 * n) & (action < 6 * n)
        is_pass = action == 6 * n
        code = jnp.clip(action - n, 0, 4 * n - 1)
        origin = code >> 2
        target = self._nb[origin, code & 3]
        squares = jnp.arange(n).reshape(self.rows, self.cols)
        own = own ^ (is_drop & (squares == action))
        own = own ^ (is_step & ((squares == origin) | (squares == target)))
        opp = opp & ~(is_capture & (squares == action - 5 * n))
        board = jnp.where(first, jnp.stack([own, opp]), jnp.stack([opp, own]))
        mine = jnp.where(first, jnp.array([1, 0]), jnp.array([0, 1]))
        hands = state._hands - jnp.where(is_drop, mine, 0)
        on = state._on + jnp.where(is_drop, mine, 0) - jnp.where(is_capture, 1 - mine, 0)
        new_last = jnp.where(is_step, jnp.stack([origin, target]), -1)
        last = jnp.where((mine[:, None] == 1) & ~is_capture, new_last[None, :], state._last)
        # a three formed: by the dropped piece (drop_capture), by the stepped piece, or left
        # behind beside the origin by a piece stepping off the end of a longer line
        rows3, cols3 = _threes(own)
        if self.drop_capture:
            formed_drop = jnp.any((rows3 | cols3) & (squares == action))
        else:
            formed_drop = jnp.zeros((), bool)
        at_target = squares == target
        at_origin = squares == origin
        beside = (_shift(at_origin, LEFT) | _shift(at_origin, RIGHT)) & ~at_target
        above_below = (_shift(at_origin, UP) | _shift(at_origin, DOWN)) & ~at_target
        formed_step = (jnp.any((rows3 | cols3) & at_target) | jnp.any(rows3 & beside)
                       | jnp.any(cols3 & above_below))
        formed = (is_drop & formed_drop) | (is_step & formed_step)
        takeable = self._takeable(opp)
        owed = formed & jnp.any(takeable)
        drop_phase = state._hands[1] > 0
        counted = is_step | (is_pass & ~drop_phase)
        quiet = jnp.where(is_capture, 0, state._quiet + counted.astype(I32))
        handed = state.replace(
            _board=board, _hands=hands.astype(I32), _on=on.astype(I32), _last=last.astype(I32),
            _step_count=state._step_count)
        # the turn goes on with a capture to make, or passes to the opponent
        kept = handed.replace(_pending=jnp.ones((), bool))
        over = handed.replace(_pending=jnp.zeros((), bool), _quiet=quiet.astype(I32),
                              _to_move=(3 - mover).astype(I32), _passed=is_pass)
        over, turn = self._end_turn(over, mover)
        # with a capture owed the mask is the takeable pieces, else the new player's moves
        return self.finish(self._note(select(owed, kept, over)), turn, takeable)

    def observe(self, state: AlignmentState, player: Array, turn_board: bool) -> Array:
        """The ``ALIGN_PLANES`` planes of ``docs/envs.md`` for ``player`` (0 or 1); with
        ``turn_board`` the board is turned half round for the second player, so that his own
        side is row 0 as the first player's is."""
        seat = player + 1
        mine = seat == 1
        own = jnp.where(mine, state._board[0], state._board[1])
        opp = jnp.where(mine, state._board[1], state._board[0])
        own_hand = jnp.where(mine, state._hands[0], state._hands[1])
        opp_hand = jnp.where(mine, state._hands[1], state._hands[0])
        ones = jnp.ones((self.rows, self.cols), jnp.float32)
        quiet = (self._quiet_share[jnp.minimum(state._quiet, self.quiet_limit)]
                 if self.quiet_limit else jnp.zeros((), jnp.float32))
        planes = [own.astype(jnp.float32), opp.astype(jnp.float32),
                  ones * self._hand_share[own_hand], ones * self._hand_share[opp_hand],
                  ones * (state._hands[1] > 0), ones * (state._to_move == seat),
                  ones * state._pending]
        squares = jnp.arange(self.n).reshape(self.rows, self.cols)
        for who in (jnp.where(mine, 0, 1), jnp.where(mine, 1, 0)):
            last = state._last[who]
            for k in range(2):
                shown = (squares == last[k]) & (last[0] >= 0) & self.no_return
                planes.append(shown.astype(jnp.float32))
        planes += [ones * quiet, ones * state._passed]
        obs = jnp.stack(planes)
        if turn_board:
            obs = jnp.where(mine, obs, obs[:, ::-1, ::-1])
        return obs
