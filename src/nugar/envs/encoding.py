"""The fixed action space and the observations shared by every RL interface.

Action codes are the kernels' own (``docs/architecture.md``), named by the family's action
table; observations are computed by the compiled ``kernels/batch.py`` functions the family
descriptor names, so the single-game adapters and the batched simulator see exactly the same
numbers. ``docs/envs.md`` lists both.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import InvalidMoveError
from ..kernels.batch import turn_boards
from ..rules import RuleSet, parse_rules
from ..rules.base import Game, check_history
from ..rules.family import family_of
from ..rules.symmetry import Symmetry


class Encoder:
    """Action space size, action names and observations of one rule set.

    ``turn_board``: the board planes of Dara and Dala are turned half round in the second
    player's observations (row 0 is then his own side), as ``nugar.jax.make(rules,
    turn_board=True)`` turns them; sowing observations do not change (they are already
    laid out from the observer's holes)."""

    def __init__(self, rules: str | RuleSet, *, turn_board: bool = False) -> None:
        self.rules = parse_rules(rules)
        self.family = self.rules.family
        self.turn_board = bool(turn_board)
        self._load()
        self.num_actions = self._codec.size
        self.observation_shape: tuple[int, ...] = self._observation.shape(self.params)
        self.observation_size = int(np.prod(self.observation_shape))
        #: leading rows of an observation that show the position (``history_shape``)
        self.position_rows = int(self._observation.position_rows(self.params))

    def _load(self) -> None:
        """Ask the family for the params, the action table and the observation kernels."""
        parts = family_of(self.rules).parts
        self.params = parts.params(self.rules.options)
        self._codec = parts.codec(self.rules)
        self._observation = parts.observation()
        #: the board symmetries the rules keep (``rules/symmetry.py``), the identity first
        self.symmetries: tuple[Symmetry, ...] = parts.symmetries(self.rules)
        # only board planes turn: a sowing vector already lists the observer's holes first
        self._turns = self.turn_board and len(self._observation.shape(self.params)) == 3

    def __getstate__(self) -> dict[str, Any]:
        """A pickle keeps the rule set and sizes; the rest is asked from the family again."""
        return {k: v for k, v in self.__dict__.items()
                if k not in ("params", "_codec", "_observation", "symmetries")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._load()

    def observe(self, game: Game, player: int) -> NDArray[np.float32]:
        """A new observation array of ``game`` from ``player``'s (1 or 2) point of view."""
        if player not in (1, 2):
            raise ValueError(f"player must be 1 or 2, not {player!r}")
        out = np.zeros(self.observation_size, np.float32)
        self._observation.observe(self.params, game.state, player, out)
        obs = out.reshape(self.observation_shape)
        if self._turns and player == 2:
            obs = np.ascontiguousarray(obs[:, ::-1, ::-1])
        return obs

    def history_shape(self, history: int) -> tuple[int, ...]:
        """Shape of :meth:`observe_history` with ``history`` positions: the position rows of
        each (2 planes for Dara and Dala, the ``2P + 2`` holes and stores for sowing), then the
        rest of the present observation once."""
        first, *rest = self.observation_shape
        return (check_history(history) * self.position_rows + first - self.position_rows,
                *rest)

    def observe_history(self, game: Game, player: int, history: int) -> NDArray[np.float32]:
        """The observation with the position of the last ``history`` decisions stacked, as an
        AlphaZero-style network takes it (``docs/envs.md``): the position rows of the present
        position, of the one before the last decision, and so on back (zeros before the
        start), each seen by ``player`` as :meth:`observe` shows it; then the present
        observation's other rows (player to move, phase, hands, counters), once.
        ``history=1`` is :meth:`observe` itself. ``nugar.jax.make(rules, history=k)`` gives
        the same numbers."""
        m = self.position_rows
        out = np.zeros(self.history_shape(history), np.float32)
        now = self.observe(game, player)
        out[history * m:] = now[m:]
        out[:m] = now[:m]
        past = game.copy()
        for t in range(1, history):
            if not past.move_stack:
                break
            if past.undo() is None:  # an imposed ending (a resignation) goes first, alone
                past.undo()
            out[t * m:(t + 1) * m] = self.observe(past, player)[:m]
        return out

    def turn_rows(self, obs: NDArray[np.float32], players: NDArray[np.int64]) -> None:
        """With ``turn_board``, turn in place the rows of ``obs`` (``(N, observation_size)``
        or ``(N, *observation_shape)``, kernel observations) observed by the second player
        (``players[i] == 2``); turning twice gives the kernel's row back. No-op otherwise."""
        if not self._turns:
            return
        flat = obs.reshape((obs.shape[0], self.observation_size))  # a view: obs is contiguous
        turn_boards(self.observation_size // self.observation_shape[0],
                    np.asarray(players, np.int64), flat)

    def check_action(self, action: Any) -> int:
        """``action`` as an int code of this space; ``InvalidMoveError`` if it is not one."""
        if isinstance(action, bool | np.bool_):
            raise InvalidMoveError(f"an action is an integer code 0..{self.num_actions - 1}, "
                                   f"not {action!r}")
        try:
            code = operator.index(action)
        except TypeError:
            raise InvalidMoveError(f"an action is an integer code 0..{self.num_actions - 1}, "
                                   f"not {action!r}") from None
        if not 0 <= code < self.num_actions:
            raise InvalidMoveError(f"action {code} is outside the action space "
                                   f"0..{self.num_actions - 1} of {self.rules.text}")
        return code

    def action_name(self, code: int) -> str:
        """Readable name of an action code: ``c3``, ``c3-c4``, ``xe5``, ``pass``, a hole ``4``;
        a step leaving the board (never legal) is named by its direction, ``a1-left``."""
        return self._codec.names[self.check_action(code)]

    def action_names(self) -> list[str]:
        """The name of every code, in code order."""
        return list(self._codec.names)
