"""PettingZoo AEC environment for every nugar rule set.

``env("dara")`` gives the environment wrapped in PettingZoo's order-enforcing wrapper;
``raw_env`` is the bare class. Agents are ``player_0`` (the first player) and ``player_1``.
Each observation is ``{"observation": planes, "action_mask": int8 mask}`` from the observing
agent's point of view (``docs/envs.md``); the mask is all zeros for the agent not to move.
Decisions in a row by the same player (a capture after a three, a bonus sowing step) simply
select the same agent again. Rewards are +1/-1 (or 0/0 for a draw) on the last step;
every end of the rules (draws by ``repetition`` and ``quiet_limit`` included) is a
termination; ``max_steps`` (off by default) truncates the game after that many decisions.
An illegal action raises ``IllegalMoveError``.

Rendering: ``render_mode="ansi"`` makes ``render()`` return the text board;
``render_mode="human"`` prints it (after every step too, as PettingZoo's classic games do)
and ``render()`` returns ``None``. There is no parallel (simultaneous-move) version: in these
games one player decides at a time (``docs/envs.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..errors import IllegalMoveError
from ..kernels.batch import step_cap
from ..rules import RuleSet, new_game, parse_rules
from ..rules.base import Game
from .encoding import Encoder

AGENTS: tuple[str, str] = ("player_0", "player_1")


def env(rules: str | RuleSet = "dara", render_mode: str | None = None,
        turn_board: bool = False, max_steps: int | None = None) -> AECEnv:
    """The AEC environment of ``rules`` (``"dara"``, ``"kalah(pits=4)"``...), order-enforced;
    ``turn_board``: the second player sees the Dara or Dala board turned half round;
    ``max_steps``: truncate the game after that many decisions (off by default)."""
    return wrappers.OrderEnforcingWrapper(raw_env(rules, render_mode=render_mode,
                                                  turn_board=turn_board, max_steps=max_steps))


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo has no type hints
    """The bare AEC environment (PettingZoo's name for it); see the module docstring."""

    agent_selection: str
    agents: list[str]
    rewards: dict[str, float]
    _cumulative_rewards: dict[str, float]
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    infos: dict[str, dict[str, Any]]

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo reads this class attribute
        "render_modes": ["ansi", "human"],
        "name": "nugar_v0",
        "is_parallelizable": False,
    }

    def __init__(self, rules: str | RuleSet = "dara", render_mode: str | None = None,
                 turn_board: bool = False, max_steps: int | None = None) -> None:
        super().__init__()
        step_cap(max_steps)  # refuses a bad value with ValueError
        self.max_steps = max_steps
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not "
                             f"{render_mode!r}")
        self.rule_set = parse_rules(rules)
        self.encoder = Encoder(self.rule_set, turn_board=turn_board)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"nugar_{self.rule_set.name}_v0"}
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, self.encoder.observation_shape, np.float32),
            "action_mask": spaces.Box(0, 1, (self.encoder.num_actions,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(self.encoder.num_actions) for a in AGENTS}
        self.game: Game = new_game(self.rule_set)
        self._reset_bookkeeping()

    # --- PettingZoo API ----------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # The games are deterministic: the seed only seeds the action spaces for sampling.
        if seed is not None:
            for i, agent in enumerate(AGENTS):
                self.action_spaces[agent].seed(seed + i)
        self.game = new_game(self.rule_set)
        self._reset_bookkeeping()

    def observe(self, agent: str) -> dict[str, NDArray[Any]]:
        player = AGENTS.index(agent) + 1
        mask = np.zeros(self.encoder.num_actions, np.int8)
        if not self.game.is_over and not self._cut_off() and self.game.to_move == player:
            mask[self.game.legal_actions()] = 1
        return {"observation": self.encoder.observe(self.game, player), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalMoveError(f"{agent} must act: the game is not over")
        code = self.encoder.check_action(action)
        legal = self.game.legal_actions()
        if code not in legal:
            raise IllegalMoveError(
                f"action {code} ({self.encoder.action_name(code)}) is not legal for {agent}; "
                f"legal: {', '.join(f'{a} ({self.encoder.action_name(a)})' for a in legal)}")
        self._cumulative_rewards[agent] = 0.0
        self.game.push_action(code)
        self._decisions += 1
        self.rewards = dict.fromkeys(self.agents, 0.0)
        outcome = self.game.outcome
        cut = self._cut_off()
        if outcome is not None:
            if outcome.winner is not None:
                winner = AGENTS[outcome.winner - 1]
                self.rewards = {a: (1.0 if a == winner else -1.0) for a in self.agents}
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a] = {"outcome": outcome.reason, "result": outcome.result}
        elif cut:
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a] = {"outcome": "max_steps"}
        else:
            self.agent_selection = AGENTS[self.game.to_move - 1]
        self._accumulate_rewards()
        if outcome is not None or cut:
            # Both agents still have to see the end; start with the one not selected.
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "human":
            print(self.game, flush=True)
            return None
        return str(self.game)

    def close(self) -> None:
        pass

    # --- helpers -----------------------------------------------------------------------------
    def _cut_off(self) -> bool:
        """The game runs on by its rules but has reached the step cap ``max_steps``."""
        return (self.max_steps is not None and not self.game.is_over
                and self._decisions >= self.max_steps)

    def _reset_bookkeeping(self) -> None:
        self._decisions = 0
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[self.game.to_move - 1]
