"""Gymnasium single-agent environment: one player against a built-in nugar agent.

``NugarEnv("dara", opponent="level:3", player=1)``, or ``gymnasium.make("nugar/dara-v0")``
once this module is imported. The learner's decisions are the actions;
the opponent's whole run of decisions is played inside ``step`` (and inside ``reset`` when the
learner moves second). Observations are the planes of ``docs/envs.md`` from the learner's point
of view; ``info["action_mask"]`` (and ``action_masks()``, the name sb3-contrib looks for) gives
the legal actions. The reward is +1/-1/0 on the last step. Every end of the rules (draws by
``repetition`` and ``quiet_limit`` included) is a termination; ``max_steps`` (off by default)
truncates an episode after that many decisions of the game, both players' counted.

An action outside ``0..n-1`` is an error. An action inside the space but not legal is, by
default (``illegal_action="lose"``), a lost game (reward -1, terminated, ``info["illegal"]``),
as masking-free learners need; ``illegal_action="raise"`` raises ``IllegalMoveError`` instead.

``NugarVectorEnv("kalah", 1024, opponent="random")`` is a Gymnasium ``VectorEnv`` of many such
games over the batched simulator (``nugar.envs.batch``), with the same ``opponent``,
``player`` and ``opponent_limits``; see its docstring.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from ..ai import DEFAULT_LEVEL, Agent, Limits, make_agent
from ..errors import IllegalMoveError, InvalidMoveError
from ..kernels import batch as batch_kernels
from ..kernels.common import ST_TO_MOVE
from ..rules import RuleSet, new_game, parse_rules
from ..rules.base import Game
from .batch import BatchSimulator
from .encoding import Encoder

Obs = NDArray[np.float32]


class NugarEnv(gym.Env[Obs, np.int64]):
    """One nugar game against a built-in agent; see the module docstring."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012

    def __init__(self, rules: str | RuleSet = "dara",
                 opponent: str | Agent = f"level:{DEFAULT_LEVEL}",
                 player: int = 1, opponent_limits: Limits | None = None,
                 illegal_action: str = "lose", render_mode: str | None = None,
                 turn_board: bool = False, max_steps: int | None = None) -> None:
        batch_kernels.step_cap(max_steps)  # refuses a bad value with ValueError
        if player not in (1, 2):
            raise ValueError(f"player must be 1 (moves first) or 2, not {player!r}")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', not {illegal_action!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.rule_set = parse_rules(rules)
        self.encoder = Encoder(self.rule_set, turn_board=turn_board)
        self.player = player
        self.opponent: Agent = make_agent(opponent) if isinstance(opponent, str) else opponent
        self.opponent_limits = opponent_limits or Limits(time=0.1)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, self.encoder.observation_shape, np.float32)
        self.action_space = spaces.Discrete(self.encoder.num_actions)
        self.max_steps = max_steps
        self.game: Game = new_game(self.rule_set)
        self._decisions = 0  # of the game so far, both players', for max_steps

    # --- Gymnasium API -------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        # Agents that play at random draw from their own generator: seed it from ours so that
        # a seeded reset replays the same opponent.
        self.opponent.reseed(int(self.np_random.integers(2**62)))
        self.game = new_game(self.rule_set)
        self._decisions = 0
        self._play_opponent()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        if self.game.is_over or self._cut_off():
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
        self._decisions += 1
        self._play_opponent()
        outcome = self.game.outcome
        reward = 0.0
        if outcome is not None and outcome.winner is not None:
            reward = 1.0 if outcome.winner == self.player else -1.0
        terminated = outcome is not None
        return self._observation(), reward, terminated, self._cut_off(), self._info()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return str(self.game)

    def action_masks(self) -> NDArray[np.bool_]:
        """Legal actions of the learner now, as booleans (all false once the game is over)."""
        mask = np.zeros(self.encoder.num_actions, np.bool_)
        if not self.game.is_over and not self._cut_off() and self.game.to_move == self.player:
            mask[self.game.legal_actions()] = True
        return mask

    # --- helpers -------------------------------------------------------------------------------
    def _cut_off(self) -> bool:
        """The game runs on by its rules but has reached the step cap ``max_steps``."""
        return (self.max_steps is not None and not self.game.is_over
                and self._decisions >= self.max_steps)

    def _play_opponent(self) -> None:
        while (not self.game.is_over and not self._cut_off()
               and self.game.to_move != self.player):
            move = self.opponent.choose(self.game, self.opponent_limits)
            self.game.push(move)
            self._decisions += 1

    def _observation(self) -> Obs:
        return self.encoder.observe(self.game, self.player)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks().astype(np.int8)}
        outcome = self.game.outcome
        if outcome is not None:
            info["outcome"] = outcome.reason
            info["result"] = outcome.result
        elif self._cut_off():
            info["outcome"] = "max_steps"
        return info


class NugarVectorEnv(gym.vector.VectorEnv[Obs, NDArray[np.int64], NDArray[Any]]):
    """``num_envs`` games against a built-in agent, stepped together by the batched simulator.

    Every game waits for the learner (``player``) when ``step`` returns; ``step(actions)``
    takes one action code per game (``info["action_mask"]`` and ``action_masks()`` give the
    legal ones), then plays the opponent's decisions. A code outside the space raises
    ``InvalidMoveError``; a legal-looking but illegal one loses that game, as in
    :class:`NugarEnv` (``illegal_action="lose"``: reward -1, terminated,
    ``info["illegal"]``), or raises ``IllegalMoveError`` (``"raise"``) before any game
    moves. ``opponent="random"`` picks the opponent's moves in compiled code; any other
    agent spec (``"level:3"``, an :class:`~nugar.ai.base.Agent`) decides game by game on a
    copy of the game kept beside the batch (its history included). Rewards are the learner's
    (+1/-1/0 at the end); every end of the rules is ``terminated``, and ``max_steps`` (off by
    default) truncates a game after that many decisions, both players'. Finished games
    restart in the same step (Gymnasium's ``AutoresetMode.SAME_STEP``): the observation
    returned is the new game's, and ``info["final_obs"]`` (where ``info["_final_obs"]``) holds
    the last observation of the finished one. The arrays returned are fresh (safe to keep).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - Gymnasium reads this class attribute
        "render_modes": [], "autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}

    def __init__(self, rules: str | RuleSet = "dara", num_envs: int = 8,
                 opponent: str | Agent = f"level:{DEFAULT_LEVEL}", player: int = 1,
                 opponent_limits: Limits | None = None, illegal_action: str = "lose",
                 turn_board: bool = False, max_steps: int | None = None) -> None:
        if player not in (1, 2):
            raise ValueError(f"player must be 1 (moves first) or 2, not {player!r}")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', not {illegal_action!r}")
        self.illegal_action = illegal_action
        self.sim = BatchSimulator(rules, num_envs, auto_reset=False, turn_board=turn_board,
                                  max_steps=max_steps)
        self.max_steps = max_steps
        self.rule_set = self.sim.rules
        self.encoder = self.sim.encoder
        self.num_envs = num_envs
        self.player = player
        self.random_opponent = opponent == "random"
        self.opponent: Agent | None = (None if self.random_opponent else
                                       make_agent(opponent) if isinstance(opponent, str)
                                       else opponent)
        self.opponent_limits = opponent_limits or Limits(time=0.1)
        self.single_observation_space = spaces.Box(0.0, 1.0, self.encoder.observation_shape,
                                                   np.float32)
        self.single_action_space = spaces.Discrete(self.encoder.num_actions)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space,
                                                              num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self.games: list[Game] = []
        self._seed = 0

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        if seed is not None:
            self._np_random, _ = gym.utils.seeding.np_random(
                seed if isinstance(seed, int) else seed[0])
        if self.opponent is not None:
            self.opponent.reseed(int(self.np_random.integers(2**62)))
        self._seed = int(self.np_random.integers(2**62))
        self.sim.reset()
        self.games = ([new_game(self.rule_set) for _ in range(self.num_envs)]
                      if self.opponent is not None else [])
        rewards = np.zeros(self.num_envs, np.float32)
        self._play_opponent(rewards)
        return self._observations(), self._info()

    def step(self, actions: NDArray[np.int64]
             ) -> tuple[Obs, NDArray[Any], NDArray[Any], NDArray[Any], dict[str, Any]]:
        given = np.asarray(actions)
        if given.shape != (self.num_envs,):
            raise InvalidMoveError(f"actions must be {self.num_envs} codes (shape "
                                   f"({self.num_envs},)), got shape {given.shape}")
        acts = np.array([self.encoder.check_action(a) for a in given.tolist()], np.int64)
        illegal = ~self.sim.masks[np.arange(self.num_envs), acts]
        if illegal.any() and self.illegal_action == "raise":
            bad = int(np.flatnonzero(illegal)[0])
            raise IllegalMoveError(
                f"game {bad}: action {acts[bad]} ({self.encoder.action_name(int(acts[bad]))})"
                f" is not legal; legal: {np.flatnonzero(self.sim.masks[bad]).tolist()}")
        acts[illegal] = -1  # a lost game: it does not move, and starts again below
        rewards = np.zeros(self.num_envs, np.float32)
        out = self.sim.step(acts)
        self._push(acts)
        rewards += out.rewards[:, self.player - 1]
        self._play_opponent(rewards)
        terminated = self.sim.terminated | illegal
        truncated = self.sim.truncated.copy()
        rewards[illegal] = -1.0
        done = terminated | truncated
        info: dict[str, Any] = {}
        if illegal.any():
            info["illegal"] = illegal
        if done.any():
            info["final_obs"] = self._observations()
            info["_final_obs"] = done.copy()
            self.sim.reset(done)
            for i in np.flatnonzero(done) if self.opponent is not None else ():
                self.games[i] = new_game(self.rule_set)
            self._play_opponent(np.zeros(self.num_envs, np.float32))
        info.update(self._info())
        return self._observations(), rewards, terminated, truncated, info

    def action_masks(self) -> NDArray[np.bool_]:
        """(num_envs, num_actions): the learner's legal actions in every game."""
        return self.sim.masks.copy()

    # --- helpers -------------------------------------------------------------------------------
    def _push(self, actions: NDArray[np.int64]) -> None:
        """Play the actions on the games kept for an agent opponent (none for random)."""
        for game, a in zip(self.games, actions, strict=False):
            if a >= 0:
                game.push_action(int(a))

    def _play_opponent(self, rewards: NDArray[np.float32]) -> None:
        """Play the opponent's decisions until every running game waits for the learner,
        adding the learner's rewards of the games that end meanwhile."""
        sim = self.sim
        while True:
            running = ~(sim.terminated | sim.truncated)
            turn = running & (sim.states[:, ST_TO_MOVE] != self.player)
            if not turn.any():
                return
            if self.opponent is None:
                actions = np.zeros(self.num_envs, np.int64)
                self._seed = batch_kernels.random_legal_actions(sim.legal, sim.num_legal,
                                                                self._seed, actions)
            else:
                actions = np.full(self.num_envs, -1, np.int64)
                for i in np.flatnonzero(turn):
                    game = self.games[i]
                    actions[i] = game.move_to_action(
                        self.opponent.choose(game, self.opponent_limits))
            actions[~turn] = -1
            out = sim.step(actions)
            self._push(actions)
            rewards += out.rewards[:, self.player - 1]

    def _observations(self) -> Obs:
        """Every game seen from the learner's side (also a finished one)."""
        sim = self.sim
        obs = np.zeros((self.num_envs, self.encoder.observation_size), np.float32)
        for i in range(self.num_envs):
            batch_kernels.observe(sim._fam, sim.params, sim.states[i], self.player, obs[i])
        self.encoder.turn_rows(obs, np.full(self.num_envs, self.player, np.int64))
        return obs.reshape((self.num_envs, *self.encoder.observation_shape))

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.sim.masks.astype(np.int8)}


def _register() -> None:
    """Make ``gymnasium.make("nugar/dara-v0", opponent="level:2")`` work for every preset."""
    from ..rules import PRESETS

    for name in PRESETS:
        env_id = f"nugar/{name}-v0"
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="nugar.envs.gymnasium:NugarEnv",
                         kwargs={"rules": name})


_register()
