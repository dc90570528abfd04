"""Batched simulator: N games of one rule set stepped together in compiled code.

>>> import numpy as np
>>> sim = BatchSimulator("kalah", 4)
>>> out = sim.reset()
>>> out.masks.shape, out.observations.shape
((4, 6), (4, 18))
>>> out = sim.step(sim.random_actions(seed=1))
>>> out.rewards.shape
(4, 2)

Every step goes through the family kernels' ``legal_actions`` and ``apply_action`` (no second
rules engine; ``kernels/batch.py``, written once for both families). Observations are from the
point of view of the player to decide in each game (``docs/envs.md``); rewards are given for
both players (``rewards``) and for the player who took the step's action (``mover_rewards``,
with ``movers``). A game that ends by its rules (a draw by repetition or by the quiet limit
included) reports its rewards and ``terminated``; ``truncated`` is only the step cap
``max_steps`` (decisions per game, off by default). With ``auto_reset`` (the default) a game
that ended starts again in the same step, so the observation and mask returned for it are
those of the new game.
``turn_board=True`` turns the Dara and Dala board planes half round for the second player
(as ``Encoder`` and ``nugar.jax`` do; ``docs/envs.md``).

The action -1 leaves a game as it is while the others play on (rewards 0). Without
``auto_reset`` a finished game waits that way (-1 is what ``random_actions`` gives it),
keeping its end flags, until ``reset(mask)`` starts the chosen games again:

>>> sim = BatchSimulator("kalah(pits=2,seeds=1)", 3, auto_reset=False)
>>> out = sim.step(sim.random_actions(seed=1))
>>> out = sim.reset(out.terminated | out.truncated)

The functional form keeps no state: ``step_states(batch, actions)`` returns a new
:class:`BatchState` and leaves ``batch`` as it was (for search: a position can be stepped
many ways), for any number of games:

>>> root = sim.initial_states(2)
>>> child = sim.step_states(root, np.array([0, 1]))
>>> root.to_move.tolist(), child.counts.shape
([1, 1], (2,))

Buffers: :meth:`BatchSimulator.reset` and :meth:`BatchSimulator.step` return views of the
simulator's own buffers, overwritten by the next call (no allocation per step): keep
``out.copy()`` (or copy the arrays you keep). The functional form returns fresh arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
from numpy.typing import NDArray

from ..errors import IllegalMoveError, InvalidMoveError
from ..kernels import batch as batch_kernels
from ..kernels.common import ST_TO_MOVE
from ..kernels.dispatch import fam_initial_state
from ..rules import RuleSet, parse_rules
from ..rules.family import family_of
from .encoding import Encoder


@dataclass(frozen=True)
class BatchStep:
    """What a reset or a step returns (views of the simulator's buffers: see ``copy``)."""

    observations: NDArray[np.float32]  # (N, *observation_shape)
    masks: NDArray[np.bool_]           # (N, num_actions)
    to_move: NDArray[np.int64]         # (N,) player to decide: 1 or 2
    rewards: NDArray[np.float32]       # (N, 2): first player, second player
    terminated: NDArray[np.bool_]      # (N,) ended by the rules (draws of any rule included)
    truncated: NDArray[np.bool_]       # (N,) cut off by the step cap max_steps
    movers: NDArray[np.int64]          # (N,) who took this step's action (0: nobody)
    mover_rewards: NDArray[np.float32]  # (N,) the reward of that player (0 for nobody)

    def copy(self) -> BatchStep:
        """The same figures in arrays of their own (the simulator's are reused)."""
        return BatchStep(*(np.array(getattr(self, f.name)) for f in fields(self)))


@dataclass(frozen=True)
class BatchState:
    """Games of the functional form: the positions (``states``, with the history of
    turn-start keys that repetition needs) and what a step reports about them."""

    states: NDArray[np.int64]          # (N, state_size) kernel positions
    history: NDArray[np.int64]         # (N, history_size) turn-start keys
    counts: NDArray[np.int64]          # (N,) keys used in each row of ``history``
    steps: NDArray[np.int64]           # (N,) decisions played since the start (step cap)
    legal: NDArray[np.int64]           # (N, num_actions) legal codes, ascending
    num_legal: NDArray[np.int64]       # (N,)
    masks: NDArray[np.bool_]           # (N, num_actions)
    observations: NDArray[np.float32]  # (N, *observation_shape)
    rewards: NDArray[np.float32]       # (N, 2)
    terminated: NDArray[np.bool_]      # (N,)
    truncated: NDArray[np.bool_]       # (N,)
    movers: NDArray[np.int64]          # (N,) who took the last action (0: nobody)
    mover_rewards: NDArray[np.float32]  # (N,)

    @property
    def to_move(self) -> NDArray[np.int64]:
        """(N,) player to decide in each game: 1 or 2."""
        return self.states[:, ST_TO_MOVE]

    def copy(self) -> BatchState:
        return BatchState(*(np.array(getattr(self, f.name)) for f in fields(self)))

    def take(self, index: NDArray[np.integer] | list[int]) -> BatchState:
        """The games ``index`` (repeated as often as given): e.g. a position once per move."""
        idx = np.asarray(index, np.int64)
        return BatchState(*(np.array(getattr(self, f.name)[idx]) for f in fields(self)))


class BatchSimulator:
    """``num_envs`` games of ``rules`` stepped at once; see the module docstring."""

    def __init__(self, rules: str | RuleSet, num_envs: int, *, auto_reset: bool = True,
                 turn_board: bool = False, max_steps: int | None = None) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, not {num_envs!r}")
        self._cap = batch_kernels.step_cap(max_steps)  # 0: no cap
        self.max_steps = max_steps
        self.rules = parse_rules(rules)
        self.encoder = Encoder(self.rules, turn_board=turn_board)
        self.turn_board = self.encoder.turn_board
        self.params = self.encoder.params
        self.family = self.rules.family
        self.num_envs = num_envs
        self.auto_reset = bool(auto_reset)
        self.num_actions = self.encoder.num_actions
        self.observation_shape = self.encoder.observation_shape
        self._fam = family_of(self.rules).parts.code
        self.initial = fam_initial_state(self._fam, self.params)
        n, a = num_envs, self.num_actions
        self.states = np.zeros((n, self.initial.shape[0]), np.int64)
        self.legal = np.zeros((n, a), np.int64)
        self.num_legal = np.zeros(n, np.int64)
        self.masks = np.zeros((n, a), np.bool_)
        self._obs = np.zeros((n, self.encoder.observation_size), np.float32)
        self.rewards = np.zeros((n, 2), np.float32)
        self.terminated = np.zeros(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self._actions = np.zeros(n, np.int64)
        history = int(batch_kernels.history_size(self._fam, self.params))
        self._history = np.zeros((n, history), np.int64)
        self._counts = np.zeros(n, np.int64)
        self.steps = np.zeros(n, np.int64)
        self.movers = np.zeros(n, np.int64)
        self.mover_rewards = np.zeros(n, np.float32)
        self._rows = np.arange(n)
        self._history_size = history
        self.reset()

    # --- stepping ------------------------------------------------------------------------------
    def reset(self, mask: NDArray[np.bool_] | list[bool] | None = None) -> BatchStep:
        """Start every game again, or only the games ``i`` where ``mask[i]`` is true (the
        others are left as they are, finished or not)."""
        if mask is None:
            batch_kernels.reset_batch(self._fam, self.params, self.initial, self.states,
                                      self._history, self._counts, self.steps, self.legal,
                                      self.num_legal, self.masks, self._obs)
            self.encoder.turn_rows(self._obs, self.states[:, ST_TO_MOVE])
            self.rewards[:] = 0.0
            self.terminated[:] = False
            self.truncated[:] = False
            self.movers[:] = 0
            self.mover_rewards[:] = 0.0
            return self._result()
        which = np.asarray(mask)
        if which.shape != (self.num_envs,) or which.dtype != np.bool_:
            raise ValueError(f"mask must be {self.num_envs} booleans (shape "
                             f"({self.num_envs},)), got shape {which.shape} of {which.dtype}")
        batch_kernels.reset_games(self._fam, self.params, self.initial, self.states,
                                  self._history, self._counts, self.steps, self.legal,
                                  self.num_legal, self.masks, self._obs, self.rewards,
                                  self.terminated, self.truncated, which)
        self._turn_refreshed(self._obs, self.states, which)
        self.movers[which] = 0
        self.mover_rewards[which] = 0.0
        return self._result()

    def step(self, actions: NDArray[np.integer] | list[int]) -> BatchStep:
        """Apply one action code per game (-1: the game waits as it is, e.g. a finished game
        waiting for its reset without ``auto_reset``). Raises ``IllegalMoveError`` (and
        changes nothing) if any action is not legal in its game."""
        acts = self._check_actions(actions, self.num_envs)
        self._actions[:] = acts
        np.copyto(self.movers, self.states[:, ST_TO_MOVE])
        self.movers[self._actions < 0] = 0
        bad = batch_kernels.step_batch(self._fam, self.params, self.initial, self.states,
                                       self._history, self._counts, self.steps, self._cap,
                                       self._actions, self.legal, self.num_legal,
                                       self.masks, self._obs, self.rewards, self.terminated,
                                       self.truncated, self.auto_reset)
        if bad >= 0:
            self._illegal(bad, acts, self.legal, self.num_legal)
        self._turn_refreshed(self._obs, self.states, self._actions >= 0)
        self._mover_rewards(self.rewards, self.movers, self.mover_rewards)
        return self._result()

    # --- functional form -----------------------------------------------------------------------
    def initial_states(self, n: int | None = None) -> BatchState:
        """``n`` games (default ``num_envs``) at the start, in fresh arrays."""
        n = self.num_envs if n is None else n
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a whole number >= 1, not {n!r}")
        a = self.num_actions
        out = BatchState(
            np.zeros((n, self.initial.shape[0]), np.int64),
            np.zeros((n, self._history_size), np.int64), np.zeros(n, np.int64),
            np.zeros(n, np.int64), np.zeros((n, a), np.int64), np.zeros(n, np.int64),
            np.zeros((n, a), np.bool_),
            np.zeros((n, *self.observation_shape), np.float32), np.zeros((n, 2), np.float32),
            np.zeros(n, np.bool_), np.zeros(n, np.bool_), np.zeros(n, np.int64),
            np.zeros(n, np.float32))
        batch_kernels.reset_batch(self._fam, self.params, self.initial, out.states,
                                  out.history, out.counts, out.steps, out.legal,
                                  out.num_legal, out.masks, out.observations.reshape((n, -1)))
        self.encoder.turn_rows(out.observations, out.states[:, ST_TO_MOVE])
        return out

    def step_states(self, batch: BatchState, actions: NDArray[np.integer] | list[int]
                    ) -> BatchState:
        """The games of ``batch`` after one action each (-1: the game stays as it is), in new
        arrays; ``batch`` is not changed, and finished games never restart.
        Raises ``IllegalMoveError`` if an action is not legal."""
        n = batch.states.shape[0]
        acts = self._check_actions(actions, n).astype(np.int64)
        out = batch.copy()
        movers = np.where(acts >= 0, out.states[:, ST_TO_MOVE], 0)
        bad = batch_kernels.step_batch(self._fam, self.params, self.initial, out.states,
                                       out.history, out.counts, out.steps, self._cap, acts,
                                       out.legal, out.num_legal, out.masks,
                                       out.observations.reshape((n, -1)), out.rewards,
                                       out.terminated, out.truncated, False)
        if bad >= 0:
            self._illegal(bad, acts, batch.legal, batch.num_legal)
        self._turn_refreshed(out.observations, out.states, acts >= 0)
        out.movers[:] = movers
        self._mover_rewards(out.rewards, out.movers, out.mover_rewards)
        return out

    def random_actions(self, seed: int) -> NDArray[np.int64]:
        """One uniformly random legal action per game (-1 where a game has none)."""
        out = np.zeros(self.num_envs, np.int64)
        batch_kernels.random_legal_actions(self.legal, self.num_legal, int(seed), out)
        return out

    def run_random(self, steps: int, seed: int = 0) -> int:
        """``steps`` steps of uniformly random play, entirely in compiled code (needs
        ``auto_reset``); returns how many games finished. The benchmark's inner loop."""
        if not self.auto_reset:
            raise ValueError("run_random needs auto_reset=True: finished games must restart")
        # the kernel may leave a game unstepped: every row back to its layout, turned after
        self.encoder.turn_rows(self._obs, self.states[:, ST_TO_MOVE])
        finished = int(batch_kernels.random_steps(
            self._fam, self.params, self.initial, self.states, self._history, self._counts,
            self.steps, self._cap, self.legal, self.num_legal, self.masks, self._obs,
            self.rewards, self.terminated, self.truncated, self._actions, int(steps), int(seed)))
        self.encoder.turn_rows(self._obs, self.states[:, ST_TO_MOVE])
        return finished

    # --- helpers -------------------------------------------------------------------------------
    def _result(self) -> BatchStep:
        return BatchStep(self._obs.reshape((self.num_envs, *self.observation_shape)),
                         self.masks, self.states[:, ST_TO_MOVE], self.rewards,
                         self.terminated, self.truncated, self.movers, self.mover_rewards)

    def _turn_refreshed(self, obs: NDArray[np.float32], states: NDArray[np.int64],
                        refreshed: NDArray[np.bool_]) -> None:
        """With ``turn_board``, turn the rows the kernel has just written (``refreshed``) where
        the second player decides; the other rows were turned when they were written."""
        if self.turn_board:
            self.encoder.turn_rows(obs, np.where(refreshed, states[:, ST_TO_MOVE], 0))

    @staticmethod
    def _check_actions(actions: NDArray[np.integer] | list[int], n: int
                       ) -> NDArray[np.integer]:
        acts = np.asarray(actions)
        if acts.shape != (n,) or not np.issubdtype(acts.dtype, np.integer):
            raise InvalidMoveError(f"actions must be {n} integer codes (shape ({n},)), got "
                                   f"shape {acts.shape} of {acts.dtype}")
        return acts

    @staticmethod
    def _illegal(bad: int, acts: NDArray[np.integer], legal: NDArray[np.int64],
                 num_legal: NDArray[np.int64]) -> None:
        codes = legal[bad, :num_legal[bad]].tolist()
        raise IllegalMoveError(
            f"game {bad}: action {int(acts[bad])} is not legal; legal codes: "
            + (", ".join(map(str, codes))
               or "none (the game is over: give it -1, or reset it)"))

    @staticmethod
    def _mover_rewards(rewards: NDArray[np.float32], movers: NDArray[np.int64],
                       out: NDArray[np.float32]) -> None:
        """``out[i]``: the reward of the player who moved in game ``i`` (0 for nobody)."""
        seat = np.maximum(movers - 1, 0)
        np.copyto(out, np.take_along_axis(rewards, seat[:, None], axis=1)[:, 0])
        out[movers == 0] = 0.0
