"""Gymnasium single-agent environment: one player against a built-in nugar agent.

``NugarEnv("dara", opponent="level:3", player=1)``, or ``gymnasium.make("nugar/dara-v0")``
once this module is imported. The learner's decisions are the actions;
the opponent's whole run of decisions is played inside ``step`` (and inside ``reset`` when the
learner moves second). Observations are the planes of ``docs/envs.md`` from the learner's point
of view; ``info["action_mask"]`` (and ``action_masks()``, the name sb3-contrib looks for) gives
the legal actions. The reward is +1/-1/0 on the last step. Draws by ``repetition`` or
``quiet_limit`` end the episode as truncation, every other end as termination.

An action outside ``0..n-1`` is an error. An action inside the space but not legal is, by
default (``illegal_action="lose"``), a lost game (reward -1, terminated, ``info["illegal"]``),
as masking-free learners need; ``illegal_action="raise"`` raises ``IllegalMoveError`` instead.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from ..ai import DEFAULT_LEVEL, Agent, Limits, make_agent
from ..errors import IllegalMoveError
from ..rules import RuleSet, new_game, parse_rules
from ..rules.base import Game
from .encoding import TRUNCATION_REASONS, Encoder

Obs = NDArray[np.float32]


class NugarEnv(gym.Env[Obs, np.int64]):
    """One nugar game against a built-in agent; see the module docstring."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012

    def __init__(self, rules: str | RuleSet = "dara",
                 opponent: str | Agent = f"level:{DEFAULT_LEVEL}",
                 player: int = 1, opponent_limits: Limits | None = None,
                 illegal_action: str = "lose", render_mode: str | None = None) -> None:
        if player not in (1, 2):
            raise ValueError(f"player must be 1 (moves first) or 2, not {player!r}")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', not {illegal_action!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.rule_set = parse_rules(rules)
        self.encoder = Encoder(self.rule_set)
        self.player = player
        self.opponent: Agent = make_agent(opponent) if isinstance(opponent, str) else opponent
        self.opponent_limits = opponent_limits or Limits(time=0.1)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, self.encoder.observation_shape, np.float32)
        self.action_space = spaces.Discrete(self.encoder.num_actions)
        self.game: Game = new_game(self.rule_set)

    # --- Gymnasium API -------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        # Agents that play at random draw from their own generator: seed it from ours so that
        # a seeded reset replays the same opponent.
        self.opponent.reseed(int(self.np_random.integers(2**62)))
        self.game = new_game(self.rule_set)
        self._play_opponent()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        if self.game.is_over:
            raise IllegalMoveError("the episode is over: call reset() before step()")
        code = self.encoder.check_action(action)
        if code not in self.game.legal_actions():
            if self.illegal_action == "raise":
                raise IllegalMoveError(
                    f"action {code} ({self.encoder.action_name(code)}) is not legal here; "
                    f"legal: {self.game.legal_actions()}")
            self.game.resign(self.player)
            info = self._info()
            info["illegal"] = True
            return self._observation(), -1.0, True, False, info
        self.game.push_action(code)
        self._play_opponent()
        outcome = self.game.outcome
        reward, terminated, truncated = 0.0, False, False
        if outcome is not None:
            if outcome.winner is not None:
                reward = 1.0 if outcome.winner == self.player else -1.0
            truncated = outcome.reason in TRUNCATION_REASONS
            terminated = not truncated
        return self._observation(), reward, terminated, truncated, self._info()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return str(self.game)

    def action_masks(self) -> NDArray[np.bool_]:
        """Legal actions of the learner now, as booleans (all false once the game is over)."""
        mask = np.zeros(self.encoder.num_actions, np.bool_)
        if not self.game.is_over and self.game.to_move == self.player:
            mask[self.game.legal_actions()] = True
        return mask

    # --- helpers -------------------------------------------------------------------------------
    def _play_opponent(self) -> None:
        while not self.game.is_over and self.game.to_move != self.player:
            move = self.opponent.choose(self.game, self.opponent_limits)
            self.game.push(move)

    def _observation(self) -> Obs:
        return self.encoder.observe(self.game, self.player)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks().astype(np.int8)}
        outcome = self.game.outcome
        if outcome is not None:
            info["outcome"] = outcome.reason
            info["result"] = outcome.result
        return info


def _register() -> None:
    """Make ``gymnasium.make("nugar/dara-v0", opponent="level:2")`` work for every preset."""
    from ..rules import PRESETS

    for name in PRESETS:
        env_id = f"nugar/{name}-v0"
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="nugar.envs.gymnasium:NugarEnv",
                         kwargs={"rules": name})


_register()
