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
both players. A finished game reports its rewards and ``terminated`` (or ``truncated`` for a
repetition / quiet-limit draw) and, with ``auto_reset`` (the default), starts again in the same
step, so the observation and mask returned for it are those of the new game.

The arrays returned are the simulator's own buffers, overwritten by the next call: copy what
you keep.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    """What a reset or a step returns (views of the simulator's buffers)."""

    observations: NDArray[np.float32]  # (N, *observation_shape)
    masks: NDArray[np.bool_]           # (N, num_actions)
    to_move: NDArray[np.int64]         # (N,) player to decide: 1 or 2
    rewards: NDArray[np.float32]       # (N, 2): first player, second player
    terminated: NDArray[np.bool_]      # (N,)
    truncated: NDArray[np.bool_]       # (N,) house-rule draws (repetition, quiet_limit)


class BatchSimulator:
    """``num_envs`` games of ``rules`` stepped at once; see the module docstring."""

    def __init__(self, rules: str | RuleSet, num_envs: int, *, auto_reset: bool = True) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, not {num_envs!r}")
        self.rules = parse_rules(rules)
        self.encoder = Encoder(self.rules)
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
        self.reset()

    # --- stepping ------------------------------------------------------------------------------
    def reset(self) -> BatchStep:
        """Start every game again."""
        batch_kernels.reset_batch(self._fam, self.params, self.initial, self.states,
                                  self._history, self._counts, self.legal, self.num_legal,
                                  self.masks, self._obs)
        self.rewards[:] = 0.0
        self.terminated[:] = False
        self.truncated[:] = False
        return self._result()

    def step(self, actions: NDArray[np.integer] | list[int]) -> BatchStep:
        """Apply one action code per game. Raises ``IllegalMoveError`` (and changes nothing)
        if any action is not legal in its game, or if a game is over and ``auto_reset`` is
        off."""
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise InvalidMoveError(f"actions must be {self.num_envs} integer codes (shape "
                                   f"({self.num_envs},)), got shape {acts.shape} of {acts.dtype}")
        self._actions[:] = acts
        bad = batch_kernels.step_batch(self._fam, self.params, self.initial, self.states,
                                       self._history, self._counts, self._actions, self.legal,
                                       self.num_legal, self.masks, self._obs, self.rewards,
                                       self.terminated, self.truncated, self.auto_reset)
        if bad >= 0:
            legal = self.legal[bad, :self.num_legal[bad]].tolist()
            raise IllegalMoveError(
                f"game {bad}: action {int(acts[bad])} is not legal; legal codes: "
                + (", ".join(map(str, legal)) or "none (the game is over; reset it)"))
        return self._result()

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
        return int(batch_kernels.random_steps(
            self._fam, self.params, self.initial, self.states, self._history, self._counts,
            self.legal, self.num_legal, self.masks, self._obs, self.rewards, self.terminated,
            self.truncated, self._actions, int(steps), int(seed)))

    # --- helpers -------------------------------------------------------------------------------
    def _result(self) -> BatchStep:
        return BatchStep(self._obs.reshape((self.num_envs, *self.observation_shape)),
                         self.masks, self.states[:, ST_TO_MOVE], self.rewards,
                         self.terminated, self.truncated)
